#!/bin/sh
# The example programs (tests/examples/*.graph: an MLP, a MobileNetV2 block with
# a depthwise convolution, an attention block) run through opgen-rt; every output
# must match what PyTorch computes for them (tests/examples/make_examples.py,
# eager torch.ops.aten in float32), within 1e-5 relative and absolute.
# usage: examples.sh OPGEN_RT NPY_CLOSE EXAMPLES_DIR
set -u
rt=$1 close=$2 dir=$3
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for prog in "$dir"/*.graph; do
    name=$(basename "$prog" .graph)
    set --
    for f in "$dir/$name"/inputs/*.npy; do
        set -- "$@" --input "$(basename "$f" .npy)=$f"
    done
    if ! "$rt" run "$prog" "$@" -o "$tmp/$name" 2>"$tmp/err"; then
        fail=$((fail + 1))
        echo "FAIL $name:"
        cat "$tmp/err"
        continue
    fi
    for want in "$dir/$name"/expected/*.npy; do
        if "$close" "$want" "$tmp/$name/$(basename "$want")" 1e-5 1e-5; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name/$(basename "$want")"; fi
    done
done
echo "examples: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
