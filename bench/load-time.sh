#!/usr/bin/env bash
# Load time of a model from .onnx and from .kiln (kiln convert), beside ONNX Runtime's session
# creation, each the median of REPEATS fresh processes (one thread, so the machine's load
# matters less). Also checks that the .kiln model's outputs equal the .onnx model's.
#   bench/load-time.sh KILN_BINARY SHARED_DIR MODELS_DIR [MODEL...]
# MODELS_DIR is made by SHARED_DIR/tools/make-bench-models.py (default model: resnet50).
# Prints per model: onnx_load_ms, kiln_load_ms (load_model alone, and with the Worker),
# ort_session_ms and the ratio onnx/kiln.
set -euo pipefail
kiln=$1 shared=$2 models=$3
shift 3
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=(resnet50)
repeats=${REPEATS:-7}
export ORT_NODE_DIR=$(bash "$shared/tools/ort/ensure-ort.sh")
ort=(node "$shared/tools/ort/ort-run.mjs")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
# field NAME LINE: the value of NAME=... in LINE
field() { sed -E "s/.*$1=([0-9.]+).*/\1/" <<<"$2"; }

for name in "${names[@]}"; do
  dir=$models/$name
  onnx=$dir/model.onnx
  saved=$work/$name.kiln
  "$kiln" convert "$onnx" "$saved" >/dev/null
  data=$dir/test_data_set_0
  # Same outputs from both files.
  "$kiln" run "$onnx" --inputs-dir "$data" --outputs-dir "$work/out_onnx" >/dev/null
  "$kiln" run "$saved" --inputs-dir "$data" --outputs-dir "$work/out_kiln" >/dev/null
  for f in "$work"/out_onnx/*.pb; do
    cmp -s "$f" "$work/out_kiln/$(basename "$f")" || { echo "$name: $(basename "$f") differs between .onnx and .kiln"; exit 1; }
  done
  o_model=() o_total=() k_model=() k_total=() r=()
  for ((i = 0; i < repeats; i++)); do
    line=$(KILN_NUM_THREADS=1 "$kiln" bench "$onnx" --inputs-dir "$data" --runs 1 --warmup 0 --threads 1 2>/dev/null | grep '^bench:')
    o_model+=("$(field load_model_ms "$line")") o_total+=("$(field load_ms "$line")")
    line=$(KILN_NUM_THREADS=1 "$kiln" bench "$saved" --inputs-dir "$data" --runs 1 --warmup 0 --threads 1 2>/dev/null | grep '^bench:')
    k_model+=("$(field load_model_ms "$line")") k_total+=("$(field load_ms "$line")")
    line=$("${ort[@]}" bench "$onnx" --inputs-dir "$data" --iterations 1 --warmup 0 --threads 1)
    r+=("$(field load_ms "$line")")
  done
  om=$(printf '%s\n' "${o_model[@]}" | median) ot=$(printf '%s\n' "${o_total[@]}" | median)
  km=$(printf '%s\n' "${k_model[@]}" | median) kt=$(printf '%s\n' "${k_total[@]}" | median)
  rm=$(printf '%s\n' "${r[@]}" | median)
  echo "$name onnx_load_model_ms=$om kiln_load_model_ms=$km ratio_onnx_over_kiln=$(awk -v a="$om" -v b="$km" 'BEGIN{printf "%.1f", a/b}')" \
    "onnx_load_with_worker_ms=$ot kiln_load_with_worker_ms=$kt ort_session_ms=$rm" \
    "onnx_bytes=$(stat -c %s "$onnx") kiln_bytes=$(stat -c %s "$saved") repeats=$repeats"
done
