"""kiln.Worker: schedule, run, outputs, schedule_iterable, errors, and the GIL released while kiln
runs."""
import threading
import time

import numpy as np
import pytest
from onnx import TensorProto, helper

import kiln
from conftest import matmul_model, model_bytes, tensor_info


def test_schedule_then_peek_output_gives_the_expected_logits(digits, digit_samples):
    x, expected = digit_samples
    worker = kiln.Worker(digits)
    worker.schedule({"pixels": x})
    np.testing.assert_allclose(worker.peek_output("logits").numpy(), expected, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(worker.peek_output().numpy(), expected, rtol=1e-3, atol=1e-4)


def test_a_single_input_model_takes_the_array_alone(digits, digit_samples):
    x, expected = digit_samples
    (y,) = kiln.Worker(digits).run(x)
    np.testing.assert_allclose(y, expected, rtol=1e-3, atol=1e-4)


def test_take_output_hands_the_output_over(digits, digit_samples):
    x, expected = digit_samples
    worker = kiln.Worker(digits)
    worker.schedule({"pixels": x})
    taken = worker.take_output("logits")
    with pytest.raises(kiln.Error, match="taken"):
        worker.peek_output("logits")
    np.testing.assert_allclose(taken.numpy(), expected, rtol=1e-3, atol=1e-4)


def test_an_output_keeps_its_run_after_the_next_schedule(digits, digit_samples):
    x, expected = digit_samples
    worker = kiln.Worker(digits)
    worker.schedule({"pixels": x})
    first = worker.peek_output("logits")
    worker.schedule({"pixels": np.zeros_like(x)})
    np.testing.assert_allclose(first.numpy(), expected, rtol=1e-3, atol=1e-4)


def test_readback_calls_on_a_pending_output(digits, digit_samples):
    x, expected = digit_samples
    worker = kiln.Worker(digits)
    worker.schedule({"pixels": x})
    y = worker.peek_output("logits")
    y.readback_request()
    deadline = time.monotonic() + 10
    while not y.is_readback_request_done() and time.monotonic() < deadline:
        time.sleep(0.001)
    assert y.is_readback_request_done() and not y.is_pending
    assert y.shape == expected.shape and y.dtype == np.float32 and y.kind == "tensor"
    np.testing.assert_allclose(np.asarray(y), expected, rtol=1e-3, atol=1e-4)


def test_schedule_iterable_runs_one_layer_per_step(digits, digit_samples):
    x, expected = digit_samples
    worker = kiln.Worker(digits)
    steps = worker.schedule_iterable({"pixels": x})
    seen = [(s.index, s.op_type) for s in steps]
    assert [i for i, _ in seen] == list(range(len(steps)))
    # The CPU worker runs Conv + Relu as one fused layer.
    assert seen[0][1] == "FusedConv" and seen[-1][1] == "Gemm"
    np.testing.assert_allclose(worker.peek_output("logits").numpy(), expected, rtol=1e-3, atol=1e-4)


def test_dropping_schedule_iterable_early_still_runs_every_layer(digits, digit_samples):
    x, expected = digit_samples
    worker = kiln.Worker(digits)
    steps = worker.schedule_iterable({"pixels": x})
    next(steps)
    del steps
    y = worker.peek_output("logits")
    assert not y.is_pending
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-3, atol=1e-4)


def test_placements_and_device_on_the_cpu(digits):
    worker = kiln.Worker(digits)
    placements = worker.placements()
    # Conv + Relu fused: the CPU worker's own graph.
    assert [p.op_type for p in placements][:3] == ["FusedConv", "FusedConv", "MaxPool"]
    assert all(p.backend == "cpu" and p.fallback_reason == "" for p in placements)
    assert worker.device_description() == "cpu"
    assert worker.output_names == ["logits"] and worker.backend == "cpu"


def test_a_pending_output_feeds_another_worker_without_readback(digits, digit_samples):
    x, _ = digit_samples
    relu = kiln.load_model(model_bytes([helper.make_node("Relu", ["x"], ["y"])],
                                       [tensor_info("x", TensorProto.FLOAT, ["n", 10])],
                                       [tensor_info("y", TensorProto.FLOAT, ["n", 10])]))
    first, second = kiln.Worker(digits), kiln.Worker(relu)
    first.schedule({"pixels": x})
    (y,) = second.run({"x": first.peek_output("logits")})
    np.testing.assert_allclose(y, np.maximum(first.peek_output("logits").numpy(), 0))


@pytest.mark.parametrize("feeds, message", [
    ({"pixels": np.zeros((2, 1, 8, 8), np.float64)}, "must be float32, got float64"),
    ({"pixels": np.zeros((2, 1, 8, 9), np.float32)}, "has shape"),
    ({"image": np.zeros((2, 1, 8, 8), np.float32)}, "no input named 'image'"),
    ({}, "is missing"),
    ({"pixels": object()}, "pixels"),
])
def test_bad_inputs_raise_kiln_error_from_schedule(digits, feeds, message):
    with pytest.raises(kiln.Error, match=message):
        kiln.Worker(digits).schedule(feeds)


def test_unknown_backend_and_output_raise_kiln_error(digits):
    with pytest.raises(kiln.Error, match="unknown backend"):
        kiln.Worker(digits, backend="tpu")
    worker = kiln.Worker(digits)
    with pytest.raises(kiln.Error, match="before any schedule"):
        worker.peek_output("logits")
    worker.schedule({"pixels": np.zeros((1, 1, 8, 8), np.float32)})
    with pytest.raises(kiln.Error, match="no output named 'probs'"):
        worker.peek_output("probs")


def test_an_error_while_running_surfaces_at_readback():
    gather = kiln.load_model(model_bytes(
        [helper.make_node("Gather", ["data", "idx"], ["y"])],
        [tensor_info("data", TensorProto.FLOAT, [3]), tensor_info("idx", TensorProto.INT64, [1])],
        [tensor_info("y", TensorProto.FLOAT, [1])]))
    worker = kiln.Worker(gather)
    feeds = {"data": np.ones(3, np.float32), "idx": np.array([7])}
    worker.schedule(feeds)  # does not wait, so does not fail
    with pytest.raises(kiln.Error, match="out of range"):
        worker.peek_output("y").numpy()
    with pytest.raises(kiln.Error, match="out of range"):
        worker.run(feeds)


def test_the_gil_is_released_while_kiln_runs_and_waits():
    worker = kiln.Worker(kiln.load_model(matmul_model(1024)), num_threads=1)
    x = np.random.default_rng(0).random((1024, 1024), dtype=np.float32)
    worker.run({"x": x})  # warm up: plan and memory
    ticks, stop = [0], threading.Event()

    def count():
        while not stop.is_set():
            ticks[0] += 1

    counter = threading.Thread(target=count)
    counter.start()
    try:
        time.sleep(0.01)
        for call in (lambda: worker.run({"x": x}),
                     lambda: (worker.schedule({"x": x}), worker.peek_output("y").numpy())):
            before = ticks[0]  # read with the GIL held: the counter is not running now
            call()
            # A call that held the GIL throughout would leave the counter where it was; released,
            # the counter runs for the whole run (tens of milliseconds: many thousand ticks).
            assert ticks[0] - before > 1000
    finally:
        stop.set()
        counter.join()


def endless_loop_model():
    """y = Loop(M, true, x){ x + 1 }: with M = 10**15 it runs until stopped."""
    body = helper.make_graph(
        [helper.make_node("Add", ["acc", "one"], ["acc_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [tensor_info("i", TensorProto.INT64, []), tensor_info("cond_in", TensorProto.BOOL, []),
         tensor_info("acc", TensorProto.FLOAT, [2])],
        [tensor_info("cond_out", TensorProto.BOOL, []), tensor_info("acc_out", TensorProto.FLOAT, [2])],
        initializer=[helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])])
    loop = helper.make_node("Loop", ["M", "cond", "x"], ["y"], body=body)
    return model_bytes([loop],
                       [tensor_info("M", TensorProto.INT64, []), tensor_info("x", TensorProto.FLOAT, [2])],
                       [tensor_info("y", TensorProto.FLOAT, [2])],
                       initializers=[helper.make_tensor("cond", TensorProto.BOOL, [], [True])])


def test_cancel_from_another_thread_and_deadline():
    model = kiln.load_model(endless_loop_model())
    x = np.array([1, 2], dtype=np.float32)
    worker = kiln.Worker(model)
    worker.schedule({"M": np.array(10**15, dtype=np.int64), "x": x})
    threading.Timer(0.05, worker.cancel).start()
    with pytest.raises(kiln.Error, match="run cancelled"):
        worker.peek_output("y").numpy()
    worker.schedule({"M": np.array(3, dtype=np.int64), "x": x})
    np.testing.assert_array_equal(worker.peek_output("y").numpy(), [4, 5])

    timed = kiln.Worker(model, deadline=0.05)
    timed.schedule({"M": np.array(10**15, dtype=np.int64), "x": x})
    with pytest.raises(kiln.Error, match="deadline exceeded"):
        timed.peek_output("y").numpy()


def test_memory_stats(digits, digit_samples):
    x, _ = digit_samples
    worker = kiln.Worker(digits)
    for _ in range(2):  # the first run records the sizes, the second one runs on the plan
        worker.run({"pixels": x})
    stats = worker.memory_stats()
    assert stats["cached_plans"] == 1
    assert stats["planned_bytes"] > 0
    assert stats["arena_bytes"] >= stats["planned_bytes"]
    assert 0 < stats["peak_bytes"] <= stats["memory_limit"]
