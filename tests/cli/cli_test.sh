#!/usr/bin/env bash
# End-to-end checks of the kiln program's run, inspect and bench commands on the demo model.
# usage: cli_test.sh KILN_BINARY REPO_ROOT
set -u

kiln=$1
root=$2
model=$root/demo/digits.onnx
sample=$root/demo/samples/digits_8x8.npy
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect_match DESCRIPTION FILE REGEX: FILE must contain a line matching REGEX (grep -E).
expect_match() {
  grep -Eq -- "$3" "$2" || { fail "$1: no line matching '$3' in:"; cat "$2"; }
}

# --help for each command succeeds and prints its usage line.
for cmd in run inspect bench; do
  "$kiln" "$cmd" --help >"$work/help.txt" 2>&1 || fail "kiln $cmd --help exited with $?"
  expect_match "kiln $cmd --help" "$work/help.txt" "^usage: kiln $cmd MODEL"
done

# inspect: metadata, every node with inferred shapes, and the summary.
"$kiln" inspect "$model" >"$work/inspect.txt" 2>&1 || fail "inspect exited with $?"
expect_match "inspect inputs" "$work/inspect.txt" "pixels: float32\[batch, 1, 8, 8\]"
expect_match "inspect opsets" "$work/inspect.txt" "^opsets: ai.onnx [0-9]+"
expect_match "inspect Conv node" "$work/inspect.txt" \
  "^ +0 +Conv .*const float32\[16, 1, 3, 3\].* -> .*float32\[batch, 16, 8, 8\] +@ cpu$"
expect_match "inspect Gemm output" "$work/inspect.txt" "Gemm .* -> logits: float32\[batch, 10\]"
expect_match "inspect op counts" "$work/inspect.txt" "nodes per op: .*Conv 2"
expect_match "inspect cpu placement" "$work/inspect.txt" "cpu: +[0-9]+/[0-9]+ nodes native \(100.0%\)"
"$kiln" inspect "$model" --backend gpu-compute >"$work/inspect_gpu.txt" 2>&1 ||
  fail "inspect --backend gpu-compute exited with $?"
# Each node names where it runs on the GPU worker (the device, or the CPU and why), and the
# summary counts them. Without a Vulkan device every node falls back, for that reason.
if grep -q "^device: " "$work/inspect_gpu.txt"; then
  expect_match "inspect gpu placement" "$work/inspect_gpu.txt" "Conv .*@ gpu-compute$"
else
  expect_match "inspect gpu fallback" "$work/inspect_gpu.txt" "Conv .*@ cpu \(fallback: "
fi
expect_match "inspect gpu summary" "$work/inspect_gpu.txt" "gpu-compute: +[0-9]+/[0-9]+ nodes native"

# run: one output printed and written as output_0.pb.
"$kiln" run "$model" --input "pixels=$sample" --outputs-dir "$work/out" >"$work/run.txt" 2>&1 ||
  fail "run exited with $?"
expect_match "run summary" "$work/run.txt" "^output 0 'logits': float32\[[0-9]+, 10\] \{"
expect_match "run time" "$work/run.txt" "run [0-9.]+ ms"
[[ -s $work/out/output_0.pb ]] || fail "run did not write output_0.pb"

# run --inputs-dir with input_0.npy gives the same outputs as --input.
mkdir -p "$work/in" && cp "$sample" "$work/in/input_0.npy"
"$kiln" run "$model" --inputs-dir "$work/in" >"$work/run_dir.txt" 2>&1 ||
  fail "run --inputs-dir exited with $?"
cmp -s <(grep '^output' "$work/run.txt") <(grep '^output' "$work/run_dir.txt") ||
  fail "run --inputs-dir and --input gave different outputs"

# run without inputs: non-zero exit, and the message lists the model's inputs.
if "$kiln" run "$model" >"$work/run_missing.txt" 2>&1; then fail "run without inputs succeeded"; fi
expect_match "missing input message" "$work/run_missing.txt" "pixels.*float32\[batch, 1, 8, 8\]"

# bench: random inputs, the machine-readable line.
"$kiln" bench "$model" --runs 20 --warmup 2 --threads 1 --dim batch=4 >"$work/bench.txt" \
  2>"$work/bench_err.txt" || fail "bench exited with $?"
expect_match "bench line" "$work/bench.txt" \
  "^bench: model=.* backend=cpu threads=1 load_model_ms=[0-9.]+ load_ms=[0-9.]+ min_ms=[0-9.]+ median_ms=[0-9.]+ mean_ms=[0-9.]+"
expect_match "bench inputs" "$work/bench.txt" "pixels float32\[4, 1, 8, 8\]"
expect_match "bench progress" "$work/bench_err.txt" "run 20/20"

# Errors: non-zero exit and a message naming the problem.
if "$kiln" run "$work/no_such_model.onnx" >"$work/err.txt" 2>&1; then
  fail "run on a missing model succeeded"
fi
expect_match "bad model path" "$work/err.txt" "no_such_model.onnx"
if "$kiln" inspect "$work/no_such_model.onnx" >"$work/err.txt" 2>&1; then
  fail "inspect on a missing model succeeded"
fi
expect_match "inspect bad model path" "$work/err.txt" "no_such_model.onnx"
if "$kiln" bench "$model" --runs 0 >"$work/err.txt" 2>&1; then fail "bench --runs 0 succeeded"; fi
expect_match "bench bad --runs" "$work/err.txt" "--runs"
if "$kiln" run "$model" --input "nope=$sample" >"$work/err.txt" 2>&1; then
  fail "run with an unknown input name succeeded"
fi
expect_match "unknown input name" "$work/err.txt" "no input named 'nope'"

if ((failures)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all CLI checks passed"
