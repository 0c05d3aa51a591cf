#!/bin/sh
# Every benchmark built and run once, so none can rot (the figures come from
# `meson test --benchmark`; tests/bench/README.md): bench_models also fails when
# ResNet-18 or MobileNetV2 give other bytes on two threads than on one.
# usage: smoke.sh REGISTRY REGISTRY_SYNTHETIC BACKEND KERNELS MODELS CORPUS
set -u
fail=0
run() { "$@" >/dev/null 2>"${TMPDIR:-/tmp}/bench-smoke.$$" || { echo "FAIL: $*"; tail -n 20 "${TMPDIR:-/tmp}/bench-smoke.$$"; fail=$((fail + 1)); }; }
run "$1" 1
run "$2" 1
run "$3" 1
run "$4" 1 --no-check
run "$5" 1 2 "$6"
rm -f "${TMPDIR:-/tmp}/bench-smoke.$$"
echo "bench-smoke: $((5 - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
