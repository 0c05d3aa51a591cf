#!/bin/sh
# The bare-metal example links no heap and no printf: none of the C library's
# allocation, stream or file entry points is in the program (the runtime and the
# kernels call none on load or run; the example reports through semihosting
# itself). Formatting is linked only as vsnprintf, which writes an error's
# message into its opgen_error. Its static arrays are the sizes model.h gives.
#     usage: no_heap.sh NM PROGRAM MODEL_H
nm=$1 prog=$2 header=$3
symbols=$("$nm" "$prog") || { echo "FAIL: $nm cannot read $prog"; exit 1; }
found=$(printf '%s\n' "$symbols" | awk '{print $NF}' | grep -xE 'malloc|free|calloc|realloc|_sbrk|sbrk|printf|fprintf|vprintf|puts|fputs|putchar|fputc|fwrite|fopen|stdout|stderr|__malloc_sbrk_start')
if [ -n "$found" ]; then
    echo "FAIL: $prog links: $(echo $found)"
    exit 1
fi
echo "ok: $prog links none of malloc, free, calloc, realloc, sbrk, printf, fprintf, vprintf, puts, fputs, putchar, fputc, fwrite, fopen, stdout, stderr"
load=$(sed -n 's/^#define MODEL_LOAD_BYTES \([0-9]*\).*/\1/p' "$header") work=$(sed -n 's/^#define MODEL_WORK_BYTES \([0-9]*\).*/\1/p' "$header")
"$nm" -S -t d "$prog" | awk -v l="$load" -v w="$work" '
    $4 == "load_memory" { n++; printf "ok: load_memory: %d bytes (MODEL_LOAD_BYTES %d)\n", $2 + 0, l; if ($2 + 0 != l) bad = 1 }
    $4 == "work_memory" { n++; printf "ok: work_memory: %d bytes (MODEL_WORK_BYTES %d)\n", $2 + 0, w; if ($2 + 0 != w) bad = 1 }
    END { exit bad || n != 2 }' || { echo "FAIL: the static arrays are not the sizes model.h gives"; exit 1; }
