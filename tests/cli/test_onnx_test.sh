#!/usr/bin/env bash
# Checks of `kiln test-onnx` and scripts/run-conformance.sh on small hand-made ONNX tests
# (make_onnx_tests.py): integers compare exactly, a GPU backend's placement is counted, --strict
# fails CPU work outside the --cpu-only list, both lists only shrink, and CI cannot skip the
# conformance suites.
# usage: test_onnx_test.sh KILN_BINARY REPO_ROOT PYTHON
set -u

kiln=$1
root=$2
python=${3:-python3}
source "$(dirname "$0")/check_lib.sh"

# expect DESCRIPTION STATUS REGEX COMMAND...: COMMAND exits with STATUS and prints a line
# matching REGEX (grep -E).
expect() {
  local what=$1 want=$2 regex=$3
  shift 3
  "$@" >"$work/out.txt" 2>&1
  local got=$?
  [[ $got -eq $want ]] || { fail "$what: exit status $got, expected $want; output:"; cat "$work/out.txt"; }
  grep -Eq -- "$regex" "$work/out.txt" ||
    { fail "$what: no line matching '$regex' in:"; cat "$work/out.txt"; }
}

tests=$work/tests
"$python" "$root/tests/cli/make_onnx_tests.py" "$tests" || { echo "cannot write the tests"; exit 1; }

# Integers are exact: BitwiseAnd's expected 4096 changed to 4097 fails (a relative tolerance of
# 1e-3 would pass it).
expect "int32 equal" 0 "^1 passed, 0 failed" "$kiln" test-onnx "$tests" --filter 'bitwise_and$'
expect "int32 off by one" 1 "element 1 is 4096, expected 4097" \
  "$kiln" test-onnx "$tests" --filter 'bitwise_and_tampered'

# The known-failures list only shrinks: a listed test that passes fails the run, unless its
# reason says its expected values are a random draw, which kiln's own draw may match by chance.
echo "test_bitwise_and  # listed by mistake" >"$work/known.txt"
expect "a listed test that passes fails the run" 1 \
  "^PASS test_bitwise_and .*remove it from the list" \
  "$kiln" test-onnx "$tests" --filter 'bitwise_and$' --known-failures "$work/known.txt"
echo "test_bitwise_and  # random draw: numpy's generator" >"$work/known.txt"
expect "a random draw may pass by chance" 0 "^PASS test_bitwise_and .*matched it by chance" \
  "$kiln" test-onnx "$tests" --filter 'bitwise_and$' --known-failures "$work/known.txt"

# Without a Vulkan device the GPU checks have nothing to run on.
if "$kiln" devices 2>/dev/null | grep -q "^gpu-compute 0:"; then
  gpu=(--backend gpu-compute)
  expect "placement counted" 0 \
    "^placement on gpu-compute: every node native in 1 tests, some nodes native in 0, no node native in 1; 0 run-time fallbacks" \
    "$kiln" test-onnx "$tests" "${gpu[@]}" --filter 'relu|string'
  expect "--verbose names the CPU work" 0 \
    "^CPU test_string_normalizer: 1 of 1 nodes on the CPU: StringNormalizer: " \
    "$kiln" test-onnx "$tests" "${gpu[@]}" --filter 'string' --verbose
  expect "--strict passes a native test" 0 "^1 passed, 0 failed" \
    "$kiln" test-onnx "$tests" "${gpu[@]}" --filter 'relu' --strict
  expect "--strict fails CPU work" 1 \
    "^FAIL test_string_normalizer: --strict: 1 of 1 nodes on the CPU: StringNormalizer" \
    "$kiln" test-onnx "$tests" "${gpu[@]}" --filter 'relu|string' --strict
  echo "test_string_normalizer  # strings stay on the CPU" >"$work/cpu_only.txt"
  expect "--cpu-only excuses a listed test" 0 "^2 passed, 0 failed" \
    "$kiln" test-onnx "$tests" "${gpu[@]}" --filter 'relu|string' --strict --cpu-only "$work/cpu_only.txt"
  echo "test_relu  # listed by mistake" >>"$work/cpu_only.txt"
  expect "a listed test that runs natively fails the run" 1 \
    "^NATIVE test_relu .*remove it from the CPU-only list" \
    "$kiln" test-onnx "$tests" "${gpu[@]}" --filter 'relu|string' --strict --cpu-only "$work/cpu_only.txt"
  echo "test_string_normalizer" >"$work/no_reason.txt"
  expect "a CPU-only entry needs a reason" 1 "no_reason.txt:1: test_string_normalizer has no reason" \
    "$kiln" test-onnx "$tests" "${gpu[@]}" --strict --cpu-only "$work/no_reason.txt"
fi

# run-conformance.sh skips without the shared data, but not under CI.
expect "conformance skips without data" 0 "skipping" \
  env -u CI "$root/scripts/run-conformance.sh" "$kiln" "$work/no-shared" cpu
expect "conformance fails without data under CI" 1 "CI=true needs the conformance suites" \
  env CI=true "$root/scripts/run-conformance.sh" "$kiln" "$work/no-shared" cpu

finish "test-onnx"
