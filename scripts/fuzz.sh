#!/usr/bin/env bash
# Runs every libFuzzer target of a KILN_FUZZ build for SECONDS each and prints the executions.
#   scripts/fuzz.sh BUILD_DIR SECONDS [SHARED_DIR]
# Seeds come from the models and tensor files the tests use (the repository's own, and
# SHARED_DIR's ONNX backend tests when it is there); what a run learns stays in
# BUILD_DIR/fuzz/corpus, crashes go to BUILD_DIR/fuzz/findings. A finding fails the script: keep
# the input in fuzz/regressions/<target>/ once it is fixed, where it runs as a test.
# FUZZ_SEEDS=all seeds from every backend test (slow to start under the sanitizers); the default
# takes every tenth, enough for a short run.
set -euo pipefail
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
build=$1 seconds=$2 shared=${3:-}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$build/fuzz
# FUZZ_TARGETS="model_load tensor_file" runs only those.
read -r -a targets <<<"${FUZZ_TARGETS:-model_load model_run graph_mutation tensor_file}"
# A hang is an input that runs longer than this; a single allocation or the whole process past
# the memory limit is a finding too.
timeout_s=${FUZZ_TIMEOUT:-1}
rss_mb=${FUZZ_RSS_MB:-2048}
# FUZZ_RUNS=N: at most N inputs per target, from a fixed random seed, so that a short run (CI's)
# goes the same way every time instead of finding a different input on each machine.
fixed=()
[[ -n ${FUZZ_RUNS:-} ]] && fixed=(-runs="$FUZZ_RUNS" -seed=1)

seed_models=$work/seeds/models
seed_tensors=$work/seeds/tensors
if [[ ! -d $seed_tensors ]]; then
  mkdir -p "$seed_models" "$seed_tensors"
  n=0
  add_model() { cp "$1" "$seed_models/$(printf %05d $n).onnx"; n=$((n + 1)); }
  # A tensor seed is the file behind one byte that picks the format (tensor_file_fuzzer.cpp).
  add_tensor() { { printf "\\x$1"; cat "$2"; } > "$seed_tensors/$(printf %05d $n)"; n=$((n + 1)); }
  add_model "$root/demo/digits.onnx"
  for f in "$root"/tests/data/cli/*.onnx; do add_model "$f"; done
  "$build/kiln" convert "$root/demo/digits.onnx" "$seed_models/digits.kiln" >/dev/null
  for f in "$root"/demo/samples/*.npy "$root"/tests/data/resize/*.npy; do add_tensor 01 "$f"; done
  if [[ -n $shared && -d $shared/onnx-backend/node ]]; then
    i=0
    for dir in "$shared"/onnx-backend/node/*/; do
      i=$((i + 1))
      [[ ${FUZZ_SEEDS:-} == all ]] || ((i % 10 == 0)) || continue
      add_model "$dir/model.onnx"
      for f in "$dir"/test_data_set_0/input_*.pb; do [[ -f $f ]] && add_tensor 00 "$f"; done
    done
  fi
fi

total=0
failed=()
for target in "${targets[@]}"; do
  seeds=$seed_models
  [[ $target == tensor_file ]] && seeds=$seed_tensors
  mkdir -p "$work/corpus/$target" "$work/findings/$target"
  log=$work/$target.log
  status=0
  "$build/fuzz/${target}_fuzzer" "$work/corpus/$target" "$seeds" \
    -max_total_time="$seconds" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" \
    -print_final_stats=1 -artifact_prefix="$work/findings/$target/" "${fixed[@]}" >"$log" 2>&1 ||
    status=$?
  runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -n 1)
  runs=${runs:-0}
  total=$((total + runs))
  if ((status == 0)); then
    echo "fuzz $target: $runs executions (at most ${seconds}s), no finding"
  else
    echo "fuzz $target: FINDING after $runs executions (exit $status); log: $log"
    grep -E "^==[0-9]+==ERROR|SUMMARY|Test unit written|ALARM|out-of-memory" "$log" | head -n 5
    failed+=("$target")
  fi
done
echo "fuzz: $total executions across ${#targets[@]} targets"
((${#failed[@]} == 0))
