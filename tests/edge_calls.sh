#!/bin/sh
# Edge call validation on the real edge.yaml: each case is a call and whether
# PyTorch's eager kernels accept it (what edge.yaml was produced from), including
# shared-alias rows and Scalar/ScalarType arguments ExecuTorch itself skips.
# usage: edge_calls.sh OPGEN CORPUS
set -u
opgen=$1 dir=$2
nf=$dir/pytorch-2.14/native_functions.yaml edge=$dir/executorch/edge.yaml
if [ ! -f "$nf" ] || [ ! -f "$edge" ]; then
    echo "SKIP: $dir (pytorch-2.14, executorch/edge.yaml) not found"
    exit 77
fi
pass=0 fail=0
while read -r want op args; do
    case $want in '#'* | '') continue ;; esac
    args=${args%%#*}
    # shellcheck disable=SC2086
    "$opgen" dtypes --native-functions "$nf" --edge "$edge" --op "$op" $args >/dev/null 2>&1
    got=$?
    if [ "$got" -eq "$want" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $op $args: exit $got, expected $want"
    fi
done <<'CASES'
# exit op args                                   why
0 aten::add.Tensor self=Float other=Int __ret_0=Float  # type promotion Float+Int -> Float
1 aten::add.Tensor self=Float other=Float __ret_0=Int  # result cannot be narrower
1 aten::add.Tensor self=BFloat16 other=Half __ret_0=Float  # no row mixes BFloat16 and Half into Float
1 aten::add.Tensor self=Int other=Int alpha=Float __ret_0=Int  # a float alpha on integer tensors (Scalar checked)
0 aten::add.Tensor self=Int other=Int alpha=Int __ret_0=Int
0 aten::mul.Tensor self=Int other=Int __ret_0=Int
1 aten::div.Tensor self=Int other=Int __ret_0=Int  # true division of ints gives a float
0 aten::div.Tensor self=Int other=Int __ret_0=Float
0 aten::eq.Tensor self=Float other=Float __ret_0=Bool
0 aten::where.self condition=Bool self=Float other=Float __ret_0=Float
1 aten::where.self condition=Float self=Float other=Float __ret_0=Float
0 aten::_to_copy self=Float dtype=Int __ret_0=Int  # dtype and result share an alias
1 aten::_to_copy self=Float dtype=Int __ret_0=Float  # ... so they must agree
0 aten::_softmax self=Float __ret_0=Float
1 aten::_softmax self=Float __ret_0=Double  # shared alias T0: one dtype
1 aten::_softmax self=Int __ret_0=Int  # softmax needs floating point
0 aten::sigmoid self=Int __ret_0=Float
1 aten::relu self=Bool __ret_0=Bool
0 aten::mm self=Float mat2=Float __ret_0=Float
1 aten::mm self=Float mat2=Double __ret_0=Float  # matmul operands share one dtype
0 aten::full fill_value=Float dtype=Long __ret_0=Long  # ScalarType argument checked
0 aten::cat tensors=Float __ret_0=Float
0 aten::embedding weight=Float indices=Long __ret_0=Float
1 aten::embedding weight=Float indices=Float __ret_0=Float  # indices are integers
CASES
echo "edge_calls: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
