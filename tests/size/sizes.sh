#!/bin/sh
# The size test's figures (meson test --benchmark): each program stripped, its
# text, data and bss and the stripped file's bytes, beside ExecuTorch's size test
# (test/size_test.cpp: load a program, run a method, no operators): its CI
# baseline for arm-none-eabi is 115,868 bytes stripped (threshold 118,000), its
# x86-64 Linux gcc threshold 52,168 bytes.
# With OPGEN_SIZE_LIMIT (bytes) it fails when size_test's stripped file is larger
# (the goal: 32 KiB on a Cortex-M, 24 KiB on x86-64 gcc).
#     usage: sizes.sh SIZE_TEST SIZE_TEST_ADD   (env OPGEN_STRIP, OPGEN_SIZE, OPGEN_TARGET, OPGEN_SIZE_LIMIT)
strip=${OPGEN_STRIP:-strip} size=${OPGEN_SIZE:-size} target=${OPGEN_TARGET:-x86-64}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
case $target in x86-64) et="ExecuTorch size_test, x86-64 gcc: threshold 52,168" ;; *) et="ExecuTorch size_test, arm-none-eabi: 115,868 (threshold 118,000)" ;; esac
echo "size test ($target, -Os), bytes: program | text | data | bss | stripped file"
first=
for exe in "$@"; do
    cp "$exe" "$tmp/s" && "$strip" "$tmp/s" || exit 1
    bytes=$(wc -c <"$tmp/s")
    first=${first:-$bytes}
    "$size" -B "$tmp/s" | awk -v name="$(basename "$exe")" -v file="$bytes" 'NR == 2 { printf "%s | %d | %d | %d | %d\n", name, $1, $2, $3, file }'
done
echo "$et"
if [ -n "${OPGEN_SIZE_LIMIT:-}" ]; then
    [ "$first" -le "$OPGEN_SIZE_LIMIT" ] || { echo "FAIL: size_test is $first bytes stripped, over the limit of $OPGEN_SIZE_LIMIT"; exit 1; }
    echo "ok: size_test is $first bytes stripped, within $OPGEN_SIZE_LIMIT"
fi
