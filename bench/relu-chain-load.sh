#!/usr/bin/env bash
# Load time against graph size: chains of N Relu nodes (default 10000 30000 100000) over a
# float32[1, 16] input, each loaded in a fresh process: kiln's load_model alone, with the Worker,
# and its first run (which records the sizes and plans the memory), beside ONNX Runtime's
# session creation and first run, with each process's CPU time (user + system, for the whole
# process: on a busy machine a fairer figure than the wall-clock ones) and peak resident memory.
# Load time should grow linearly with N.
#   bench/relu-chain-load.sh KILN_BINARY SHARED_DIR [N...]
# Needs Debian's python3-onnx and python3-numpy. ONNX Runtime comes from SHARED_DIR/tools/ort (skipped when that folder is absent).
set -euo pipefail
kiln=$1 shared=$2
shift 2
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(10000 30000 100000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ort=()
if [[ -f $shared/tools/ort/ort-run.mjs ]]; then
  export ORT_NODE_DIR=$(bash "$shared/tools/ort/ensure-ort.sh")
  ort=(node "$shared/tools/ort/ort-run.mjs")
fi
field() { sed -E "s/.*$1=([0-9.]+).*/\1/" <<<"$2"; }
cpu() { sed -E 's/.*cpu_s=([0-9.]+)\+([0-9.]+).*/\1 \2/' <<<"$1" | awk '{printf "%.2f", $1 + $2}'; }

for n in "${sizes[@]}"; do
  dir=$work/relu_$n
  mkdir -p "$dir/data"
  /usr/bin/python3 - "$n" "$dir" <<'PY'
import sys
import numpy as np
from onnx import TensorProto, helper, numpy_helper
n, out = int(sys.argv[1]), sys.argv[2]
nodes = [helper.make_node("Relu", [f"v{i}"], [f"v{i + 1}"], name=f"relu{i}") for i in range(n)]
graph = helper.make_graph(nodes, "chain",
                          [helper.make_tensor_value_info("v0", TensorProto.FLOAT, [1, 16])],
                          [helper.make_tensor_value_info(f"v{n}", TensorProto.FLOAT, [1, 16])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
open(f"{out}/model.onnx", "wb").write(model.SerializeToString())
x = numpy_helper.from_array(np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 16), "v0")
open(f"{out}/data/input_0.pb", "wb").write(x.SerializeToString())
PY
  line=$(/usr/bin/time -f "rss_kib=%M cpu_s=%U+%S" "$kiln" bench "$dir/model.onnx" --inputs-dir "$dir/data" \
           --runs 1 --warmup 0 --threads 1 2>&1 | grep -E '^bench:|rss_kib=' | tr '\n' ' ')
  printf 'relu_chain n=%s kiln: load_model_ms=%s load_ms=%s first_run_ms=%s process_cpu_s=%s peak_rss_mib=%s' \
    "$n" "$(field load_model_ms "$line")" "$(field load_ms "$line")" "$(field min_ms "$line")" \
    "$(cpu "$line")" "$(( $(field rss_kib "$line") / 1024 ))"
  if [[ ${#ort[@]} -gt 0 ]]; then
    line=$(/usr/bin/time -f "rss_kib=%M cpu_s=%U+%S" "${ort[@]}" bench "$dir/model.onnx" --inputs-dir "$dir/data" \
             --iterations 1 --warmup 0 --threads 1 2>&1 | grep -E 'load_ms=|rss_kib=' | tr '\n' ' ')
    printf ' | onnxruntime: session_ms=%s first_run_ms=%s process_cpu_s=%s peak_rss_mib=%s' \
      "$(field load_ms "$line")" "$(field min_ms "$line")" "$(cpu "$line")" \
      "$(( $(field rss_kib "$line") / 1024 ))"
  fi
  echo
done
