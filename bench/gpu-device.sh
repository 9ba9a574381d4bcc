#!/usr/bin/env bash
# kiln's GPU backends beside PyTorch eager on a machine with an NVIDIA GPU (Vulkan and EGL through
# NVIDIA's driver, PyTorch with CUDA installed), in one run of a few minutes:
#
#   bench/gpu-device.sh [KILN_BUNDLE]
#
# KILN_BUNDLE is a folder made by bench/make-device-bundle.sh on the build machine (kiln and the
# libraries it links, for a machine that cannot install packages); without it the script builds
# kiln here with `make build`, which needs the Debian packages of scripts/install-deps.sh.
#
# 1. lists the devices kiln sees (`kiln devices`);
# 2. bench/gpu_torch.py exports ResNet-50, MobileNetV2, EfficientNet-B0 and the BERT-style encoder
#    (symbolic batch) with a batch-1 test case computed by PyTorch on the CPU, and times PyTorch
#    eager on the GPU in float32 and float16 at each batch size;
# 3. checks kiln's batch-1 result on each GPU backend against that test case (`kiln test-onnx`);
# 4. times `kiln bench` on gpu-compute and gpu-pixel at each batch size, each run under a time
#    limit so the whole script ends in time (a run past it is reported as such, not left out).
# Prints the lines of each step, then a table; OUT (default /tmp/kiln-gpu) keeps the models and
# logs.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT_DIR:-/tmp/kiln-gpu}
batches=${BATCHES:-1 32}
limit=${RUN_LIMIT_S:-45}
budget=${BUDGET_S:-420}
mkdir -p "$out"
start=$(date +%s)

if [[ $# -ge 1 ]]; then
  kiln=$1/kiln
  export LD_LIBRARY_PATH="$1/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  (cd "$here/.." && make build) || exit 1
  kiln=$here/../build/release/kiln
fi
# NVIDIA's Vulkan and EGL drivers where the loaders would not look for them (a container that
# mounts the driver under /usr/local/nvidia).
nvidia=/usr/local/nvidia
if [[ -f $nvidia/share/vulkan/icd.d/nvidia_icd.json && -z ${VK_DRIVER_FILES:-} ]]; then
  export VK_DRIVER_FILES=$nvidia/share/vulkan/icd.d/nvidia_icd.json
  export VK_ICD_FILENAMES=$VK_DRIVER_FILES
fi
if [[ -f $nvidia/share/glvnd/egl_vendor.d/10_nvidia.json && -z ${__EGL_VENDOR_LIBRARY_FILENAMES:-} ]]; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=$nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
[[ -d $nvidia/lib64 ]] && export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$nvidia/lib64"

echo "== devices"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
"$kiln" devices 2>&1 | head -40

echo "== PyTorch eager"
"${PYTHON:-python3}" "$here/gpu_torch.py" "$out/models" $batches 2>&1 | grep -v Warning | tee "$out/torch.log"

echo "== kiln: batch-1 result against PyTorch (float32, CPU)"
for backend in gpu-compute gpu-pixel; do
  timeout "$limit" "$kiln" test-onnx "$out/models" --backend "$backend" >"$out/check-$backend.log" 2>&1
  rc=$?
  tail -3 "$out/check-$backend.log" | sed "s/^/$backend: /"
  ((rc == 124)) && echo "$backend: stopped after ${limit}s"
done

echo "== kiln bench"
: >"$out/kiln.log"
for batch in $batches; do
  for name in resnet50 mobilenet_v2 efficientnet_b0 encoder_l4_d512; do
    for backend in gpu-compute gpu-pixel; do
      if (($(date +%s) - start > budget)); then
        echo "kiln: model=$name batch=$batch backend=$backend skipped: past the ${budget}s budget" |
          tee -a "$out/kiln.log"
        continue
      fi
      runs=30 warmup=5
      ((batch > 1)) && runs=10 warmup=2
      log=$out/$name-$batch-$backend
      timeout "$limit" "$kiln" bench "$out/models/$name/model.onnx" --backend "$backend" \
        --dim batch="$batch" --runs $runs --warmup $warmup >"$log.log" 2>"$log.err"
      rc=$?
      line=$(grep '^bench:' "$log.log")
      if [[ -n $line ]]; then
        grep '^device work' "$log.log"
        echo "kiln: batch=$batch ${line#bench: }" | tee -a "$out/kiln.log"
      elif ((rc == 124)); then
        echo "kiln: model=$name batch=$batch backend=$backend stopped after ${limit}s:" \
          "$(tr '\r' '\n' <"$log.err" | grep . | tail -1)" | tee -a "$out/kiln.log"
      else
        echo "kiln: model=$name batch=$batch backend=$backend failed: $(tail -1 "$log.err")" |
          tee -a "$out/kiln.log"
      fi
    done
  done
done

echo "== table (median ms per run; kiln / PyTorch float32)"
field() { sed -nE "s/.* $1=([^ ]+).*/\1/p" <<<"$2"; }
printf '%-16s %5s %10s %10s %12s %12s %9s %9s\n' model batch torch_f32 torch_f16 gpu-compute \
  gpu-pixel ratio_vk ratio_gl
for batch in $batches; do
  for name in resnet50 mobilenet_v2 efficientnet_b0 encoder_l4_d512; do
    t32=$(grep " model=$name batch=$batch dtype=float32 " "$out/torch.log" | sed -E 's/.*median_ms=//')
    t16=$(grep " model=$name batch=$batch dtype=float16 " "$out/torch.log" | sed -E 's/.*median_ms=//')
    vk=$(grep "batch=$batch model=[^ ]*/$name/model.onnx backend=gpu-compute" "$out/kiln.log")
    gl=$(grep "batch=$batch model=[^ ]*/$name/model.onnx backend=gpu-pixel" "$out/kiln.log")
    vk=$(field median_ms "$vk")
    gl=$(field median_ms "$gl")
    ratio() { [[ -n $1 && -n $2 ]] && awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}' || echo -; }
    printf '%-16s %5s %10s %10s %12s %12s %9s %9s\n' "$name" "$batch" "${t32:--}" "${t16:--}" \
      "${vk:--}" "${gl:--}" "$(ratio "$vk" "$t32")" "$(ratio "$gl" "$t32")"
  done
done
echo "total: $(($(date +%s) - start)) s"
