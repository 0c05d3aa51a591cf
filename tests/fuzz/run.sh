#!/bin/sh
# Runs every fuzz-* target in BUILD_DIR for SECONDS each, seeded from the tests.
# usage: run.sh BUILD_DIR SECONDS [OUT_DIR [TARGET...]]
#   OUT_DIR keeps the corpora (and any crash-* artifacts) for a later run
set -eu
build=$1 secs=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${3:-$(mktemp -d)}
[ $# -gt 3 ] && shift 3 && targets=$* || targets="schema native edge graph npy exec pte"
mkdir -p "$out/schema" "$out/native" "$out/edge" "$out/graph" "$out/npy" "$out/exec" "$out/pte"
# seeds: one file per schema line; the yaml inputs of the tests and of the embedded default
n=0
while IFS= read -r line; do
    n=$((n + 1))
    printf '%s' "$line" >"$out/schema/seed$n"
done <"$src/tests/fuzz/schema-seeds.txt"
# fuzz-native: a first byte 0 makes the rest native_functions, 1 tags.yaml
for f in "$src"/tests/golden/*.yaml "$src"/yaml/*.yaml; do
    { printf '\000'; cat "$f"; } >"$out/native/nf-$(basename "$f")"
done
for f in "$src"/yaml/tags.yaml "$src"/tests/golden/tag*.yaml; do
    { printf '\001'; cat "$f"; } >"$out/native/tags-$(basename "$f")"
done
# fuzz-edge: the embedded edge.yaml and the edge golden cases
cp "$src"/yaml/edge.yaml "$src"/tests/golden/edge_*.yaml "$out/edge/"
cp "$src"/tests/npy/*.npy "$out/npy/"
# graph seeds: the programs of the graph tests, one per file
awk 'BEGIN { n = 0 } /^    \{(true|false), "/ { n++; sub(/^    \{(true|false), "/, ""); sub(/",?$/, ""); gsub(/\\n/, "\n"); printf "%s", $0 > (dir "/seed" n) }' dir="$out/graph" "$src/tests/test_graph.c"
[ -n "$(ls "$out/graph")" ] || printf 'graph(%%x: f32[2]):\n  %%y = aten::relu(%%x)\n  return %%y\n' >"$out/graph/seed0"
# executor seeds: every kernel case, example and opgen-rt fixture program
n=0
for f in "$src"/tests/kernels/*/program.graph "$src"/tests/examples/*.graph "$src"/tests/rt/*.graph "$src"/tests/lower/*.graph; do
    n=$((n + 1))
    cp "$f" "$out/exec/seed$n"
done
# .pte seeds: the suite's built programs (every EValue and instruction kind), and
# ExecuTorch's programs from the corpus when present
for f in "$build"/tests/pte/*.pte; do [ -f "$f" ] && cp "$f" "$out/pte/"; done
for f in "$src"/../shared/corpus/executorch/pte/*.pte; do [ -f "$f" ] && cp "$f" "$out/pte/"; done
for f in "$src"/../shared/corpus/exir/*/model.pte; do [ -f "$f" ] && cp "$f" "$out/pte/exir-$(basename "$(dirname "$f")").pte"; done
for f in "$src"/tests/exir/*/model.pte; do [ -f "$f" ] && cp "$f" "$out/pte/suite-$(basename "$(dirname "$f")").pte"; done
[ -n "$(ls "$out/pte")" ] || printf '\014\000\000\000ET12\000\000\000\000' >"$out/pte/seed0"
# two targets at a time (the CI machine has two cores; each target is one
# process): the same seconds of fuzzing per target in half the wall time
jobs=${OPGEN_FUZZ_JOBS:-2}
fuzz_one() {
    "$build/fuzz-$1" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$out/crash-$1-" "$out/$1" >"$out/fuzz-$1.log" 2>&1
    echo $? >"$out/fuzz-$1.status"
}
running=0
for t in $targets; do
    echo "fuzz-$t: $secs s"
    fuzz_one "$t" &
    running=$((running + 1))
    [ "$running" -ge "$jobs" ] && wait && running=0
done
wait
status=0
for t in $targets; do
    if [ "$(cat "$out/fuzz-$t.status" 2>/dev/null)" != 0 ]; then
        echo "fuzz-$t FAILED; see $out/fuzz-$t.log"
        tail -30 "$out/fuzz-$t.log"
        status=1
    fi
    grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$out/fuzz-$t.log" | sed "s/^/fuzz-$t: /" | tail -2
done
exit $status
