"""An ONNX Runtime script, unchanged except for its import: runs a model and checks its outputs
against reference outputs stored beside it (an ONNX test folder: model.onnx and
test_data_set_0/input_N.pb, output_N.pb).

    python3 examples/python/ort_style.py MODEL_FOLDER [PROVIDER]
"""
import glob
import os
import sys

import numpy as np
from onnx import numpy_helper, TensorProto

import kiln as ort  # was: import onnxruntime as ort


def read_pb(path):
    tensor = TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


folder = sys.argv[1]
providers = [sys.argv[2]] if len(sys.argv) > 2 else ["CPUExecutionProvider"]
session = ort.InferenceSession(os.path.join(folder, "model.onnx"), providers=providers)
print("providers:", session.get_providers())
for arg in session.get_inputs():
    print("input: ", arg.name, arg.type, arg.shape)
for arg in session.get_outputs():
    print("output:", arg.name, arg.type, arg.shape)

data = os.path.join(folder, "test_data_set_0")
inputs = [read_pb(p) for p in sorted(glob.glob(os.path.join(data, "input_*.pb")))]
expected = [read_pb(p) for p in sorted(glob.glob(os.path.join(data, "output_*.pb")))]
feed = {arg.name: value for arg, value in zip(session.get_inputs(), inputs)}
outputs = session.run([o.name for o in session.get_outputs()], feed)
for arg, got, want in zip(session.get_outputs(), outputs, expected):
    worst = np.max(np.abs(got - want) / (1e-4 + 1e-3 * np.abs(want)))
    print(f"{arg.name}: shape {got.shape} dtype {got.dtype}, "
          f"max |a-e|/(1e-4+1e-3|e|) = {worst:.3f} -> {'match' if worst <= 1 else 'MISMATCH'}")
