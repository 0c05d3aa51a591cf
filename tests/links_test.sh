#!/bin/sh
# links.sh catches a missing heading and a missing page in pages made here, passes
# them once fixed, then checks the source tree's pages.
# usage: links_test.sh LINKS.SH SRCDIR
set -u
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
mkdir "$d/sub"
printf '# Top\n[b](sub/b.md#there)\n' >"$d/a.md"
printf '# Here\n[up](../a.md#top)\n' >"$d/sub/b.md"
sh "$1" "$d" >/dev/null && { echo "FAIL links.sh missed a link to a missing heading"; exit 1; }
printf '# There\n[up](../a.md#top) [gone](../c.md)\n' >"$d/sub/b.md"
sh "$1" "$d" >/dev/null && { echo "FAIL links.sh missed a link to a missing page"; exit 1; }
printf '# There\n[up](../a.md#top) `[code](not/a/link)`\n' >"$d/sub/b.md"
sh "$1" "$d" >/dev/null || { echo "FAIL links.sh refused true links"; sh "$1" "$d"; exit 1; }
sh "$1" "$2"
