"""Shared helpers for the kiln Python tests: small ONNX models built with onnx.helper, the bundled
digit classifier, and the public models in ../shared (tests that need those skip without them)."""
import os
import pathlib

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import kiln

REPO = pathlib.Path(__file__).resolve().parents[2]
DIGITS = REPO / "demo" / "digits.onnx"
SAMPLES = REPO / "demo" / "samples"
SHARED_MODELS = pathlib.Path(os.environ.get("KILN_SHARED", REPO.parent / "shared")) / "models"

BACKENDS = [pytest.param(b, id=b) for b in ("cpu", "gpu-compute", "gpu-pixel")]


def need_backend(backend):
    if backend not in kiln.backends:
        pytest.skip(f"{backend} is not built into this kiln")


def shared_model(name):
    folder = SHARED_MODELS / name
    if not (folder / "model.onnx").exists():
        pytest.skip(f"needs {folder} (the shared public models)")
    return folder


def model_bytes(nodes, inputs, outputs, opset=21, initializers=()):
    """An ONNX model as bytes; inputs/outputs are ValueInfoProtos (helper.make_*_value_info)."""
    graph = helper.make_graph(nodes, "test", inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="kiln-tests")
    model.ir_version = 10
    return model.SerializeToString()


def tensor_info(name, elem_type, shape):
    return helper.make_tensor_value_info(name, elem_type, shape)


def identity_model(elem_type, shape=("n",)):
    return model_bytes([helper.make_node("Identity", ["x"], ["y"])],
                       [tensor_info("x", elem_type, list(shape))],
                       [tensor_info("y", elem_type, list(shape))])


def matmul_model(size):
    """y = x @ x: about 2 * size**3 flops, for runs long enough to watch the GIL."""
    return model_bytes([helper.make_node("MatMul", ["x", "x"], ["y"])],
                       [tensor_info("x", TensorProto.FLOAT, [size, size])],
                       [tensor_info("y", TensorProto.FLOAT, [size, size])])


@pytest.fixture(scope="session")
def digits():
    return kiln.load_model(DIGITS)


@pytest.fixture(scope="session")
def digit_samples():
    return np.load(SAMPLES / "digits_8x8.npy"), np.load(SAMPLES / "expected_logits.npy")
