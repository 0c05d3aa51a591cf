#!/bin/sh
# One program's calls on the emulated board through a command-line runner built
# for it: `RUNNER run MODEL --input 0=IN -o OUT` for each input, then the output
# against the expected one: 'exact' (the same bytes) or within a relative
# tolerance (the runner's own compare, on the board too).
#     usage: device_run.sh QEMU_RUN BOARD RUNNER MODEL DIR exact|RTOL
# DIR holds inputN.npy/expectedN.npy (N = 1..), or inputs/K_0.npy/expected/K_0.npy.
qemu=$1 board=$2 rt=$3 model=$4 dir=$5 tol=$6
[ -f "$model" ] || { echo "SKIP: $model is absent"; exit 77; }
out=$(mktemp -d "${TMPDIR:-/tmp}/device.XXXXXX") || exit 2
trap 'rm -rf "$out"' EXIT
if [ -d "$dir/inputs" ]; then
    set -- "$dir"/inputs/*_0.npy
else
    set -- "$dir"/input*.npy
fi
n=0 failed=0
for in in "$@"; do
    case $in in */inputs/*) exp=$dir/expected/$(basename "$in") ;; *) exp=$dir/expected$(basename "$in" | sed 's/^input//') ;; esac
    n=$((n + 1))
    mkdir -p "$out/$n"
    if ! "$qemu" "$board" "$rt" run "$model" --input "0=$in" -o "$out/$n" >"$out/log" 2>&1; then
        cat "$out/log"; echo "FAIL: $(basename "$model") does not run on $board for $in"; failed=1; continue
    fi
    if [ "$tol" = exact ]; then
        cmp -s "$exp" "$out/$n/0.npy" || { echo "FAIL: $out/$n/0.npy differs from $exp"; failed=1; continue; }
    elif ! "$qemu" "$board" "$rt" compare "$exp" "$out/$n/0.npy" --rtol "$tol" --atol 1e-6 >"$out/log" 2>&1; then
        cat "$out/log"; echo "FAIL: $(basename "$model") on $board for $in: not within rtol $tol of $exp"; failed=1; continue
    fi
    echo "ok: $(basename "$model") on $board, $(basename "$in"): $([ "$tol" = exact ] && echo "the same bytes as" || echo "within rtol $tol of") $(basename "$exp")"
done
[ "$n" -gt 0 ] || { echo "FAIL: no inputs in $dir"; exit 1; }
exit $failed
