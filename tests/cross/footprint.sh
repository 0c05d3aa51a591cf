#!/bin/sh
# Flash and RAM of the bare-metal example, per model (README: "Run on a
# microcontroller"): each app is the example linked with a runtime trimmed to its
# model, for the core of this build. Code is .text; read-only data is .rodata and
# the rest of flash (the program's bytes among it); data+bss is RAM outside the
# two arenas; the arenas are model.h's sizes: the planned memory (within the load
# arena, which also holds the loaded method) and a run's work memory.
#     usage: footprint.sh BUILD [NAME...]   (default: every bare_metal_NAME built)
# BUILD is a Cortex-M cross build (tests/cross/cortex-*.txt) with -Dtests=true.
build=$1
[ -d "$build/tests/cross" ] || { echo "usage: footprint.sh BUILD [NAME...] (BUILD: a cross build with -Dtests=true)" >&2; exit 2; }
shift
if [ $# -eq 0 ]; then
    for app in "$build"/tests/cross/bare_metal_*; do
        case $app in *.map | *.p) continue ;; esac
        [ -f "$app" ] && set -- "$@" "${app##*/bare_metal_}"
    done
fi
[ $# -gt 0 ] || { echo "footprint.sh: no bare_metal_* program in $build/tests/cross (ninja -C $build tests/cross/bare_metal_kws ...)" >&2; exit 1; }
size=${OPGEN_SIZE:-arm-none-eabi-size} readelf=${OPGEN_READELF:-arm-none-eabi-readelf}
printf '| model | code | read-only data (model) | data+bss | load arena (planned) | work arena | flash | RAM |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for name in "$@"; do
    app=$build/tests/cross/bare_metal_$name header=$build/tests/cross/$name.h
    get() { sed -n "s/^#define MODEL_$1 \\([0-9]*\\).*/\\1/p" "$header"; }
    load=$(get LOAD_BYTES) work=$(get WORK_BYTES) planned=$(get PLANNED_BYTES) program=$(get PROGRAM_BYTES)
    [ -n "$load" ] && [ -n "$work" ] || { echo "FAIL: $header gives no sizes"; exit 1; }
    # code: the functions' bytes (picolibc's link script puts read-only data in .text too)
    text=$("$readelf" -W -s "$app" | awk '$4 == "FUNC" { code += $3 } END { print code + 0 }')
    "$size" -A -d "$app" | awk -v name="$name" -v code="$text" -v load="$load" -v work="$work" -v planned="$planned" -v program="$program" '
        $1 == ".text" || $1 == ".init" || $1 == ".rodata" || $1 == ".ARM.exidx" { ro += $2 }
        $1 == ".data" || $1 == ".tdata" { data += $2 }
        $1 == ".bss" || $1 == ".tbss" || $1 == ".noinit" { bss += $2 }
        END {
            rodata = ro - code; ram = data + bss
            printf "| %s | %d | %d (%d) | %d | %d (%d) | %d | %d | %d |\n", name, code, rodata, program, ram - load - work, load, planned, work, ro + data, ram
        }'
done
