#!/bin/sh
# The documentation's links are true: every relative link [text](path#anchor) in
# the Markdown files of the source tree names a file or folder that exists, and
# an #anchor names a heading of that page (GitHub's slugs: lower case, spaces to
# '-', punctuation but '-' and '_' dropped). Links to other sites are not followed
# (there is no network to check them with).
# usage: links.sh SRCDIR
set -u
src=$(cd "$1" && pwd) || exit 2
cd "$src" || exit 2
pass=0 fail=0
tmp=$(mktemp) || exit 2
trap 'rm -f "$tmp"' EXIT
slugs() { # the anchors of page $1, one a line
    awk '/^```/ { f = !f; next } !f && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
        tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}
pages=$(git ls-files -co --exclude-standard '*.md' 2>/dev/null || find . -name '*.md' ! -path './build*')
for page in $pages; do
    dir=$(dirname "$page")
    # every (target) right after a ], outside code fences and code spans
    awk '/^```/ { f = !f; next } !f { gsub(/`[^`]*`/, ""); while (match($0, /\]\([^)]*\)/)) { print substr($0, RSTART + 2, RLENGTH - 3); $0 = substr($0, RSTART + RLENGTH) } }' "$page" >"$tmp"
    while IFS= read -r link; do
        case $link in http://* | https://* | mailto:*) continue ;; esac
        file=${link%%#*} anchor=
        case $link in *'#'*) anchor=${link#*#} ;; esac
        target=$page
        [ -n "$file" ] && target=$dir/$file
        if [ ! -e "$target" ]; then
            echo "FAIL $page: link ($link): no $target"
            fail=$((fail + 1))
        elif [ -n "$anchor" ] && ! slugs "$target" | grep -qxF "$anchor"; then
            echo "FAIL $page: link ($link): $target has no heading #$anchor"
            fail=$((fail + 1))
        else
            pass=$((pass + 1))
        fi
    done <"$tmp"
done
echo "links: $pass passed, $fail failed"
[ "$pass" -gt 0 ] && [ "$fail" -eq 0 ]
