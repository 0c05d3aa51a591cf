#!/bin/sh
# Instruction counts (valgrind callgrind: deterministic, unlike wall time on a
# shared VM) of one libyaml scan and one parse + model of the same file.
# usage: bench_instructions.sh BENCH_MODEL NATIVE_FUNCTIONS TAGS
set -u
bench=$1 nf=$2 tags=$3
if ! command -v valgrind >/dev/null 2>&1; then
    echo "SKIP: valgrind not installed"
    exit 77
fi
[ -f "$nf" ] || { echo "SKIP: $nf not found"; exit 77; }
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect="$1" "$bench" "$nf" "$tags" 1 2>&1 >/dev/null |
        sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,
}
scan=$(count bench_scan)
model=$(count bench_model)
echo "bench_instructions: $nf"
echo "  libyaml scan          $scan instructions"
echo "  opgen parse + model   $model instructions"
awk -v s="$scan" -v m="$model" 'BEGIN { printf "  ratio model/scan: %.2f (target <= 2.00)\n", m / s }'
