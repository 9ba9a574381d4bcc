#!/usr/bin/env python3
"""Regenerates the ONNX Runtime references for the uint8 antialiased Resize tests.

tests/unit/ops_resize_test.cpp resizes a deterministic uint8 image with kiln and compares the
result bit for bit with the .npy files here, which hold ONNX Runtime 1.30's CPU output for the
same Resize (opset 19, antialias=1, half_pixel, sizes given). The test rebuilds the input from
the formula in `image` below, so keep the two in step.

Needs Python's onnx and numpy (Debian: python3-onnx python3-numpy) and Node.js with ONNX Runtime
(bash ../shared/tools/ort/ensure-ort.sh). Run from the repository root:

    python3 tests/data/resize/make_uint8_antialias.py ../shared/tools/ort/ort-run.mjs
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# name: (input [N, C, H, W], output [H, W], mode, exclude_outside)
CASES = {
    "uint8_antialias_linear_60x80_to_224x298": ((1, 3, 60, 80), (224, 298), "linear", 0),
    "uint8_antialias_linear_224x298_to_60x80": ((1, 3, 224, 298), (60, 80), "linear", 0),
    "uint8_antialias_cubic_224x298_to_60x80": ((1, 3, 224, 298), (60, 80), "cubic", 1),
}


def image(shape):
    """x[n, c, h, w] = (3h + 2w + 85c + 4 * ((7hw + 3h + w) mod 29)) mod 256: smooth ramps with
    a fine texture on top, so that many outputs land near a rounding boundary."""
    n, c, h, w = np.meshgrid(*(np.arange(s) for s in shape), indexing="ij")
    return ((3 * h + 2 * w + 85 * c + 4 * ((7 * h * w + 3 * h + w) % 29)) % 256).astype(np.uint8)


def main():
    ort_run = sys.argv[1] if len(sys.argv) > 1 else "../shared/tools/ort/ort-run.mjs"
    here = os.path.dirname(os.path.abspath(__file__))
    for name, (in_shape, out_hw, mode, exclude_outside) in CASES.items():
        sizes = np.array([in_shape[0], in_shape[1], *out_hw], np.int64)
        node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode=mode, antialias=1,
                                coordinate_transformation_mode="half_pixel",
                                exclude_outside=exclude_outside)
        graph = helper.make_graph(
            [node], name, [helper.make_tensor_value_info("x", TensorProto.UINT8, in_shape)],
            [helper.make_tensor_value_info("y", TensorProto.UINT8, None)],
            initializer=[numpy_helper.from_array(sizes, "sizes")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
        model.ir_version = 8
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "in"))
            onnx.save(model, os.path.join(tmp, "model.onnx"))
            with open(os.path.join(tmp, "in", "input_0.pb"), "wb") as f:
                f.write(numpy_helper.from_array(image(in_shape), "x").SerializeToString())
            subprocess.run(["node", ort_run, "run", os.path.join(tmp, "model.onnx"), "--inputs-dir",
                            os.path.join(tmp, "in"), "--outputs-dir", os.path.join(tmp, "out")],
                           check=True, stdout=subprocess.DEVNULL)
            y = TensorProto()
            with open(os.path.join(tmp, "out", "output_0.pb"), "rb") as f:
                y.ParseFromString(f.read())
        np.save(os.path.join(here, name + ".npy"), numpy_helper.to_array(y))
        print(name, numpy_helper.to_array(y).shape)


if __name__ == "__main__":
    main()
