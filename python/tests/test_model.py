"""kiln.load_model and the declared inputs and outputs."""
import numpy as np
import pytest
from onnx import TensorProto, helper

import kiln
from conftest import DIGITS, identity_model, model_bytes, tensor_info


def test_load_from_path_and_bytes_describe_the_same_model(digits):
    from_bytes = kiln.load_model(DIGITS.read_bytes())
    for m in (digits, from_bytes):
        (x,), (y,) = m.inputs, m.outputs
        assert (x.name, x.dtype, x.shape, x.kind) == ("pixels", np.dtype(np.float32), ["batch", 1, 8, 8], "tensor")
        assert (y.name, y.shape) == ("logits", ["batch", 10])
        assert m.opset == 13 and m.producer == "pytorch"


def test_dtypes_numpy_lacks_are_described_by_name():
    m = kiln.load_model(identity_model(TensorProto.BFLOAT16))
    assert m.inputs[0].elem_type == "bfloat16"
    assert m.inputs[0].dtype == np.dtype(np.float32)  # what its values read as


def test_sequence_and_optional_inputs_are_described():
    seq = helper.make_tensor_sequence_value_info("s", TensorProto.INT64, None)
    opt = helper.make_value_info("o", helper.make_optional_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, [2])))
    m = kiln.load_model(model_bytes(
        [helper.make_node("SequenceLength", ["s"], ["n"]),
         helper.make_node("OptionalHasElement", ["o"], ["has"])],
        [seq, opt], [tensor_info("n", TensorProto.INT64, []), tensor_info("has", TensorProto.BOOL, [])]))
    s, o = m.inputs
    assert (s.kind, s.elem_type) == ("sequence", "int64")
    assert (o.kind, o.element_kind, o.elem_type, o.shape) == ("optional", "tensor", "float32", [2])


@pytest.mark.parametrize("source", [b"not an onnx model", b""])
def test_bad_model_bytes_raise_kiln_error(source):
    with pytest.raises(kiln.Error):
        kiln.load_model(source)


def test_missing_file_raises_kiln_error_naming_it(tmp_path):
    with pytest.raises(kiln.Error, match="nope.onnx"):
        kiln.load_model(tmp_path / "nope.onnx")


def test_error_is_a_runtime_error():
    assert issubclass(kiln.Error, RuntimeError)
