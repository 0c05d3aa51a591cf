#!/bin/sh
# The whole test suite, exactly as CI runs it: gcc and clang builds with -Werror,
# an ASan+UBSan build, a -Dselect product build, the README's walkthroughs, and a
# short run of every fuzz target. The last line reads
# "opgen: N passed, N failed, N skipped". Build folders: build-ci/*.
set -u
cd "$(dirname "$0")/.." || exit 2
sh tests/fetch-pytorch-1.13.sh || true

passed=0 failed=0 skipped=0
count() { # add up meson's summary in log $1
    ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$1" | tail -1)
    fl=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$1" | tail -1)
    to=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$1" | tail -1)
    up=$(sed -n 's/^Unexpected Pass: *\([0-9]*\).*/\1/p' "$1" | tail -1)
    sk=$(sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' "$1" | tail -1)
    passed=$((passed + ${ok:-0}))
    failed=$((failed + ${fl:-0} + ${to:-0} + ${up:-0}))
    skipped=$((skipped + ${sk:-0}))
}

suite() { # suite NAME CC MESON-OPTIONS...
    name=$1 compiler=$2
    shift 2
    dir=build-ci/$name
    rm -rf "$dir"
    echo "=== $name ($compiler $*)"
    if ! CC=$compiler meson setup "$dir" --werror "$@" >"build-ci/$name.setup.log" 2>&1 || ! ninja -C "$dir" >"build-ci/$name.build.log" 2>&1; then
        echo "$name: build FAILED"
        tail -n 30 "build-ci/$name.setup.log" "build-ci/$name.build.log" 2>/dev/null
        failed=$((failed + 1))
        return
    fi
    meson test -C "$dir" --print-errorlogs >"build-ci/$name.test.log" 2>&1
    grep -E '^ *[0-9]+/[0-9]+ ' "build-ci/$name.test.log"
    grep -q '^Fail: *0' "build-ci/$name.test.log" || sed -n '/^=*$/,$p' "build-ci/$name.test.log" | head -80
    count "build-ci/$name.test.log"
}

mkdir -p build-ci
suite gcc gcc
suite clang clang

# the benchmarks build, and run once, so they cannot rot (figures: meson test --benchmark)
echo "=== benchmarks (built and run once; timings are not checked)"
if ninja -C build-ci/gcc tests/bench/bench_registry tests/bench/bench_registry_synthetic tests/bench/bench_backend tests/bench/bench_kernels >build-ci/bench.log 2>&1 &&
    build-ci/gcc/tests/bench/bench_registry 1 >>build-ci/bench.log 2>&1 &&
    build-ci/gcc/tests/bench/bench_registry_synthetic 1 >>build-ci/bench.log 2>&1 &&
    build-ci/gcc/tests/bench/bench_backend 1 >>build-ci/bench.log 2>&1 &&
    build-ci/gcc/tests/bench/bench_kernels 1 --no-check >>build-ci/bench.log 2>&1; then
    passed=$((passed + 1))
else
    echo "benchmarks FAILED"
    tail -n 20 build-ci/bench.log
    failed=$((failed + 1))
fi
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    suite asan-ubsan gcc -Db_sanitize=address,undefined -Db_lundef=false

# a product build trimmed to one model (-Dselect): the MLP runs, the attention
# block fails at load naming what the selection left out
echo "=== selective build (-Dselect=tests/select/expected/mlp_graph.yaml)"
rm -rf build-ci/selected
if meson setup build-ci/selected -Dselect=tests/select/expected/mlp_graph.yaml >build-ci/selected.log 2>&1 && ninja -C build-ci/selected runtime-stubs/selective/opgen-rt tests/npy_close >>build-ci/selected.log 2>&1 &&
    build-ci/selected/runtime-stubs/selective/opgen-rt run tests/examples/mlp.graph $(for f in tests/examples/mlp/inputs/*.npy; do n=$(basename "$f" .npy); printf -- '--input %s=%s ' "$n" "$f"; done) -o build-ci/selected/out >>build-ci/selected.log 2>&1 &&
    build-ci/selected/tests/npy_close tests/examples/mlp/expected/0.npy build-ci/selected/out/0.npy >>build-ci/selected.log 2>&1 &&
    ! build-ci/selected/runtime-stubs/selective/opgen-rt run tests/examples/attention.graph $(for f in tests/examples/attention/inputs/*.npy; do n=$(basename "$f" .npy); printf -- '--input %s=%s ' "$n" "$f"; done) -o build-ci/selected/out2 2>build-ci/selected.err &&
    grep -q "which this build's selection (mlp_graph.yaml) leaves out" build-ci/selected.err; then
    passed=$((passed + 1))
    cat build-ci/selected.err
else
    echo "selective build FAILED"
    tail -n 20 build-ci/selected.log build-ci/selected.err 2>/dev/null
    failed=$((failed + 1))
fi

# the selective loop on real programs: opgen select --pte M.pte, a build trimmed to
# it (-Dselect), M runs there and matches PyTorch; the other program is refused
# at load, naming what the selection left out
corpus=../shared/corpus
echo "=== selective builds from .pte programs (exir mlp and small_cnn)"
if [ -f "$corpus/exir/mlp/model.pte" ] && [ -f "$corpus/exir/small_cnn/model.pte" ]; then
    for m in mlp small_cnn; do
        other=small_cnn refusal="method 'forward', instruction 0 (aten::convolution.out): aten::convolution.out is left out of this build's selection (select-mlp.yaml)"
        [ $m = small_cnn ] && other=mlp refusal="method 'forward', instruction 2 (aten::relu.out): aten::relu.out is left out of this build's selection (select-small_cnn.yaml)"
        dir=build-ci/select-$m log=build-ci/select-$m.log
        rm -rf "$dir"
        if build-ci/gcc/opgen select --pte "$corpus/exir/$m/model.pte" -o "build-ci/select-$m.yaml" >"$log" 2>&1 &&
            meson setup "$dir" -Dselect="build-ci/select-$m.yaml" >>"$log" 2>&1 && ninja -C "$dir" runtime-stubs/selective/opgen-rt tests/npy_close >>"$log" 2>&1 &&
            "$dir/runtime-stubs/selective/opgen-rt" run "$corpus/exir/$m/model.pte" --input 0="$corpus/exir/$m/inputs/0_0.npy" -o "$dir/out" >>"$log" 2>&1 &&
            "$dir/tests/npy_close" "$corpus/exir/$m/expected/0_0.npy" "$dir/out/0.npy" 1e-5 1e-6 >>"$log" 2>&1 &&
            ! "$dir/runtime-stubs/selective/opgen-rt" run "$corpus/exir/$other/model.pte" --input 0="$corpus/exir/$other/inputs/0_0.npy" -o "$dir/out2" 2>"$dir.err" &&
            grep -qF "$refusal" "$dir.err"; then
            passed=$((passed + 1))
            echo "$m: runs in its own selective build; $other is refused: $(cat "$dir.err")"
        else
            echo "selective build from $m.pte FAILED"
            tail -n 20 "$log" "$dir.err" 2>/dev/null
            failed=$((failed + 1))
        fi
    done
else
    echo "SKIP: $corpus/exir is absent"
    skipped=$((skipped + 1))
fi

# the README: every ```sh block, in order, in a fresh copy of the tracked files
echo "=== README walkthroughs (tests/readme.sh)"
if sh tests/readme.sh . build-ci/readme.log; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi

# valgrind (memcheck) over the whole suite, children traced: ~15 min on one core,
# so on request (OPGEN_VALGRIND=1); ASan+UBSan above covers the same ground in CI
if [ "${OPGEN_VALGRIND:-0}" = 1 ]; then
    echo "=== valgrind (memcheck, every test and every opgen/opgen-rt they start)"
    rm -rf build-ci/valgrind
    if meson setup build-ci/valgrind >build-ci/valgrind.setup.log 2>&1 && ninja -C build-ci/valgrind >build-ci/valgrind.build.log 2>&1; then
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
rm -rf build-ci/fuzz
echo "=== fuzz (clang -fsanitize=fuzzer, $secs s per target)"
if CC=clang meson setup build-ci/fuzz -Dfuzzing=true >build-ci/fuzz.setup.log 2>&1 && ninja -C build-ci/fuzz >build-ci/fuzz.build.log 2>&1; then
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

echo "opgen: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
