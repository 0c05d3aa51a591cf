#!/bin/sh
# The house rules a reader relies on (CONTRIBUTING.md), checked over gen/ and
# runtime-stubs/ (and tests/ for the layout):
#   - no source file over 900 lines; no .pte executor file (pte_exec*.c) over 700
#   - no macro body over 40 lines (a longer typed body is an .inc file)
#   - at most 1% of source lines over 120 columns
#   - every .c file opens with a comment saying what it holds
#   - the layout is .clang-format's (clang-format 14; said and skipped without it)
# usage: lint.sh SRCDIR
set -u
cd "$1" || exit 2
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
src=$(find gen runtime-stubs \( -name '*.c' -o -name '*.h' -o -name '*.inc' \) | sort)

for f in $src; do
    n=$(wc -l <"$f")
    [ "$n" -le 900 ] || bad "$f: $n lines (at most 900)"
    case $f in runtime-stubs/pte_exec*.c) [ "$n" -lt 700 ] || bad "$f: $n lines (the .pte executor's files: under 700)" ;; esac
done
largest=$(wc -l $src | sort -n | tail -2 | head -1)
echo "lint: largest source file: $largest"

# a macro body: a #define and its continuation lines
macros=$(awk '
    /^[ \t]*#[ \t]*define/ { start = FNR; name = $2; sub(/\(.*/, "", name); inm = 1 }
    inm && $0 !~ /\\[ \t]*$/ { n = FNR - start + 1; if (n > 40) printf "%s:%d: %s: %d lines\n", FILENAME, start, name, n; inm = 0 }
' $src)
[ -z "$macros" ] || bad "macro bodies over 40 lines:
$macros"

total=$(cat $src | wc -l)
long=$(cat $src | awk 'length > 120' | wc -l)
echo "lint: $long of $total source lines over 120 columns"
[ $((long * 100)) -le "$total" ] || bad "$long of $total lines over 120 columns (at most 1%)"

for f in $(find gen runtime-stubs tests -name '*.c' | sort); do
    head -1 "$f" | grep -q '^/[*/]' || bad "$f does not open with a comment saying what it holds"
done

# the layout: every C file but what templates generate (generated/, the golden
# outputs, the backends opgen skeleton made in tests/vendor)
fmt=$(find gen runtime-stubs tests \( -name '*.c' -o -name '*.h' -o -name '*.inc' \) |
    grep -v -e '^tests/gen-golden/' -e '^tests/vendor/demo/' -e '^tests/vendor/cortex_m/' -e '/expected/' | sort)
if command -v clang-format >/dev/null 2>&1 && clang-format --version | grep -q 'version 14\.'; then
    # one process over every file (one a file took half a minute)
    # shellcheck disable=SC2086
    off=$(clang-format --dry-run --Werror $fmt 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
    [ -z "$off" ] || bad "not in .clang-format's layout (clang-format -i FILE):
$off"
    echo "lint: $(echo "$fmt" | wc -l) files in .clang-format's layout"
else
    echo "lint: clang-format 14 is not installed: the layout is not checked"
fi
echo "lint: $fail failed"
[ "$fail" -eq 0 ]
