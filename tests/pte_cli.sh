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
else
    echo "SKIP: the corpus's exported programs ($corpus/exir is absent)"
fi
echo "pte-cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
