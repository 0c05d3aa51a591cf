#!/bin/sh
# The README is tested: every ```sh block of README.md (but ```sh ci, the suite
# itself), in order, pasted into one shell, in a fresh copy of the project's tracked
# files with ../shared beside it, as a newcomer would. The install command of the
# quick start runs as written when this runs as root (CI) or with sudo; otherwise
# apt-get is a no-op here (the machine has the packages: it built this).
# usage: readme.sh SRCDIR [LOG]
set -u
src=$(cd "$1" && pwd) || exit 2
log=${2:-/dev/stderr}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
clone=$tmp/opgen
mkdir -p "$clone"
# the tracked files (and new ones not ignored) as they are: a clone of this tree;
# outside a git checkout, every file but the build folders
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
    # one tar reads the whole list: xargs would split a long one into several
    # archives, and the reader stops at the end of the first
    (cd "$src" && git ls-files -z -co --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$clone" || exit 2
    # a short copy fails here, not later as a missing file in a walkthrough
    want=$(cd "$src" && git ls-files -co --exclude-standard | wc -l)
    have=$(cd "$clone" && find . ! -type d | wc -l)
    [ "$have" -ge "$want" ] || { echo "readme: copied $have of $want files of $src" >&2; exit 2; }
else
    (cd "$src" && tar --exclude='./build' --exclude='./build-*' --exclude='./.git' -cf - .) | tar -xf - -C "$clone" || exit 2
fi
[ -d "$src/../shared" ] && ln -s "$src/../shared" "$tmp/shared"
awk '/^```sh$/ { on = 1; print "# --- README.md line " NR; next } /^```/ { on = 0; next } on' "$src/README.md" >"$tmp/walkthroughs.sh"
blocks=$(grep -c '^# --- README.md line' "$tmp/walkthroughs.sh")
if [ "$(id -u)" -ne 0 ] && ! sudo -n true 2>/dev/null; then
    mkdir -p "$tmp/shim"
    printf '#!/bin/sh\necho "readme.sh: apt-get $* skipped (not root, no sudo)"\n' >"$tmp/shim/apt-get"
    chmod +x "$tmp/shim/apt-get"
    PATH=$tmp/shim:$PATH
fi
export DEBIAN_FRONTEND=noninteractive
echo "readme: $blocks command blocks of README.md, run in $clone"
if (cd "$clone" && sh -ex "$tmp/walkthroughs.sh") >"$tmp/log" 2>&1; then
    echo "readme: all $blocks blocks passed"
    [ "$log" = /dev/stderr ] || cp "$tmp/log" "$log"
    exit 0
fi
echo "readme: FAILED; the last commands and their output:"
tail -n 40 "$tmp/log"
[ "$log" = /dev/stderr ] || cp "$tmp/log" "$log"
exit 1
