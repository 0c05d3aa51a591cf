#!/bin/sh
# The size table of selective builds: text and data bytes of each opgen-rt
# (`size -B`), and the bytes of kernel code it keeps, summed from its link map
# (sections of runtime-stubs/kernels/*.c and registry.c: kernels, dtype switches,
# trampolines, fallbacks). Fails when the add.out Float build keeps more than 3% of
# what the kernels add to the binary: (add - empty) / (full - empty), text+data.
# usage: sizes.sh FULL_EXE ADD_FLOAT_EXE EMPTY_EXE MOBILENET_EXE [check|skip]   (each with its link map beside it, opgen-rt.map)
set -u
if [ "${5:-check}" = skip ]; then echo "SKIP: sizes of an instrumented build (sanitizers) mean nothing"; exit 77; fi
kernel_bytes() { # MAP
    awk '
    function hex(s,   i, c, v) { v = 0; s = tolower(substr(s, 3)); for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c } return v }
    function account(size, obj) { if (obj ~ /kernels_|runtime-stubs_registry/) total += hex(size) }
    /^Linker script and memory map/ { p = 1; next }
    !p { next }
    /^ \.text/ { if (NF >= 4) account($3, $4); else pending = 1; next }
    pending && /^ +0x/ { account($2, $3); pending = 0; next }
    { pending = 0 }
    END { print total + 0 }' "$1"
}
row() { # LABEL EXE
    set -- "$1" "$2" "$(dirname "$2")/opgen-rt.map"
    td=$(size -B "$2" | awk 'NR == 2 { print $1 + $2 }')
    k=$(kernel_bytes "$3")
    echo "$1|$td|$k"
}
full=$(row "all ops, all dtypes" "$1")
add=$(row "aten::add.out, Float" "$2")
empty=$(row "empty selection" "$3")
mobile=$(row "MobileNetV2 ops, Float" "$4")
fk=$(echo "$full" | cut -d'|' -f3)
printf '| selection | opgen-rt text+data | kernel code | of all kernels |\n|---|---|---|---|\n'
for r in "$full" "$add" "$empty" "$mobile"; do
    k=$(echo "$r" | cut -d'|' -f3)
    printf '| %s | %s | %s | %s%% |\n' "$(echo "$r" | cut -d'|' -f1)" "$(echo "$r" | cut -d'|' -f2)" "$k" "$(awk -v a="$k" -v b="$fk" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }')"
done
# the measure: the add-only build's growth over the empty one, as a share of the full build's
ft=$(echo "$full" | cut -d'|' -f2); at=$(echo "$add" | cut -d'|' -f2); et=$(echo "$empty" | cut -d'|' -f2)
share=$(awk -v a="$at" -v e="$et" -v f="$ft" 'BEGIN { printf "%.2f", (f > e ? 100 * (a - e) / (f - e) : 100) }')
if awk -v s="$share" 'BEGIN { exit !(s <= 3.0) }'; then
    echo "sizes: add.out Float keeps $share% of the kernels' text+data ((add - empty) / (full - empty), at most 3%): ok"
else
    echo "sizes: FAIL: add.out Float keeps $share% of the kernels' text+data ((add - empty) / (full - empty)), more than 3%"
    exit 1
fi
