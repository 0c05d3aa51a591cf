#!/bin/sh
# Golden tests (re2c style): each tests/golden/NAME.yaml is run through opgen and
# everything it prints (stdout, then stderr) plus its exit status must equal
# NAME.expected. A first line "# args: ..." gives the command line; otherwise it is
# "check --native-functions NAME.yaml --tags inputs/tags.yaml".
# usage: golden.sh OPGEN GOLDEN_DIR      OPGEN_UPDATE_GOLDEN=1 rewrites .expected files
set -u
opgen=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$2" || exit 2
tmp=$(mktemp) || exit 2
trap 'rm -f "$tmp"' EXIT
pass=0
fail=0
for f in *.yaml; do
    name=${f%.yaml}
    args=$(sed -n '1s/^# args: //p' "$f")
    [ -n "$args" ] || args="check --native-functions $f --tags inputs/tags.yaml"
    # shellcheck disable=SC2086
    "$opgen" $args >"$tmp" 2>&1
    echo "exit $?" >>"$tmp"
    if [ "${OPGEN_UPDATE_GOLDEN:-}" = 1 ]; then
        cp "$tmp" "$name.expected"
    fi
    if cmp -s "$tmp" "$name.expected"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $f (opgen $args)"
        diff -u "$name.expected" "$tmp" | head -40
    fi
done
echo "golden: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
