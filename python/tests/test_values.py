"""numpy in and out: every ONNX element type numpy has, the ones it lacks, strings, sequences,
optionals, and the zero-copy claims (checked by address)."""
import sys

import numpy as np
import pytest
from onnx import TensorProto, helper

import kiln
from conftest import identity_model, model_bytes, tensor_info

SAME_BYTES = [  # ONNX type, numpy dtype
    (TensorProto.FLOAT, np.float32), (TensorProto.DOUBLE, np.float64),
    (TensorProto.FLOAT16, np.float16), (TensorProto.BOOL, np.bool_),
    (TensorProto.INT8, np.int8), (TensorProto.INT16, np.int16),
    (TensorProto.INT32, np.int32), (TensorProto.INT64, np.int64),
    (TensorProto.UINT8, np.uint8), (TensorProto.UINT16, np.uint16),
    (TensorProto.UINT32, np.uint32), (TensorProto.UINT64, np.uint64),
    (TensorProto.COMPLEX64, np.complex64), (TensorProto.COMPLEX128, np.complex128),
]


def values_of(dtype, n=7):
    rng = np.random.default_rng(3)
    if dtype == np.bool_:
        return rng.random(n) > 0.5
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.random(n) + 1j * rng.random(n)).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.array([info.min, info.max, 0, 1, 2, 3, 4], dtype)[:n]
    return (rng.standard_normal(n) * 100).astype(dtype)


@pytest.mark.parametrize("onnx_type, dtype", SAME_BYTES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_types_numpy_has_round_trip_exactly(onnx_type, dtype):
    x = values_of(dtype)
    (y,) = kiln.Worker(kiln.load_model(identity_model(onnx_type))).run({"x": x})
    assert y.dtype == dtype
    np.testing.assert_array_equal(y, x)


def test_strings_are_object_arrays_of_str():
    x = np.array([["a", "ünï"], ["", "long " * 10]], dtype=object)
    model = kiln.load_model(identity_model(TensorProto.STRING, ["r", "c"]))
    (y,) = kiln.Worker(model).run({"x": x})
    assert y.dtype == object and y.shape == (2, 2)
    assert y.tolist() == x.tolist()
    (from_unicode,) = kiln.Worker(model).run({"x": np.array([["x", "yz"]])})  # numpy str_ array
    assert from_unicode.tolist() == [["x", "yz"]]


def test_bfloat16_reads_and_writes_as_float32_rounded_to_bfloat16():
    x = np.array([1.0, 1.00390625, 3.14159, -2.5e-3], np.float32)
    (y,) = kiln.Worker(kiln.load_model(identity_model(TensorProto.BFLOAT16))).run({"x": x})
    assert y.dtype == np.float32
    # bfloat16 keeps the top 16 bits of a float32 (rounded to nearest even)
    expected = ((x.view(np.uint32) + 0x7FFF + ((x.view(np.uint32) >> 16) & 1)) & 0xFFFF0000).view(np.float32)
    np.testing.assert_array_equal(y, expected)


def test_float8_reads_and_writes_as_float32_rounded_and_saturated():
    x = np.array([0.5, 1.0, 448.0, 1000.0, -3.3, -1e6], np.float32)
    (y,) = kiln.Worker(kiln.load_model(identity_model(17))).run({"x": x})  # 17: FLOAT8E4M3FN
    assert y.dtype == np.float32
    # e4m3fn: 3 mantissa bits (3.3 rounds to 3.25), largest finite 448 (Cast saturates)
    np.testing.assert_array_equal(y, [0.5, 1.0, 448.0, 448.0, -3.25, -448.0])


def test_uint4_keeps_the_low_bits_as_cast_truncates():
    (y,) = kiln.Worker(kiln.load_model(identity_model(21))).run({"x": np.array([0, 15, 17], np.uint8)})
    assert y.dtype == np.uint8
    np.testing.assert_array_equal(y, [0, 15, 1])


def test_int4_reads_and_writes_as_int8():
    x = np.array([-8, -1, 0, 7], np.int8)
    (y,) = kiln.Worker(kiln.load_model(identity_model(22))).run({"x": x})  # 22: INT4
    assert y.dtype == np.int8
    np.testing.assert_array_equal(y, x)


def test_a_dtype_without_onnx_type_raises_kiln_error():
    model = kiln.load_model(identity_model(TensorProto.DOUBLE))
    with pytest.raises(kiln.Error, match="no ONNX element type"):
        kiln.Worker(model).run({"x": np.zeros(2, np.dtype("datetime64[s]"))})


def test_sequences_are_lists():
    seq = helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None)
    model = kiln.load_model(model_bytes(
        [helper.make_node("SequenceInsert", ["s", "x"], ["longer"]),
         helper.make_node("SequenceAt", ["s", "i"], ["first"])],
        [seq, tensor_info("x", TensorProto.FLOAT, [2]), tensor_info("i", TensorProto.INT64, [])],
        [helper.make_tensor_sequence_value_info("longer", TensorProto.FLOAT, None),
         tensor_info("first", TensorProto.FLOAT, None)]))
    a, b, x = (np.array(v, np.float32) for v in ([1, 2, 3], [4.0], [5, 6]))
    longer, first = kiln.Worker(model).run({"s": [a, b], "x": x, "i": np.array(0)})
    assert isinstance(longer, list) and len(longer) == 3
    for got, want in zip(longer, [a, b, x]):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(first, a)


def test_optionals_are_none_or_a_value():
    opt_type = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))
    model = kiln.load_model(model_bytes(
        [helper.make_node("OptionalHasElement", ["o"], ["has"]),
         helper.make_node("Identity", ["o"], ["same"])],
        [helper.make_value_info("o", opt_type)],
        [tensor_info("has", TensorProto.BOOL, []), helper.make_value_info("same", opt_type)]))
    worker = kiln.Worker(model)
    has, same = worker.run({"o": None})
    assert not has and same is None
    has, same = worker.run({"o": np.array([1, 2], np.float32)})
    assert has
    np.testing.assert_array_equal(same, [1, 2])
    has, _ = worker.run({})  # an optional input left out is empty
    assert not has


def address(a):
    return a.__array_interface__["data"][0]


def test_a_contiguous_input_is_borrowed_not_copied():
    x = np.arange(6, dtype=np.float32)
    t = kiln.Tensor(x)
    assert address(t.numpy()) == address(x)
    assert address(np.asarray(memoryview(t))) == address(x)


def test_a_scheduled_run_reads_the_callers_array_itself():
    # schedule_iterable binds the inputs, then runs nothing until iterated: a write into the
    # array in between shows in the result, so the run reads the array, not a copy.
    x = np.ones(4, np.float32)
    worker = kiln.Worker(kiln.load_model(identity_model(TensorProto.FLOAT)))
    references = sys.getrefcount(x)
    steps = worker.schedule_iterable({"x": x})
    assert sys.getrefcount(x) > references  # kiln holds the array itself
    x[:] = 7
    list(steps)
    np.testing.assert_array_equal(worker.peek_output("y").numpy(), [7, 7, 7, 7])
    worker.schedule({"x": np.zeros(4, np.float32)})
    worker.peek_output("y").numpy()
    del steps
    assert sys.getrefcount(x) == references  # and lets go of it once no run reads it


def test_non_contiguous_and_foreign_order_inputs_are_copied_and_not_modified():
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    strided = base[:, ::2]
    swapped = np.arange(4, dtype=">f4")
    model = kiln.load_model(identity_model(TensorProto.FLOAT, ["a", "b"]))
    (y,) = kiln.Worker(model).run({"x": strided})
    np.testing.assert_array_equal(y, strided)
    (z,) = kiln.Worker(kiln.load_model(identity_model(TensorProto.FLOAT))).run({"x": swapped})
    np.testing.assert_array_equal(z, swapped)
    np.testing.assert_array_equal(base, np.arange(12).reshape(3, 4))


def test_an_output_is_viewed_in_place_not_copied(digits, digit_samples):
    worker = kiln.Worker(digits)
    worker.schedule({"pixels": digit_samples[0]})
    y = worker.peek_output("logits")
    a, b = y.numpy(), y.numpy()
    assert address(a) == address(b)  # both view the tensor's memory
    assert address(np.asarray(memoryview(y))) == address(a)
    assert a.base is not None and not a.flags.owndata
    del y
    worker.schedule({"pixels": np.zeros_like(digit_samples[0])})
    worker.peek_output("logits").numpy()
    np.testing.assert_allclose(a, digit_samples[1], rtol=1e-3, atol=1e-4)  # still the first run's
