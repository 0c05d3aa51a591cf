#!/bin/sh
# opgen generate: golden headers, standalone compiles (C11 with gcc and clang,
# C++17 with g++, -Wall -Wextra -Werror -pedantic), O(1) name lookup of every op,
# determinism, write-if-changed, untouched outputs after a failed run, depfile,
# template override, and generated/ matching the build's regenerated headers.
# usage: gen.sh OPGEN SRCDIR BUILT_HEADER_DIR CORPUS
set -u
opgen=$1 src=$2 built=$3 corpus=$4
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# 1. golden headers of a small input (OPGEN_UPDATE_GOLDEN=1 rewrites them)
g=$src/tests/gen-golden/small
"$opgen" generate --native-functions "$g/native_functions.yaml" --tags "$g/tags.yaml" --edge "$g/edge.yaml" -o "$tmp/small" || bad "generate small"
[ "${OPGEN_UPDATE_GOLDEN:-}" = 1 ] && cp "$tmp"/small/*.h "$g/expected/"
if diff -ru "$g/expected" "$tmp/small" >"$tmp/diff"; then ok; else bad "golden headers differ:"; head -40 "$tmp/diff"; fi

# 2. committed generated/ == what the build regenerates from yaml/
for h in opgen_dtypes.h opgen_ops.h opgen_kernels.h opgen_registry.h opgen_backend.h; do
    if cmp -s "$src/generated/$h" "$built/$h"; then ok; else bad "generated/$h is stale: regenerate with 'opgen generate -o generated' and commit"; fi
done

# 3. standalone compiles + lookup of every op
compile_and_run() { # DIR LABEL
    for c in "gcc -std=c11 -x c" "clang -std=c11 -x c" "g++ -std=c++17 -x c++"; do
        # shellcheck disable=SC2086
        if $c -Wall -Wextra -Werror -pedantic -I"$1" "$src/tests/gen_check.c" -o "$tmp/check" 2>"$tmp/cc.log" && "$tmp/check" >"$tmp/run.log"; then
            ok
        else
            bad "$2 with $c:"
            head -20 "$tmp/cc.log" "$tmp/run.log"
        fi
    done
    tail -1 "$tmp/run.log"
}
compile_and_run "$src/generated" "generated/"
# the registry and backend headers compile standalone too, tables included (they
# need the kernels to link; the fallbacks' bodies are the runtime's to compile)
printf '#define OPGEN_IMPLEMENTATION\n#include "opgen_backend.h"\nint opgen_registry_probe(void);\nint opgen_registry_probe(void) { return opgen_registry_find(0, OPGEN_DTYPE_Float) != 0 && opgen_backend_ops[0].op >= 0 && opgen_registry_find_fallback(0, OPGEN_DTYPE_Float) == 0; }\n' >"$tmp/reg.c"
for c in "gcc -std=c11 -x c" "clang -std=c11 -x c" "g++ -std=c++17 -x c++"; do
    # shellcheck disable=SC2086
    if $c -Wall -Wextra -Werror -pedantic -I"$src/generated" -c "$tmp/reg.c" -o "$tmp/reg.o" 2>"$tmp/cc.log"; then ok; else bad "opgen_registry.h + opgen_backend.h with $c:"; head -20 "$tmp/cc.log"; fi
done
compile_and_run "$tmp/small" "small"

# 1b. golden headers of backend ops: the generated fallback code (tests/gen-golden/backend),
# which must compile as runtime code (C11, gcc and clang, -Wall -Wextra -Werror -pedantic)
gb=$src/tests/gen-golden/backend
"$opgen" generate --native-functions "$gb/native_functions.yaml" --tags "$gb/tags.yaml" --kernels "$gb/kernels.yaml" --backend-ops "$gb/backend_ops.yaml" -o "$tmp/backend" || bad "generate backend"
[ "${OPGEN_UPDATE_GOLDEN:-}" = 1 ] && cp "$tmp"/backend/*.h "$gb/expected/"
if diff -ru "$gb/expected" "$tmp/backend" >"$tmp/diff"; then ok; else bad "backend golden headers differ:"; head -40 "$tmp/diff"; fi
printf '#define OPGEN_IMPLEMENTATION\n#include "opgen/kernel.h"\n#include "opgen_registry.h"\n#define OPGEN_FALLBACKS_IMPLEMENTATION\n#include "opgen_backend.h"\n' >"$tmp/fb.c"
for c in "gcc -std=c11" "clang -std=c11"; do
    # shellcheck disable=SC2086
    if $c -Wall -Wextra -Werror -pedantic -I"$tmp/backend" -I"$src/runtime-stubs/include" -c -x c "$tmp/fb.c" -o "$tmp/fb.o" 2>"$tmp/cc.log"; then ok; else bad "fallbacks with $c:"; head -20 "$tmp/cc.log"; fi
done
nf=$corpus/pytorch-2.14/native_functions.yaml edge=$corpus/executorch/edge.yaml
if [ -f "$nf" ] && [ -f "$edge" ]; then
    "$opgen" generate --native-functions "$nf" --edge "$edge" -o "$tmp/full" --depfile "$tmp/full.d" || bad "generate 2.14"
    compile_and_run "$tmp/full" "2.14 + edge.yaml"
    # 4. deterministic
    "$opgen" generate --native-functions "$nf" --edge "$edge" -o "$tmp/full2" || bad "generate 2.14 again"
    if diff -r "$tmp/full" "$tmp/full2" >/dev/null; then ok; else bad "two runs differ"; fi
    # 5. depfile names every input read, and every output
    for f in "$nf" "$corpus/pytorch-2.14/tags.yaml" "$edge" "$tmp/full/opgen_ops.h"; do
        if grep -qF "$f" "$tmp/full.d"; then ok; else bad "depfile lacks $f"; fi
    done
else
    echo "SKIP (2.14 part): $corpus not found"
fi

# 6. a no-op rerun rewrites nothing: mtimes stay
out=$tmp/small
touch -d @946684800 "$out"/*.h
"$opgen" generate --native-functions "$g/native_functions.yaml" --tags "$g/tags.yaml" --edge "$g/edge.yaml" -o "$out" || bad "rerun"
for h in "$out"/*.h; do
    if [ "$(stat -c %Y "$h")" = 946684800 ]; then ok; else bad "no-op rerun rewrote $h"; fi
done

# 7. a failed run leaves every output byte-identical (and no temp files)
cp -r "$out" "$tmp/before"
printf -- '- func: add.Tensor(Tensor self, Tensr other) -> Tensor\n' >"$tmp/broken.yaml"
if "$opgen" generate --native-functions "$tmp/broken.yaml" --tags "$g/tags.yaml" -o "$out" 2>/dev/null; then bad "broken input accepted"; else ok; fi
"$opgen" generate --native-functions "$g/native_functions.yaml" --tags "$g/tags.yaml" --edge "$g/edge.yaml" --templates "$tmp/no-such-dir" -o "$out" 2>/dev/null && bad "missing templates accepted"
if diff -r "$tmp/before" "$out" >/dev/null && [ "$(ls "$out" | wc -l)" -eq 3 ]; then ok; else bad "a failed run changed the outputs"; fi
for h in "$out"/*.h; do
    if [ "$(stat -c %Y "$h")" = 946684800 ]; then ok; else bad "a failed run touched $h"; fi
done

# 8. a changed template changes the output; an unknown variable is a located error
mkdir "$tmp/tpl"
cp "$src"/templates/*.h.in "$tmp/tpl/"
sed -i '1a /* vendor banner */' "$tmp/tpl/opgen_dtypes.h.in"
"$opgen" generate --templates "$tmp/tpl" -o "$tmp/tout" || bad "generate with --templates"
if grep -q 'vendor banner' "$tmp/tout/opgen_dtypes.h"; then ok; else bad "--templates ignored"; fi
echo '{{no_such_var}}' >>"$tmp/tpl/opgen_ops.h.in"
"$opgen" generate --templates "$tmp/tpl" -o "$tmp/tout2" 2>"$tmp/err" && bad "unknown template variable accepted"
if grep -q "opgen_ops.h.in:[0-9]*:1: error: unknown template variable 'no_such_var'" "$tmp/err"; then ok; else bad "template error not located:"; cat "$tmp/err"; fi

# 9. outputs stream through a 64 KiB buffer, compared with the old file as they
# go: an old file that is longer, shorter, or differs in one byte far past the
# first buffer is replaced with exactly the new bytes; an equal one is kept
"$opgen" generate -o "$tmp/ref" || bad "generate the embedded default"
ops=$tmp/ref/opgen_ops.h
[ "$(wc -c <"$ops")" -gt 200000 ] || bad "opgen_ops.h is too small to span several buffers"
for how in longer shorter middle last; do
    rm -rf "$tmp/s" && cp -a "$tmp/ref" "$tmp/s"
    case $how in
    longer) printf '/* more */\n' >>"$tmp/s/opgen_ops.h" ;;
    shorter) head -c 150000 "$ops" >"$tmp/s/opgen_ops.h" ;;
    middle) printf 'X' | dd of="$tmp/s/opgen_ops.h" bs=1 seek=150001 conv=notrunc 2>/dev/null ;;
    last) printf 'X' | dd of="$tmp/s/opgen_ops.h" bs=1 seek=$(($(wc -c <"$ops") - 1)) conv=notrunc 2>/dev/null ;;
    esac
    touch -d @946684800 "$tmp/s"/*.h
    "$opgen" generate -o "$tmp/s" || bad "regenerate over a $how old file"
    if diff -r "$tmp/ref" "$tmp/s" >/dev/null; then ok; else bad "an old opgen_ops.h ($how) was not replaced by the new bytes"; fi
    for h in "$tmp/s"/*.h; do # only the changed file is rewritten
        t=$(stat -c %Y "$h")
        if [ "$(basename "$h")" = opgen_ops.h ]; then [ "$t" != 946684800 ] && ok || bad "$how: opgen_ops.h kept its mtime"; else [ "$t" = 946684800 ] && ok || bad "$how: $(basename "$h") was rewritten"; fi
    done
    if [ -z "$(find "$tmp/s" -name '*.tmp.*')" ]; then ok; else bad "$how: temp files left"; fi
done

# 10. edge.yaml is streamed after the native functions are grouped: it is in
# the depfile and named in the headers, and its errors come in the order of the
# file (an op it does not know; a YAML error after those; a duplicate key; no
# file at all)
y=$src/yaml
e10() { "$opgen" generate --native-functions "$y/native_functions.yaml" --tags "$y/tags.yaml" "$@"; }
e10 --kernels "$y/custom_ops.yaml" --edge "$y/edge.yaml" -o "$tmp/e10" --depfile "$tmp/e10.d" || bad "generate with a large edge.yaml"
if grep -qF "$y/edge.yaml" "$tmp/e10.d"; then ok; else bad "depfile lacks the edge.yaml"; fi
if head -1 "$tmp/e10/opgen_ops.h" | grep -q 'tags.yaml, edge.yaml (torchgen'; then ok; else bad "opgen_ops.h does not name the edge.yaml"; fi
cp "$y/edge.yaml" "$tmp/e10a.yaml"
printf -- '- func: [unclosed\n' >>"$tmp/e10a.yaml"
sed '0,/^  namespace: edge/s//  namespace: edge\n  namespace: edge/' "$y/edge.yaml" >"$tmp/e10b.yaml"
unknown="error: unknown operator 'quantized_decomposed::quantize_per_tensor' (not in the native functions)"
e10 --edge "$tmp/e10a.yaml" -o "$tmp/e10x" 2>"$tmp/err" && bad "a broken edge.yaml accepted"
if [ "$(sed -n '1p;$p' "$tmp/err")" = "$tmp/e10a.yaml:598:9: $unknown
$tmp/e10a.yaml:2458:1: error: invalid YAML: did not find expected ',' or ']' while parsing a flow sequence" ] && [ "$(wc -l <"$tmp/err")" -eq 4 ]; then ok; else bad "large edge.yaml, unknown ops then a YAML error:"; cat "$tmp/err"; fi
e10 --kernels "$y/custom_ops.yaml" --edge "$tmp/e10b.yaml" -o "$tmp/e10x" 2>"$tmp/err" && bad "a duplicate key accepted"
if [ "$(cat "$tmp/err")" = "$tmp/e10b.yaml:10:3: error: duplicate key 'namespace' in this mapping
$tmp/e10b.yaml:9:3: note: 'namespace' was first given here" ]; then ok; else bad "large edge.yaml, duplicate key:"; cat "$tmp/err"; fi
e10 --edge "$tmp/no-such-edge.yaml" -o "$tmp/e10x" 2>"$tmp/err" && bad "a missing edge.yaml accepted"
if [ "$(cat "$tmp/err")" = "$tmp/no-such-edge.yaml: error: cannot read: No such file or directory" ]; then ok; else bad "missing edge.yaml:"; cat "$tmp/err"; fi

# keyed kernels (ExecuTorch's runtime test yaml: add.out for Double / 0,1,2,3
# only): registered under their key, with no default kernel beside them
kt=$corpus/executorch/kernel_test_functions.yaml
if [ -f "$kt" ]; then
    e10 --kernels "$kt" -o "$tmp/keyed" 2>"$tmp/err" || { bad "generate --kernels kernel_test_functions.yaml failed:"; cat "$tmp/err"; }
    if grep -q '^#define OPGEN_KEYED_COUNT 1$' "$tmp/keyed/opgen_registry.h" &&
        grep -qF '(void (*)(void))torch_executor_add_out, opgen_call_1, 0x00000080u, "torch_executor_add_out"}, 3, (const opgen_key_arg[]){{0, -1, 0x00000080u, 4, {0, 1, 2, 3}}, {1, 0, 0x00000080u, 4, {0, 1, 2, 3}}, {3, 0, 0x00000080u, 4, {0, 1, 2, 3}}}, "self Double 0,1,2,3; other Double 0,1,2,3; out Double 0,1,2,3"}, /* aten::add.out */' "$tmp/keyed/opgen_registry.h" &&
        grep -q '{NULL, NULL, 0u, NULL}, /\* [0-9]* aten::add.out \*/' "$tmp/keyed/opgen_registry.h"; then
        ok
    else
        bad "kernel_test_functions.yaml: add.out is not registered for its key alone:"; grep -n 'add_out\|KEYED' "$tmp/keyed/opgen_registry.h" | head
    fi
else
    echo "SKIP: $kt is absent: no keyed-kernel check"
fi

echo "gen: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
