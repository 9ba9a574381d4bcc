"""kiln over a Dask cluster started by hand, on this machine or on many:

    dask scheduler                                         # prints its address, tcp://HOST:8786
    dask worker tcp://HOST:8786 --nworkers 2 --nthreads 1  # on each machine, kiln installed there
                                                           # (make python), as many as you like
    python3 examples/python/dask_cluster.py tcp://HOST:8786 MODEL.onnx [N] [--threads T]

Runs MODEL (a path every worker can read; it is loaded once per worker process) over N random
inputs of its input shape (batch on axis 0), prints the throughput, and checks a sample of the
results against a run in this process. T is kiln's threads per worker process: cores per
machine / worker processes per machine.
"""
import argparse
import time

import numpy as np

import dask.array as da
from dask.distributed import Client

import kiln
import kiln.dask


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scheduler")
    parser.add_argument("model")
    parser.add_argument("n", type=int, nargs="?", default=512)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--chunk", type=int, default=32)
    args = parser.parse_args()

    client = Client(args.scheduler)
    print("workers:", len(client.scheduler_info()["workers"]))
    model = kiln.load_model(args.model)
    shape = [d if isinstance(d, int) else 1 for d in model.inputs[0].shape][1:]
    rng = np.random.default_rng(0)
    inputs = rng.random((args.n, *shape), dtype=np.float32)
    x = da.from_array(inputs, chunks=(args.chunk, *shape))

    y = kiln.dask.map_array(args.model, x, num_threads=args.threads)
    start = time.perf_counter()
    out = y.compute()
    elapsed = time.perf_counter() - start
    print(f"{args.n} inputs in {elapsed:.2f} s: {args.n / elapsed:.1f} inputs/s; "
          f"output {model.outputs[0].name} {out.shape}")

    worker = kiln.Worker(model, num_threads=1)
    batch = model.inputs[0].shape[0] if isinstance(model.inputs[0].shape[0], int) else 1
    for i in rng.choice(args.n // batch, size=8, replace=False) * batch:
        (local,) = worker.run({model.inputs[0].name: inputs[i:i + batch]}, [model.outputs[0].name])
        np.testing.assert_allclose(out[i:i + batch], local, rtol=1e-5, atol=1e-6)
    print("8 sampled results match a run in this process;",
          "model loads per worker process:", client.run(kiln.dask.load_counts))


if __name__ == "__main__":
    main()
