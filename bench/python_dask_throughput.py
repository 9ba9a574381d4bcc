#!/usr/bin/python3
"""Throughput of kiln.dask on a distributed.LocalCluster of this machine: worker processes x
kiln threads per process, each with one Dask thread per worker.

    PYTHONPATH=build/release/python bench/python_dask_throughput.py MODEL \
        [--n N] [--chunk C] [--repeats R] [--config WORKERSxTHREADS ...]

Default configs for C cores: 1 worker with C kiln threads, 1 worker with 1 thread, and C workers
with 1 thread each (threads per worker = cores / workers). Each config computes the same dask
array R times after one warm-up compute (which loads the model in every worker process) and
reports the median inputs per second. The inputs are generated on the workers, as data read
there would be.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

import dask.array as da
from dask.distributed import Client, LocalCluster

import kiln
import kiln.dask


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--n", type=int, default=64)
    parser.add_argument("--chunk", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--config", action="append", default=[])
    args = parser.parse_args()
    cores = os.cpu_count()
    configs = [tuple(int(v) for v in c.split("x")) for c in args.config] or \
        [(1, cores), (1, 1), (cores, 1)]

    model = kiln.load_model(args.model)
    shape = [d if isinstance(d, int) else 1 for d in model.inputs[0].shape][1:]

    def inputs(seed):
        # Made on the workers: a from_array of this process's memory would ship every block on
        # each compute and time the transfer instead. A new seed for each compute gives new task
        # keys, so no result of an earlier compute is reused.
        x = da.random.RandomState(seed).random_sample((args.n, *shape), chunks=(args.chunk, *shape))
        return x.astype(np.float32)
    print(f"model={args.model} inputs={args.n} chunk={args.chunk} cores={cores}")
    reference = None
    for workers, threads in configs:
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None, host="127.0.0.1") as cluster, Client(cluster):
            out = kiln.dask.map_array(args.model, inputs(0), num_threads=threads).compute()
            # that was the warm-up: each worker process has loaded the model
            if reference is None:
                reference = out
            np.testing.assert_allclose(out, reference, rtol=1e-5, atol=1e-6)
            times = []
            for seed in range(1, args.repeats + 1):
                y = kiln.dask.map_array(args.model, inputs(seed), num_threads=threads)
                start = time.perf_counter()
                y.compute()
                times.append(time.perf_counter() - start)
            median = statistics.median(times)
            print(f"  workers={workers} kiln_threads_per_worker={threads}: "
                  f"{args.n / median:8.1f} inputs/s  (median of {args.repeats}: {median:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
