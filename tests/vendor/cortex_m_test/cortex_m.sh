#!/bin/sh
# The cortex_m backend from the command line, as its vendor uses it:
#  1. a graph program calling a vendor op (cortex_m::quantized_mul.out) runs and
#     gives the reference result;
#  2. ExecuTorch's keyword_spotting.pte runs on opgen-rt-cortex_m: every node on a
#     cortex_m kernel or opgen's dim order kernel (--trace, golden), the logits as
#     pinned; info, print and verify --dialect backend take it;
#  3. opgen coverage: every op of operators.yaml implemented (golden);
#  4. opgen skeleton re-run over the backend keeps every filled-in file;
#  5. the vendor's own way: skeleton into a fresh folder, the filled-in kernels
#     copied over the stubs, its meson project built with opgen as a subproject
#     (-Dvendor_ops: opgen's tables hold the cortex_m ops), keyword spotting run.
# usage: cortex_m.sh OPGEN OPGEN_RT_CORTEX_M SRCDIR CORPUS CC SANITIZE
#        OPGEN_UPDATE_GOLDEN=1 rewrites tests/vendor/expected/cortex_m-*
set -u
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
opgen=$(abs "$1") rt=$(abs "$2") src=$(abs "$3") corpus=$(abs "$4") cc=$5 san=$6
yaml=$corpus/executorch/cortex_m/operators.yaml pte=$corpus/executorch/pte/keyword_spotting.pte
if [ ! -f "$yaml" ] || [ ! -f "$pte" ]; then echo "SKIP: $yaml or $pte is absent"; exit 77; fi
t=$src/tests/vendor/cortex_m_test exp=$src/tests/vendor/expected
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
golden() { # golden NAME FILE: FILE must equal expected/NAME
    [ "${OPGEN_UPDATE_GOLDEN:-}" = 1 ] && cp "$2" "$exp/$1"
    if cmp -s "$exp/$1" "$2"; then ok; else bad "$2 differs from expected/$1:"; diff -u "$exp/$1" "$2" | head -40; fi
}

# 1. a graph program calling the vendor's op
"$rt" run "$t/graph/vendor_op.graph" --input "a=$t/graph/a.npy" --input "b=$t/graph/b.npy" -o "$tmp/g" >/dev/null && ok || bad "the vendor-op graph program failed"
cmp -s "$tmp/g/0.npy" "$t/graph/expected.npy" && ok || bad "the vendor-op graph program's result differs from the reference"

# 2. the keyword-spotting model
(cd "$corpus/executorch/pte" && "$rt" run keyword_spotting.pte --input "0=$t/kws/input1.npy" -o "$tmp/k" --trace) >"$tmp/trace.txt" 2>&1 || bad "keyword_spotting.pte does not run"
golden cortex_m-kws-trace.txt "$tmp/trace.txt"
cmp -s "$tmp/k/0.npy" "$t/kws/expected1.npy" && ok || bad "the logits differ from kws/expected1.npy"
(cd "$corpus/executorch/pte" && "$rt" info keyword_spotting.pte) >"$tmp/info.txt" 2>&1 || bad "info failed"
golden cortex_m-kws-info.txt "$tmp/info.txt"
"$rt" print "$pte" >"$tmp/kws.graph" 2>&1 && grep -q 'cortex_m::quantized_linear.out(' "$tmp/kws.graph" && ok || bad "print failed"
"$rt" verify "$pte" --dialect backend && ok || bad "verify --dialect backend refused the program"

# 3. coverage
"$opgen" coverage "$src/tests/vendor/cortex_m" >"$tmp/coverage.md" || bad "coverage failed"
golden cortex_m-coverage.md "$tmp/coverage.md"
grep -q ' 0 stub, ' "$tmp/coverage.md" && ! grep -q '| stub\|| fallback' "$tmp/coverage.md" && ok || bad "coverage shows stubs"

# 4. skeleton again, from the yaml unchanged: every file kept
cp -R "$src/tests/vendor/cortex_m" "$tmp/be"
"$opgen" skeleton --backend cortex_m --kernels "$yaml" -o "$tmp/be" >"$tmp/rerun.txt" || bad "skeleton over the backend failed"
golden cortex_m-rerun.txt "$tmp/rerun.txt"
#    (meson.build names the yaml by its path from the backend, which moved to $tmp)
diff -r -x meson.build "$src/tests/vendor/cortex_m" "$tmp/be" >"$tmp/diff" && cmp -s "$src/tests/vendor/cortex_m/kernels/meson.build" "$tmp/be/kernels/meson.build" && ok ||
    { bad "a re-run changed the backend:"; head -20 "$tmp/diff"; }

# 5. a standalone backend project, opgen as its subproject
#    (unoptimised: what it proves is the project and its run, and -O3 kernels
#    take minutes to compile; the main build's are optimised)
fresh=$tmp/elsewhere/cortex_m
mkdir -p "$tmp/elsewhere"
"$opgen" skeleton --backend cortex_m --kernels "$yaml" -o "$fresh" >/dev/null || bad "skeleton into a fresh folder failed"
cp "$src/tests/vendor/cortex_m/kernels/"*.c "$fresh/kernels/" && cp "$src/tests/vendor/cortex_m/cortex_m_nn.h" "$fresh/"
grep -q "vendor_ops=" "$fresh/meson.build" && ok || bad "the backend's meson.build does not build opgen over its ops"
mkdir "$fresh/subprojects" && ln -s "$src" "$fresh/subprojects/opgen"
# OPGEN_BACKEND_BUILDS=0 (tests/all.sh's clang and ASan stages): opgen built again
# as a subproject is this build's code; OPGEN_SUBPROJECT_BUILDS=0 (its gcc stage):
# the README's cortex_m walkthrough builds this same project and checks its logits
if [ "${OPGEN_BACKEND_BUILDS:-1}" = 0 ] || [ "${OPGEN_SUBPROJECT_BUILDS:-1}" = 0 ]; then
    echo "SKIP the standalone project with opgen as its subproject (OPGEN_BACKEND_BUILDS=0 or OPGEN_SUBPROJECT_BUILDS=0)"
elif (cd "$fresh" && CC=$cc meson setup --werror --buildtype=debug -Db_sanitize="$san" -Db_lundef=false b >"$tmp/sub.log" 2>&1 && ninja -C b >>"$tmp/sub.log" 2>&1); then
    ok
    "$fresh/b/opgen-rt-cortex_m" run "$pte" --input "0=$t/kws/input2.npy" -o "$tmp/k2" >/dev/null 2>&1 && cmp -s "$tmp/k2/0.npy" "$t/kws/expected2.npy" && ok || bad "the standalone opgen-rt-cortex_m does not give the pinned logits"
else
    bad "the standalone cortex_m project does not build:"
    tail -20 "$tmp/sub.log"
fi

echo "cortex_m: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
