#!/bin/sh
# Instruction counts (valgrind callgrind: deterministic, unlike wall time on a
# shared VM) of one libyaml scan and one parse + model of the same file; with
# EDGE, of a generate in memory beside a scan of both files; with OPGEN, of whole
# processes: `opgen generate -o DIR` (every thread) beside a process scanning both.
# usage: bench_instructions.sh BENCH_MODEL NATIVE_FUNCTIONS TAGS [EDGE [OPGEN]]
set -u
bench=$1 nf=$2 tags=$3 edge=${4:-} opgen=${5:-}
if ! command -v valgrind >/dev/null 2>&1; then
    echo "SKIP: valgrind not installed"
    exit 77
fi
[ -f "$nf" ] || { echo "SKIP: $nf not found"; exit 77; }
total() { # total ARGS...: instructions of one process, every thread
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,
}
none=
count() { # count MODE [EDGE]: instructions of one `bench_model --once MODE` run (every
    # thread), less those of a run that only reads the files
    # shellcheck disable=SC2086
    [ -n "$none" ] || none=$(total "$bench" --once none "$nf" "$tags" ${2:-})
    echo $(($(total "$bench" --once "$1" "$nf" "$tags" ${2:-}) - none))
}
scan=$(count scan)
model=$(count model)
echo "bench_instructions: $nf"
echo "  libyaml scan          $scan instructions"
echo "  opgen parse + model   $model instructions"
awk -v s="$scan" -v m="$model" 'BEGIN { printf "  ratio model/scan: %.2f (target <= 2.00)\n", m / s }'
if [ -n "$edge" ]; then
    none=
    scan2=$(count scan2 "$edge")
    gen=$(count generate "$edge")
    echo "  libyaml scan of both files  $scan2 instructions"
    echo "  opgen generate (in memory)  $gen instructions"
    awk -v s="$scan2" -v m="$gen" 'BEGIN { printf "  ratio generate/scan: %.2f\n", m / s }'
fi
if [ -n "$edge" ] && [ -n "$opgen" ]; then
    out=$(mktemp -d) || exit 1
    pscan=$(total "$bench" --once scan2 "$nf" "$tags" "$edge")
    pgen=$(total "$opgen" generate --native-functions "$nf" --tags "$tags" --edge "$edge" -o "$out/h")
    rm -rf "$out"
    echo "  process scanning both files     $pscan instructions"
    echo "  process opgen generate -o DIR   $pgen instructions"
    awk -v s="$pscan" -v m="$pgen" 'BEGIN { printf "  ratio generate/scan (processes): %.2f (target <= 1.60)\n", m / s }'
fi
