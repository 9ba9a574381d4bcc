"""The binding on each backend: cpu, gpu-compute (Vulkan; Mesa's lavapipe without a GPU) and
gpu-pixel (OpenGL ES; Mesa's llvmpipe)."""
import asyncio

import numpy as np
import pytest

import kiln
from conftest import BACKENDS, need_backend, shared_model


@pytest.mark.parametrize("backend", BACKENDS)
def test_digits_on_each_backend(backend, digits, digit_samples):
    need_backend(backend)
    x, expected = digit_samples
    worker = kiln.Worker(digits, backend=backend)
    assert worker.device_description()
    assert {p.backend for p in worker.placements()} <= {"cpu", backend}
    assert any(p.backend == backend for p in worker.placements())

    worker.schedule({"pixels": x})
    y = worker.peek_output("logits")
    y.readback_request()
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(np.asarray(memoryview(y)), expected, rtol=1e-3, atol=1e-4)

    async def awaited():
        worker.schedule({"pixels": x[::-1].copy()})
        return await worker.peek_output("logits")

    np.testing.assert_allclose(asyncio.run(awaited()), expected[::-1], rtol=1e-3, atol=1e-4)
    for step in worker.schedule_iterable({"pixels": x}):
        pass
    np.testing.assert_allclose(worker.peek_output("logits").numpy(), expected, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_public_model_matches_onnxruntime_on_each_backend(backend):
    need_backend(backend)
    folder = shared_model("mnist_cntk_opset8")
    session = kiln.InferenceSession(str(folder / "model.onnx"), providers=[backend])
    x = kiln.load_tensor(folder / "test_data_set_0" / "input_0.pb")
    (y,) = session.run(None, {"Input3": x})
    np.testing.assert_allclose(y, kiln.load_tensor(folder / "test_data_set_0" / "output_0.pb"),
                               rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_device_counters_count_a_runs_transfers(backend, digits, digit_samples):
    need_backend(backend)
    x, _ = digit_samples
    worker = kiln.Worker(digits, backend=backend)
    worker.run({"pixels": x})
    before = worker.device_counters()
    worker.run({"pixels": x})
    after = worker.device_counters()
    if backend == "cpu":
        assert all(v == 0 for v in after.values())
        return
    # the input goes up, the logits come down, and every layer asked the device for work
    assert after["bytes_uploaded"] - before["bytes_uploaded"] == x.nbytes
    assert after["bytes_downloaded"] - before["bytes_downloaded"] == x.shape[0] * 10 * 4
    assert after["dispatches"] > before["dispatches"]
    assert after["recording_seconds"] > before["recording_seconds"]


@pytest.mark.parametrize("backend", ["gpu-compute", "gpu-pixel"])
def test_strict_mode_refuses_what_the_gpu_backend_lacks(backend):
    need_backend(backend)
    from onnx import TensorProto, helper
    from conftest import model_bytes, tensor_info
    # gpu-pixel keeps integer tensors on the CPU; neither GPU backend runs StringNormalizer
    model = kiln.load_model(model_bytes(
        [helper.make_node("StringNormalizer", ["s"], ["t"], case_change_action="UPPER")],
        [tensor_info("s", TensorProto.STRING, [2])], [tensor_info("t", TensorProto.STRING, [2])]))
    assert kiln.Worker(model, backend=backend).placements()[0].fallback_reason
    with pytest.raises(kiln.Error):
        kiln.Worker(model, backend=backend, strict=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_errors_are_kiln_errors_on_each_backend(backend, digits):
    need_backend(backend)
    worker = kiln.Worker(digits, backend=backend)
    with pytest.raises(kiln.Error, match="must be float32, got int32"):
        worker.schedule({"pixels": np.zeros((1, 1, 8, 8), np.int32)})
    with pytest.raises(kiln.Error, match="has shape"):
        worker.run({"pixels": np.zeros((1, 8, 8), np.float32)})


@pytest.mark.parametrize("backend", BACKENDS)
def test_inputs_are_borrowed_on_each_backend(backend, digits, digit_samples):
    # the run reads the caller's array: a write between binding and running shows in the result
    need_backend(backend)
    x, expected = digit_samples
    worker = kiln.Worker(digits, backend=backend)
    feed = np.zeros_like(x)
    steps = worker.schedule_iterable({"pixels": feed})
    feed[...] = x
    list(steps)
    np.testing.assert_allclose(worker.peek_output("logits").numpy(), expected, rtol=1e-3, atol=1e-4)
