#!/usr/bin/env bash
# Runs the ONNX backend test suites and the public models on a backend, each against its
# known-failures list in tests/conformance/, and the repository's own suite of ONNX Runtime's
# contrib operators (tests/contrib: references from ONNX Runtime; they run on the CPU under
# every backend). Fails when a test not on a list fails, or when a listed test passes (so the
# lists only shrink). On a GPU backend the node suite runs strict: a test with any node on the
# CPU, or any run-time fallback, fails unless cpu_only_<backend>.txt lists it, and a listed test
# that runs fully native fails too.
#   scripts/run-conformance.sh KILN_BINARY SHARED_DIR [BACKEND]
# Without SHARED_DIR/onnx-backend it skips all but the contrib suite, except under CI=true, where it fails: CI must not
# go green without the conformance suites.
set -uo pipefail
kiln=$1
shared=$2
backend=${3:-cpu}
here=$(cd "$(dirname "$0")/.." && pwd)
lists=$here/tests/conformance

status=0
run_suite() {  # name dir [extra options]
  local name=$1 dir=$2
  shift 2
  local list=$lists/known_failures_${backend}_${name}.txt
  echo "== $name ($backend)"
  # Every suite is also the drift test of shape inference against the CPU kernels.
  local opts=(--backend "$backend" --verify-shapes)
  [[ -f $list ]] && opts+=(--known-failures "$list")
  if ! "$kiln" test-onnx "$dir" "${opts[@]}" "$@" >"/tmp/kiln-conformance-$backend-$name.log" 2>&1; then
    status=1
  fi
  grep -E "^FAIL .*[^)]: |known failures that passed|remove it from the" "/tmp/kiln-conformance-$backend-$name.log" | grep -v "(known)" | head -50
  grep -E "^placement on " "/tmp/kiln-conformance-$backend-$name.log"
  tail -n 1 "/tmp/kiln-conformance-$backend-$name.log"
}

# In the repository, so it runs without SHARED_DIR.
run_suite contrib "$here/tests/contrib"

if [[ ! -d $shared/onnx-backend ]]; then
  if [[ ${CI:-} == true ]]; then
    echo "conformance: $shared/onnx-backend not found; CI=true needs the conformance suites" >&2
    exit 1
  fi
  echo "conformance: $shared/onnx-backend not found, skipping the shared conformance suites"
  exit $status
fi

node_opts=()
if [[ $backend != cpu ]]; then
  node_opts=(--strict --cpu-only "$lists/cpu_only_${backend}.txt")
fi
run_suite node "$shared/onnx-backend/node" "${node_opts[@]}"
run_suite pytorch-converted "$shared/onnx-backend/pytorch-converted"
run_suite pytorch-operator "$shared/onnx-backend/pytorch-operator"
run_suite simple "$shared/onnx-backend/simple"
# Whole ImageNet networks (VGG-19 is 20 GFLOP): minutes each on a software GPU driver.
run_suite light-testdirs "$shared/onnx-backend/light-testdirs" --timeout 900
# The public models match ONNX Runtime within |a - e| <= 1e-4 + 1e-3 |e|.
run_suite models "$shared/models" --rtol 1e-3 --atol 1e-4

if [[ $status -ne 0 ]]; then
  echo "conformance: FAILED (a test outside the known-failures lists failed, or a listed one passed)"
else
  echo "conformance: all suites match their known-failures lists"
fi
exit $status
