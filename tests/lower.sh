#!/bin/sh
# The lowering library through opgen-rt, re2c style (tests/lower/): for every
# NAME.graph (a first line "# args: ..." adds lower options), `lower` must print
# exactly NAME.lowered and `decompose` of that exactly NAME.decomposed, whose ops
# are the input's: lower then decompose gives the program's ops back (as many of
# each; an inlined pattern's nodes stand together where the program had them
# apart, as a .pte's weight dequantizes at its top: the golden file pins where).
# Then verify's verdicts and the lowering commands' errors, text and status.
# usage: lower.sh OPGEN_RT      OPGEN_UPDATE_GOLDEN=1 rewrites the expected files
set -u
rt=$1
case $rt in /*) ;; *) rt=$PWD/$rt ;; esac
cd "$(dirname "$0")/lower" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ops() { sed -n 's/^ *%[^=]*= \([^(]*\)(.*/\1/p' "$1" | sort; }

for f in *.graph; do
    n=${f%.graph}
    args=$(sed -n '1s/^# args: //p' "$f")
    # shellcheck disable=SC2086
    if ! "$rt" lower "$f" $args -o "$tmp/$n.lowered" 2>"$tmp/err" || ! "$rt" decompose "$tmp/$n.lowered" -o "$tmp/$n.decomposed" 2>>"$tmp/err"; then
        fail=$((fail + 1))
        echo "FAIL $n:"
        cat "$tmp/err"
        continue
    fi
    if [ "${OPGEN_UPDATE_GOLDEN:-}" = 1 ]; then
        cp "$tmp/$n.lowered" "$n.lowered"
        cp "$tmp/$n.decomposed" "$n.decomposed"
    fi
    for k in lowered decomposed; do
        if cmp -s "$n.$k" "$tmp/$n.$k"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $n.$k:"; diff "$n.$k" "$tmp/$n.$k" | sed 's/^/    /'; fi
    done
    "$rt" print "$f" >"$tmp/$n.canonical"
    ops "$tmp/$n.canonical" >"$tmp/a"
    ops "$tmp/$n.decomposed" >"$tmp/b"
    if cmp -s "$tmp/a" "$tmp/b"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $n: decompose(lower(x)) has other ops than x:"; diff "$tmp/a" "$tmp/b" | sed 's/^/    /'; fi
done

# with nothing to fuse, lowering changes nothing (byte for byte, canonical form)
"$rt" print nothing_to_fuse.graph >"$tmp/canonical"
if cmp -s nothing_to_fuse.lowered "$tmp/canonical"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: lowering a program with nothing to fuse changed it"; fi

# expect STATUS 'EXACT STDERR' ARGS...
expect() {
    want=$1 text=$2
    shift 2
    "$rt" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    printf '%s\n' "$text" >"$tmp/want"
    [ -z "$text" ] && : >"$tmp/want"
    if [ "$got" -eq "$want" ] && cmp -s "$tmp/want" "$tmp/err"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: opgen-rt $* -> exit $got (want $want)"
        diff "$tmp/want" "$tmp/err" | sed 's/^/    /'
    fi
}
expect 0 '' verify quant_add_relu_wins.graph --dialect aten
expect 0 '' verify quant_add_relu_wins.graph --dialect edge
expect 0 '' verify quant_add_relu_wins.lowered --dialect backend
expect 1 'quant_add_relu_wins.lowered:2:3: error: quantized_decomposed::add_relu is a backend op: not in the aten dialect' verify quant_add_relu_wins.lowered --dialect aten
expect 1 'quant_add_relu_wins.lowered:2:3: error: quantized_decomposed::add_relu is a backend op: not in the edge dialect' verify quant_add_relu_wins.lowered --dialect edge
expect 1 'prims_untouched.graph:3:3: error: executorch_prims::floordiv.int is a backend op: not in the aten dialect' verify prims_untouched.graph --dialect aten
expect 0 '' verify prims_untouched.graph --dialect backend
expect 0 '' verify mlp_linear_relu.lowered --dialect backend
expect 1 'bad/where_mixed.graph:3:3: error: aten::where.self: no Edge constraint row allows (condition=Bool, self=Float, other=Double, __ret_0=Double)' verify bad/where_mixed.graph --dialect edge
expect 0 '' verify bad/where_mixed.graph --dialect aten
expect 1 'bad/inplace.graph:2:3: error: aten::relu_ is not functional: not in the aten dialect' verify bad/inplace.graph --dialect aten
expect 1 'bad/out_variant.graph:2:3: error: aten::relu.out is an out= variant: not in the aten dialect' verify bad/out_variant.graph --dialect aten
expect 1 'bad/unknown.graph:2:3: error: unknown operator aten::frobnicate' verify bad/unknown.graph --dialect backend
expect 1 "bad/missing_arg.graph:2:3: error: aten::mm: missing argument 'mat2' (Tensor)" verify bad/missing_arg.graph --dialect aten
expect 1 'bad/pattern_body.graph:1:1: error: expected '"'"'graph('"'"' to start the program, found '"'"'%y'"'"'' lower bad/pattern_body.graph -o "$tmp/x"
expect 2 "opgen-rt lower: unknown backend 'nope' (known: executorch_prims, quantized, q8, demo)
Run 'opgen-rt lower --help' for usage." lower quant_add_relu_wins.graph --backend nope -o "$tmp/x"
expect 2 "opgen-rt verify: unknown dialect 'exir' (expected aten, edge or backend)
Run 'opgen-rt verify --help' for usage." verify quant_add_relu_wins.graph --dialect exir
expect 2 "opgen-rt lower: missing -o OUT.graph
Run 'opgen-rt lower --help' for usage." lower quant_add_relu_wins.graph
expect 2 "opgen-rt decompose: unknown option '--backend'
Run 'opgen-rt decompose --help' for usage." decompose quant_add_relu_wins.graph --backend demo -o "$tmp/x"

# a PT2E program lowered to the q8 backend runs: its constants written by
# print --constants, each call's output the .pte's own bytes (the q8 ops' native
# kernels against the load-time chains), and the program as printed (its
# chains in float) close to eager PyTorch's
mix=../exir/int8_mix
"$rt" print "$mix/model.pte" --constants "$tmp/c" >"$tmp/mix.graph" &&
    "$rt" lower "$tmp/mix.graph" --backend q8 -o "$tmp/mix.lowered" || fail=$((fail + 1))
consts=$(for f in "$tmp"/c/c*.npy; do printf -- '-i %s=%s ' "$(basename "$f" .npy)" "$f"; done)
for k in 0 1 2; do
    # shellcheck disable=SC2086
    if "$rt" run "$tmp/mix.lowered" -i x0="$mix/inputs/${k}_0.npy" $consts -o "$tmp/low" >/dev/null &&
        "$rt" run "$mix/model.pte" -i 0="$mix/inputs/${k}_0.npy" -o "$tmp/pte" >/dev/null &&
        cmp -s "$tmp/low/0.npy" "$tmp/pte/0.npy" &&
        "$rt" run "$tmp/mix.graph" -i x0="$mix/inputs/${k}_0.npy" $consts -o "$tmp/flt" >/dev/null &&
        "$rt" compare "$mix/expected/${k}_0.npy" "$tmp/flt/0.npy" >/dev/null; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: int8_mix call $k: the q8-lowered graph is not the .pte's bytes, or the printed graph not eager's values"
    fi
done

echo "lower: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
