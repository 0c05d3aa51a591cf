#!/bin/sh
# Product builds trimmed to one model (-Dselect), each its own meson build: the
# model runs and matches, and another program is refused at load, naming what
# the selection left out; from a graph program's selection and from .pte
# programs' (opgen select --pte): small_cnn, and llama_decode (copy_ into its KV
# cache) with seq_dynamic (prim ops, et_view) in one build.
# usage: builds.sh SRCDIR OPGEN OUTDIR CORPUS (the meson test 'selective-builds',
# run by tests/all.sh's selective stage). At -O1: what they prove is the trimmed
# tables and the runs, not speed (the kernels' -O3 was most of the stage)
set -u
src=$1 out=$3 corpus=$4
opgen=$(cd "$(dirname "$2")" && pwd)/$(basename "$2") # meson gives it relative to the build
cd "$src" || exit 2
passed=0 failed=0
mkdir -p "$out"
selective() { # selective NAME SELECTION PROGRAM INPUTS EXPECTED OTHER OTHER-INPUTS REFUSAL
    dir="$out"/select-$1 log="$out"/select-$1.log
    rm -rf "$dir"
    rt=$dir/runtime-stubs/selective/opgen-rt
    if meson setup "$dir" -Doptimization=1 -Dselect="$2" >"$log" 2>&1 && ninja -C "$dir" runtime-stubs/selective/opgen-rt >>"$log" 2>&1 &&
        # shellcheck disable=SC2086
        "$rt" run "$3" $4 -o "$dir/out" >>"$log" 2>&1 &&
        "$rt" compare "$5" "$dir/out/0.npy" >>"$log" 2>&1 &&
        # shellcheck disable=SC2086
        ! "$rt" run "$6" $7 -o "$dir/out2" 2>"$dir.err" &&
        grep -qF "$8" "$dir.err"; then
        passed=$((passed + 1))
        echo "$1: runs in its own selective build; $6 is refused: $(cat "$dir.err")"
    else
        echo "selective build $1 FAILED"
        tail -n 20 "$log" "$dir.err" 2>/dev/null
        failed=$((failed + 1))
    fi
}
graph_inputs() { for f in tests/examples/"$1"/inputs/*.npy; do printf -- '--input %s=%s ' "$(basename "$f" .npy)" "$f"; done; }
selective mlp-graph tests/select/expected/mlp_graph.yaml tests/examples/mlp.graph "$(graph_inputs mlp)" tests/examples/mlp/expected/0.npy \
    tests/examples/attention.graph "$(graph_inputs attention)" "is left out of this build's selection (mlp_graph.yaml)"
# from .pte programs (opgen select --pte): small_cnn (the README builds mlp's), and
# the stateful and dynamic programs together: llama_decode (copy_ into its KV cache)
# decodes its greedy tokens and seq_dynamic (prim ops, et_view) matches, in one build
if [ -f "$corpus/exir/small_cnn/model.pte" ] && [ -f "$corpus/exir/llama_decode/model.pte" ]; then
    if "$opgen" select --pte "$corpus/exir/small_cnn/model.pte" -o "$out"/select-small_cnn.yaml >"$out"/select-small_cnn.log 2>&1; then
        selective small_cnn "$out"/select-small_cnn.yaml "$corpus/exir/small_cnn/model.pte" "--input 0=$corpus/exir/small_cnn/inputs/0_0.npy" "$corpus/exir/small_cnn/expected/0_0.npy" \
            "$corpus/exir/mlp/model.pte" "--input 0=$corpus/exir/mlp/inputs/0_0.npy" \
            "method 'forward', instruction 2 (aten::relu.out): aten::relu.out is left out of this build's selection (select-small_cnn.yaml)"
    else
        echo "opgen select --pte small_cnn.pte FAILED"
        cat "$out"/select-small_cnn.log
        failed=$((failed + 1))
    fi
    dir="$out"/select-state log="$out"/select-state.log rt="$out"/select-state/runtime-stubs/selective/opgen-rt
    rm -rf "$dir"
    if "$opgen" select --pte "$corpus/exir/llama_decode/model.pte" --pte tests/exir/seq_dynamic/model.pte -o "$out"/select-state.yaml >"$log" 2>&1 &&
        meson setup "$dir" -Doptimization=1 -Dselect="$out"/select-state.yaml >>"$log" 2>&1 && ninja -C "$dir" runtime-stubs/selective/opgen-rt >>"$log" 2>&1 &&
        [ "$("$rt" generate "$corpus/exir/llama_decode/model.pte" --prompt 3,77 --steps 12 2>>"$log")" = "8 20 22 93 127 115 124 103 29 97 29 97" ] &&
        "$rt" run tests/exir/seq_dynamic/model.pte --calls tests/exir/seq_dynamic/inputs -o "$dir/out" >>"$log" 2>&1 &&
        "$rt" compare tests/exir/seq_dynamic/expected/2_0.npy "$dir/out/2_0.npy" >>"$log" 2>&1 &&
        ! "$rt" run "$corpus/exir/mlp/model.pte" --input 0="$corpus/exir/mlp/inputs/0_0.npy" -o "$dir/out2" 2>"$dir.err" &&
        grep -qF "aten::relu.out is left out of this build's selection (select-state.yaml)" "$dir.err"; then
        passed=$((passed + 1))
        echo "llama_decode + seq_dynamic: decode and match in their own selective build; mlp is refused: $(cat "$dir.err")"
    else
        echo "selective build of llama_decode + seq_dynamic FAILED"
        tail -n 20 "$log" "$dir.err" 2>/dev/null
        failed=$((failed + 1))
    fi
else
    echo "SKIP: $corpus/exir is absent: no selective builds from .pte programs"
    skipped=1
fi

echo "selective-builds: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || exit 1
[ "${skipped:-0}" -eq 0 ] || [ "$passed" -gt 0 ] || exit 77
