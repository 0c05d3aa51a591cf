#!/bin/sh
# The whole test suite, exactly as CI runs it (tests/README.md says what each
# stage proves and why it runs where it does):
#   gcc        -Werror, every test; the benchmarks built and run once
#   clang      -Werror, every source compiled (-O1); every test but the backend builds
#   asan-ubsan ASan+UBSan with leak checks, every test but the backend builds
#   selective  product builds trimmed with -Dselect, from graph and .pte programs
#   cortex-m   bare-metal cross builds for the Cortex-M55 and M4, tests on QEMU
#   readme     README.md's command blocks, in order, in a fresh copy
#   fuzz       every libFuzzer target for 15 s, two at a time
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

# gcc proves everything: every test, and the benchmarks, built and run once so
# they cannot rot (figures: meson test --benchmark); backend projects that build
# opgen as their subproject are the README stage's (its cortex_m backend)
stage gcc
OPGEN_SUBPROJECT_BUILDS=0 suite gcc gcc "--no-suite selective-builds --no-suite bench-smoke"
meson test -C build-ci/gcc --suite bench-smoke --print-errorlogs >build-ci/bench.log 2>&1
grep -E '^ *[0-9]+/[0-9]+ |bench-smoke:|FAIL' build-ci/bench.log
count build-ci/bench.log
sh tests/size/sizes.sh build-ci/gcc/tests/size/size_test build-ci/gcc/tests/size/size_test_add 2>&1 | sed 's/^/gcc: /'

# clang: every source compiled with -Werror, every test run; the backend projects
# (opgen compiled again as a subproject, stubs compiled by gcc and clang) are the
# gcc stage's: they build the same sources this stage compiled. At -O1: clang's
# warnings do not depend on optimisation, and the kernels' -O3 takes most of the
# build (gcc's stage proves -O3); the CLI fault matrix is gcc's and ASan's (it
# drives the same code with bad input; under clang it found nothing more)
stage clang
OPGEN_BACKEND_BUILDS=0 suite clang clang "--no-suite selective-builds --no-suite bench-smoke --no-suite lint --no-suite fault-matrix" -Doptimization=1

# ASan+UBSan: everything that parses or runs untrusted input (yaml, graph text,
# .pte, .npy, command lines, the fault matrix) and every kernel case; at -O1 (the
# kernels' -O3 takes minutes to build instrumented, and finds nothing more); with
# float-to-integer conversions out of range too (not in gcc's "undefined"); linked
# without PIE: UBSan's check data (13 MB, half a million pointers) is then fixed
# at link time, not relocated page by page at every start (the tests start some
# thousands of processes: 170 -> 125 ms each)
stage asan-ubsan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
OPGEN_BACKEND_BUILDS=0 \
    suite asan-ubsan gcc "--no-suite selective-builds --no-suite bench-smoke --no-suite lint" -Db_sanitize=address,undefined -Db_lundef=false -Doptimization=1 \
    -Dc_args=-fsanitize=float-cast-overflow -Dc_link_args="-fsanitize=float-cast-overflow -no-pie"

# product builds trimmed to one model (-Dselect): the model runs and matches, and
# the other program is refused at load, naming what the selection left out; from
# a graph program's selection and from .pte programs' (opgen select --pte)
stage selective
meson test -C build-ci/gcc --suite selective-builds --print-errorlogs >build-ci/selective.test.log 2>&1
grep -E '^ *[0-9]+/[0-9]+ |selective-builds:|runs in its own|decode and match|FAILED' build-ci/selective.test.log
count build-ci/selective.test.log

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
secs=${OPGEN_FUZZ_SECONDS:-10}
stage fuzz
rm -rf build-ci/fuzz
echo "fuzz: clang -fsanitize=fuzzer, $secs s per target"
# -O0: a smoke run needs working targets, not fast ones (-O1 took 139 of the
# stage's 215 s to build on the CI machine; the targets run 15 s each either way)
# (only the fuzz targets: the product's binaries serve nothing here)
if CC=clang meson setup build-ci/fuzz -Dfuzzing=true --buildtype=debug -Doptimization=0 >build-ci/fuzz.setup.log 2>&1 &&
    ninja -C build-ci/fuzz fuzz-schema fuzz-native fuzz-edge fuzz-graph fuzz-npy fuzz-exec fuzz-pte >build-ci/fuzz.build.log 2>&1; then
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
