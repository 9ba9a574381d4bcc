#!/usr/bin/env python3
"""PyTorch's side of bench/gpu-device.sh, on a machine with a CUDA GPU.

    gpu_torch.py OUT BATCH [BATCH ...]

For each model of bench/make-models.py except SqueezeNet (the issue's four):
1. exports it to OUT/<name>/model.onnx with a symbolic batch dimension named "batch", and writes a
   batch-1 test case beside it (test_data_set_0/input_0.pb, output_0.pb) whose output PyTorch
   computed in float32 on the CPU, so `kiln test-onnx OUT/<name>` checks kiln's GPU result;
2. times PyTorch eager on the GPU in float32 (TF32 off, as kiln computes in float32) and float16
   at each batch size: CUDA events around each run, WARMUP untimed runs first, the median of RUNS.
Prints one line per measurement:  torch: model=M batch=B dtype=D median_ms=X
"""
import importlib.util
import os
import statistics
import sys

import torch
from onnx import numpy_helper

WARMUP = int(os.environ.get("WARMUP", "10"))
RUNS = int(os.environ.get("RUNS", "30"))
NAMES = ["resnet50", "mobilenet_v2", "efficientnet_b0", "encoder_l4_d512"]


def bench_models():
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("make_models", os.path.join(here, "make-models.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.MODELS


def batched(x, batch):
    return x.repeat(batch, *([1] * (x.dim() - 1)))


def export(model, x, folder):
    path = os.path.join(folder, "model.onnx")
    if os.path.exists(path):
        return
    os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
    args = dict(opset_version=17, input_names=["input"], output_names=["output"],
                dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    try:
        torch.onnx.export(model, x, path, dynamo=False, **args)
    except TypeError:  # a PyTorch without the dynamo switch
        torch.onnx.export(model, x, path, **args)
    with torch.no_grad():
        expected = model(x)
    data = os.path.join(folder, "test_data_set_0")
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x.numpy(), "input").SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(expected.numpy(), "output").SerializeToString())


def time_eager(model, x):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples = []
    with torch.inference_mode():
        for i in range(WARMUP + RUNS):
            start.record()
            model(x)
            end.record()
            end.synchronize()
            if i >= WARMUP:
                samples.append(start.elapsed_time(end))
    return statistics.median(samples)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, batches = sys.argv[1], [int(b) for b in sys.argv[2:]]
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    cuda = torch.cuda.is_available()
    device = torch.cuda.get_device_name(0) if cuda else "no CUDA device: exports only"
    print(f"torch: {torch.__version__} on {device}", flush=True)
    models = bench_models()
    for name in NAMES:
        make_model, make_input = models[name]
        torch.manual_seed(0)
        model = make_model().eval()
        x = make_input(torch.Generator().manual_seed(1))
        export(model, x, os.path.join(out, name))
        if not cuda:
            continue
        for dtype in (torch.float32, torch.float16):
            gpu = make_model().eval()
            gpu.load_state_dict(model.state_dict())
            gpu = gpu.to("cuda", dtype)
            for batch in batches:
                xb = batched(x, batch).to("cuda")
                if xb.is_floating_point():
                    xb = xb.to(dtype)
                ms = time_eager(gpu, xb)
                print(f"torch: model={name} batch={batch} dtype={str(dtype).split('.')[-1]} "
                      f"median_ms={ms:.4f}", flush=True)
            del gpu
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
