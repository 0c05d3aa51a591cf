#!/bin/sh
# The whole test suite, exactly as CI runs it (tests/README.md says what each
# stage proves and why it runs where it does):
#   gcc        -Werror, every test; the benchmarks built and run once
#   clang      -Werror, every source compiled; every test but the backend builds
#   asan-ubsan ASan+UBSan with leak checks, every test but the backend builds
#   selective  product builds trimmed with -Dselect, from graph and .pte programs
#   cortex-m   bare-metal cross builds for the Cortex-M55 and M4, tests on QEMU
#   readme     README.md's command blocks, in order, in a fresh copy
#   fuzz       every libFuzzer target for 15 s
# The last lines give each stage's wall time, then
# "opgen: N passed, N failed, N skipped". Build folders: build-ci/*.
set -u
cd "$(dirname "$0")/.." || exit 2
sh tests/fetch-pytorch-1.13.sh || true

passed=0 failed=0 skipped=0 times=
count() { # add up meson's summary in log $1
    ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$1" | tail -1)
    fl=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$1" | tail -1)
    to=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$1" | tail -1)
    up=$(sed -n 's/^Unexpected Pass: *\([0-9]*\).*/\1/p' "$1" | tail -1)
    sk=$(sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' "$1" | tail -1)
    [ -n "$ok$fl" ] || fl=1 # no summary: meson test itself failed
    passed=$((passed + ${ok:-0}))
    failed=$((failed + ${fl:-0} + ${to:-0} + ${up:-0}))
    skipped=$((skipped + ${sk:-0}))
}
start=$(date +%s)
stage() { # stage NAME: the previous stage ends, NAME begins
    now=$(date +%s)
    [ -n "${cur:-}" ] && times="$times$(printf '%-12s %5d s' "$cur" $((now - t0)))
"
    cur=$1 t0=$now
    [ -n "$cur" ] && echo "=== $cur ($(date -u +%H:%M:%S))"
}

suite() { # suite NAME CC "MESON-TEST-ARGS" MESON-SETUP-OPTIONS...
    name=$1 compiler=$2 targs=$3
    shift 3
    dir=build-ci/$name
    rm -rf "$dir"
    echo "$name: $compiler $*; meson test $targs"
    if ! CC=$compiler meson setup "$dir" --werror -Dtests=true "$@" >"build-ci/$name.setup.log" 2>&1 || ! ninja -C "$dir" >"build-ci/$name.build.log" 2>&1; then
        echo "$name: build FAILED"
        tail -n 30 "build-ci/$name.setup.log" "build-ci/$name.build.log" 2>/dev/null
        failed=$((failed + 1))
        return
    fi
    # shellcheck disable=SC2086
    meson test -C "$dir" --print-errorlogs $targs >"build-ci/$name.test.log" 2>&1
    grep -E '^ *[0-9]+/[0-9]+ ' "build-ci/$name.test.log"
    grep -q '^Fail: *0' "build-ci/$name.test.log" || sed -n '/^=*$/,$p' "build-ci/$name.test.log" | head -80
    count "build-ci/$name.test.log"
}

mkdir -p build-ci

# gcc proves everything: every test, the backend projects that build opgen as
# their subproject, and the benchmarks, built and run once so they cannot rot
# (figures: meson test --benchmark)
stage gcc
suite gcc gcc ""
if ninja -C build-ci/gcc tests/bench/bench_registry tests/bench/bench_registry_synthetic tests/bench/bench_backend tests/bench/bench_kernels tests/bench/bench_models >build-ci/bench.log 2>&1 &&
    build-ci/gcc/tests/bench/bench_registry 1 >>build-ci/bench.log 2>&1 &&
    build-ci/gcc/tests/bench/bench_registry_synthetic 1 >>build-ci/bench.log 2>&1 &&
    build-ci/gcc/tests/bench/bench_backend 1 >>build-ci/bench.log 2>&1 &&
    build-ci/gcc/tests/bench/bench_kernels 1 --no-check >>build-ci/bench.log 2>&1 &&
    build-ci/gcc/tests/bench/bench_models 1 2 ../shared/corpus >>build-ci/bench.log 2>&1; then
    echo "benchmarks: built and run once"
    sh tests/size/sizes.sh build-ci/gcc/tests/size/size_test build-ci/gcc/tests/size/size_test_add 2>&1 | sed 's/^/gcc: /'
    passed=$((passed + 1))
else
    echo "benchmarks FAILED"
    tail -n 20 build-ci/bench.log
    failed=$((failed + 1))
fi

# clang: every source compiled with -Werror, every test run; the backend projects
# (opgen compiled again as a subproject, stubs compiled by gcc and clang) are the
# gcc stage's: they build the same sources this stage compiled
stage clang
OPGEN_BACKEND_BUILDS=0 suite clang clang ""

# ASan+UBSan: everything that parses or runs untrusted input (yaml, graph text,
# .pte, .npy, command lines, the fault matrix) and every kernel case; at -O1 (the
# kernels' -O3 takes minutes to build instrumented, and finds nothing more); with
# float-to-integer conversions out of range too (not in gcc's "undefined")
stage asan-ubsan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
OPGEN_BACKEND_BUILDS=0 \
    suite asan-ubsan gcc "" -Db_sanitize=address,undefined -Db_lundef=false -Doptimization=1 \
    -Dc_args=-fsanitize=float-cast-overflow -Dc_link_args=-fsanitize=float-cast-overflow

# product builds trimmed to one model (-Dselect): the model runs and matches, and
# the other program is refused at load, naming what the selection left out; from
# a graph program's selection and from .pte programs' (opgen select --pte)
stage selective
corpus=../shared/corpus
selective() { # selective NAME SELECTION PROGRAM INPUTS EXPECTED OTHER OTHER-INPUTS REFUSAL
    dir=build-ci/select-$1 log=build-ci/select-$1.log
    rm -rf "$dir"
    rt=$dir/runtime-stubs/selective/opgen-rt
    if meson setup "$dir" -Dselect="$2" >"$log" 2>&1 && ninja -C "$dir" runtime-stubs/selective/opgen-rt >>"$log" 2>&1 &&
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
    if build-ci/gcc/opgen select --pte "$corpus/exir/small_cnn/model.pte" -o build-ci/select-small_cnn.yaml >build-ci/select-small_cnn.log 2>&1; then
        selective small_cnn build-ci/select-small_cnn.yaml "$corpus/exir/small_cnn/model.pte" "--input 0=$corpus/exir/small_cnn/inputs/0_0.npy" "$corpus/exir/small_cnn/expected/0_0.npy" \
            "$corpus/exir/mlp/model.pte" "--input 0=$corpus/exir/mlp/inputs/0_0.npy" \
            "method 'forward', instruction 2 (aten::relu.out): aten::relu.out is left out of this build's selection (select-small_cnn.yaml)"
    else
        echo "opgen select --pte small_cnn.pte FAILED"
        cat build-ci/select-small_cnn.log
        failed=$((failed + 1))
    fi
    dir=build-ci/select-state log=build-ci/select-state.log rt=build-ci/select-state/runtime-stubs/selective/opgen-rt
    rm -rf "$dir"
    if build-ci/gcc/opgen select --pte "$corpus/exir/llama_decode/model.pte" --pte tests/exir/seq_dynamic/model.pte -o build-ci/select-state.yaml >"$log" 2>&1 &&
        meson setup "$dir" -Dselect=build-ci/select-state.yaml >>"$log" 2>&1 && ninja -C "$dir" runtime-stubs/selective/opgen-rt >>"$log" 2>&1 &&
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
    skipped=$((skipped + 1))
fi

# bare metal: the runtime cross-built for Cortex-M (tests/cross/cortex-*.txt,
# picolibc, -Os as a device build), its tests run on QEMU's boards: unit tests and
# every kernel case, keyword spotting bit for bit against x86-64, small_cnn in a
# trimmed runtime against eager PyTorch
stage cortex-m
for core in m55 m4; do
    if command -v arm-none-eabi-gcc >/dev/null 2>&1 && command -v qemu-system-arm >/dev/null 2>&1; then
        suite "cortex-$core" gcc "" --cross-file "tests/cross/cortex-$core.txt" --buildtype=minsize
        # the figures (README): flash and RAM per model, the size test beside ExecuTorch's
        sh tests/cross/footprint.sh "build-ci/cortex-$core" 2>&1 | sed "s/^/cortex-$core: /"
        OPGEN_STRIP=arm-none-eabi-strip OPGEN_SIZE=arm-none-eabi-size OPGEN_TARGET=$core sh tests/size/sizes.sh "build-ci/cortex-$core/tests/size/size_test" "build-ci/cortex-$core/tests/size/size_test_add" 2>&1 | sed "s/^/cortex-$core: /"
    else
        echo "SKIP: cortex-$core: no arm-none-eabi-gcc or qemu-system-arm (Debian: gcc-arm-none-eabi picolibc-arm-none-eabi qemu-system-arm)"
        skipped=$((skipped + 1))
    fi
done

# the README: every ```sh block, in order, in a fresh copy of the tracked files
stage readme
if sh tests/readme.sh . build-ci/readme.log; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi

# valgrind (memcheck) over the whole suite, children traced: ~15 min on one core,
# so on request (OPGEN_VALGRIND=1); ASan+UBSan above covers the same ground in CI
if [ "${OPGEN_VALGRIND:-0}" = 1 ]; then
    stage valgrind
    rm -rf build-ci/valgrind
    if meson setup build-ci/valgrind -Dtests=true >build-ci/valgrind.setup.log 2>&1 && ninja -C build-ci/valgrind >build-ci/valgrind.build.log 2>&1; then
        sh tests/valgrind.sh build-ci/valgrind >build-ci/valgrind.test.log 2>&1
        grep -E '^ *[0-9]+/[0-9]+ ' build-ci/valgrind.test.log
        count build-ci/valgrind.test.log
    else
        echo "valgrind: build FAILED"
        failed=$((failed + 1))
    fi
fi

# fuzz smoke run: every fuzz-* target for a few seconds (clang's libFuzzer)
secs=${OPGEN_FUZZ_SECONDS:-15}
stage fuzz
rm -rf build-ci/fuzz
echo "fuzz: clang -fsanitize=fuzzer, $secs s per target"
# -O1: a smoke run needs working targets, not the kernels' -O3 (minutes to build)
if CC=clang meson setup build-ci/fuzz -Dfuzzing=true --buildtype=debug -Doptimization=1 >build-ci/fuzz.setup.log 2>&1 && ninja -C build-ci/fuzz >build-ci/fuzz.build.log 2>&1; then
    if sh tests/fuzz/run.sh build-ci/fuzz "$secs" build-ci/fuzz-out; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
else
    echo "fuzz: build FAILED"
    tail -n 20 build-ci/fuzz.setup.log build-ci/fuzz.build.log
    failed=$((failed + 1))
fi

stage ""
echo "=== wall time per stage"
printf '%s' "$times"
printf '%-12s %5d s\n' total $(($(date +%s) - start))
echo "opgen: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
