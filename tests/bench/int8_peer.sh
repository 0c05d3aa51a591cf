#!/bin/sh
# Quantized models beside the peer, in one run of alternating rounds (hand-run;
# never in the suite): opgen int8 and float (.pte, opgen-rt --repeat) against
# ONNX Runtime int8 (per-channel QDQ, uint8 activations) and float, at 1 and 2
# threads, medians; then each int8 output's largest error against eager
# PyTorch running the converted Q/DQ module, and whether the argmax agrees
# (on input.npy, then over the accuracy inputs where export_int8.py wrote them).
#   usage: int8_peer.sh OPGEN_RT MODELS_DIR [ROUNDS] [ROOT]
# MODELS_DIR: made by tests/exir/export_int8.py bench DIR (NAME.pte,
# NAME_int8.pte, NAME.onnx, NAME_*eager.npy, input.npy) and
# tests/bench/ort_int8.py quantize DIR NAME (NAME_int8.onnx); ROOT: the exporter
# root with python3-onnxruntime (../shared/reference/exporting-programs.md),
# MODELS_DIR bind-mounted there at /models. Without it, ORT's columns are "-".
rt=$1 dir=$2 rounds=${3:-3} root=${4:-/srv/sid}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ort=0
if [ -x "$root/usr/bin/python3" ] && chroot "$root" python3 -c "import onnxruntime" 2>/dev/null && [ -f "$root/models/input.npy" ]; then
    ort=1
    cp "$here/ort_int8.py" "$root/tmp/ort_int8.py"
else
    echo "int8_peer: no exporter root with onnxruntime at $root (or no /models there): opgen only" >&2
fi
# one thread: both runtimes pinned to the same CPU (a VM's vCPUs may differ in
# speed: the Zen 5 one's second ran ResNet-18 27% slower); PIN_CPU picks it
pin() { [ "$1" = 1 ] && command -v taskset >/dev/null && echo "taskset -c ${PIN_CPU:-0}"; }
opgen_ms() { # model threads -> median ms
    $(pin "$2") "$rt" run "$dir/$1.pte" -i 0="$dir/input.npy" -o "$tmp/out-$1-$2" --repeat 20 --threads "$2" 2>&1 |
        sed -n 's/.*median \([0-9.]*\) ms.*/\1/p'
}
ort_ms() {
    [ $ort = 1 ] || { echo -; return; }
    $(pin "$2") chroot "$root" python3 /tmp/ort_int8.py time /models "$1" "$2" 20 2>/dev/null | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p'
}
for r in $(seq "$rounds"); do
    for m in resnet18 mobilenet_v2; do
        for t in 1 2; do
            echo "$m $t $(opgen_ms "${m}_int8" $t) $(opgen_ms "$m" $t) $(ort_ms "${m}_int8" $t) $(ort_ms "$m" $t)" >>"$tmp/rounds"
        done
    done
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "-") }'; }
echo "| model | threads | opgen int8 | opgen float | ORT int8 (QDQ, u8) | ORT float | opgen int8 vs float | vs ORT int8 |"
echo "|---|---|---|---|---|---|---|---|"
for m in resnet18 mobilenet_v2; do
    for t in 1 2; do
        set -- $(for c in 3 4 5 6; do awk -v m=$m -v t=$t -v c=$c '$1 == m && $2 == t { print $c }' "$tmp/rounds" | median; done)
        echo "| $m | $t | $1 | $2 | $3 | $4 | $(awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx faster", b / a }') | $(awk -v a="$1" -v b="$3" 'BEGIN { if (b == "-") print "-"; else printf "%.2fx", b / a }') |"
    done
done
echo "(medians of $rounds alternating rounds, each the median of 20 calls, one thread pinned to CPU ${PIN_CPU:-0}; $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs)"
for m in resnet18 mobilenet_v2; do
    "$rt" compare "$dir/${m}_int8_eager.npy" "$tmp/out-${m}_int8-1/0.npy" --rtol 0 --atol 1e9 | sed "s|^[^:]*:|$m opgen int8 against eager Q/DQ:|"
    if [ $ort = 1 ]; then
        cp "$tmp/out-${m}_int8-1/0.npy" "$root/models/${m}_int8_opgen.npy"
        chroot "$root" python3 -c "
import numpy as np
e = np.load('/models/${m}_int8_eager.npy'); rng = float(e.max() - e.min())
for who in ('opgen', 'ort'):
    y = np.load('/models/${m}_int8_%s.npy' % who).reshape(e.shape)
    d = float(abs(y - e).max())
    top = [int(i) for i in np.flatnonzero(e.ravel() == e.max())]
    tie = ' (eager ties classes %s at %.4f; %s gives %d)' % (' and '.join(map(str, top)), float(e.max()), who, int(y.argmax())) if len(top) > 1 else ''
    print('$m %s int8: max abs error %.4f (%.2f%% of the output range %.3f), argmax %s%s' % (who, d, 100 * d / rng, rng, 'equal' if y.argmax() == e.argmax() else 'DIFFERS', tie))
"
    fi
    # the accuracy inputs (export_int8.py bench: DIR/acc/K.npy, eager's outputs beside)
    [ $ort = 1 ] && [ -f "$dir/acc/0.npy" ] || continue
    k=0
    while [ -f "$dir/acc/$k.npy" ]; do
        "$rt" run "$dir/${m}_int8.pte" -i 0="$dir/acc/$k.npy" -o "$tmp/acc" >/dev/null 2>&1 && cp "$tmp/acc/0.npy" "$dir/acc/${m}_int8_opgen_$k.npy"
        k=$((k + 1))
    done
    chroot "$root" python3 /tmp/ort_int8.py outputs /models "${m}_int8" 2>/dev/null
    chroot "$root" python3 -c "
import numpy as np
n = $k; worst = {}; agree = {}; ties = 0
for k in range(n):
    e = np.load('/models/acc/${m}_int8_eager_%d.npy' % k); rng = float(e.max() - e.min())
    top = set(int(i) for i in np.flatnonzero(e.ravel() == e.max())); ties += len(top) > 1
    for who in ('opgen', 'ort'):
        y = np.load('/models/acc/${m}_int8_%s_%d.npy' % (who, k)).reshape(e.shape)
        worst[who] = max(worst.get(who, 0.0), 100 * float(abs(y - e).max()) / rng)
        agree[who] = agree.get(who, 0) + (int(y.argmax()) == int(e.argmax()))
print('$m over %d more inputs: opgen int8 max error %.2f%% of the output range, argmax equal on %d; ORT %.2f%%, %d (eager ties its top classes on %d)' % (n, worst['opgen'], agree['opgen'], worst['ort'], agree['ort'], ties))
"
done
