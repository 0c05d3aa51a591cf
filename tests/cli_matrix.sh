#!/bin/sh
# The command-line fault matrix: every option of every command of opgen and
# opgen-rt, as their own tables list them (`--list-options`), given bad values by
# kind: an input file missing, empty, a folder, /dev/null, random bytes, or a file
# of another kind; a folder missing, a file, /dev/null, empty; an output where it
# cannot go; a bad choice, an empty value; every number at 0, -1 and 2^63; each
# repeatable option 300 times, each other one twice. Every case must exit 1 or 2
# with a message naming the file or the option, print no sanitizer report, and
# write nothing outside its -o (each case runs in a fresh folder, which must hold
# nothing new afterwards but what -o names, and /dev/null must stay a device).
# The only per-command knowledge here is one valid command line per command (the
# baselines below); a new option is covered without editing this file.
# usage: cli_matrix.sh OPGEN OPGEN_RT SRCDIR CORPUS PROGRAMS [opgen|opgen-rt]
#   PROGRAMS: the suite's built .pte programs; the last argument runs one
#   program's half of the matrix (meson runs the two halves side by side)
set -u
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
opgen=$(abs "$1") opgen_rt=$(abs "$2") src=$(abs "$3") corpus=$(abs "$4") programs=$(abs "$5")
progs=${6:-opgen opgen-rt}
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT
pass=0 fail=0 n=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# ---- the bad inputs, shared by every case (read-only) ----
inputs=$work/in
mkdir -p "$inputs/adir" && : >"$inputs/empty" && printf 'a file\n' >"$inputs/afile"
# 4 KiB of bytes from a fixed linear congruential sequence: random-looking, the same every run
awk 'BEGIN { x = 12345; for (i = 0; i < 4096; i++) { x = (x * 1103515245 + 12345) % 2147483648; printf "%c", int(x / 65536) % 256 } }' </dev/null >"$inputs/random" 2>/dev/null
[ "$(wc -c <"$inputs/random")" -ge 4000 ] || LC_ALL=C awk 'BEGIN { x = 12345; for (i = 0; i < 4096; i++) { x = (x * 1103515245 + 12345) % 2147483648; printf "%c", int(x / 65536) % 256 } }' >"$inputs/random"
cp "$src/yaml/tags.yaml" "$inputs/a.yaml"
cp "$src/tests/npy/f32_2x3.npy" "$inputs/a.npy"
cp "$src/tests/examples/mlp.graph" "$inputs/a.graph"
cp "$programs/add.pte" "$inputs/a.pte"
chmod -R a-w "$inputs"

# A file of another kind than `format` holds.
other_kind() {
    case $1 in
    yaml) echo "$inputs/a.pte" ;;
    pte | graph | program) echo "$inputs/a.yaml" ;;
    npy) echo "$inputs/a.graph" ;;
    *) echo "$inputs/a.npy" ;;
    esac
}

# ---- one valid command line per command ----
mlp=$src/tests/examples/mlp
mlp_inputs="--input x=$mlp/inputs/x.npy --input w1=$mlp/inputs/w1.npy --input b1=$mlp/inputs/b1.npy --input w2=$mlp/inputs/w2.npy --input b2=$mlp/inputs/b2.npy"
baseline() { # baseline PROG CMD: its arguments; @OUT is the case's output path
    case "$1 $2" in
    "opgen check" | "opgen list" | "opgen dtypes") echo "" ;;
    "opgen generate") echo "--output @OUT" ;;
    "opgen select") echo "--ops aten::add.out --output @OUT" ;;
    "opgen skeleton") echo "--backend acme --core --output @OUT" ;;
    "opgen coverage") echo "$src/tests/vendor/demo" ;;
    "opgen-rt run") echo "$programs/state.pte --input 0=$programs/state_calls/0_0.npy --output @OUT" ;; # a .pte: --calls and --repeat apply
    "opgen-rt print") echo "$src/tests/examples/mlp.graph" ;;
    "opgen-rt info") echo "$programs/two_methods.pte" ;;
    "opgen-rt lower" | "opgen-rt decompose") echo "$src/tests/examples/mlp.graph --output @OUT" ;;
    "opgen-rt verify") echo "$src/tests/examples/mlp.graph --dialect aten" ;;
    "opgen-rt compare") echo "$mlp/expected/0.npy $mlp/expected/0.npy" ;;
    "opgen-rt generate") [ -f "$corpus/exir/llama_decode/model.pte" ] && echo "$corpus/exir/llama_decode/model.pte --prompt 3,77 --steps 2" ;;
    *) return 1 ;;
    esac
}
# Options that stand in for one another: a case giving one drops the others.
group_of() {
    case "$1 $2 $3" in
    "opgen skeleton --kernels" | "opgen skeleton --select" | "opgen skeleton --ops" | "opgen skeleton --core") echo "--kernels --select --ops --core" ;;
    "opgen select --pte" | "opgen select --graph" | "opgen select --ops" | "opgen select --selected-operators") echo "--pte --graph --ops --selected-operators" ;;
    "opgen-rt run --input" | "opgen-rt run --calls") echo "--input --calls" ;;
    *) echo "$3" ;;
    esac
}

# The baseline without option $3 and its group (a positional: without the first
# argument, where every baseline puts its positional).
without() { # without PROG CMD OPT FLAGS ARGS...
    prog=$1 cmd=$2 opt=$3 flags=$4
    shift 4
    case $opt in "<"*)
        case $flags in *required*) shift ;; esac
        echo "$*"
        return ;;
    esac
    drop=$(group_of "$prog" "$cmd" "$opt")
    out="" skip=0
    for a in "$@"; do
        if [ $skip = 1 ]; then skip=0; continue; fi
        case " $drop " in
        *" $a "*)
            # a dropped option's value goes too, unless it is a flag
            grep -q "^$cmd	$a	flag" "$work/options" || skip=1
            continue ;;
        esac
        out="$out $a"
    done
    echo "$out"
}

# run_case PROG CMD WHAT ARGS...: one case in a fresh folder; WHAT must appear in stderr.
run_case() {
    prog=$1 cmd=$2 what=$3
    shift 3
    n=$((n + 1))
    case_dir=$work/case$n
    mkdir -p "$case_dir"
    bin=$opgen
    [ "$prog" = opgen-rt ] && bin=$opgen_rt
    (cd "$case_dir" && "$bin" "$cmd" "$@" >"$work/out" 2>"$work/err")
    rc=$?
    ok=1
    if [ $rc -ne 1 ] && [ $rc -ne 2 ]; then ok=0; why="exit $rc"; fi
    if [ $ok = 1 ] && ! grep -qF -e "$what" "$work/err"; then ok=0; why="no message naming '$what'"; fi
    if grep -qE 'Sanitizer|runtime error:' "$work/err"; then ok=0; why="sanitizer report"; fi
    extra=$(cd "$case_dir" && find . -mindepth 1 ! -path './out' ! -path './out/*' | head -3)
    if [ -n "$extra" ]; then ok=0; why="wrote outside -o: $extra"; fi
    [ -c /dev/null ] || { ok=0; why="/dev/null is no longer a device"; }
    if [ $ok = 1 ]; then
        pass=$((pass + 1))
    else
        bad "$(echo "$prog $cmd $*" | cut -c1-200) -> $why"
        sed 's/^/    /' "$work/err" | head -4
    fi
    rm -rf "$case_dir"
}

# cases PROG CMD OPT KIND FORMAT FLAGS
cases() {
    prog=$1 cmd=$2 opt=$3 kind=$4 format=$5 flags=$6
    [ "$prog $cmd" = "opgen-rt generate" ] && [ ! -f "$corpus/exir/llama_decode/model.pte" ] && return
    base=$(baseline "$prog" "$cmd") || { bad "no baseline for $prog $cmd"; return; }
    base=$(echo "$base" | sed "s|@OUT|out|g")
    # shellcheck disable=SC2086
    rest=$(without "$prog" "$cmd" "$opt" "$flags" $base)
    name=$opt
    case $opt in "<"*) name="" ;; esac
    give() { # give VALUE WHAT: the case with option = VALUE
        # shellcheck disable=SC2086
        if [ -n "$name" ]; then run_case "$prog" "$cmd" "$2" $rest "$name" "$1"; else run_case "$prog" "$cmd" "$2" "$1" $rest; fi
    }
    case $kind in
    file)
        give "$inputs/nope.$format" "nope.$format"
        give "$inputs/empty" "$inputs/empty"
        give "$inputs/adir" "$inputs/adir"
        give /dev/null /dev/null
        give "$inputs/random" "$inputs/random"
        o=$(other_kind "$format")
        give "$o" "$o" ;;
    dir)
        give "$inputs/nope" "$inputs/nope"
        give "$inputs/afile" "$inputs/afile"
        give /dev/null /dev/null
        give "$inputs/adir" "$inputs/adir" ;;
    out)
        give "missing/sub/out" "missing/sub"
        give "$inputs/afile/out" "$inputs/afile"
        give /dev/null /dev/null ;;
    text)
        [ "$format" != - ] && give bogus bogus
        what=${name:-$opt}
        what=${what#<}
        give "" "${what%>}" ;;
    number) # a seed may be any unsigned 64-bit value: only what lies outside is bad
        vals="0 -1 9223372036854775808"
        [ "$prog $cmd $opt" = "opgen-rt run --seed" ] && vals="-1 18446744073709551616"
        for v in $vals; do give "$v" "$v"; done ;;
    input)
        # the baseline's first input, by name, given bad values; then numbers as names
        first=$(echo "$base" | tr ' ' '\n' | grep -A1 -e '^--input$' | sed -n 2p | cut -d= -f1)
        rest=$(echo "$base" | sed "s|--input $first=[^ ]*||")
        for v in "$inputs/nope.npy" "$inputs/empty" "$inputs/adir" /dev/null "$inputs/random" "$(other_kind npy)" 0 -1 9223372036854775808; do give "$first=$v" "$v"; done
        for v in 0 -1 9223372036854775808; do give "$v=$inputs/a.npy" "$v"; done ;;
    esac
    # repeated: a repeatable option 300 times (a bad value last), another twice
    case $kind in flag) return ;; esac
    case $flags in
    *repeat*)
        [ -n "$name" ] || return
        v=$inputs/nope.$format
        [ "$kind" = text ] && v=nope-tag
        [ "$kind" = input ] && v="$first=$inputs/nope.npy"
        args=""
        i=0
        while [ $i -lt 300 ]; do args="$args $name $v"; i=$((i + 1)); done
        w=nope
        [ "$kind" = input ] && w=$first
        # shellcheck disable=SC2086
        run_case "$prog" "$cmd" "$w" $rest $args ;;
    esac
}

flag_twice() { # a flag given twice is a usage error naming it
    prog=$1 cmd=$2 opt=$3
    base=$(baseline "$prog" "$cmd" | sed "s|@OUT|out|g")
    # shellcheck disable=SC2086
    run_case "$prog" "$cmd" "$opt" $base "$opt" "$opt"
}

# ---- the baselines themselves must pass ----
for prog in $progs; do
    bin=$opgen
    [ $prog = opgen-rt ] && bin=$opgen_rt
    for cmd in $("$bin" --list-options | cut -f1 | uniq); do
        [ "$prog $cmd" = "opgen-rt generate" ] && [ ! -f "$corpus/exir/llama_decode/model.pte" ] && { echo "SKIP opgen-rt generate: its baseline is the corpus's llama_decode"; continue; }
        base=$(baseline $prog "$cmd" | sed "s|@OUT|$work/base/out|g") || { bad "no baseline for $prog $cmd"; continue; }
        rm -rf "$work/base" && mkdir -p "$work/base"
        # shellcheck disable=SC2086
        (cd "$work/base" && "$bin" "$cmd" $base >/dev/null 2>"$work/err") || { bad "baseline $prog $cmd $base"; sed 's/^/    /' "$work/err" | head -3; }
    done
done

# ---- the matrix ----
for prog in $progs; do
    bin=$opgen
    [ $prog = opgen-rt ] && bin=$opgen_rt
    "$bin" --list-options >"$work/options" || { bad "$prog --list-options"; continue; }
    while IFS="$(printf '\t')" read -r cmd opt kind format flags; do
        if [ "$kind" = flag ]; then flag_twice "$prog" "$cmd" "$opt"; else cases "$prog" "$cmd" "$opt" "$kind" "$format" "$flags"; fi
    done <"$work/options"
done

# ---- regression cases from the issue that made this matrix (opgen's) ----
case " $progs " in *" opgen "*) ;; *) echo "cli-matrix ($progs): $n cases, $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit ;; esac
run_case opgen select "nonexistent.pte" --pte /nonexistent.pte -o out
tags=""
i=0
while [ $i -lt 17 ]; do tags="$tags --tag core"; i=$((i + 1)); done
# shellcheck disable=SC2086
run_case opgen list "nope" --core $tags --tag nope
run_case opgen check "$inputs/adir" --edge "$inputs/adir"
run_case opgen check "$inputs/adir" --backend-ops "$inputs/adir"
run_case opgen check "/missing.yaml" --native-functions /missing.yaml
run_case opgen check "$inputs/empty" --backend-ops "$inputs/empty"

echo "cli-matrix ($progs): $n cases, $pass passed, $fail failed"
[ "$fail" -eq 0 ]
