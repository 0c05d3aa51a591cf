#!/bin/sh
# The command-line contract: --help everywhere, exit 0 ok / 1 bad input / 2 bad usage.
set -u
opgen=$1
pass=0
fail=0
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

expect() { # expect STATUS PATTERN -- ARGS...: exit status and a line of output matching PATTERN
    want=$1 pattern=$2
    shift 3
    "$opgen" "$@" >"$tmp/out" 2>&1
    got=$?
    if [ "$got" -eq "$want" ] && grep -q -e "$pattern" "$tmp/out"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: opgen $* -> exit $got (want $want, output matching '$pattern'):"
        sed 's/^/    /' "$tmp/out" | head -5
    fi
}

expect 0 '^usage: opgen COMMAND' -- --help
expect 0 '^opgen 0\.' -- --version
expect 2 '^usage: opgen COMMAND' --
expect 2 "unknown command 'frobnicate'" -- frobnicate
for cmd in check list; do
    expect 0 "^usage: opgen $cmd" -- $cmd --help
    expect 0 "torchgen V" -- $cmd -h
    expect 2 "unknown option '--bogus'" -- $cmd --bogus
    expect 2 'needs a value' -- $cmd --native-functions
    expect 2 "unknown torchgen release '3.0'" -- $cmd --torchgen 3.0
    expect 1 'cannot read: No such file' -- $cmd --native-functions "$tmp/nope.yaml" --tags "$tmp/nope-tags.yaml"
done
expect 2 "unknown format 'xml'" -- list --format xml
expect 2 "unknown tag 'nonexistent'" -- list --tag nonexistent
printf -- "- func: f(Tensor x) -> Tensor\n" >"$tmp/nf.yaml"
expect 1 'no --tags given and no tags.yaml beside' -- check --native-functions "$tmp/nf.yaml"

# the embedded default: valid, silent, every core op has an out= variant for the runtime
"$opgen" check >"$tmp/out" 2>&1
if [ $? -eq 0 ] && [ ! -s "$tmp/out" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: opgen check on the embedded default"; cat "$tmp/out"; fi
n=$("$opgen" list --core | wc -l)
none=$("$opgen" list --core --format out-variants | grep -c -- ' -$')
if [ "$n" -ge 31 ] && [ "$none" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: embedded core ops: $n, without out variant: $none"; fi
"$opgen" list --format jsonl --namespace aten --tag core --generated >"$tmp/out" || fail=$((fail + 1))
if [ "$(wc -l <"$tmp/out")" -eq "$n" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --namespace/--tag filters"; fi

# output is deterministic
"$opgen" list --generated --format jsonl >"$tmp/a"
"$opgen" list --generated --format jsonl >"$tmp/b"
if cmp -s "$tmp/a" "$tmp/b"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: two runs differ"; fi

# tags.yaml is found beside native_functions.yaml
mkdir "$tmp/pt"
printf -- '- func: foo(Tensor self) -> Tensor\n' >"$tmp/pt/native_functions.yaml"
printf -- '- tag: core\n  desc: core op\n' >"$tmp/pt/tags.yaml"
expect 0 'aten::foo(Tensor self) -> Tensor' -- list --native-functions "$tmp/pt/native_functions.yaml"


# skeleton and coverage: usage and bad input
for cmd in skeleton coverage; do
    expect 0 "^usage: opgen $cmd" -- $cmd --help
    expect 2 "unknown option '--bogus'" -- $cmd --bogus
done
expect 2 'missing --backend NAME' -- skeleton --core -o "$tmp/sk"
expect 2 "the backend name 'my-backend' must be a C identifier" -- skeleton --backend my-backend --core -o "$tmp/sk"
expect 2 'missing -o DIR' -- skeleton --backend acme --core
expect 2 'give exactly one of --kernels, --select, --ops, --core' -- skeleton --backend acme --core --ops aten::add.out -o "$tmp/sk"
expect 2 'give exactly one of --kernels, --select, --ops, --core' -- skeleton --backend acme -o "$tmp/sk"
expect 1 "unknown op" -- skeleton --backend acme --ops aten::frobnicate.out -o "$tmp/sk"
expect 1 'cannot read: No such file' -- skeleton --backend acme --select "$tmp/nope.yaml" -o "$tmp/sk"
printf 'not a directory\n' >"$tmp/file"
expect 1 'cannot create the backend folder' -- skeleton --backend acme --core -o "$tmp/file/sub"
expect 2 'missing the backend folder' -- coverage
expect 2 'one backend folder at a time' -- coverage a b
expect 2 "unknown format 'xml'" -- coverage "$tmp" --format xml
expect 1 "cannot read the backend's kernels" -- coverage "$tmp/none"
mkdir -p "$tmp/be/kernels" && printf 'int x;\n' >"$tmp/be/kernels/x.c"
expect 1 'be/kernels/x.c:1:1: error: not a kernel opgen skeleton wrote' -- coverage "$tmp/be"
expect 0 'created   kernels/acme_add_out.c' -- skeleton --backend acme --ops aten::add.out -o "$tmp/sk"
expect 0 '0 implemented, 9 fallback' -- coverage "$tmp/sk"

# the kernels README's op x dtype table is the command's output, not kept by hand
if [ -n "${2:-}" ]; then
    sed -n '/^<!-- opgen dtypes --format markdown -->$/,/^<!-- end of opgen dtypes -->$/p' "$2" | sed '1d;$d' >"$tmp/readme-table"
    "$opgen" dtypes --format markdown >"$tmp/table"
    if [ -s "$tmp/table" ] && cmp -s "$tmp/table" "$tmp/readme-table"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL runtime-stubs/kernels/README.md's dtype table differs from opgen dtypes --format markdown:"
        diff "$tmp/readme-table" "$tmp/table" | head -10
    fi
fi

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
