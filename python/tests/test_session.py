"""kiln.InferenceSession with the calls of onnxruntime.InferenceSession."""
import numpy as np
import pytest
from onnx import TensorProto, helper

import kiln
import kiln as ort
from conftest import DIGITS, model_bytes, need_backend, shared_model, tensor_info


def test_an_onnxruntime_style_script_runs_unchanged(digit_samples):
    x, expected = digit_samples
    session = ort.InferenceSession(str(DIGITS), providers=["CPUExecutionProvider"])
    input_name = session.get_inputs()[0].name
    output_name = session.get_outputs()[0].name
    outputs = session.run([output_name], {input_name: x})
    assert isinstance(outputs, list) and len(outputs) == 1
    np.testing.assert_allclose(outputs[0], expected, rtol=1e-3, atol=1e-4)
    (all_outputs,) = session.run(None, {input_name: x})
    np.testing.assert_allclose(all_outputs, expected, rtol=1e-3, atol=1e-4)
    assert session.get_providers() == ["CPUExecutionProvider"]


def test_node_args_spell_types_and_shapes_as_onnxruntime():
    seq = helper.make_tensor_sequence_value_info("s", TensorProto.INT64, None)
    session = kiln.InferenceSession(model_bytes(
        [helper.make_node("SequenceLength", ["s"], ["n"]),
         helper.make_node("Cast", ["x"], ["h"], to=TensorProto.FLOAT16)],
        [seq, tensor_info("x", TensorProto.DOUBLE, ["batch", 3])],
        [tensor_info("n", TensorProto.INT64, []), tensor_info("h", TensorProto.FLOAT16, ["batch", 3])]))
    inputs, outputs = session.get_inputs(), session.get_outputs()
    assert [(a.name, a.type) for a in inputs] == [("s", "seq(tensor(int64))"), ("x", "tensor(double)")]
    assert inputs[1].shape == ["batch", 3]
    assert [(a.name, a.type, a.shape) for a in outputs] == [("n", "tensor(int64)", []),
                                                           ("h", "tensor(float16)", ["batch", 3])]


@pytest.mark.parametrize("providers, backend", [
    (None, "cpu"),
    (["CPUExecutionProvider"], "cpu"),
    ([("CPUExecutionProvider", {})], "cpu"),
    (["cpu"], "cpu"),
    (["CUDAExecutionProvider", "CPUExecutionProvider"], "gpu-compute"),
    (["gpu-pixel"], "gpu-pixel"),
])
def test_providers_pick_the_backend(providers, backend):
    need_backend(backend)
    session = kiln.InferenceSession(str(DIGITS), providers=providers)
    assert session.worker.backend == backend
    assert session.get_providers()[-1] == "CPUExecutionProvider"
    if providers and providers[0] == "CUDAExecutionProvider":
        assert session.get_providers()[0] == "CUDAExecutionProvider"  # as scripts check it


def test_an_unknown_provider_is_refused():
    with pytest.raises(ValueError, match="unknown provider 'NPUExecutionProvider'"):
        kiln.InferenceSession(str(DIGITS), providers=["NPUExecutionProvider"])


def test_session_options_set_the_thread_count(digit_samples):
    options = kiln.SessionOptions()
    options.intra_op_num_threads = 1
    session = kiln.InferenceSession(str(DIGITS), sess_options=options)
    (y,) = session.run(None, {"pixels": digit_samples[0]})
    np.testing.assert_allclose(y, digit_samples[1], rtol=1e-3, atol=1e-4)


def test_available_providers_list_the_cpu_last():
    providers = kiln.get_available_providers()
    assert providers[-1] == "CPUExecutionProvider"


def test_a_public_model_matches_onnxruntimes_reference_outputs():
    folder = shared_model("mnist_cntk_opset8")
    session = kiln.InferenceSession(str(folder / "model.onnx"))
    x = kiln.load_tensor(folder / "test_data_set_0" / "input_0.pb")
    expected = kiln.load_tensor(folder / "test_data_set_0" / "output_0.pb")
    (y,) = session.run(None, {session.get_inputs()[0].name: x})
    np.testing.assert_allclose(y, expected, rtol=1e-3, atol=1e-4)


def test_run_from_several_threads_at_once(digit_samples):
    # onnxruntime's run is thread-safe and scripts share one session between threads
    import concurrent.futures
    x, expected = digit_samples
    session = kiln.InferenceSession(str(DIGITS))
    batches = [np.roll(x, k, axis=0) for k in range(8)]

    def infer(k):
        return session.run(None, {"pixels": batches[k % 8]})[0]

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(infer, range(64)))
    for k, y in enumerate(results):
        np.testing.assert_allclose(y, np.roll(expected, k % 8, axis=0), rtol=1e-3, atol=1e-4)
