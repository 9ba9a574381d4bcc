#!/usr/bin/env bash
# Installs kiln from a build folder into a temporary prefix, then builds a small consumer
# project (tests/package/consumer) outside the tree against it twice — with CMake's
# find_package(kiln) and with pkg-config — and runs both on the demo digits.
#   package_test.sh BUILD_DIR REPO_ROOT [--shared]
# With --shared it also checks that the shared libkiln exports only the public API.
set -euo pipefail
build=$1
root=$2
shared=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >"$work/install.log"
libdir=$(dirname "$(find "$prefix" -name 'kiln.pc' -print -quit)")
libdir=${libdir%/pkgconfig}
[[ -f $prefix/include/kiln/kiln.h && -f $prefix/include/kiln/version.h ]] ||
  { echo "FAIL: headers not installed"; exit 1; }
[[ -f $libdir/cmake/kiln/kilnConfig.cmake && -f $libdir/cmake/kiln/kilnConfigVersion.cmake ]] ||
  { echo "FAIL: kilnConfig.cmake or kilnConfigVersion.cmake not installed"; exit 1; }
if [[ $shared == --shared ]]; then
  lib=$(find "$libdir" -name 'libkiln.so.*' -type f -print -quit)
  [[ -n $lib ]] || { echo "FAIL: no shared libkiln installed"; exit 1; }
  # Every exported C++ symbol of kiln must be declared in the public headers: names in
  # kiln:: that no header of include/kiln declares (internal classes and functions, backends,
  # the IR) must stay hidden. Symbols of other libraries must not be exported at all.
  nm -DC --defined-only "$lib" | awk '{ $1 = ""; $2 = ""; print substr($0, 3) }' >"$work/exports.txt"
  grep -Eo '(^|[^:A-Za-z_])kiln::[A-Za-z_]+(::[A-Za-z_]+)?' "$work/exports.txt" |
    sed -E 's/^[^k]*//' | sort -u >"$work/kiln_names.txt"
  bad=0
  while read -r name; do
    top=${name#kiln::}
    top=${top%%::*}
    grep -Eqw -- "$top" "$root"/include/kiln/*.h "$build"/include/kiln/*.h ||
      { echo "FAIL: libkiln exports $name, which no public header declares"; bad=1; }
  done <"$work/kiln_names.txt"
  if grep -E '(^| )(hwy|google::protobuf|re2|onnx)::' "$work/exports.txt" | head -5 | grep .; then
    echo "FAIL: libkiln exports symbols of the libraries it links (above)"
    bad=1
  fi
  ((bad == 0)) || exit 1
  echo "shared libkiln exports $(wc -l <"$work/exports.txt") symbols, all of the public API"
fi

# 1. CMake: find_package(kiln) in a project outside the tree.
cmake -S "$root/tests/package/consumer" -B "$work/cmake-build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/cmake-build" >"$work/build.log" || { cat "$work/build.log"; exit 1; }
LD_LIBRARY_PATH=$libdir "$work/cmake-build/consumer" "$root/demo/digits.onnx" "$root/demo/samples"

# 2. pkg-config: a plain compiler command line.
export PKG_CONFIG_PATH=$libdir/pkgconfig
[[ $(pkg-config --modversion kiln) =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
  { echo "FAIL: pkg-config --modversion kiln"; exit 1; }
# shellcheck disable=SC2046
c++ -O1 -o "$work/consumer-pc" "$root/tests/package/consumer/main.cpp" $(pkg-config --cflags --libs kiln)
LD_LIBRARY_PATH=$libdir "$work/consumer-pc" "$root/demo/digits.onnx" "$root/demo/samples"
echo "package test passed (find_package and pkg-config)"
