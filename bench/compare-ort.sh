#!/usr/bin/env bash
# kiln beside ONNX Runtime (onnxruntime-node, CPU) on the standard models, same inputs, at one and
# two threads. `make bench-ort` runs it; it needs nothing outside the repository except Debian
# packages (scripts/install-deps.sh --with-bench) and the npm registry (ONNX Runtime, once).
#
#   bench/compare-ort.sh KILN_BINARY [MODEL...]     models: see bench/make-models.py; default all
#
# 1. exports the models with bench/make-models.py into MODELS_DIR (cached there);
# 2. installs onnxruntime-node into ORT_DIR (cached there) and writes its outputs as references;
# 3. checks kiln's outputs against them: |kiln - ort| <= 1e-4 + 1e-3 * |ort| (`kiln test-onnx`);
# 4. times both, alternating: ROUNDS rounds of (kiln bench, then ORT), each RUNS runs after
#    WARMUP untimed ones in a fresh process, for each thread count in THREADS; a figure is the
#    median over rounds of each round's median. Load is file to session ready (kiln: load_model
#    + Worker; ORT: session creation), peak memory the process's peak resident set (ORT's
#    includes Node's own, printed as "node baseline").
# Prints a table, the processor and the SIMD target kiln dispatched to. The ratio is kiln / ORT:
# below 1 means kiln is faster.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kiln=${1:?usage: compare-ort.sh KILN_BINARY [MODEL...]}
shift
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=(resnet50 mobilenet_v2 efficientnet_b0 squeezenet1_1 encoder_l4_d512)
models=${MODELS_DIR:-$here/models}
threads_list=${THREADS:-1 2}
rounds=${ROUNDS:-3}
runs=${RUNS:-20}
warmup=${WARMUP:-5}

/usr/bin/python3 "$here/make-models.py" "$models" "${names[@]}"
export ORT_NODE_DIR=$(bash "$here/ort/ensure-ort.sh" "${ORT_DIR:-$here/ort-node}")
ort=(node "$here/ort/ort-run.mjs")
# ONNX Runtime's CPU library picks its own kernels for the processor; keep the environment from
# steering it.
unset OPENBLAS_CORETYPE OMP_NUM_THREADS

median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "nan"; else print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
# field NAME LINE: the number after NAME= in LINE
field() { sed -E "s/.*[ ^]?$1=([0-9.]+).*/\1/" <<<"$2"; }

# The model name alone can be generic in a virtual machine ("AMD EPYC"): family, model and the
# widest vector extension say which processor generation it is.
cpuinfo() { sed -n "s/^$1[[:space:]]*: //p" /proc/cpuinfo | head -n 1; }
vector=$(grep -qw avx512f /proc/cpuinfo && echo AVX-512 || { grep -qw avx2 /proc/cpuinfo && echo AVX2 || echo "no AVX2"; })
cpu="$(cpuinfo 'model name') (family $(cpuinfo 'cpu family'), model $(cpuinfo model), $vector)"
simd=""
rows=()
for name in "${names[@]}"; do
  dir=$models/$name
  data=$dir/test_data_set_0
  if [[ ! -f $data/output_0.pb ]]; then
    "${ort[@]}" run "$dir/model.onnx" --inputs-dir "$data" --outputs-dir "$data.partial"
    mv "$data.partial/output_0.pb" "$data/" && rm -rf "$data.partial"
  fi
  if "$kiln" test-onnx "$dir" --rtol 1e-3 --atol 1e-4 >"$dir/check.txt" 2>&1; then
    check=match
  else
    check=DIFFER
    echo "$name: kiln's outputs differ from ONNX Runtime's:" >&2
    tail -n 5 "$dir/check.txt" >&2
  fi
  for threads in $threads_list; do
    k_ms=() o_ms=() k_load=() o_load=() k_mem=() o_mem=()
    for ((round = 1; round <= rounds; round++)); do
      echo "$name threads=$threads round $round/$rounds" >&2
      k=$("$kiln" bench "$dir/model.onnx" --inputs-dir "$data" --runs "$runs" --warmup "$warmup" \
          --threads "$threads" 2>/dev/null | grep '^bench:')
      o=$("${ort[@]}" bench "$dir/model.onnx" --inputs-dir "$data" --runs "$runs" --warmup "$warmup" \
          --threads "$threads")
      simd=$(sed -E 's/.* simd=([^ ]+).*/\1/' <<<"$k")
      k_ms+=("$(field median_ms "$k")") o_ms+=("$(field median_ms "$o")")
      k_load+=("$(field load_ms "$k")") o_load+=("$(field load_ms "$o")")
      k_mem+=("$(field peak_rss_mb "$k")") o_mem+=("$(field peak_rss_mb "$o")")
    done
    km=$(printf '%s\n' "${k_ms[@]}" | median) om=$(printf '%s\n' "${o_ms[@]}" | median)
    rows+=("$(printf '%s|%s|%.2f|%.2f|%.2f|%.0f|%.0f|%.0f|%.0f|%s' "$name" "$threads" "$km" "$om" \
      "$(awk -v a="$km" -v b="$om" 'BEGIN {print a / b}')" \
      "$(printf '%s\n' "${k_load[@]}" | median)" "$(printf '%s\n' "${o_load[@]}" | median)" \
      "$(printf '%s\n' "${k_mem[@]}" | median)" "$(printf '%s\n' "${o_mem[@]}" | median)" "$check")")
  done
done

node_base=$(field peak_rss_mb "$("${ort[@]}" baseline)")
echo
echo "CPU: $cpu ($(nproc) logical cores); kiln SIMD target: $simd; ONNX Runtime $(node -p \
  "require('$ORT_NODE_DIR/node_modules/onnxruntime-node/package.json').version")"
echo "medians of $rounds rounds x $runs runs ($warmup warm-up), kiln and ORT alternating; ratio = kiln / ORT"
echo "peak memory: whole process; ORT's includes Node's own (node baseline: $node_base MB)"
echo
echo "| model | threads | kiln ms | ORT ms | ratio | kiln load ms | ORT load ms | kiln peak MB | ORT peak MB | outputs |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for row in "${rows[@]}"; do echo "| ${row//|/ | } |"; done
