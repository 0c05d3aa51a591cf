#!/bin/sh
# Fault injection on output: a run that cannot finish writing leaves every earlier
# output byte-identical (same bytes, same mtime) and no temp files behind.
#  1. disk full: the file size limit (ulimit -f, SIGXFSZ ignored so write() fails
#     with EFBIG, as on a full disk) set below, between and above the outputs' sizes;
#  2. a rename failing midway (the target of each output in turn is a folder): the
#     outputs already replaced are put back;
#  3. opgen skeleton: disk full, and a folder where a file goes (a located error);
#  4. opgen select's one output under a full disk.
# usage: faults.sh OPGEN SRCDIR
set -u
opgen=$1 src=$2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
old=946684800 # 2000-01-01: the mtime every earlier output carries
snapshot() { # snapshot DIR: bytes and mtimes of every file, temp files included
    (cd "$1" && find . -type f | sort | while IFS= read -r f; do printf '%s %s %s\n' "$(cksum <"$f")" "$(stat -c %Y "$f")" "$f"; done)
}
same_as_before() { # same_as_before DIR LABEL
    snapshot "$1" >"$tmp/now"
    if cmp -s "$tmp/before" "$tmp/now"; then ok; else bad "$2: outputs changed:"; diff "$tmp/before" "$tmp/now" | head -10; fi
}

# templates that change every output, so a run must replace them all
mkdir "$tmp/tpl"
for t in "$src"/templates/*.in; do
    cp "$t" "$tmp/tpl/"
    printf '/* changed by faults.sh */\n' >>"$tmp/tpl/$(basename "$t")"
done
"$opgen" generate -o "$tmp/base" || bad "generate"
touch -d @$old "$tmp"/base/*
"$opgen" generate --templates "$tmp/tpl" -o "$tmp/new" || bad "generate with changed templates"
for f in "$tmp"/base/*; do cmp -s "$f" "$tmp/new/$(basename "$f")" && bad "$(basename "$f") does not change with the templates"; done
sizes=$(wc -c "$tmp"/base/* | sort -n | awk '$2 != "total" { printf "%s ", $1 }')
echo "outputs: $(ls "$tmp/base" | tr '\n' ' ')(sizes $sizes)"

# 1. disk full at 512-byte steps below, at and between the outputs' sizes
limits=1
for s in $sizes; do limits="$limits $((s / 512)) $((s / 512 + 1))"; done
for lim in $limits; do
    rm -rf "$tmp/o" && cp -a "$tmp/base" "$tmp/o"
    snapshot "$tmp/o" >"$tmp/before"
    # shellcheck disable=SC3045
    (trap '' XFSZ; ulimit -f "$lim" && exec "$opgen" generate --templates "$tmp/tpl" -o "$tmp/o") >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 0 ]; then # everything fitted: then it must all be the new output
        if diff -r "$tmp/new" "$tmp/o" >/dev/null; then ok; else bad "limit $lim: success, but not the new outputs"; fi
        continue
    fi
    [ "$rc" -eq 1 ] && grep -q ': error: cannot write: File too large' "$tmp/err" && ok || { bad "limit $lim blocks: exit $rc, want 1 and a write error:"; cat "$tmp/err"; }
    same_as_before "$tmp/o" "disk full at $lim blocks"
done

# 2. a rename failing midway: each output's target in turn is a folder
for name in $(ls "$tmp/base"); do
    rm -rf "$tmp/o" && cp -a "$tmp/base" "$tmp/o"
    rm "$tmp/o/$name" && mkdir "$tmp/o/$name"
    snapshot "$tmp/o" >"$tmp/before"
    "$opgen" generate --templates "$tmp/tpl" -o "$tmp/o" 2>"$tmp/err" && bad "$name a folder: generate succeeded"
    grep -q "$name: error: cannot replace: Is a directory" "$tmp/err" && ok || { bad "$name a folder: no error naming it:"; cat "$tmp/err"; }
    same_as_before "$tmp/o" "$name a folder"
    [ -d "$tmp/o/$name" ] && ok || bad "$name: the folder went"
done

# 3. opgen skeleton: disk full while writing a backend's files, then a folder in the way
"$opgen" skeleton --backend acme --ops "aten::add.out, aten::relu.out" -o "$tmp/sk" >/dev/null || bad "skeleton"
find "$tmp/sk" -type f -exec touch -d @$old {} +
snapshot "$tmp/sk" >"$tmp/before"
# shellcheck disable=SC3045
(trap '' XFSZ; ulimit -f 2 && exec "$opgen" skeleton --backend acme --ops "aten::add.out, aten::relu.out, aten::mul.out" -o "$tmp/sk") >/dev/null 2>"$tmp/err" && bad "skeleton under a 1 KiB limit succeeded"
grep -q ': error: cannot write: File too large' "$tmp/err" && ok || { bad "skeleton, disk full: no write error:"; cat "$tmp/err"; }
same_as_before "$tmp/sk" "skeleton, disk full"
rm "$tmp/sk/README.md" && mkdir "$tmp/sk/README.md"
snapshot "$tmp/sk" >"$tmp/before"
"$opgen" skeleton --backend acme --ops "aten::add.out, aten::relu.out, aten::mul.out" -o "$tmp/sk" >/dev/null 2>"$tmp/err" && bad "skeleton with a folder in the way succeeded"
grep -q "sk/README.md: error: in the way: not a regular file, where opgen skeleton writes one" "$tmp/err" && ok || { bad "skeleton, folder: no error:"; cat "$tmp/err"; }
same_as_before "$tmp/sk" "skeleton, a folder in the way"

# 4. opgen select: its one output under a full disk
"$opgen" select --ops aten::add.out:Float -o "$tmp/sel.yaml" || bad "select"
touch -d @$old "$tmp/sel.yaml"
mkdir "$tmp/seldir" && mv "$tmp/sel.yaml" "$tmp/seldir/"
snapshot "$tmp/seldir" >"$tmp/before"
# shellcheck disable=SC3045
(trap '' XFSZ; ulimit -f 0 && exec "$opgen" select --ops "aten::add.out:Float+Double, aten::mul.out" -o "$tmp/seldir/sel.yaml") 2>"$tmp/err" && bad "select with no room succeeded"
same_as_before "$tmp/seldir" "select, disk full"

echo "faults: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
