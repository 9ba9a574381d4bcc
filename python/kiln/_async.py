"""`await tensor`: waits for a kiln output without blocking the asyncio event loop."""
import asyncio


def tensor_await(tensor):
    """Tensor.__await__: starts the readback, waits for it in the loop's default executor (the
    wait releases the GIL, so the loop keeps running), and returns tensor.numpy()."""
    tensor.readback_request()
    if not tensor.is_readback_request_done():
        loop = asyncio.get_running_loop()
        yield from loop.run_in_executor(None, tensor.wait).__await__()
    return tensor.numpy()
