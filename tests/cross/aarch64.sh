#!/bin/sh
# The runtime for 64-bit Arm (aarch64 Linux): every source of runtime-stubs/
# compiled by the cross compiler with the project's warnings as errors, and the
# hot loops checked to be NEON (Advanced SIMD, part of every aarch64 CPU, so no
# dispatch is needed there): the GEMM's micro-kernel multiplies-and-adds 4 floats
# at a time (fmla v.4s), the elementwise loops add 4 at a time (fadd v.4s).
# Compiles only (no aarch64 machine or emulator is needed).
#     usage: aarch64.sh SOURCE_ROOT        SKIP (77) without aarch64-linux-gnu-gcc
src=$1
# tests/all.sh's clang and ASan stages: the gcc stage compiled the same sources
[ "${OPGEN_BACKEND_BUILDS:-1}" = 0 ] && { echo "SKIP: OPGEN_BACKEND_BUILDS=0 (the gcc stage runs this check)"; exit 77; }
cc=${OPGEN_AARCH64_CC:-aarch64-linux-gnu-gcc}
command -v "$cc" >/dev/null 2>&1 || { echo "SKIP: no $cc (Debian: gcc-aarch64-linux-gnu)"; exit 77; }
command -v aarch64-linux-gnu-objdump >/dev/null 2>&1 || { echo "SKIP: no aarch64-linux-gnu-objdump"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags="-std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla -D_POSIX_C_SOURCE=200809L -DOPGEN_HAVE_POOL=1 -ffunction-sections -fdata-sections -I$src/runtime-stubs/include -I$src/generated -I$src"
# one line per source: its extra flags (the kernels as meson builds them)
for f in "$src"/runtime-stubs/*.c "$src"/runtime-stubs/cli/*.c; do echo "$f -O2"; done >"$out/list"
# the two whose NEON is checked below at -O3 as meson builds them; the rest at -O1
# (a compile check: -O3's vectorising of every kernel took most of its 100 s)
for f in "$src"/runtime-stubs/kernels/*.c; do
    case $f in */gemm.c) echo "$f -O3 -ffp-contract=fast" ;; */binary.c) echo "$f -O3 -ffp-contract=off" ;; *) echo "$f -O1 -ffp-contract=off" ;; esac
done >>"$out/list"
failed=0
# two compilers at a time; a failure prints the compiler's own message
while read -r f extra; do
    echo "$cc $flags $extra -c $f -o $out/$(basename "$f" .c).o"
done <"$out/list" | xargs -P 2 -I{} sh -c '{} 2>&1 || echo "FAILED: {}"' >"$out/log"
if grep -q "FAILED\|error\|warning" "$out/log"; then
    cat "$out/log"
    echo "FAIL: the runtime does not compile cleanly for aarch64"
    exit 1
fi
n=$(wc -l <"$out/list")
fmla=$(aarch64-linux-gnu-objdump -d "$out/gemm.o" | grep -c 'fmla[[:space:]]*v[0-9]*\.4s')
fadd=$(aarch64-linux-gnu-objdump -d "$out/binary.o" | grep -c 'fadd[[:space:]]*v[0-9]*\.4s')
echo "aarch64: $n sources compile with -Werror; gemm.o has $fmla NEON fmla (4 floats), binary.o $fadd NEON fadd"
[ "$fmla" -gt 0 ] && [ "$fadd" -gt 0 ] || { echo "FAIL: the hot loops are not NEON"; exit 1; }
# the int8 kernels built for a core with the dot-product extension (Armv8.2-A
# and later: Cortex-A55/A76 on): their micro-kernel is sdot (four int8 pairs a lane)
if ! $cc $flags -O3 -ffp-contract=off -march=armv8.2-a+dotprod -c "$src/runtime-stubs/kernels/q8.c" -o "$out/q8dot.o" 2>"$out/q8log"; then
    cat "$out/q8log"; echo "FAIL: kernels/q8.c does not compile for armv8.2-a+dotprod"; exit 1
fi
sdot=$(aarch64-linux-gnu-objdump -d "$out/q8dot.o" | grep -c 'sdot[[:space:]]')
echo "aarch64: q8.o (armv8.2-a+dotprod) has $sdot sdot"
[ "$sdot" -gt 0 ] || { echo "FAIL: the int8 micro-kernel is not sdot"; exit 1; }
echo "aarch64: PASS"
