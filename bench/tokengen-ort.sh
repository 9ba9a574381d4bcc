#!/usr/bin/env bash
# Token generation, kiln beside ONNX Runtime (onnxruntime-node, CPU), on the decoder
# examples/tokengen/build_decoder.py writes: a prompt of PROMPT tokens, then STEPS generated
# tokens, at each thread count in THREADS, alternating the two for ROUNDS rounds. First checks
# that kiln's logits match ONNX Runtime's at every step (the model is built with float32
# MatMulNBits arithmetic, accuracy_level 0, so that both compute the same thing).
#
#   bench/tokengen-ort.sh BUILD_DIR [SHARED_DIR]      (BUILD_DIR holds examples/tokengen)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: tokengen-ort.sh BUILD_DIR [SHARED_DIR]}
shared=${2:-$here/../shared}
work=${TOKENGEN_DIR:-/tmp/kiln-tokengen}
prompt=${PROMPT:-128}
steps=${STEPS:-64}
rounds=${ROUNDS:-3}
mkdir -p "$work"
export ORT_NODE_DIR=$("$shared/tools/ort/ensure-ort.sh")
[[ -f $work/decoder.onnx ]] ||
  /usr/bin/python3 "$here/examples/tokengen/build_decoder.py" "$work/decoder.onnx" --accuracy-level 0
node "$here/examples/tokengen/ort_generate.mjs" "$work/decoder.onnx" "$work/ref" \
  --prompt "$prompt" --steps "$steps" --threads 1 >/dev/null
"$build/examples/tokengen" "$work/decoder.onnx" --reference "$work/ref" --threads 1 | tail -n 1
for threads in ${THREADS:-1 2}; do
  for ((round = 1; round <= rounds; round++)); do
    echo "threads $threads, round $round"
    echo -n "  kiln:         "
    "$build/examples/tokengen" "$work/decoder.onnx" --prompt "$prompt" --steps "$steps" \
      --threads "$threads"
    echo -n "  "
    node "$here/examples/tokengen/ort_generate.mjs" "$work/decoder.onnx" "$work/ort-run" \
      --prompt "$prompt" --steps "$steps" --threads "$threads"
  done
done
grep -m1 "model name" /proc/cpuinfo
