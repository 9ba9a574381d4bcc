"""`await worker.peek_output(...)` in asyncio: waits for the output without blocking the loop."""
import asyncio

import numpy as np

import kiln
from conftest import matmul_model


def test_await_an_output_returns_its_array(digits, digit_samples):
    x, expected = digit_samples

    async def infer():
        worker = kiln.Worker(digits)
        worker.schedule({"pixels": x})
        return await worker.peek_output("logits")

    np.testing.assert_allclose(asyncio.run(infer()), expected, rtol=1e-3, atol=1e-4)


def test_the_event_loop_runs_while_an_output_is_awaited():
    worker = kiln.Worker(kiln.load_model(matmul_model(1024)), num_threads=1)
    x = np.random.default_rng(0).random((1024, 1024), dtype=np.float32)
    worker.run({"x": x})  # warm up

    async def main():
        ticks = 0
        done = asyncio.Event()

        async def tick():
            nonlocal ticks
            while not done.is_set():
                ticks += 1
                await asyncio.sleep(0)

        ticker = asyncio.create_task(tick())
        await asyncio.sleep(0)
        worker.schedule({"x": x})
        before = ticks
        y = await worker.peek_output("y")
        during = ticks - before
        done.set()
        await ticker
        return y, during

    y, during = asyncio.run(main())
    np.testing.assert_allclose(y, x @ x, rtol=1e-4)
    assert during > 10  # the loop kept running other tasks while kiln computed


def test_awaiting_a_failed_output_raises_kiln_error():
    import pytest
    from onnx import TensorProto, helper
    from conftest import model_bytes, tensor_info

    gather = kiln.load_model(model_bytes(
        [helper.make_node("Gather", ["data", "idx"], ["y"])],
        [tensor_info("data", TensorProto.FLOAT, [3]), tensor_info("idx", TensorProto.INT64, [1])],
        [tensor_info("y", TensorProto.FLOAT, [1])]))

    async def infer():
        worker = kiln.Worker(gather)
        worker.schedule({"data": np.ones(3, np.float32), "idx": np.array([9])})
        return await worker.peek_output("y")

    with pytest.raises(kiln.Error, match="out of range"):
        asyncio.run(infer())
