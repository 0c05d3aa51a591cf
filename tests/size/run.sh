#!/bin/sh
# The size test's programs work: size_test (no kernel) refuses add_model.pte at
# load (exit 1), size_test_add runs it (exit 0).
#     usage: run.sh MODEL SIZE_TEST SIZE_TEST_ADD [WRAPPER ARGS...]
model=$1 empty=$2 add=$3
shift 3
[ -f "$model" ] || { echo "SKIP: $model is absent"; exit 77; }
"$@" "$empty" "$model"
rc=$?
[ "$rc" = 1 ] || { echo "FAIL: size_test on add_model.pte exited $rc, expected 1 (refused at load: no kernel)"; exit 1; }
"$@" "$add" "$model" || { echo "FAIL: size_test_add does not run add_model.pte"; exit 1; }
echo "ok: size_test refuses add_model.pte, size_test_add runs it"
