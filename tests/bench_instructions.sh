#!/bin/sh
# Instruction counts (valgrind callgrind: deterministic, unlike wall time on a
# shared VM) of one libyaml scan and one parse + model of the same file.
# usage: bench_instructions.sh BENCH_MODEL NATIVE_FUNCTIONS TAGS [EDGE]
set -u
bench=$1 nf=$2 tags=$3 edge=${4:-}
if ! command -v valgrind >/dev/null 2>&1; then
    echo "SKIP: valgrind not installed"
    exit 77
fi
[ -f "$nf" ] || { echo "SKIP: $nf not found"; exit 77; }
count() { # count FUNCTION [EDGE]: instructions inside FUNCTION in one run
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect="$1" "$bench" "$nf" "$tags" 1 ${2:-} 2>&1 >/dev/null |
        sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,
}
scan=$(count bench_scan)
model=$(count bench_model)
echo "bench_instructions: $nf"
echo "  libyaml scan          $scan instructions"
echo "  opgen parse + model   $model instructions"
awk -v s="$scan" -v m="$model" 'BEGIN { printf "  ratio model/scan: %.2f (target <= 2.00)\n", m / s }'
if [ -n "$edge" ]; then
    scan2=$(count bench_scan_both "$edge")
    gen=$(count bench_generate "$edge")
    echo "  libyaml scan of both files  $scan2 instructions"
    echo "  opgen generate (in memory)  $gen instructions"
    awk -v s="$scan2" -v m="$gen" 'BEGIN { printf "  ratio generate/scan: %.2f\n", m / s }'
fi
