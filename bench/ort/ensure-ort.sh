#!/usr/bin/env bash
# Installs the CPU build of ONNX Runtime for Node.js (onnxruntime-node, from the npm registry) into
# FOLDER, once, and prints FOLDER (what ort-run.mjs takes as ORT_NODE_DIR).
#   bench/ort/ensure-ort.sh FOLDER        ORT_VERSION picks the version (default 1.30.0)
# The package's install script is skipped: it would download extra files (GPU providers) from
# elsewhere, and the CPU library ships inside the package itself.
set -euo pipefail
dir=${1:?usage: ensure-ort.sh FOLDER}
version=${ORT_VERSION:-1.30.0}
installed=$dir/node_modules/onnxruntime-node/package.json
if [[ ! -f $installed ]] || ! grep -q "\"version\": \"$version\"" "$installed"; then
  mkdir -p "$dir"
  [[ -f $dir/package.json ]] || echo '{"private":true}' > "$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts "onnxruntime-node@$version" >&2
fi
cd "$dir" && pwd
