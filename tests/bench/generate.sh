#!/bin/sh
# The generator's cost against the libyaml floor, on PyTorch 2.14's
# native_functions.yaml + tags.yaml and ExecuTorch's edge.yaml: the machine, then
# wall-time medians in process and as whole processes (bench_model), peak memory
# (GNU time's count for the processes), and instruction counts (callgrind, when
# valgrind is installed; every thread of a process), each with the ratio opgen /
# bare libyaml scan of the same files, measured in the same run.
# usage: generate.sh BENCH_MODEL OPGEN CORPUS [RUNS]
set -u
bench=$1 opgen=$2 corpus=$3 runs=${4:-21}
nf=$corpus/pytorch-2.14/native_functions.yaml tags=$corpus/pytorch-2.14/tags.yaml edge=$corpus/executorch/edge.yaml
for f in "$nf" "$tags" "$edge"; do [ -f "$f" ] || { echo "SKIP: $f not found"; exit 77; }; done
echo "machine: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) cores, $(. /etc/os-release && echo "$PRETTY_NAME"), $(uname -m)"
echo "opgen: $("$opgen" --version)"
"$bench" "$nf" "$tags" "$runs" "$edge" "$opgen" || exit 1
sh "$(dirname "$0")/../bench_instructions.sh" "$bench" "$nf" "$tags" "$edge" "$opgen"
rc=$?
[ "$rc" -eq 77 ] && echo "(instruction counts need valgrind)"
exit 0
