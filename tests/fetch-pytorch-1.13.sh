#!/bin/sh
# Fetches PyTorch 1.13's native_functions.yaml and tags.yaml from Debian's
# python3-torch package (bookworm) into DIR (default ~/.cache/opgen/pytorch-1.13),
# for the 1.13 conformance test. Needs apt's package lists; does not install anything.
set -eu
dir=${1:-$HOME/.cache/opgen/pytorch-1.13}
[ -f "$dir/native_functions.yaml" ] && [ -f "$dir/tags.yaml" ] && exit 0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! apt-get download python3-torch >/dev/null 2>&1; then
    echo "fetch-pytorch-1.13: apt-get download python3-torch failed; the 1.13 conformance test will be skipped" >&2
    exit 0
fi
dpkg-deb -x python3-torch_*.deb x
src=x/usr/lib/python3/dist-packages/torchgen/packaged/ATen/native
mkdir -p "$dir"
cp "$src/native_functions.yaml" "$src/tags.yaml" "$dir/"
echo "fetch-pytorch-1.13: $(ls python3-torch_*.deb) -> $dir"
