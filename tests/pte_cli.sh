#!/bin/sh
# opgen-rt on .pte programs from the command line: the suite's built programs
# (tests/pte/) run on their inputs and give exactly their outputs (a constant in
# a segment and inline, control flow both ways, a second method, channels-last
# tensors in logical order at the boundary); info, print, and the refusals with
# their text pinned (a delegate without a handler, a missing method, inputs by
# position). With the corpus, ExecuTorch's exported programs through the CLI.
# usage: pte_cli.sh OPGEN_RT NPY_CLOSE PROGRAMS CORPUS
set -u
rt=$1 close=$2 p=$3 corpus=$4
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# run NAME OUTDIR ARGS...: runs, and compares OUTDIR/0.npy with the expected file (exactly)
same() { # same EXPECTED ACTUAL WHAT
    if "$close" "$1" "$2" 0 0 >/dev/null; then ok; else bad "$3: $("$close" "$1" "$2" 0 0 2>&1 | head -2)"; fi
}
runs() { # runs WHAT ARGS...
    what=$1
    shift
    if "$rt" run "$@" 2>"$tmp/err"; then ok; else bad "$what: $(head -2 "$tmp/err")"; fi
}

runs "add" "$p/add.pte" --input 0="$p/add.in0.npy" -o "$tmp/add"
same "$p/add.out0.npy" "$tmp/add/0.npy" "add (constants in a segment)"
runs "add_legacy" "$p/add_legacy.pte" --input 0="$p/add.in0.npy" -o "$tmp/legacy"
same "$p/add.out0.npy" "$tmp/legacy/0.npy" "add (constants inline)"
runs "control" "$p/control.pte" --input 0="$p/control.in0.npy" --input 1="$p/control.in1.npy" -o "$tmp/ct"
same "$p/control.out0.npy" "$tmp/ct/0.npy" "control flow, the true branch"
runs "control" "$p/control.pte" --input 1="$p/control.in1_false.npy" --input 0="$p/control.in0.npy" -o "$tmp/cf"
same "$p/control.out0_false.npy" "$tmp/cf/0.npy" "control flow, the false branch"
runs "two_methods" "$p/two_methods.pte" --method twice_plus_one --input 0="$p/add.in0.npy" -o "$tmp/tm"
same "$p/two_methods.out0.npy" "$tmp/tm/0.npy" "the second method"
runs "channels_last" "$p/channels_last.pte" --input 0="$p/channels_last.in0.npy" -o "$tmp/cl"
same "$p/channels_last.out0.npy" "$tmp/cl/0.npy" "channels-last, given and returned in logical order"

# refusals, their text pinned
expect() { # expect STATUS TEXT ARGS...: exit STATUS, stderr holding TEXT
    want=$1 text=$2
    shift 2
    "$rt" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -eq "$want" ] && grep -qF -e "$text" "$tmp/err"; then ok; else bad "opgen-rt $* -> exit $rc: $(head -2 "$tmp/err") (expected $want and: $text)"; fi
}
expect 1 "delegated.pte: error: method 'forward': delegate 0 runs on backend 'TestBackend', and no handler for it is registered (opgen_method_options.delegates)" \
    run "$p/delegated.pte" --input 0="$p/add.in0.npy" -o "$tmp/d"
expect 1 "two_methods.pte: error: no method 'nope' (the program has 'forward', 'twice_plus_one')" run "$p/two_methods.pte" --method nope --input 0="$p/add.in0.npy" -o "$tmp/x"
expect 2 "add.pte: error: method 'forward' has 1 input (0..0): no input 'x'" run "$p/add.pte" --input x="$p/add.in0.npy" -o "$tmp/x"
expect 2 "add.pte: error: no value for input 0 (give --input 0=...)" run "$p/add.pte" -o "$tmp/x"
expect 1 "add.pte: error: input 0 is f32[2, 3], but" run "$p/add.pte" --input 0="$p/control.in0.npy" -o "$tmp/x"
expect 1 "control.pte: error: method 'forward', instruction 0: a JumpFalseCall, which graph text cannot express (control flow)" print "$p/control.pte"
expect 2 "--method 'forward': " run "$(dirname "$0")/examples/mlp.graph" --method forward -o "$tmp/x"
head -c 200 "$p/add.pte" >"$tmp/cut.pte"
expect 1 "cut.pte: error: " run "$tmp/cut.pte" --input 0="$p/add.in0.npy" -o "$tmp/x"
[ ! -e "$tmp/x" ] && ok || bad "a failed run wrote its output folder"

# state between calls: one loaded method, --calls DIR, each call's outputs exact
runs "state" "$p/state.pte" --calls "$p/state_calls" -o "$tmp/st"
for k in 0 1 2; do same "$p/state.out$k.npy" "$tmp/st/${k}_0.npy" "state, call $k"; done
if "$rt" run "$p/state.pte" --calls "$p/state_calls" --repeat 3 -o "$tmp/st2" >"$tmp/timing" 2>"$tmp/err" &&
    grep -q '^timing: call 2 run 3 more times: median [0-9.]* ms, min [0-9.]* ms$' "$tmp/timing"; then ok; else bad "--repeat: $(cat "$tmp/timing" "$tmp/err")"; fi
same "$p/state.out2.npy" "$tmp/st2/2_0.npy" "state, call 2 written before the repeats"
# --profile: every instruction's time and share (the numbers are the machine's)
if "$rt" run "$p/state.pte" --calls "$p/state_calls" --profile --repeat 3 -o "$tmp/st4" >"$tmp/prof" 2>"$tmp/err" &&
    grep -q '^profile: 3 runs, [0-9.]* ms a run; its instructions [0-9.]* ms ([0-9.]*% of the run)$' "$tmp/prof" &&
    grep -q '^ *1  aten::copy_  *[0-9.]* *[0-9.]*%' "$tmp/prof" && grep -q '^ *0  aten::add.out  *[0-9.]*' "$tmp/prof"; then ok; else bad "--profile: $(cat "$tmp/prof" "$tmp/err")"; fi
# each run of its own loads afresh: the first call's result again
runs "state, a fresh load" "$p/state.pte" --input 0="$p/state_calls/1_0.npy" -o "$tmp/st3"
"$close" "$p/state.out1.npy" "$tmp/st3/0.npy" 0 0 >/dev/null && bad "a fresh load kept state" || ok
expect 1 "bad_bool.pte: error: method 'forward': value 1, a Bool tensor, holds 2 at element 1: not 0 or 1" run "$p/bad_bool.pte" --input 0="$p/control.in0.npy" -o "$tmp/x"
expect 1 "state_bad_segment.pte: error: a planned tensor has initial data 1, but the program has no mutable data segment" run "$p/state_bad_segment.pte" --input 0="$p/state_calls/0_0.npy" -o "$tmp/x"
expect 1 "nowhere/0_0.npy: error: no such file: --calls DIR holds call K's input I as DIR/K_I.npy" run "$p/state.pte" --calls "$tmp/nowhere" -o "$tmp/x"
expect 2 "--calls DIR and --input both give inputs: give one of them" run "$p/state.pte" --calls "$p/state_calls" --input 0="$p/add.in0.npy" -o "$tmp/x"
expect 2 "--repeat takes a count from 1 to 1000000, not '0'" run "$p/state.pte" --input 0="$p/state_calls/0_0.npy" --repeat 0 -o "$tmp/x"
expect 2 "--calls '$p/state_calls': " run "$(dirname "$0")/examples/mlp.graph" --calls "$p/state_calls" -o "$tmp/x"
mkdir -p "$tmp/badcalls" && cp "$p/state_calls/0_0.npy" "$tmp/badcalls/0_0.npy" && cp "$p/add.in0.npy" "$tmp/badcalls/1_0.npy"
expect 1 "state.pte: error: input 0 is f32[3], but $tmp/badcalls/1_0.npy holds f32[2, 3]" run "$p/state.pte" --calls "$tmp/badcalls" -o "$tmp/bc"
[ -f "$tmp/bc/0_0.npy" ] && [ ! -e "$tmp/bc/1_0.npy" ] && ok || bad "--calls: the calls before a bad one are not written, or the bad one is"
# a call missing between others is an error naming it, before any call runs
mkdir -p "$tmp/gapcalls" && cp "$p/state_calls/0_0.npy" "$p/state_calls/1_0.npy" "$tmp/gapcalls/" && cp "$p/state_calls/1_0.npy" "$tmp/gapcalls/3_0.npy"
expect 1 "$tmp/gapcalls/2_0.npy: error: no such file: call 2 is missing (the folder holds calls up to 3)" run "$p/state.pte" --calls "$tmp/gapcalls" -o "$tmp/gc"
[ ! -e "$tmp/gc/0_0.npy" ] && ok || bad "--calls with a gap: a call ran"

# scalar inputs: a Null-declared one takes the value given; one fixed at export
# takes only that value (ExecuTorch refuses the call too: never a silently wrong result)
runs "scalars" "$p/scalars.pte" --input 0="$p/control.in0.npy" --input 1=1.5 --input 2=4 -o "$tmp/sc"
same "$p/scalars.out0.npy" "$tmp/sc/0.npy" "scalars: x * 1.5 + 4"
expect 1 "scalars.pte: error: method 'forward': input 1 was fixed at 1.5 when the program was exported (a specialised scalar): it takes only that value, not 2" \
    run "$p/scalars.pte" --input 0="$p/control.in0.npy" --input 1=2 --input 2=4 -o "$tmp/x"
expect 1 "scalars.pte: error: input 2 is a number or True/False, not 'x'" run "$p/scalars.pte" --input 0="$p/control.in0.npy" --input 1=1.5 --input 2=x -o "$tmp/x"
runs "scalars, n a float" "$p/scalars.pte" --input 0="$p/control.in0.npy" --input 1=1.5 --input 2=0.5 -o "$tmp/sc2"
"$close" "$p/scalars.out0.npy" "$tmp/sc2/0.npy" 0 0 >/dev/null && bad "the Null input's value was not used" || ok
"$rt" info "$p/scalars.pte" >"$tmp/info" 2>&1
for line in "  input 1: Double 1.5 (fixed at export: a run must give this value)" "  input 2: Null (a scalar given at run: an int, a float or a bool)"; do
    if grep -qF -e "$line" "$tmp/info"; then ok; else bad "info lacks '$line'"; fi
done
"$rt" info "$p/state.pte" | grep -qF "  state kept between runs (mutable buffers): value 1 f32[3]" && ok || bad "info does not show the state"

# dynamic shapes: an input of any sizes within its bound, outs sized per run
# within their planned bytes, outputs written at their actual sizes
runs "dynamic" "$p/dynamic.pte" --input 0="$p/dynamic.in2.npy" --input 1=3 -o "$tmp/dy"
same "$p/dynamic.relu2.npy" "$tmp/dy/0.npy" "dynamic: relu of a 2-element input, written as 2 elements"
same "$p/dynamic.full3.npy" "$tmp/dy/1.npy" "dynamic: full([n]) with n = 3, written as 3 elements"
expect 1 "dynamic.pte: error: method 'forward': input 0 is dynamic, planned at most f32[4], got f32[5]" run "$p/dynamic.pte" --input 0="$p/dynamic.in5.npy" --input 1=3 -o "$tmp/x"
expect 1 "dynamic.pte: error: method 'forward', instruction 1 (aten::full.out): aten::full.out: out holds 16 bytes, the result needs 20" \
    run "$p/dynamic.pte" --input 0="$p/dynamic.in2.npy" --input 1=5 -o "$tmp/x"
"$rt" info "$p/dynamic.pte" | grep -qF "  input 0: f32[4] (dynamic: these sizes are its bound)" && ok || bad "info does not show the bound"

# programs exported for the suite (tests/exir/*/, tests/exir/export.py): a dynamic
# sequence length read at run (sym_size.int), arithmetic on it (executorch_prim
# ops) and views sized by it (et_view); every call of one loaded method. A bf16
# or fp16 program (an f32/ folder beside expected/) is within a few of its
# dtype's steps of eager's; test_method holds it to eager float32 (at most
# twice eager's own distance).
for dir in "$(dirname "$0")"/exir/*/; do
    m=$(basename "$dir")
    tol="--rtol 1e-4 --atol 1e-5"
    [ -d "$dir/f32" ] && tol="--rtol 0.02 --atol 0.1"
    runs "tests/exir/$m --calls" "$dir/model.pte" --calls "$dir/inputs" -o "$tmp/t-$m"
    for f in "$dir/expected"/*.npy; do
        b=$(basename "$f")
        # shellcheck disable=SC2086
        if "$rt" compare "$f" "$tmp/t-$m/$b" $tol >/dev/null; then ok; else bad "tests/exir/$m $b: $("$rt" compare "$f" "$tmp/t-$m/$b" $tol 2>&1 | head -1)"; fi
    done
done
"$rt" run "$(dirname "$0")/exir/seq_dynamic/model.pte" --calls "$(dirname "$0")/exir/seq_dynamic/inputs" -o "$tmp/tr" --trace 2>"$tmp/trace" >/dev/null
grep -qF "instruction 1: executorch_prim::et_view.default -> a prim op (opgen)" "$tmp/trace" && ok || bad "the trace does not show et_view as a prim op"

# 3x3s whose filters load transforms once (Winograd's U, kernels/conv.h): the
# trace names them, and 2 threads give the same bytes as 1
wb=$(dirname "$0")/exir/wide_blocks
"$rt" run "$wb/model.pte" --calls "$wb/inputs" -o "$tmp/wb1" --trace 2>"$tmp/wbtrace" >/dev/null
n=$(grep -c "aten::convolution.out -> opgen_portable_convolution_out, its filter transformed at load" "$tmp/wbtrace")
[ "$n" = 3 ] && ok || bad "wide_blocks: $n convolutions with their filter transformed at load, not 3"
"$rt" run "$wb/model.pte" --calls "$wb/inputs" -o "$tmp/wb2" --threads 2 >/dev/null 2>&1 || bad "wide_blocks on 2 threads"
for k in 0 1; do same "$tmp/wb1/${k}_0.npy" "$tmp/wb2/${k}_0.npy" "wide_blocks call $k: 2 threads, the bytes of 1"; done

# PT2E int8 programs (tests/exir/export_int8.py): the quantized chains run on the
# integer kernels (the trace names each), the same bytes on 1 and 2 threads;
# --fallbacks runs them as written (float patterns) and matches too; the
# hardtanh between its own Q/DQ pairs after the depthwise convolution becomes
# that convolution's range
q8=$(dirname "$0")/exir/int8_mix
"$rt" run "$q8/model.pte" --input 0="$q8/inputs/1_0.npy" -o "$tmp/q8-1" --trace 2>"$tmp/q8trace" >/dev/null
for k in "aten::convolution.out -> opgen_q8_conv (int8, " "aten::convolution.out -> opgen_q8_depthwise (int8)" \
    "aten::add.out -> opgen_q8_add (int8)" "aten::hardtanh.out -> folded at load" \
    "aten::max_pool2d_with_indices.out -> opgen_q8_max_pool (int8)" "aten::addmm.out -> opgen_q8_conv (int8, " \
    "aten::mean.out -> opgen_q8_mean (int8)"; do
    grep -qF -e "$k" "$tmp/q8trace" && ok || bad "int8_mix: the trace lacks '$k'"
done
"$rt" run "$q8/model.pte" --input 0="$q8/inputs/1_0.npy" -o "$tmp/q8-2" --threads 2 >/dev/null 2>&1
cmp -s "$tmp/q8-1/0.npy" "$tmp/q8-2/0.npy" && ok || bad "int8_mix: 2 threads give other bytes than 1"
"$rt" run "$q8/model.pte" --input 0="$q8/inputs/1_0.npy" -o "$tmp/q8-f" --fallbacks --trace 2>"$tmp/q8ftrace" >/dev/null
grep -qF "opgen_q8" "$tmp/q8ftrace" && bad "int8_mix --fallbacks: an integer kernel ran" || ok
"$rt" compare "$q8/expected/1_0.npy" "$tmp/q8-f/0.npy" --rtol 1e-4 --atol 1e-5 >/dev/null && ok || bad "int8_mix --fallbacks does not match"

# a data-dependent size past its exported bound (nonzero of 48 ones, bound 30) is an error naming the bound
nz=$(dirname "$0")/exir/nonzero
expect 1 "aten::nonzero.out: the result has 48 in dimension 0, past the bound of 30 its program was exported with" run "$nz/model.pte" --input 0="$nz/over_bound.npy" -o "$tmp/nz"

# info and print
if "$rt" info "$p/two_methods.pte" >"$tmp/info" 2>&1; then ok; else bad "info: $(head -3 "$tmp/info")"; fi
for line in "method 'forward': 4 values, 1 chain" "method 'twice_plus_one': 6 values, 1 chain" "  input 0: f32[2, 3]" "  output 0: f32[6]" \
    "  planned memory: 96 bytes in 1 buffer (1: 96)" "  constants: 24 bytes in 1 tensors (inline)" "    aten::add.Scalar_out v1/6;0|6;0|6;0" \
    "  instructions: 2 KernelCall" "  loads: yes: load takes "; do
    if grep -qF -e "$line" "$tmp/info"; then ok; else bad "info lacks '$line'"; fi
done
"$rt" info "$p/channels_last.pte" | grep -qF "  input 0: f32[1, 2, 2, 3] (dim order 0,2,3,1)" && ok || bad "info does not show a dim order"
"$rt" info "$p/delegated.pte" | grep -qF "  delegates: TestBackend" && ok || bad "info does not name the delegate"
cat >"$tmp/want.graph" <<'EOF'
graph(%x0: f32[2, 3], %c1: f32[2, 3]):
  %v3 = aten::add.Tensor(%x0, %c1, alpha=2)
  return %v3
EOF
if "$rt" print "$p/add.pte" >"$tmp/got.graph" 2>&1 && cmp -s "$tmp/want.graph" "$tmp/got.graph"; then ok; else bad "print add.pte:"; diff "$tmp/want.graph" "$tmp/got.graph" | head -5; fi

# ExecuTorch's exported programs, through the CLI (the C API's test compares every call)
if [ -f "$corpus/exir/mlp/model.pte" ]; then
    for m in mlp small_cnn two_outputs cond embed_mean; do
        set --
        for f in "$corpus/exir/$m/inputs"/0_*.npy; do set -- "$@" --input "$(basename "$f" .npy | cut -d_ -f2)=$f"; done
        runs "exir/$m" "$corpus/exir/$m/model.pte" "$@" -o "$tmp/$m"
        for f in "$corpus/exir/$m/expected"/0_*.npy; do
            o=$(basename "$f" .npy | cut -d_ -f2)
            if "$close" "$f" "$tmp/$m/$o.npy" 1e-5 1e-6 >/dev/null; then ok; else bad "exir/$m output $o: $("$close" "$f" "$tmp/$m/$o.npy" 1e-5 1e-6 2>&1 | head -1)"; fi
        done
    done
    # a weight's permute_copy (nn.Linear, exported) is a view of the constant made at
    # load, not a copy at every call; the results above are with it
    "$rt" run "$corpus/exir/mlp/model.pte" --input 0="$corpus/exir/mlp/inputs/0_0.npy" -o "$tmp/mlp-trace" --trace 2>"$tmp/trace" >/dev/null
    grep -qF "aten::permute_copy.out -> folded at load (a view of a constant) (opgen)" "$tmp/trace" && ok || bad "mlp: no permute of a weight folded at load: $(grep permute "$tmp/trace")"
    # a llama's KV cache updated in place: each layer's copy_ back is not run (the
    # greedy tokens below are with it)
    "$rt" run "$corpus/exir/llama_decode/model.pte" --input 0="$corpus/exir/llama_decode/inputs/0_0.npy" --input 1="$corpus/exir/llama_decode/inputs/0_1.npy" -o "$tmp/llama-trace" --trace 2>"$tmp/trace" >/dev/null
    n=$(grep -cF "aten::copy_ -> folded at load (its index_put wrote the cache in place) (opgen)" "$tmp/trace")
    [ "$n" -gt 0 ] && [ "$n" = "$(grep -c "aten::copy_ " "$tmp/trace")" ] && ok || bad "llama_decode: $n of its cache updates in place: $(grep "copy_ " "$tmp/trace" | head -2)"
    # and attention's copies of a cache to the same sizes are not run
    grep -qF "aten::expand_copy.out -> folded at load (an identity copy: its readers read its source) (opgen)" "$tmp/trace" && ok || bad "llama_decode: no identity copy folded: $(grep expand_copy "$tmp/trace" | head -2)"
    # --threads 2: the same bytes as one thread (matrix products split by rows or columns)
    for m in small_cnn llama_decode; do
        "$rt" run "$corpus/exir/$m/model.pte" --calls "$corpus/exir/$m/inputs" -o "$tmp/t1-$m" --threads 1 2>/dev/null
        "$rt" run "$corpus/exir/$m/model.pte" --calls "$corpus/exir/$m/inputs" -o "$tmp/t2-$m" --threads 2 2>"$tmp/err"
        if [ -n "$(ls "$tmp/t1-$m")" ] && diff -r "$tmp/t1-$m" "$tmp/t2-$m" >/dev/null; then ok; else bad "exir/$m differs on 2 threads: $(cat "$tmp/err")"; fi
    done
    expect 2 "--threads takes a count from 1 to 256, not '0'" run "$corpus/exir/mlp/model.pte" --input 0="$corpus/exir/mlp/inputs/0_0.npy" -o "$tmp/x" --threads 0
    # programs people export today: state between calls (running_stats, ExecuTorch's
    # llama with its KV cache), a Null scalar input, a dynamic batch (calls at 1, 5,
    # 16, 4 rows); every call of one loaded method
    for m in running_stats scalar_inputs llama_decode dynamic_mlp; do
        runs "exir/$m --calls" "$corpus/exir/$m/model.pte" --calls "$corpus/exir/$m/inputs" -o "$tmp/$m"
        for f in "$corpus/exir/$m/expected"/*.npy; do
            b=$(basename "$f")
            if "$rt" compare "$f" "$tmp/$m/$b" --rtol 1e-4 --atol 1e-5 >/dev/null; then ok; else bad "exir/$m $b: $("$rt" compare "$f" "$tmp/$m/$b" --rtol 1e-4 --atol 1e-5 2>&1 | head -1)"; fi
        done
    done
else
    echo "SKIP: the corpus's exported programs ($corpus/exir is absent)"
fi
echo "pte-cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
