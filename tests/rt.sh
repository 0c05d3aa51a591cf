#!/bin/sh
# opgen-rt's command-line contract, re2c style: the exact error text and exit
# status of every bad program or input (tests/rt/*.graph, tests/npy/*.npy), and
# the outputs of good runs against values NumPy computed (tests/rt/README.md).
# Every error names file:line:col of the node or input at fault; none may abort
# (an abort or a sanitizer report changes the status and the text).
# usage: rt.sh OPGEN_RT NPY_CLOSE
set -u
rt=$1 close=$2
case $rt in /*) ;; *) rt=$PWD/$rt ;; esac
case $close in /*) ;; *) close=$PWD/$close ;; esac
cd "$(dirname "$0")/rt" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
x=../npy/f32_2x3.npy

# says STATUS STREAM 'EXACT TEXT' ARGS...: opgen-rt ARGS exits STATUS, printing
# exactly that on STREAM (out or err) and nothing on the other
says() {
    want=$1 on=$2 text=$3
    shift 3
    "$rt" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    other=err
    [ "$on" = err ] && other=out
    printf '%s\n' "$text" >"$tmp/want"
    if [ "$got" -eq "$want" ] && cmp -s "$tmp/want" "$tmp/$on" && [ ! -s "$tmp/$other" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: opgen-rt $* -> exit $got (want $want)"
        diff "$tmp/want" "$tmp/$on" | sed 's/^/    /'
        sed 's/^/    /' "$tmp/$other"
    fi
}
# fails STATUS 'EXACT STDERR' ARGS...: opgen-rt ARGS exits STATUS saying exactly that
fails() { st=$1 text=$2 && shift 2 && says "$st" err "$text" "$@"; }

# runs NAME ARGS...: opgen-rt run ARGS -o DIR succeeds and DIR matches expected/NAME
runs() {
    name=$1
    shift
    rm -rf "$tmp/o"
    if ! "$rt" run "$@" -o "$tmp/o" 2>"$tmp/err"; then
        fail=$((fail + 1))
        echo "FAIL: opgen-rt run $* ($name):"
        sed 's/^/    /' "$tmp/err"
        return
    fi
    n_want=$(ls expected/"$name" | wc -l) n_got=$(ls "$tmp/o" | wc -l)
    if [ "$n_want" -ne "$n_got" ]; then
        fail=$((fail + 1))
        echo "FAIL: $name: $n_got outputs, want $n_want"
        return
    fi
    for f in expected/"$name"/*.npy; do
        if "$close" "$f" "$tmp/o/$(basename "$f")" 0 1e-6; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $name/$(basename "$f")"; fi
    done
}

# 3: bad programs name the node's line and column
fails 1 'unknown_op.graph:2:3: error: unknown operator aten::frobnicate' run unknown_op.graph --input x=$x -o "$tmp/o"
fails 1 'wrong_arity.graph:2:23: error: aten::relu takes 1 positional argument, got 2' run wrong_arity.graph --input x=$x -o "$tmp/o"
fails 1 "missing_arg.graph:2:3: error: aten::mm: missing argument 'mat2' (Tensor)" run missing_arg.graph --input x=$x -o "$tmp/o"
fails 1 'too_many_results.graph:2:3: error: aten::relu returns 1 value, the node names 2' run too_many_results.graph --input x=$x -o "$tmp/o"
fails 1 "unknown_keyword.graph:2:30: error: aten::_softmax has no argument 'half'" run unknown_keyword.graph --input x=$x -o "$tmp/o"
fails 1 "wrong_arg_type.graph:2:27: error: aten::_softmax: argument 'dim' (int) takes an integer" run wrong_arg_type.graph --input x=$x -o "$tmp/o"
fails 1 'shape_mismatch.graph:4:3: error: aten::add.Tensor: shapes do not broadcast: size 3 against 4 in dimension 1' run shape_mismatch.graph --input x=$x -o "$tmp/o"
fails 1 'no_edge_row.graph:2:3: error: aten::where.self: no Edge constraint row allows (condition=Bool, self=Float, other=Double, __ret_0=Double)' run no_edge_row.graph -o "$tmp/o"
fails 1 'no_kernel_dtype.graph:2:3: error: aten::mm: the input has dtype Int, which this kernel does not handle' run no_kernel_dtype.graph -o "$tmp/o"
fails 1 'inplace.graph:2:3: error: aten::relu_ writes to its input; programs are functional: call aten::relu' run inplace.graph -o "$tmp/o"
# malformed quantization parameters: refused at load, the value named
fails 1 'bad_scale.graph:3:3: error: quantized_decomposed::quantize_per_tensor: scale must be positive and finite, not 0' run bad_scale.graph --input x=$x -o "$tmp/o"
fails 1 'nan_scale.graph:3:3: error: quantized_decomposed::quantize_per_tensor: scale must be positive and finite, not nan' run nan_scale.graph -o "$tmp/o"
fails 1 "bad_zero_point.graph:3:3: error: quantized_decomposed::dequantize_per_tensor: zero_point 300 is outside Char's range [-128, 127]" run bad_zero_point.graph -o "$tmp/o"
fails 1 'out_variant.graph:2:3: error: aten::relu.out is an out= variant; call its functional form and let the runtime place results' run out_variant.graph -o "$tmp/o"
fails 1 "syntax.graph:3:3: error: expected ',' or ')' after an argument, found 'return'" run syntax.graph -o "$tmp/o"
fails 1 'undefined_value.graph:2:19: error: %y is used before it is defined' run undefined_value.graph -o "$tmp/o"
fails 1 'symint_view.graph:3:3: error: aten::view_copy: no size for the -1 dimension makes 6 elements' run symint_view.graph --input x=$x --input n=4 -o "$tmp/o"
fails 1 'scalars.graph:4:3: error: aten::sum.dim_IntList: dimension 2 is out of range for a 2-d tensor' run scalars.graph --input x=$x --input n=2 --input s=1 --input keep=True -o "$tmp/o"
fails 1 'nope.graph: error: cannot read: No such file or directory' run nope.graph -o "$tmp/o"

# 3: bad inputs: truncated or wrong-dtype .npy, missing or malformed values
fails 1 '../npy/f32_truncated.npy: error: truncated .npy data: the shape and dtype need 24 bytes, the file has 21 (input %x)' run scalars.graph --input x=../npy/f32_truncated.npy --input n=1 --input s=1 --input keep=1 -o "$tmp/o"
fails 1 '../npy/f32_header_truncated.npy: error: truncated .npy header: it claims 118 bytes, the file holds 30 after the preamble (input %x)' run scalars.graph --input x=../npy/f32_header_truncated.npy --input n=1 --input s=1 --input keep=1 -o "$tmp/o"
fails 1 'scalars.graph:2:7: error: input %x is declared f32[2, 3], but ../npy/i64_5.npy holds i64[5]' run scalars.graph --input x=../npy/i64_5.npy --input n=1 --input s=1 --input keep=1 -o "$tmp/o"
fails 1 'scalars.graph:2:7: error: input %x is declared f32[2, 3], but ../npy/f64_scalar.npy holds f64[]' run scalars.graph --input x=../npy/f64_scalar.npy --input n=1 --input s=1 --input keep=1 -o "$tmp/o"
fails 1 "../npy/i32_bigendian.npy: error: big-endian data ('>i4') is not supported; save little-endian arrays (input %x)" run scalars.graph --input x=../npy/i32_bigendian.npy --input n=1 --input s=1 --input keep=1 -o "$tmp/o"
fails 1 "../npy/object.npy: error: unsupported dtype '|O' (supported: bool, int8-64, uint8-64, float16/32/64, bfloat16 as 'V2', complex64/128) (input %x)" run scalars.graph --input x=../npy/object.npy --input n=1 --input s=1 --input keep=1 -o "$tmp/o"
fails 1 '../npy/f32_fortran.npy: error: Fortran-ordered arrays are not supported; save with numpy.ascontiguousarray (input %x)' run scalars.graph --input x=../npy/f32_fortran.npy --input n=1 --input s=1 --input keep=1 -o "$tmp/o"
fails 1 'nope.npy: error: cannot read: No such file or directory (input %x)' run scalars.graph --input x=nope.npy --input n=1 --input s=1 --input keep=1 -o "$tmp/o"
fails 1 "scalars.graph:2:22: error: input %n is a 64-bit integer, not '1.5'" run scalars.graph --input x=$x --input n=1.5 --input s=1 --input keep=1 -o "$tmp/o"
fails 1 "scalars.graph:2:22: error: input %n is a 64-bit integer, not '99999999999999999999'" run scalars.graph --input x=$x --input n=99999999999999999999 --input s=1 --input keep=1 -o "$tmp/o"
fails 1 "scalars.graph:2:31: error: input %s is a number, not 'abc'" run scalars.graph --input x=$x --input n=1 --input s=abc --input keep=1 -o "$tmp/o"
fails 1 "scalars.graph:2:42: error: input %keep is True or False, not 'maybe'" run scalars.graph --input x=$x --input n=1 --input s=1 --input keep=maybe -o "$tmp/o"
fails 2 'scalars.graph:2:22: error: no value for input %n (give --input n=...)' run scalars.graph --input x=$x -o "$tmp/o"
fails 2 'scalars.graph: error: the program has no input %z' run scalars.graph --input z=1 -o "$tmp/o"
fails 2 "opgen-rt run: input 'x' given twice
Run 'opgen-rt run --help' for usage." run scalars.graph --input x=$x --input x=$x -o "$tmp/o"
fails 2 "opgen-rt run: option --input takes NAME=VALUE, not 'x'
Run 'opgen-rt run --help' for usage." run scalars.graph --input x -o "$tmp/o"
fails 2 "opgen-rt run: missing -o DIR
Run 'opgen-rt run --help' for usage." run scalars.graph
fails 2 "opgen-rt run: unknown option '--bogus'
Run 'opgen-rt run --help' for usage." run --bogus
fails 2 "opgen-rt: unknown command 'frobnicate'
Run 'opgen-rt --help' for usage." frobnicate

# good runs: scalar inputs (a SymInt in a list, a float, a bool), 0-d scalar
# outputs, a negative dim, a shape planned from a SymInt, two results of one op
runs scalars_keep scalars.graph --input x=$x --input n=1 --input s=2.5 --input keep=True
runs scalars_neg scalars.graph --input x=$x --input n=-2 --input s=-1 --input keep=False
runs view_3 symint_view.graph --input x=$x --input n=3
runs view_6 symint_view.graph --input "%x=$x" --input n=6
runs multi multi_result.graph --input x=x4.npy
runs dim_order dim_order.graph --input x=x_nchw.npy

# a failed run writes nothing
rm -rf "$tmp/o"
"$rt" run symint_view.graph --input x=$x --input n=5 -o "$tmp/o" 2>/dev/null
if [ $? -eq 1 ] && [ ! -e "$tmp/o" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: a failed run left $tmp/o"; fi

# --seed: the same seed gives the same draws, another seed others; not a number is bad usage
for run in 3:a 3:b 4:a; do "$rt" run random.graph --seed "${run%:*}" -o "$tmp/seed-$run" 2>/dev/null || echo "FAIL: random.graph --seed ${run%:*} did not run"; done
if cmp -s "$tmp/seed-3:a/0.npy" "$tmp/seed-3:b/0.npy" && cmp -s "$tmp/seed-3:a/1.npy" "$tmp/seed-3:b/1.npy" && [ -s "$tmp/seed-4:a/0.npy" ] && ! cmp -s "$tmp/seed-3:a/0.npy" "$tmp/seed-4:a/0.npy"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL: --seed 3 twice should give the same draws and --seed 4 others"
fi
fails 2 "opgen-rt run: option --seed takes an integer, not 'x'
Run 'opgen-rt run --help' for usage." run random.graph --seed x -o "$tmp/o"

# --repeat and --profile on graph text: the run's outputs written, then N more
# runs timed, each node's time (a fused convolution's chain in its own step, with
# its FLOP rate; the numbers are the machine's); --calls is for .pte methods
mb=../examples/mobilenet_block
set -- run "$mb.graph" -o "$tmp/mb"
for f in "$mb"/inputs/*.npy; do n=${f##*/} && set -- "$@" -i "${n%.npy}=$f"; done
if "$rt" "$@" --repeat 3 --profile >"$tmp/prof" 2>"$tmp/err" && "$close" "$mb/expected/0.npy" "$tmp/mb/0.npy" 1e-5 1e-5 >/dev/null &&
    grep -q '^timing: run 3 more times: median [0-9.]* ms, min [0-9.]* ms$' "$tmp/prof" &&
    grep -q '^profile: 3 runs, [0-9.]* ms a run; its steps [0-9.]* ms ([0-9.]*% of the run)$' "$tmp/prof" &&
    grep -q '^ *step  operator  *ms  *share  *GFLOP/s$' "$tmp/prof" &&
    grep -q '^ *0  aten::convolution  *[0-9.]*  *[0-9.]*%  *[0-9.]*$' "$tmp/prof" && grep -q '^ *13  aten::max_pool2d_with_indices  *[0-9.]*  *[0-9.]*%$' "$tmp/prof"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL: graph text --repeat --profile: $(cat "$tmp/prof" "$tmp/err")"
fi
fails 2 "opgen-rt run: --calls '$tmp': $mb.graph is graph text, which has no state between calls; --calls takes .pte programs
Run 'opgen-rt run --help' for usage." "$@" --calls "$tmp"
fails 2 "opgen-rt run: --repeat takes a count from 1 to 1000000, not '0'
Run 'opgen-rt run --help' for usage." "$@" --repeat 0

# compare: exit 0 and the largest difference; exit 1 at the first value out of
# tolerance (here the last, its top byte changed) or a dtype/shape mismatch
compares() { st=$1 text=$2 && shift 2 && says "$st" out "$text" compare "$@"; } # compares STATUS 'EXACT STDOUT' ARGS...
cp "$x" "$tmp/y.npy" && printf '\102' | dd of="$tmp/y.npy" bs=1 seek=$(($(wc -c <"$x") - 1)) conv=notrunc 2>/dev/null
compares 0 "$x: 6 values close (max abs diff 0)" "$x" "$x"
compares 1 "$tmp/y.npy: element 5 is 80, expected 1.25" "$x" "$tmp/y.npy"
compares 0 "$tmp/y.npy: 6 values close (max abs diff 78.8)" "$x" "$tmp/y.npy" --atol 79
compares 1 "$tmp/y.npy: element 5 is 80, expected 1.25" "$x" "$tmp/y.npy" --atol 78
compares 0 "$tmp/y.npy: 6 values close (max abs diff 78.8)" "$x" "$tmp/y.npy" --rtol 64
compares 1 "../npy/i64_5.npy: dtype or shape differs (Float 2-d expected, Long 1-d)" "$x" ../npy/i64_5.npy
# bfloat16: read and written as NumPy's raw '|V2' bits; a float32 file for a
# bfloat16 input is narrowed (to nearest even: bf16_5.npy's bits); compare takes
# a bfloat16 result against float32 values
if "$rt" run bf16_views.graph --input x=../npy/bf16_5.npy -o "$tmp/bf" &&
    "$rt" run bf16_views.graph --input x=../npy/f32_5.npy -o "$tmp/bf32" && cmp -s "$tmp/bf/0.npy" "$tmp/bf32/0.npy" &&
    grep -q "'descr': '|V2'" "$tmp/bf/0.npy"; then pass=$((pass + 1)); else
    fail=$((fail + 1)) && echo "FAIL: bfloat16 in and out: a run failed, a float32 input gives other bits, or the result is not '|V2'"
fi
compares 0 "$tmp/bf/0.npy: 5 values close (max abs diff 4.06e+35)" ../npy/f32_5.npy "$tmp/bf/0.npy" --rtol 0.004 --atol 0
compares 1 "$tmp/bf/0.npy: dtype or shape differs (Float 2-d expected, BFloat16 1-d)" "$x" "$tmp/bf/0.npy"
# a bool array holds 0 and 1 only: another byte is refused where it is read
cp ../npy/b1_2x2.npy "$tmp/b.npy" && printf '\002' | dd of="$tmp/b.npy" bs=1 seek=$(($(wc -c <"$tmp/b.npy") - 1)) conv=notrunc 2>/dev/null
fails 1 "$tmp/b.npy: error: element 3 of a bool array is 2, not 0 or 1" compare "$tmp/b.npy" "$tmp/b.npy"
fails 2 "opgen-rt compare: --rtol must be a number >= 0, not '-1'
Run 'opgen-rt compare --help' for usage." compare "$x" "$x" --rtol -1

echo "rt: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
