#!/bin/sh
# Functions fit on a screen: no function in gen/ or runtime-stubs/ is longer than
# 150 lines, lexers excepted (listed below). A function is what opens with a line
# at column 0 ending in "{" (or "{" alone after its signature) and closes with "}"
# at column 0, the layout clang-format gives this code.
# usage: function_size.sh SRCDIR [LIMIT]
set -u
src=$1 limit=${2:-150}
lexers=" runtime-stubs/graph.c:next "
cd "$src" || exit 2
find gen runtime-stubs -name '*.c' | sort | while read -r f; do
    awk -v F="$f" -v N="$limit" '
        /^[A-Za-z_][^;]*\)[ ]*\{[ ]*$/ && !/^(typedef|struct|enum|union)/ { start = NR; name = $0; next }
        /^[A-Za-z_][^;{]*\)[ ]*$/ { pending = $0; next }
        /^\{/ { start = NR; name = pending; next }
        /^\}/ {
            if (start) {
                n = NR - start + 1
                fn = name; sub(/\(.*/, "", fn); sub(/.*[ *]/, "", fn)
                if (n > N) printf "%s:%d: %s: %d lines\n", F, start, fn, n
            }
            start = 0
        }' "$f"
done >"${TMPDIR:-/tmp}/function_size.$$"
fail=0
while IFS= read -r line; do
    f=${line%%:*}
    fn=$(echo "$line" | sed 's/^[^:]*:[0-9]*: \([^:]*\):.*/\1/')
    case "$lexers" in *" $f:$fn "*) echo "allowed (a lexer): $line"; continue ;; esac
    echo "FAIL: $line (more than $limit)"
    fail=$((fail + 1))
done <"${TMPDIR:-/tmp}/function_size.$$"
rm -f "${TMPDIR:-/tmp}/function_size.$$"
longest=$(cd "$src" && find gen runtime-stubs -name '*.c' | sort | xargs awk '
    /^[A-Za-z_][^;]*\)[ ]*\{[ ]*$/ { s = FNR; next } /^\{/ { s = FNR; next }
    /^\}/ { if (s && FNR - s + 1 > m) m = FNR - s + 1; s = 0 } END { print m }')
echo "function-size: the longest function has $longest lines; $fail over $limit"
[ "$fail" -eq 0 ]
