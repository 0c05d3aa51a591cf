#!/bin/sh
# The test suite under valgrind (memcheck): every test program, and every opgen,
# opgen-rt and test binary the shell tests start (children traced; system tools,
# compilers, meson and ninja are not). Any error or definite/indirect leak fails.
# usage: valgrind.sh BUILD_DIR [MESON TEST ARGS...]
set -u
build=$1
shift
src=$(cd "$(dirname "$0")/.." && pwd)
exec meson test -C "$build" -t 20 --print-errorlogs --wrapper "valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --suppressions=$src/tests/valgrind.supp --trace-children=yes --trace-children-skip=/usr/*,/bin/*,*/meson,*/ninja" "$@"
