#!/bin/sh
# Where the time goes, layer by layer, beside the peer (hand-run; never in the
# suite): opgen-rt --profile on NAME.pte and ONNX Runtime's own profile
# (enable_profiling, ORT_ENABLE_ALL) on NAME.onnx, the same architecture
# exported twice. Their layers (convolutions and matrix products) are paired in
# the order they run: the k-th of opgen's beside the k-th of ORT's (where the
# two order independent branches differently, as ResNet's downsampling 1x1
# beside its block's second 3x3, neighbouring rows swap: opgen's MFLOP column
# shows it). Medians of REPEAT calls each, microseconds; "vs ORT" is ORT's time
# over opgen's (above 1: opgen faster). Profiling adds a little to each node on
# both sides.
#   usage: layers_peer.sh OPGEN_RT MODELS_DIR NAME THREADS [REPEAT] [ROOT]
# MODELS_DIR and ROOT as for int8_peer.sh (MODELS_DIR bind-mounted in ROOT at
# /models); NAME e.g. mobilenet_v2 or resnet18_int8. Without ROOT's
# onnxruntime, opgen's column only.
rt=$1 dir=$2 name=$3 threads=$4 repeat=${5:-50} root=${6:-/srv/sid}
[ -n "$threads" ] || { echo "usage: layers_peer.sh OPGEN_RT MODELS_DIR NAME THREADS [REPEAT] [ROOT]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$rt" run "$dir/$name.pte" -i 0="$dir/input.npy" -o "$tmp/out" --repeat "$repeat" --threads "$threads" --profile \
    >"$tmp/opgen.txt" 2>&1 || { cat "$tmp/opgen.txt" >&2; exit 1; }
# instr op ms [GFLOP/s], in instruction order; the layers apart
awk 'NR > 3 && $1 ~ /^[0-9]+$/ { print $1, $2, $3 * 1000, (NF >= 5 ? $5 : "-") }' "$tmp/opgen.txt" | sort -n >"$tmp/o_all"
grep -E ' aten::(convolution|addmm|mm|linear|bmm)' "$tmp/o_all" >"$tmp/o_layers"
: >"$tmp/ort_all"
if [ -x "$root/usr/bin/python3" ] && chroot "$root" python3 -c "import onnxruntime" 2>/dev/null &&
    [ -f "$root/models/$name.onnx" ]; then
    cp "$here/ort_int8.py" "$root/tmp/ort_int8.py"
    chroot "$root" python3 /tmp/ort_int8.py layers /models "$name" "$threads" "$repeat" 2>/dev/null >"$tmp/ort_all"
else
    echo "layers_peer: no exporter root with onnxruntime at $root (or no /models/$name.onnx there): opgen only" >&2
fi
grep -E '^[A-Za-z]*(Conv|Gemm|MatMul)[A-Za-z]* ' "$tmp/ort_all" >"$tmp/r_layers"
echo "| # | opgen instr | opgen us | opgen MFLOP | opgen GFLOP/s | ORT node | ORT us | vs ORT |"
echo "|---|---|---|---|---|---|---|---|"
# paste pairs line k with line k (a side with fewer layers leaves the other's empty)
paste -d'|' "$tmp/o_layers" "$tmp/r_layers" | awk -F'|' '
{ split($1, o, " "); split($2, r, " ")
  node = r[2]; sub(/^.*\/features\./, "features.", node); sub(/_output_0.*$/, "", node)
  ratio = (o[3] != "" && r[3] != "") ? sprintf("%.2fx", r[3] / o[3]) : "-"
  mflop = (o[4] != "" && o[4] != "-") ? sprintf("%.1f", o[4] * o[3] / 1000) : "-"
  printf "| %d | %s | %s | %s | %s | %s %s | %s | %s |\n", NR, o[1] == "" ? "-" : o[1], o[3] == "" ? "-" : sprintf("%.1f", o[3]),
         mflop, o[4] == "" ? "-" : o[4], r[1], node, r[3] == "" ? "-" : r[3], ratio }'
awk -v f="$tmp/o_layers" -v g="$tmp/o_all" -v h="$tmp/r_layers" -v k="$tmp/ort_all" -v nm="$name" -v t="$threads" 'BEGIN {
  while ((getline l < f) > 0) { split(l, a, " "); ol += a[3]; on++ }
  while ((getline l < g) > 0) { split(l, a, " "); oa += a[3] }
  while ((getline l < h) > 0) { split(l, a, " "); rl += a[3]; rn++ }
  while ((getline l < k) > 0) { split(l, a, " "); ra += a[3] }
  printf "%s, %d thread(s): opgen %d layers %.0f us, other %.0f us, in all %.0f us", nm, t, on, ol, oa - ol, oa
  if (rn) printf "; ORT %d layers %.0f us, other %.0f us, in all %.0f us", rn, rl, ra - rl, ra
  printf "\n" }'
