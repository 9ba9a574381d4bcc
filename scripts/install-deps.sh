#!/usr/bin/env bash
# Installs the Debian 12 packages kiln needs to build and test. Runs apt-get only when
# something is missing, so repeated calls are fast and need no network.
set -euo pipefail

packages=(
  cmake ninja-build ccache g++ pkg-config
  libprotobuf-dev protobuf-compiler libonnx-dev
  libhwy-dev
  libjpeg62-turbo-dev libpng-dev libtiff-dev libwebp-dev libopenjp2-7-dev
  libre2-dev
  # The command line's argument parser (header-only).
  libcli11-dev
  # .kiln files: FlatBuffers (schema compiler and headers) and xxHash for the checksum.
  libflatbuffers-dev flatbuffers-compiler libxxhash-dev
  # gpu-compute backend (Vulkan): loader, shader compiler, the CPU driver tests run on, validation layers.
  libvulkan-dev glslc mesa-vulkan-drivers vulkan-validationlayers
  # gpu-pixel backend (OpenGL ES): EGL and GLES headers, and Mesa's llvmpipe driver the tests run on.
  libegl-dev libgles-dev libegl-mesa0 libgl1-mesa-dri
  googletest libgtest-dev libbenchmark-dev
  # gemm_bench's yardstick (oneDNN's sgemm); the bench builds without it, the library never uses it.
  libdnnl-dev
  # Python binding (python/): pybind11 for the system python3, numpy, setuptools for pip
  # installs; pytest and onnx (to build small test models) for its tests; Dask (with pandas for
  # dask.dataframe) for kiln.dask.
  python3-dev pybind11-dev python3-pybind11 python3-numpy python3-setuptools
  python3-pytest python3-onnx python3-dask python3-distributed python3-pandas
  # Tests: parsing the profiler's Chrome trace.
  nlohmann-json3-dev
)
if [[ "${1:-}" == "--with-docs" ]]; then
  # Only for `make docs`: the API reference from the public headers.
  packages+=(doxygen)
fi
if [[ "${1:-}" == "--with-python" ]]; then
  # Only for retraining the demo model and exporting the benchmark models.
  packages+=(python3-torch python3-sklearn python3-onnx python3-numpy)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
