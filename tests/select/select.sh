#!/bin/sh
# Selective build, end to end: opgen select on .pte programs, graph programs, op
# lists and selected_operators.yaml files (their union), its output pinned;
# overload rules and include_all_operators seen in the registry generate writes;
# the exact errors for bad selections; and the load-time failure of a program
# that needs what a trimmed runtime (opgen-rt-add_float: add.out, Float) left out.
# usage: select.sh OPGEN OPGEN_RT_ADD_FLOAT CORPUS PROGRAMS     OPGEN_UPDATE_GOLDEN=1 rewrites expected/
#   PROGRAMS: the suite's built .pte programs (tests/pte/)
set -u
opgen=$1 rt=$2 corpus=$3 programs=$4
for v in opgen rt programs; do eval "case \$$v in /*) ;; *) $v=\$PWD/\$$v ;; esac"; done
case $corpus in /*) ;; *) corpus=$PWD/$corpus ;; esac
cd "$(dirname "$0")" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# golden NAME ARGS...: opgen select ARGS -o OUT; OUT must equal expected/NAME.yaml
golden() {
    name=$1
    shift
    if ! "$opgen" select "$@" -o "$tmp/$name.yaml" 2>"$tmp/err"; then bad "select $name:"; cat "$tmp/err"; return; fi
    [ "${OPGEN_UPDATE_GOLDEN:-}" = 1 ] && cp "$tmp/$name.yaml" "expected/$name.yaml"
    if cmp -s "expected/$name.yaml" "$tmp/$name.yaml"; then ok; else bad "select $name differs:"; diff "expected/$name.yaml" "$tmp/$name.yaml" | head -20; fi
}
mkdir -p expected
pte=$corpus/executorch/pte
if [ -f "$pte/add_model.pte" ]; then
    golden corpus_ptes --pte "$pte/add_model.pte" --pte "$pte/module_linear.pte"
    # exactly the ops and kernel keys of the two programs
    if grep -q 'v1/6;0|6;|6;0|6;0' "$tmp/corpus_ptes.yaml" && grep -c '^  - v1/' "$tmp/corpus_ptes.yaml" | grep -qx 3 && grep -c '^  aten::.*:$' "$tmp/corpus_ptes.yaml" | grep -qx 4; then ok; else bad "corpus keys"; fi
else
    echo "SKIP (corpus .pte): $pte not found"
fi
golden mlp_graph --graph ../examples/mlp.graph
golden ops_list --ops add_float.ops --ops "aten::relu, aten::mm.out:Float+Double aten::_softmax:Double"
golden union --ops add_float.ops --selected-operators cases/union.yaml
# a written selection reads back as itself
"$opgen" select --selected-operators "$tmp/union.yaml" -o "$tmp/again.yaml" && cmp -s "$tmp/union.yaml" "$tmp/again.yaml" && ok || bad "a selection does not read back as itself"

# what generate keeps: grep the registry's X-macro for kernels
keeps() { # SELECTION KERNEL... (prefix "!" for must-not-keep)
    sel=$1
    shift
    "$opgen" generate --select "$sel" -o "$tmp/gen" 2>"$tmp/err" || { bad "generate --select $sel:"; cat "$tmp/err"; return; }
    for k in "$@"; do
        case $k in
        !*) if grep -q "^    X([0-9]*, ${k#!}," "$tmp/gen/opgen_registry.h"; then bad "$sel keeps ${k#!}"; else ok; fi ;;
        *) if grep -q "^    X([0-9]*, $k," "$tmp/gen/opgen_registry.h"; then ok; else bad "$sel drops $k"; fi ;;
        esac
    done
}
keeps cases/overloads_all.yaml opgen_portable_add_out opgen_portable_add_Scalar_out '!opgen_portable_mul_out'
keeps cases/overloads_exact.yaml '!opgen_portable_add_out' '!opgen_portable_add_Scalar_out'
keeps cases/include_all.yaml opgen_portable_add_out opgen_portable_mm_out opgen_native_quantized_add_out
keeps "$tmp/union.yaml" opgen_portable_add_out opgen_portable_relu_out '!opgen_portable_mm_out'
grep -q 'X([0-9]*, opgen_portable_add_out, 0x000000c0u)' "$tmp/gen/opgen_registry.h" && ok || bad "add.out should keep Float and Double in the union"
# union of two --select files, and the dtypes per kernel as constants
"$opgen" generate --select "$tmp/union.yaml" --select cases/overloads_all.yaml -o "$tmp/gen2" || bad "two --select"
grep -q 'X([0-9]*, opgen_portable_add_out, 0x000080ffu)' "$tmp/gen2/opgen_registry.h" && ok || bad "aten::add with all overloads should give add.out every dtype"
grep -q '#define OPGEN_KERNEL_DTYPES_opgen_portable_mm_out 0x00000000u' "$tmp/gen2/opgen_registry.h" && ok || bad "mm.out's code should compile to nothing"
grep -q '#define OPGEN_SELECTION "union.yaml, overloads_all.yaml"' "$tmp/gen2/opgen_registry.h" && ok || bad "the registry should name its selections"

# a trimmed build's tables: only the selection's ops (and their functional and
# in-place forms), renumbered, each Edge row under one of them
{ "$opgen" select --ops mobilenet.ops -o "$tmp/mobilenet.yaml" && "$opgen" generate --select "$tmp/mobilenet.yaml" -o "$tmp/gen3"; } 2>"$tmp/err" || { bad "generate for mobilenet.ops:"; cat "$tmp/err"; }
sed -n 's/^    X([0-9]*, [a-zA-Z0-9_]*, "\(.*\)").*/\1/p' "$tmp/gen3/opgen_ops.h" | sort >"$tmp/ops"
sed -n '/^const int16_t opgen_cols/,/^};/s|^    /\* \(.*\) \*/.*|\1|p' "$tmp/gen3/opgen_ops.h" | sort >"$tmp/edge_ops"
grep -qx 'aten::convolution.out' "$tmp/ops" && grep -qx 'aten::convolution' "$tmp/ops" && ! grep -qx 'aten::mm.out' "$tmp/ops" && ok || bad "mobilenet.ops: the table should hold convolution and convolution.out, not mm.out"
[ -s "$tmp/edge_ops" ] && [ -z "$(comm -23 "$tmp/edge_ops" "$tmp/ops")" ] && ok || bad "Edge rows of ops the trimmed table left out: $(comm -23 "$tmp/edge_ops" "$tmp/ops" | head -3)"

# errors: exact text and status
expect() { # STATUS 'TEXT' ARGS...
    want=$1 text=$2
    shift 2
    "$opgen" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    printf '%s\n' "$text" >"$tmp/want"
    if [ "$got" -eq "$want" ] && cmp -s "$tmp/want" "$tmp/err"; then ok; else bad "opgen $* -> exit $got (want $want)"; diff "$tmp/want" "$tmp/err" | sed 's/^/    /'; fi
}
expect 1 "cases/unknown_key.yaml:2:1: error: unknown key 'include_everything' in a selected_operators.yaml (expected one of: include_all_operators, include_all_non_op_selectives, debug_info, operators, kernel_metadata, et_kernel_metadata, custom_classes, build_features)" select --selected-operators cases/unknown_key.yaml -o "$tmp/x.yaml"
expect 1 "cases/bad_flags.yaml:1:24: error: 'include_all_operators' must be true or false, found a string
cases/bad_flags.yaml:9:5: error: a kernel key starts with 'v1/' (or is 'default'): 'v2/6;0'
cases/bad_flags.yaml:10:5: error: each tensor is 'DTYPE;DIM,ORDER' with DTYPE a number: 'v1/6;0|x'
cases/bad_flags.yaml:11:18: error: the kernel keys of aten::mul.out are a list, found a string
cases/bad_flags.yaml:4:28: error: 'include_all_overloads' must be true or false, found an integer
cases/bad_flags.yaml:5:5: error: unknown key 'trained' for an operator (expected is_root_operator, is_used_for_training, include_all_overloads, debug_info)
cases/bad_flags.yaml:6:3: error: an operator is named 'ns::name' or 'ns::name.overload'" select --selected-operators cases/bad_flags.yaml -o "$tmp/x.yaml"
expect 1 "--ops: error: unknown operator aten::frobnicate.out" select --ops "aten::frobnicate.out" -o "$tmp/x.yaml"
expect 1 "--ops: error: unknown dtype 'Flot' for aten::add.out (expected names like Float, Long, Byte)" select --ops "aten::add.out:Flot" -o "$tmp/x.yaml"
expect 1 "--ops: error: 'relu' is not an operator name (ns::name or ns::name.overload)" select --ops "relu" -o "$tmp/x.yaml"
expect 1 "cases/mm.graph: error: not an ExecuTorch program: the FlatBuffers file identifier is 'h(%x', expected 'ET12'" select --pte cases/mm.graph -o "$tmp/x.yaml"
expect 2 "opgen select: nothing to select from: give --pte, --graph, --ops or --selected-operators
Run 'opgen select --help' for usage." select -o "$tmp/x.yaml"
expect 2 "opgen select: missing -o OUT.yaml
Run 'opgen select --help' for usage." select --ops aten::mm

# a trimmed runtime: what it keeps runs, what it left out fails at load, naming op,
# dtypes and the selection, and never aborts
"$rt" run cases/add_float.graph --input x=../npy/f32_2x3.npy -o "$tmp/o" 2>"$tmp/err" && ok || { bad "the add.out Float runtime cannot add floats:"; cat "$tmp/err"; }
"$rt" run cases/mm.graph --input x=../npy/b1_2x2.npy -o "$tmp/o" >/dev/null 2>"$tmp/err"
printf 'cases/mm.graph:2:3: error: aten::mm is left out of this build'"'"'s selection (add_float.yaml)\n' >"$tmp/want"
cmp -s "$tmp/want" "$tmp/err" && ok || { bad "unselected op:"; diff "$tmp/want" "$tmp/err"; }
"$rt" run cases/add_double.graph -o "$tmp/o" >/dev/null 2>"$tmp/err"
st=$?
printf 'cases/add_double.graph:2:3: error: aten::add.Tensor: this build'"'"'s selection (add_float.yaml) keeps no kernel for self=Double, other=Double\n' >"$tmp/want"
[ $st -eq 1 ] && cmp -s "$tmp/want" "$tmp/err" && ok || { bad "unselected dtype (exit $st):"; diff "$tmp/want" "$tmp/err"; }

# the same for .pte programs: the op (and the selection) named with the instruction
"$rt" run "$programs/add.pte" --input 0="$programs/add.in0.npy" -o "$tmp/p" 2>"$tmp/err" && ok || { bad "the add.out Float runtime cannot run add.pte:"; cat "$tmp/err"; }
"$rt" run "$programs/control.pte" --input 0="$programs/control.in0.npy" --input 1="$programs/control.in1.npy" -o "$tmp/p2" >/dev/null 2>"$tmp/err"
printf '%s: error: method '"'"'forward'"'"', instruction 1 (aten::mul.Scalar_out): aten::mul.Scalar_out is left out of this build'"'"'s selection (add_float.yaml)\n' "$programs/control.pte" >"$tmp/want"
cmp -s "$tmp/want" "$tmp/err" && ok || { bad "a .pte op outside the selection:"; diff "$tmp/want" "$tmp/err"; }

echo "select: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
