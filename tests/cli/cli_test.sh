#!/usr/bin/env bash
# End-to-end checks of the kiln program on the demo model: every command, each form of an
# option (--opt value, --opt=value, -o value), and each kind of error with its exit status
# (2 for a wrong command line, 1 for a failed run) and one-line message.
# usage: cli_test.sh KILN_BINARY REPO_ROOT
set -u

kiln=$1
root=$2
model=$root/demo/digits.onnx
sample=$root/demo/samples/digits_8x8.npy
source "$(dirname "$0")/check_lib.sh"

# expect_status DESCRIPTION STATUS OUT_FILE COMMAND...: COMMAND exits with STATUS.
expect_status() {
  local what=$1 want=$2 out=$3
  shift 3
  "$@" >"$out" 2>&1
  local got=$?
  [[ $got -eq $want ]] || { fail "$what: exit status $got, expected $want; output:"; cat "$out"; }
}

# expect_usage_error DESCRIPTION REGEX COMMAND...: exit status 2 and one line on stderr
# matching REGEX.
expect_usage_error() {
  local what=$1 regex=$2
  shift 2
  "$@" >"$work/usage_out.txt" 2>"$work/usage_err.txt"
  local got=$?
  [[ $got -eq 2 ]] || { fail "$what: exit status $got, expected 2"; cat "$work/usage_err.txt"; }
  [[ $(wc -l <"$work/usage_err.txt") -eq 1 ]] ||
    { fail "$what: expected one line on stderr, got:"; cat "$work/usage_err.txt"; }
  expect_match "$what" "$work/usage_err.txt" "$regex"
}

# --version, --help, and help for each command in both spellings.
expect_status "kiln --version" 0 "$work/version.txt" "$kiln" --version
expect_match "kiln --version" "$work/version.txt" "^kiln [0-9]+\.[0-9]+\.[0-9]+$"
expect_status "kiln --help" 0 "$work/help.txt" "$kiln" --help
for cmd in run inspect bench test-onnx devices; do
  expect_match "kiln --help lists $cmd" "$work/help.txt" "^ +$cmd "
done
expect_status "kiln without a command" 2 "$work/help.txt" "$kiln"
for cmd in run inspect bench test-onnx devices; do
  for flag in --help -h; do
    expect_status "kiln $cmd $flag" 0 "$work/help.txt" "$kiln" "$cmd" "$flag"
    expect_match "kiln $cmd $flag" "$work/help.txt" "^Usage: kiln $cmd "
  done
done
"$kiln" run --help >"$work/help.txt" 2>&1
for flag in --input --inputs-dir --outputs-dir --backend --device --threads --strict --no-optimize; do
  expect_match "run --help lists $flag" "$work/help.txt" "^ +(-[a-z],)?$flag"
done

# inspect: metadata, every node with inferred shapes, and the summary.
"$kiln" inspect "$model" >"$work/inspect.txt" 2>&1 || fail "inspect exited with $?"
expect_match "inspect inputs" "$work/inspect.txt" "pixels: float32\[batch, 1, 8, 8\]"
expect_match "inspect opsets" "$work/inspect.txt" "^opsets: ai.onnx [0-9]+"
expect_match "inspect Conv node" "$work/inspect.txt" \
  "^ +0 +Conv .*const float32\[16, 1, 3, 3\].* -> .*float32\[batch, 16, 8, 8\] +@ cpu \(in kiln::FusedConv\)$"
expect_match "inspect Gemm output" "$work/inspect.txt" "Gemm .* -> logits: float32\[batch, 10\]"
expect_match "inspect op counts" "$work/inspect.txt" "nodes per op: .*Conv 2"
expect_match "inspect cpu placement" "$work/inspect.txt" "cpu: +[0-9]+/[0-9]+ nodes native \(100.0%\)"
"$kiln" inspect "$model" --backend gpu-compute >"$work/inspect_gpu.txt" 2>&1 ||
  fail "inspect --backend gpu-compute exited with $?"
# Each node names where it runs on the GPU worker (the device, or the CPU and why), and the
# summary counts them. Without a Vulkan device every node falls back, for that reason.
# The digits model's batch is symbolic, so the GPU nodes are placed before their shapes are
# known and say that a run checks them.
if grep -q "^device: " "$work/inspect_gpu.txt"; then
  expect_match "inspect gpu placement" "$work/inspect_gpu.txt" \
    "Conv .*@ gpu-compute \(in kiln::FusedConv\) \(shapes checked per run\)$"
  expect_match "inspect gpu per-run count" "$work/inspect_gpu.txt" \
    "gpu-compute: +9/9 nodes native .*, 9 with shapes checked per run"
else
  expect_match "inspect gpu fallback" "$work/inspect_gpu.txt" "Conv .*@ cpu \(fallback: "
fi
expect_match "inspect gpu summary" "$work/inspect_gpu.txt" "gpu-compute: +[0-9]+/[0-9]+ nodes native"

# inspect names the domain of a node outside ai.onnx, and why a GPU worker runs it on the CPU.
contrib=$root/tests/contrib/ms_mha/model.onnx
"$kiln" inspect "$contrib" --backend gpu-compute >"$work/inspect_contrib.txt" 2>&1 ||
  fail "inspect of a com.microsoft model exited with $?"
expect_match "inspect contrib opsets" "$work/inspect_contrib.txt" "^opsets: .*com.microsoft 1"
expect_match "inspect contrib node" "$work/inspect_contrib.txt" \
  "^ +0 +com.microsoft::MultiHeadAttention .*output: float32\[2, 3, 16\] +@ cpu \(fallback: no GPU kernel for domain com.microsoft"
expect_match "inspect contrib op counts" "$work/inspect_contrib.txt" \
  "nodes per op: com.microsoft::MultiHeadAttention 1"
# A com.microsoft op with a GPU kernel is placed there when there is a device.
contrib=$root/tests/contrib/ms_matmul_nbits_4bit/model.onnx
"$kiln" inspect "$contrib" --backend gpu-compute >"$work/inspect_nbits.txt" 2>&1 ||
  fail "inspect of a com.microsoft model exited with $?"
if grep -q "^device: " "$work/inspect_nbits.txt"; then
  expect_match "inspect contrib gpu node" "$work/inspect_nbits.txt" \
    "^ +0 +com.microsoft::MatMulNBits .*Y: float32\[3, 8\] +@ gpu-compute$"
fi

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

# --opt=value gives what --opt value gives (--input=NAME=FILE used to be dropped silently).
"$kiln" run "$model" --input="pixels=$sample" --threads=1 >"$work/run_eq.txt" 2>&1 ||
  fail "run --input=NAME=FILE exited with $?"
cmp -s <(grep '^output' "$work/run.txt") <(grep '^output' "$work/run_eq.txt") ||
  fail "run --input=NAME=FILE and --input NAME=FILE gave different outputs"
"$kiln" run -t 1 -b cpu "$model" --input "pixels=$sample" >"$work/run_short.txt" 2>&1 ||
  fail "run with -t 1 -b cpu exited with $?"
# bench reads the given input (8 samples) instead of making a random batch of 1.
"$kiln" bench "$model" --input="pixels=$sample" --runs=2 --warmup=0 >"$work/bench_eq.txt" 2>&1 ||
  fail "bench --input=NAME=FILE exited with $?"
expect_match "bench --input=NAME=FILE" "$work/bench_eq.txt" "pixels float32\[8, 1, 8, 8\]"

# --no-optimize skips the load-time passes: the Identity that they remove stays.
small=$root/tests/data/cli/identity_relu.onnx
"$kiln" inspect "$small" >"$work/inspect_small.txt" 2>&1 || fail "inspect exited with $?"
"$kiln" inspect "$small" --no-optimize >"$work/inspect_raw.txt" 2>&1 ||
  fail "inspect --no-optimize exited with $?"
expect_match "inspect without Identity" "$work/inspect_small.txt" "^optimized graph \(1 nodes"
expect_match "inspect --no-optimize keeps Identity" "$work/inspect_raw.txt" "^ +0 +Identity 'identity'"
expect_match "inspect --no-optimize node count" "$work/inspect_raw.txt" "^optimized graph \(2 nodes"
"$kiln" run "$model" --input "pixels=$sample" --no-optimize >"$work/run_raw.txt" 2>&1 ||
  fail "run --no-optimize exited with $?"
expect_match "run --no-optimize output" "$work/run_raw.txt" "^output 0 'logits': float32\[8, 10\]"

# --strict: fine on the CPU; on a GPU backend a node that would fall back fails the load.
expect_status "run --strict on cpu" 0 "$work/strict.txt" "$kiln" run "$model" --strict \
  --input "pixels=$sample"

# kiln devices lists the GPU devices; --device picks one, and the environment overrides it.
expect_status "kiln devices" 0 "$work/devices.txt" "$kiln" devices
if grep -q "^gpu-compute 0: " "$work/devices.txt" && ! grep -q "not usable" "$work/devices.txt"; then
  expect_match "devices precision" "$work/devices.txt" "^ +precision: float32"
  expect_match "devices limits" "$work/devices.txt" "^ +limits: max storage buffer [0-9]+"
  expect_status "run --device 0" 0 "$work/dev.txt" "$kiln" run "$model" --backend gpu-compute \
    --device 0 --input "pixels=$sample"
  expect_status "run --device no-such-gpu" 1 "$work/dev.txt" "$kiln" run "$model" \
    --backend gpu-compute --device no-such-gpu --input "pixels=$sample"
  expect_match "run --device no-such-gpu" "$work/dev.txt" "no-such-gpu.*matches no device"
  KILN_GPU_COMPUTE_DEVICE=0 "$kiln" run "$model" --backend gpu-compute --device no-such-gpu \
    --input "pixels=$sample" >"$work/dev.txt" 2>&1 || fail "KILN_GPU_COMPUTE_DEVICE did not override --device"
fi
if grep -q "^gpu-pixel " "$work/devices.txt"; then
  expect_match "devices gl probe" "$work/devices.txt" "^ +precision: RGBA(32|16)F render targets, [0-9]+ mantissa bits"
fi

# bench: random inputs, the machine-readable line.
"$kiln" bench "$model" --runs 20 --warmup 2 --threads 1 --dim batch=4 >"$work/bench.txt" \
  2>"$work/bench_err.txt" || fail "bench exited with $?"
expect_match "bench line" "$work/bench.txt" \
  "^bench: model=.* backend=cpu threads=1 simd=[A-Z0-9_]+ load_model_ms=[0-9.]+ load_ms=[0-9.]+ min_ms=[0-9.]+ median_ms=[0-9.]+ mean_ms=[0-9.]+ p90_ms=[0-9.]+ max_ms=[0-9.]+ peak_rss_mb=[0-9.]+ arena_bytes=[0-9]+ peak_bytes=[0-9]+$"
expect_match "bench inputs" "$work/bench.txt" "pixels float32\[4, 1, 8, 8\]"
expect_match "bench progress" "$work/bench_err.txt" "run 20/20"

# KILN_SIMD_TARGET holds the kernels to a target: the one this machine dispatches to by default
# (always available) is reported back; an unknown name fails, listing the available ones.
default_simd=$(sed -nE 's/^bench: .* simd=([A-Z0-9_]+) .*/\1/p' "$work/bench.txt")
KILN_SIMD_TARGET=$default_simd "$kiln" bench "$model" --runs 2 --warmup 0 --threads 1 \
  >"$work/bench_simd.txt" 2>&1 || fail "bench with KILN_SIMD_TARGET=$default_simd exited with $?"
expect_match "KILN_SIMD_TARGET kept" "$work/bench_simd.txt" "^bench: .* simd=$default_simd "
if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
  KILN_SIMD_TARGET=AVX2 "$kiln" bench "$model" --runs 2 --warmup 0 --threads 1 \
    >"$work/bench_avx2.txt" 2>&1 || fail "bench with KILN_SIMD_TARGET=AVX2 exited with $?"
  expect_match "KILN_SIMD_TARGET=AVX2" "$work/bench_avx2.txt" "^bench: .* simd=AVX2 "
fi
if KILN_SIMD_TARGET=NO_SUCH "$kiln" bench "$model" --runs 2 >"$work/err.txt" 2>&1; then
  fail "bench with an unknown KILN_SIMD_TARGET succeeded"
fi
expect_match "unknown KILN_SIMD_TARGET" "$work/err.txt" \
  "KILN_SIMD_TARGET=NO_SUCH: not a SIMD target .*available: .*$default_simd"

# Errors: non-zero exit and a message naming the problem.
if "$kiln" run "$work/no_such_model.onnx" >"$work/err.txt" 2>&1; then
  fail "run on a missing model succeeded"
fi
expect_match "bad model path" "$work/err.txt" "no_such_model.onnx"
if "$kiln" inspect "$work/no_such_model.onnx" >"$work/err.txt" 2>&1; then
  fail "inspect on a missing model succeeded"
fi
expect_match "inspect bad model path" "$work/err.txt" "no_such_model.onnx"

# Wrong command lines: exit status 2, one line naming the problem.
expect_usage_error "bench --runs 0" "^kiln bench: .*--runs" "$kiln" bench "$model" --runs 0
expect_usage_error "unknown option" "^kiln run: unknown option '--verbose'" \
  "$kiln" run "$model" --verbose
expect_usage_error "unknown --json" "^kiln bench: unknown option '--json'" \
  "$kiln" bench "$model" --json
expect_usage_error "misspelt option" "unknown option '--treads' \(did you mean '--threads'\?\)" \
  "$kiln" run "$model" --treads 4
expect_usage_error "misspelt option first" "unknown option '--treads' \(did you mean '--threads'\?\)" \
  "$kiln" run --treads 4 "$model"
expect_usage_error "misspelt --opt=value" "unknown option '--inputs-dri'" \
  "$kiln" run "$model" --inputs-dri=x
expect_usage_error "unknown command" "^kiln: unknown command 'rn' \(did you mean 'run'\?\)" "$kiln" rn "$model"
expect_usage_error "no model" "^kiln run: .*model" "$kiln" run
expect_usage_error "two models" "^kiln run: unexpected argument 'second.onnx'" \
  "$kiln" run "$model" second.onnx
expect_usage_error "--threads not a number" "^kiln run: --threads: .abc. is not an integer" "$kiln" run "$model" --threads abc
expect_usage_error "--threads negative" "^kiln run: .*--threads" "$kiln" run "$model" --threads -3
expect_usage_error "--threads without value" "^kiln run: .*--threads" "$kiln" run "$model" --threads
expect_usage_error "--rtol not a number" "^kiln test-onnx: --rtol: .abc. is not a number" \
  "$kiln" test-onnx "$work" --rtol abc
expect_usage_error "--filter not a regex" "^kiln test-onnx: .*not a regular expression" \
  "$kiln" test-onnx "$work" --filter '['
expect_usage_error "unknown backend" "^kiln run: .*--backend.*gpu" "$kiln" run "$model" --backend gpu
expect_usage_error "unknown top-level option" "^kiln: .*--verbose" "$kiln" --verbose

# Failed runs: exit status 1, one line naming the problem (a list in the message is joined).
"$kiln" run "$model" >/dev/null 2>"$work/err.txt"
[[ $(wc -l <"$work/err.txt") -eq 1 ]] || { fail "missing input: not one line:"; cat "$work/err.txt"; }
expect_match "missing input on one line" "$work/err.txt" "^kiln run: no value for input 'pixels'.*'pixels' float32\[batch, 1, 8, 8\]"
expect_status "test-onnx on a folder without tests" 1 "$work/err.txt" "$kiln" test-onnx "$work/in"
expect_match "test-onnx no tests" "$work/err.txt" "^kiln test-onnx: no test folders"
if "$kiln" run "$model" --input "nope=$sample" >"$work/err.txt" 2>&1; then
  fail "run with an unknown input name succeeded"
fi
expect_match "unknown input name" "$work/err.txt" "no input named 'nope'"

finish "CLI"
