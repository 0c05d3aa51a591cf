#!/bin/sh
# Greedy decoding of ExecuTorch's llama exports: opgen-rt generate and the C API
# example (runtime-stubs/examples/greedy.c) give exactly the tokens eager PyTorch
# generated (info.json's "greedy": prompt, steps, tokens), for every llama program
# of the corpus and of tests/llama/; refusals of what is not such a program.
# usage: greedy.sh OPGEN_RT GREEDY SRCDIR CORPUS
set -u
rt=$1 ex=$2 src=$3 corpus=$4
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 n=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
for dir in "$corpus"/exir/llama_decode "$corpus"/exir/llama_bench "$src"/tests/llama/*/; do
    dir=${dir%/}
    [ -f "$dir/model.pte" ] && [ -f "$dir/info.json" ] || continue
    n=$((n + 1))
    # prompt, steps and tokens from the one-object-per-key JSON
    set -- $(tr -d ' \n' <"$dir/info.json" | sed -n 's/.*"greedy":{"prompt":\[\([0-9,]*\)\],"steps":\([0-9]*\),"tokens":\[\([0-9,]*\)\].*/\1 \2 \3/p')
    [ $# = 3 ] || { bad "$dir/info.json: no greedy prompt, steps and tokens"; continue; }
    want=$(echo "$3" | tr ',' ' ')
    got=$("$rt" generate "$dir/model.pte" --prompt "$1" --steps "$2" 2>"$tmp/err")
    [ "$got" = "$want" ] && ok || bad "opgen-rt generate $(basename "$dir"): '$got', eager PyTorch: '$want' $(head -2 "$tmp/err")"
    got=$("$ex" "$dir/model.pte" "$1" "$2" 2>"$tmp/err")
    [ "$got" = "$want" ] && ok || bad "examples/greedy $(basename "$dir"): '$got', eager PyTorch: '$want' $(head -2 "$tmp/err")"
    echo "$(basename "$dir"): prompt $1, $2 tokens, as eager PyTorch's"
done
[ "$n" -gt 0 ] || { echo "SKIP: no llama program ($corpus/exir is absent)"; exit 77; }
# refusals: a program of another signature, a bad prompt, a bad step count
p=$corpus/exir/llama_decode/model.pte
"$rt" generate "$corpus/exir/mlp/model.pte" --prompt 1 --steps 2 2>"$tmp/err" && bad "generate ran mlp" ||
    grep -qF "mlp/model.pte: error: generate takes a method with inputs tokens i64[1, 1] and input_pos i64[1]" "$tmp/err" && ok || bad "mlp: $(cat "$tmp/err")"
"$rt" generate "$p" --prompt 3,x --steps 2 2>"$tmp/err"; [ $? = 2 ] && grep -qF -e "--prompt takes token ids" "$tmp/err" && ok || bad "--prompt 3,x: $(cat "$tmp/err")"
"$rt" generate "$p" --prompt 3 --steps 0 2>"$tmp/err"; [ $? = 2 ] && grep -qF -e "--steps takes a count from 1 to 1000000, not '0'" "$tmp/err" && ok || bad "--steps 0: $(cat "$tmp/err")"
# past the KV cache (16 positions): refused by the kernel that would write outside it, not a wrong token
"$rt" generate "$p" --prompt 3 --steps 40 >"$tmp/out" 2>"$tmp/err"; [ $? = 1 ] && grep -q "^position 16: " "$tmp/err" && ok || bad "past the cache: $(cat "$tmp/err")"
echo "greedy: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
