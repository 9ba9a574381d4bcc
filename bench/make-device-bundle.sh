#!/usr/bin/env bash
# Copies a built kiln and the shared libraries it links (all but the C library's own) into one
# folder that runs on another x86-64 Linux machine whose C library is at least as new, without
# installing anything there: bench/gpu-device.sh BUNDLE puts BUNDLE/lib on the library path.
#
#   bench/make-device-bundle.sh KILN_BINARY BUNDLE
set -euo pipefail
kiln=${1:?usage: make-device-bundle.sh KILN_BINARY BUNDLE}
bundle=${2:?usage: make-device-bundle.sh KILN_BINARY BUNDLE}
rm -rf "$bundle"
mkdir -p "$bundle/lib"
cp "$kiln" "$bundle/kiln"
# The C library, its loader and its parts come from the machine that runs the bundle.
glibc='^(libc|libm|libdl|libpthread|librt|ld-linux-x86-64|linux-vdso)\.so'
ldd "$kiln" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
  grep -Eq "$glibc" <<<"$(basename "$lib")" || cp -L "$lib" "$bundle/lib/"
done
echo "$bundle: $(du -sh "$bundle" | cut -f1), $(ls "$bundle/lib" | wc -l) libraries"
