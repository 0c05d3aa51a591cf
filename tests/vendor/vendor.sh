#!/bin/sh
# opgen skeleton and opgen coverage, end to end, as a vendor uses them:
#  1. the demo backend in the repo (tests/vendor/demo) is what skeleton writes plus
#     two filled-in kernels: re-running skeleton keeps them and changes nothing;
#  2. coverage of the demo: exactly add.out Float, relu.out Float and Double
#     implemented, mul.out Float a stub opgen's kernels cover (golden);
#  3. opgen-rt-demo runs the example programs on the demo's kernels (--trace,
#     golden) with the expected results; the demo as a standalone meson project
#     with opgen as a subproject builds and runs too;
#  4. a vendor's edit survives a re-run with one more op, the new op gets its
#     stub, an op dropped later is reported and left alone, a changed meson.build
#     is kept; every state compiles with gcc and clang and runs (stubs hand on);
#  6. the ExecuTorch kernel yaml (functions.yaml + quantized.yaml, ../shared/corpus):
#     one stub per op, every file compiling with gcc and clang -Wall -Wextra
#     -Werror, its meson project taking opgen as a subproject over the ops it
#     declares, and opgen's tables over them generating; the demo against opgen
#     installed with `meson install` (pkg-config);
#  7. ExecuTorch's Cadence HiFi kernel names shared by several ops (an excerpt of
#     functions_hifi.yaml, verbatim): the ops reach generated tables
#     (--vendor-ops), skeleton gives the C++ overload a second C name and says so,
#     and every file compiles;
#  5. a vendor kernel yaml with per-dtype kernels, a default, a shared kernel and a
#     custom op: the table in ExecuTorch's order, and the Float kernel runs.
# usage: vendor.sh OPGEN OPGEN_RT_DEMO NPY_CLOSE SRCDIR BUILDDIR CORPUS CC SANITIZE
#        OPGEN_UPDATE_GOLDEN=1 rewrites tests/vendor/expected/
set -u
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
opgen=$(abs "$1") rt_demo=$(abs "$2") close=$(abs "$3") src=$(abs "$4") build=$(abs "$5") corpus=$(abs "$6") cc=$7 san=$8
vendor=$src/tests/vendor
exp=$vendor/expected
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
golden() { # golden NAME FILE: FILE must equal expected/NAME
    [ "${OPGEN_UPDATE_GOLDEN:-}" = 1 ] && cp "$2" "$exp/$1"
    if cmp -s "$exp/$1" "$2"; then ok; else bad "$1 differs from expected/$1:"; diff -u "$exp/$1" "$2" | head -40; fi
}
inputs() { # the --input options of an example program
    for f in "$src/tests/examples/$1"/inputs/*.npy; do printf -- '--input %s=%s\n' "$(basename "$f" .npy)" "$f"; done
}
check_outputs() { # check_outputs EXAMPLE OUTDIR LABEL
    for want in "$src/tests/examples/$1"/expected/*.npy; do
        if "$close" "$want" "$2/$(basename "$want")" 1e-5 1e-5 >/dev/null; then ok; else bad "$3: $1/$(basename "$want") is wrong"; fi
    done
}
run_traced() { # run_traced RUNNER EXAMPLE OUTDIR: the trace, with paths from the source root
    # shellcheck disable=SC2046
    (cd "$src" && "$1" run "tests/examples/$2.graph" $(inputs "$2") -o "$3" --trace 2>&1)
}
rt_inc="-I$src/runtime-stubs/include -I$build"
# OPGEN_BACKEND_BUILDS=0 (tests/all.sh's clang and ASan stages) skips what does not
# depend on this build's compiler or sanitizer: compiling the stubs with gcc and
# clang, and the backend projects that build opgen again as their subproject.
# The gcc stage and the README's walkthroughs do both; tests/all.sh's gcc stage
# leaves the subproject build (OPGEN_SUBPROJECT_BUILDS=0) to the README's, whose
# cortex_m backend builds opgen as its subproject the same way.
builds=${OPGEN_BACKEND_BUILDS:-1}
compile_all() { # compile_all DIR LABEL: every C file, gcc and clang, -Werror
    [ "$builds" = 0 ] && return
    for c in gcc clang; do
        # shellcheck disable=SC2086
        if (cd "$1" && $c -std=c11 -Wall -Wextra -Werror -I. $rt_inc -c ./*.c kernels/*.c 2>"$tmp/cc.log"); then ok; else bad "$2: $c:"; head -20 "$tmp/cc.log"; fi
        rm -f "$1"/*.o
    done
}
link_runner() { # link_runner DIR BACKEND: opgen-rt-BACKEND against this build's runtime
    # shellcheck disable=SC2086
    (cd "$1" && "$cc" -std=c11 -I. $rt_inc ./*.c kernels/*.c "$build/libopgen-runtime.a" -lm $sanflags -o "opgen-rt-$2" 2>"$tmp/ld.log") || { bad "linking opgen-rt-$2:"; head -20 "$tmp/ld.log"; }
}
sanflags=
[ "$san" = none ] || sanflags="-fsanitize=$san"
demo_ops="aten::add.out:Float, aten::relu.out:Float+Double, aten::mul.out:Float"

# 1. the demo in the repo is in step with skeleton: a re-run keeps the two kernels
#    the demo filled in and rewrites nothing
cp -R "$vendor/demo" "$tmp/demo"
"$opgen" skeleton --backend demo --ops "$demo_ops" -o "$tmp/demo" >"$tmp/demo-rerun.txt" || bad "skeleton over the demo failed"
golden demo-rerun.txt "$tmp/demo-rerun.txt"
if diff -r "$vendor/demo" "$tmp/demo" >"$tmp/diff"; then ok; else bad "a re-run changed the demo:"; head -20 "$tmp/diff"; fi

# 2. coverage of the demo
"$opgen" coverage "$vendor/demo" >"$tmp/demo-coverage.md" || bad "coverage (markdown) failed"
golden demo-coverage.md "$tmp/demo-coverage.md"
"$opgen" coverage "$vendor/demo" --format jsonl >"$tmp/demo-coverage.jsonl" || bad "coverage (jsonl) failed"
golden demo-coverage.jsonl "$tmp/demo-coverage.jsonl"
implemented=$(grep -c '"state": "implemented"' "$tmp/demo-coverage.jsonl")
[ "$implemented" = 3 ] && ! grep '"state": "implemented"' "$tmp/demo-coverage.jsonl" | grep -qv 'demo_add_out\|demo_relu_out' && ok || bad "implemented cases: $implemented, expected add.out Float, relu.out Float and Double only"

# 3. programs on the demo's kernels: which kernel ran each node, and the results
for ex in mlp attention; do
    run_traced "$rt_demo" "$ex" "$tmp/out-$ex" >"$tmp/trace-$ex.txt" || bad "opgen-rt-demo run $ex failed:"
    golden "trace-$ex.txt" "$tmp/trace-$ex.txt"
    check_outputs "$ex" "$tmp/out-$ex" "opgen-rt-demo"
done
grep -q 'aten::relu -> demo_relu_out (demo)' "$tmp/trace-mlp.txt" && grep -q 'aten::add.Tensor -> demo_add_out (demo)' "$tmp/trace-attention.txt" && ok || bad "the demo's kernels did not run"
#    the demo on its own: a meson project with opgen as a subproject
#    (unoptimised: what it proves is the project and its run, and -O3 kernels
#    take minutes to compile; the main build's are optimised)
cp -R "$vendor/demo" "$tmp/demo-sub"
mkdir "$tmp/demo-sub/subprojects" && ln -s "$src" "$tmp/demo-sub/subprojects/opgen"
if [ "$builds" = 0 ] || [ "${OPGEN_SUBPROJECT_BUILDS:-1}" = 0 ]; then
    echo "SKIP the demo with opgen as a subproject (OPGEN_BACKEND_BUILDS=0 or OPGEN_SUBPROJECT_BUILDS=0)"
elif (cd "$tmp/demo-sub" && CC=$cc meson setup --werror --buildtype=debug -Db_sanitize="$san" -Db_lundef=false b >"$tmp/sub.log" 2>&1 && ninja -C b >>"$tmp/sub.log" 2>&1); then
    ok
    run_traced "$tmp/demo-sub/b/opgen-rt-demo" mlp "$tmp/out-sub" >"$tmp/trace-sub.txt" || bad "the subproject build's opgen-rt-demo failed"
    if cmp -s "$exp/trace-mlp.txt" "$tmp/trace-sub.txt"; then ok; else bad "the subproject build ran other kernels:"; cat "$tmp/trace-sub.txt"; fi
    check_outputs mlp "$tmp/out-sub" "demo (subproject)"
else
    bad "the demo with opgen as a subproject does not build:"
    tail -20 "$tmp/sub.log"
fi

# 4. a vendor's work survives re-runs (embedded inputs: the default op set)
a=$tmp/acme
"$opgen" skeleton --backend acme --ops "aten::add.out, aten::relu.out" -o "$a" >"$tmp/acme-1.txt" || bad "skeleton acme (1)"
golden acme-1.txt "$tmp/acme-1.txt"
compile_all "$a" "acme (2 ops)"
link_runner "$a" acme
run_traced "$a/opgen-rt-acme" mlp "$tmp/out-acme" >"$tmp/trace-acme-1.txt" || bad "opgen-rt-acme (all stubs) failed"
grep -q 'aten::relu -> opgen_portable_relu_out (opgen)' "$tmp/trace-acme-1.txt" && ok || bad "a stub did not hand relu on to opgen's kernel"
check_outputs mlp "$tmp/out-acme" "acme, all stubs"
#    the vendor fills in add.out's Float case
sed 's|return opgen_not_implemented(ctx, OPGEN_DTYPE_Float);|return opgen_portable_add_out(ctx, self, other, alpha, out); /* acme: ours */|' "$a/kernels/acme_add_out.c" >"$tmp/edited.c" && mv "$tmp/edited.c" "$a/kernels/acme_add_out.c"
grep -q 'acme: ours' "$a/kernels/acme_add_out.c" || bad "the test's edit did not apply"
cp "$a/kernels/acme_add_out.c" "$tmp/acme_add_out.c.edited"
#    ... and asks for one more op
"$opgen" skeleton --backend acme --ops "aten::add.out, aten::relu.out, aten::mul.out" -o "$a" >"$tmp/acme-2.txt" || bad "skeleton acme (2)"
golden acme-2.txt "$tmp/acme-2.txt"
cmp -s "$tmp/acme_add_out.c.edited" "$a/kernels/acme_add_out.c" && ok || bad "the vendor's edit of acme_add_out.c did not survive"
[ -f "$a/kernels/acme_mul_out.c" ] && grep -q 'opgen_not_implemented(ctx, OPGEN_DTYPE_Float)' "$a/kernels/acme_mul_out.c" && ok || bad "no stub for the new op mul.out"
grep -q "'acme_mul_out.c'" "$a/kernels/meson.build" && grep -q 'acme_mul_out' "$a/acme_registry.c" && ok || bad "mul.out is not built or not registered"
compile_all "$a" "acme (3 ops, one edited)"
rm -f "$a/opgen-rt-acme" && link_runner "$a" acme
run_traced "$a/opgen-rt-acme" attention "$tmp/out-acme2" >"$tmp/trace-acme-2.txt" || bad "opgen-rt-acme (add.out Float filled in) failed"
grep -q 'aten::add.Tensor -> acme_add_out (acme)' "$tmp/trace-acme-2.txt" && ! grep -q 'acme_mul_out' "$tmp/trace-acme-2.txt" && ok || bad "add did not run on acme's kernel:"
check_outputs attention "$tmp/out-acme2" "acme, add.out filled in"
"$opgen" coverage "$a" >"$tmp/acme-coverage-2.md" || bad "coverage acme (2)"
golden acme-coverage-2.md "$tmp/acme-coverage-2.md"
#    the vendor changes meson.build; relu.out is no longer wanted
printf '# acme: our own build tweaks\n' >>"$a/meson.build"
"$opgen" skeleton --backend acme --ops "aten::add.out, aten::mul.out" -o "$a" >"$tmp/acme-3.txt" || bad "skeleton acme (3)"
golden acme-3.txt "$tmp/acme-3.txt"
[ -f "$a/kernels/acme_relu_out.c" ] && ok || bad "skeleton deleted the unwanted acme_relu_out.c"
grep -q 'acme: our own build tweaks' "$a/meson.build" && ok || bad "the vendor's meson.build was overwritten"
[ -f "$a/meson.build.opgen-new" ] && ! grep -q 'acme: our own' "$a/meson.build.opgen-new" && ok || bad "no meson.build.opgen-new beside the kept meson.build"
! grep -q "acme_relu_out" "$a/kernels/meson.build" "$a/acme_registry.c" "$a/acme_kernels.h" && ok || bad "relu.out is still built or registered"
"$opgen" coverage "$a" >"$tmp/acme-coverage-3.md" 2>"$tmp/acme-coverage-3.err" || bad "coverage acme (3)"
cat "$tmp/acme-coverage-3.err" >>"$tmp/acme-coverage-3.md"
sed "s|$a/||" "$tmp/acme-coverage-3.md" >"$tmp/acme-coverage-3.txt"
golden acme-coverage-3.txt "$tmp/acme-coverage-3.txt"
#    compiling still works, without the unwanted kernel; a repeat run changes nothing
(cd "$a" && mkdir -p ../acme-unwanted && mv kernels/acme_relu_out.c ../acme-unwanted/)
compile_all "$a" "acme (relu.out dropped)"
mv "$tmp/acme-unwanted/acme_relu_out.c" "$a/kernels/"
(cd "$a" && find . -type f | sort | xargs cksum) >"$tmp/before"
"$opgen" skeleton --backend acme --ops "aten::add.out, aten::mul.out" -o "$a" >"$tmp/acme-4.txt" || bad "skeleton acme (4)"
(cd "$a" && find . -type f | sort | xargs cksum) >"$tmp/after"
cmp -s "$tmp/before" "$tmp/after" && ! grep -qv '^unchanged\|^kept\|^unwanted' "$tmp/acme-4.txt" && ok || bad "a repeated run changed files: $(cat "$tmp/acme-4.txt")"

# 5. a vendor kernel yaml: per-dtype kernels (arg_meta) before a default, a kernel shared
#    by two ops, a custom op; the table in ExecuTorch's order; the Float kernel runs
y=$tmp/yk
"$opgen" skeleton --backend acme --kernels "$vendor/acme_kernels.yaml" --kernels "$vendor/acme_custom_op.yaml" -o "$y" >"$tmp/yaml-1.txt" || bad "skeleton of acme_kernels.yaml + acme_custom_op.yaml"
grep -q "vendor_ops=.*acme_custom_op.yaml" "$y/meson.build" && ok || bad "the custom op's backend does not build opgen over its yaml"
{ cat "$tmp/yaml-1.txt"; echo; sed -n '/^static const opgen_vendor_kernel/,$p' "$y/acme_registry.c"
  for f in "$y"/kernels/*.c; do echo; echo "$(basename "$f"):"; grep 'case OPGEN\|^opgen_status' "$f"; done; } >"$tmp/yaml-table.txt"
golden yaml-table.txt "$tmp/yaml-table.txt"
sed 's|return opgen_not_implemented(ctx, OPGEN_DTYPE_Float);|return opgen_portable_add_out(ctx, self, other, alpha, out); /* acme: ours */|' "$y/kernels/acme_native_add_out_float.c" >"$tmp/edited.c" && mv "$tmp/edited.c" "$y/kernels/acme_native_add_out_float.c"
compile_all "$y" "acme kernel yaml"
link_runner "$y" acme
run_traced "$y/opgen-rt-acme" attention "$tmp/out-yaml" >"$tmp/trace-yaml.txt" || bad "opgen-rt-acme (kernel yaml) failed"
grep -q 'aten::add.Tensor -> acme_native_add_out_float (acme)' "$tmp/trace-yaml.txt" && ok || bad "Float add did not run on the Float kernel:"
check_outputs attention "$tmp/out-yaml" "acme kernel yaml"
"$opgen" coverage "$y" >"$tmp/yaml-coverage.md" || bad "coverage of the kernel yaml backend"
golden yaml-coverage.md "$tmp/yaml-coverage.md"

# 6. ExecuTorch's own kernel yaml
ex=$corpus/executorch pt=$corpus/pytorch-2.14
if [ ! -f "$ex/functions.yaml" ] || [ ! -f "$ex/quantized.yaml" ] || [ ! -f "$pt/native_functions.yaml" ]; then
    echo "SKIP the ExecuTorch kernel yaml part: no corpus at $corpus"
else
    k=$tmp/et
    "$opgen" skeleton --backend et --kernels "$ex/functions.yaml" --kernels "$ex/quantized.yaml" --native-functions "$pt/native_functions.yaml" \
        --tags "$pt/tags.yaml" --edge "$ex/edge.yaml" -o "$k" >"$tmp/et.txt" || bad "skeleton of functions.yaml + quantized.yaml failed"
    ops=$(cat "$ex/functions.yaml" "$ex/quantized.yaml" | grep -c '^- \(op\|func\):')
    files=$(find "$k/kernels" -name '*.c' | wc -l)
    entries=$(grep -c '^    {"' "$k/et_registry.c")
    distinct=$(grep '^    {"' "$k/et_registry.c" | cut -d'"' -f2 | sort -u | wc -l)
    echo "ExecuTorch kernel yaml: $ops ops, $files kernel files, $entries table entries ($distinct ops)"
    [ "$ops" -gt 200 ] && [ "$files" = "$ops" ] && [ "$entries" = "$ops" ] && [ "$distinct" = "$ops" ] && ok || bad "one stub per op: $ops ops, $files files, $entries entries, $distinct ops"
    compile_all "$k" "ExecuTorch kernels"
    #    the generated project: ExecuTorch's yaml declares ops opgen's tables lack
    #    (et_copy::, quantized_decomposed::embedding_4bit.out, ...), so it builds
    #    opgen as its subproject over them (-Dvendor_ops: tables that generate, as
    #    here; cortex_m.sh builds such a project end to end)
    grep -q "vendor_ops=" "$k/meson.build" && ok || bad "the ExecuTorch backend's meson.build does not build opgen over its ops"
    if "$opgen" generate --vendor-ops "$ex/functions.yaml" --vendor-ops "$ex/quantized.yaml" -o "$tmp/et-tables" >"$tmp/et-tables.log" 2>&1 &&
        grep -q '"et_copy::_h2d_copy.out"' "$tmp/et-tables/opgen_ops.h"; then ok; else bad "opgen's tables over ExecuTorch's ops:"; cat "$tmp/et-tables.log"; fi
fi
#    a backend of opgen's own ops (the demo) against opgen installed with meson
#    install (pkg-config)
if meson install -C "$build" --no-rebuild --destdir "$tmp/inst" >"$tmp/install.log" 2>&1; then
    pc=$(find "$tmp/inst" -name opgen-runtime.pc | head -1)
    "$(find "$tmp/inst" -path '*/bin/opgen' | head -1)" --version >/dev/null && [ -n "$pc" ] && ok || bad "meson install left no opgen or no opgen-runtime.pc"
    cp -R "$vendor/demo" "$tmp/demo-inst"
    if (cd "$tmp/demo-inst" && PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$tmp/inst CC=$cc meson setup --werror -Db_sanitize="$san" -Db_lundef=false b >"$tmp/inst-build.log" 2>&1 &&
        ninja -C b >>"$tmp/inst-build.log" 2>&1); then
        ok
        grep -q 'Run-time dependency opgen-runtime found: YES' "$tmp/inst-build.log" && ok || bad "the project did not find opgen-runtime through pkg-config"
        run_traced "$tmp/demo-inst/b/opgen-rt-demo" mlp "$tmp/out-inst" >/dev/null && ok || bad "opgen-rt-demo (installed opgen) failed"
        check_outputs mlp "$tmp/out-inst" "demo, installed opgen"
    else
        bad "the demo does not build against the installed opgen:"
        tail -20 "$tmp/inst-build.log"
    fi
else
    bad "meson install failed:"
    tail -20 "$tmp/install.log"
fi

# 7. the Cadence HiFi excerpt
hy=$vendor/hifi/functions_hifi_excerpt.yaml h=$tmp/hifi
mkdir -p "$h"
if "$opgen" generate --vendor-ops "$hy" -o "$h/gen" && grep -q '"cadence::quantized_relu.per_tensor_out"' "$h/gen/opgen_ops.h"; then ok; else bad "generate --vendor-ops over the HiFi excerpt"; fi
"$opgen" skeleton --backend hifi --kernels "$hy" -o "$h/be" >"$tmp/hifi-skeleton.txt" || bad "skeleton of the HiFi excerpt failed"
golden hifi-skeleton.txt "$tmp/hifi-skeleton.txt"
grep -q 'C++$' "$h/be/kernels/impl_HiFi_quantized_relu_per_tensor_out__quantized_relu_per_tensor_out.c" && ok || bad "the overload's file does not say why it is named so"
grep -q '"cadence::quantized_relu.per_tensor_out", {(void (\*)(void))impl_HiFi_quantized_relu_per_tensor_out__quantized_relu_per_tensor_out' "$h/be/hifi_registry.c" && ok || bad "the table does not register the overload under its C name"
compile_all "$h/be" "HiFi excerpt"

echo "vendor: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
