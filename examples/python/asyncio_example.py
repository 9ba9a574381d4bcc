"""kiln in asyncio: inferences on two backends at once, awaited without blocking the event loop,
while another task keeps running.

    python3 examples/python/asyncio_example.py [MODEL]       (default: demo/digits.onnx)
"""
import asyncio
import pathlib
import sys
import time

import numpy as np

import kiln

REPO = pathlib.Path(__file__).resolve().parents[2]


async def heartbeat(stop):
    beats = 0
    while not stop.is_set():
        beats += 1
        await asyncio.sleep(0.001)
    return beats


async def classify(worker, pixels):
    worker.schedule({"pixels": pixels})           # returns at once: every layer is queued
    logits = await worker.peek_output("logits")   # the loop runs other tasks meanwhile
    return logits.argmax(axis=1)


async def main(model_path):
    model = kiln.load_model(model_path)
    samples = np.load(REPO / "demo" / "samples" / "digits_8x8.npy")
    backends = [b for b in ("cpu", "gpu-compute") if b in kiln.backends]
    workers = {b: kiln.Worker(model, backend=b) for b in backends}
    stop = asyncio.Event()
    beat = asyncio.create_task(heartbeat(stop))
    start = time.perf_counter()
    results = await asyncio.gather(*(classify(w, samples) for w in workers.values()))
    elapsed = time.perf_counter() - start
    stop.set()
    for backend, labels in zip(workers, results):
        print(f"{backend:12} {workers[backend].device_description()[:40]:40} labels {labels.tolist()}")
    print(f"both awaited in {elapsed * 1e3:.1f} ms; the heartbeat task ran {await beat} times meanwhile")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else REPO / "demo" / "digits.onnx"))
