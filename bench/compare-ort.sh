#!/usr/bin/env bash
# kiln beside ONNX Runtime on the benchmark models, at one thread (or THREADS), same inputs.
# First checks that kiln's outputs match ONNX Runtime's, then times both (median of RUNS runs).
#   bench/compare-ort.sh KILN_BINARY SHARED_DIR MODELS_DIR [MODEL...]
# MODELS_DIR is made by SHARED_DIR/tools/make-bench-models.py (needs python3-torchvision).
set -euo pipefail
kiln=$1 shared=$2 models=$3
shift 3
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=(resnet50 mobilenet_v2)
threads=${THREADS:-1}
runs=${RUNS:-50}
unset OPENBLAS_CORETYPE
export ORT_NODE_DIR=$(bash "$shared/tools/ort/ensure-ort.sh")
ort=(node "$shared/tools/ort/ort-run.mjs")
for name in "${names[@]}"; do
  dir=$models/$name
  data=$dir/test_data_set_0
  [[ -f $data/output_0.pb ]] || "${ort[@]}" run "$dir/model.onnx" --inputs-dir "$data" --outputs-dir "$data" >/dev/null
  "$kiln" test-onnx "$dir" --rtol 1e-3 --atol 1e-4 | tail -n 1
  k=$(KILN_NUM_THREADS=$threads "$kiln" bench "$dir/model.onnx" --inputs-dir "$data" --runs "$runs" --threads "$threads" 2>/dev/null | grep '^bench:')
  o=$("${ort[@]}" bench "$dir/model.onnx" --inputs-dir "$data" --iterations "$runs" --warmup 10 --threads "$threads")
  km=$(sed -E 's/.*median_ms=([0-9.]+).*/\1/' <<<"$k")
  om=$(sed -E 's/.*median_ms=([0-9.]+).*/\1/' <<<"$o")
  echo "$name threads=$threads kiln_median_ms=$km ort_median_ms=$om ratio_kiln_over_ort=$(awk -v a="$km" -v b="$om" 'BEGIN{printf "%.2f", a/b}')"
done
