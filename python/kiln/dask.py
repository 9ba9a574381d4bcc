"""kiln on a Dask cluster: one model run over a dask.array (blocks along the batch axis) or over a
dask.dataframe column, on every worker process of a `distributed` cluster.

    from dask.distributed import Client
    import kiln.dask
    client = Client("tcp://scheduler:8786")        # workers started with: dask worker ... --nthreads 1
    y = kiln.dask.map_array("model.onnx", x, num_threads=4)   # x: dask.array, batch on axis 0
    y.compute()                                    # or y.to_zarr(...), y.store(...): a dask.array

Each worker process loads the model once (a per-process cache keyed by the model's content) and
keeps one kiln.Worker per thread that runs tasks; a block of inputs is one kiln run (or, for a
model whose batch dimension is fixed, one run per slice of that size).

Threads: kiln runs each block on its own job system of `num_threads` threads per process. Start
Dask workers with one thread each (`--nthreads 1`, LocalCluster(threads_per_worker=1)) and set
num_threads = cores per machine / worker processes per machine, so that kiln's threads and
Dask's do not oversubscribe the cores.
"""
import hashlib
import os
import threading

import numpy as np

import dask
import dask.array as da

from ._kiln import Worker, load_model

_lock = threading.Lock()
_models = {}         # model key -> kiln.Model, loaded once per process
_load_counts = {}    # model key -> loads in this process (1, unless the cache was cleared)
_local = threading.local()  # per thread: (model key, backend, num_threads) -> kiln.Worker


class _Source:
    """Where a worker process gets the model: a path it can read (the same on every machine), or
    the model's bytes, shipped once to each worker as one graph key."""

    def __init__(self, model):
        if isinstance(model, (bytes, bytearray, memoryview)):
            data = bytes(model)
            self.key = "kiln-model-" + hashlib.sha256(data).hexdigest()[:24]
            self.graph_value = dask.delayed(data, name=self.key, pure=True)
            self.local = data
        else:
            path = os.path.abspath(os.fspath(model))
            self.key = "kiln-model-" + hashlib.sha256(path.encode()).hexdigest()[:24]
            self.graph_value = path
            self.local = path


def _model(key, source):
    with _lock:
        model = _models.get(key)
        if model is None:
            model = load_model(source)
            _models[key] = model
            _load_counts[key] = _load_counts.get(key, 0) + 1
        return model


def _worker(key, source, backend, num_threads):
    workers = getattr(_local, "workers", None)
    if workers is None:
        workers = _local.workers = {}
    worker = workers.get((key, backend, num_threads))
    if worker is None:
        worker = Worker(_model(key, source), backend, num_threads=num_threads)
        workers[(key, backend, num_threads)] = worker
    return worker


def load_counts():
    """{model key: times this process loaded it}: once per process is the contract (see the
    tests: client.run(kiln.dask.load_counts) asks every worker)."""
    with _lock:
        return dict(_load_counts)


def _input_of(model, input_name):
    inputs = model.inputs
    if input_name is None:
        if len(inputs) != 1:
            raise ValueError("the model has several inputs: name the one the data feeds "
                             f"(input_name=one of {[i.name for i in inputs]})")
        return inputs[0]
    for i in inputs:
        if i.name == input_name:
            return i
    raise ValueError(f"the model has no input named '{input_name}'")


def _output_name(model, output_name):
    names = [o.name for o in model.outputs]
    if output_name is None:
        return names[0]
    if output_name not in names:
        raise ValueError(f"the model has no output named '{output_name}' (its outputs: {names})")
    return output_name


def run_batch(worker, batch, input_name, output_name, fixed_batch=None, extra_feeds=None):
    """Runs `batch` (inputs stacked on axis 0) through `worker`, in slices of `fixed_batch`
    when the model's batch dimension is fixed, and returns the output stacked likewise."""
    batch = np.ascontiguousarray(batch)
    feeds = dict(extra_feeds or {})
    if fixed_batch is None or batch.shape[0] == fixed_batch:
        feeds[input_name] = batch
        return worker.run(feeds, [output_name])[0]
    if batch.shape[0] % fixed_batch:
        raise ValueError(f"a block of {batch.shape[0]} inputs does not split into the model's "
                         f"fixed batch of {fixed_batch}")
    parts = []
    for start in range(0, batch.shape[0], fixed_batch):
        feeds[input_name] = batch[start:start + fixed_batch]
        parts.append(worker.run(feeds, [output_name])[0])
    return np.concatenate(parts) if parts else np.empty((0,))


def _run_block(block, source, key, backend, num_threads, input_name, output_name, fixed_batch,
               extra_feeds):
    worker = _worker(key, source, backend, num_threads)
    return run_batch(worker, block, input_name, output_name, fixed_batch, extra_feeds)


class _Plan:
    """What every task needs to know, worked out once on the client."""

    def __init__(self, model, input_name, output_name, backend, num_threads, extra_feeds):
        self.source = _Source(model)
        local = load_model(self.source.local)
        info = _input_of(local, input_name)
        self.input_name = info.name
        self.output_name = _output_name(local, output_name)
        first = info.shape[0] if info.shape else None
        self.fixed_batch = first if isinstance(first, int) else None
        self.backend, self.num_threads = backend, num_threads
        self.extra_feeds = extra_feeds
        self.local_model = local

    def args(self):
        return (self.source.graph_value, self.source.key, self.backend, self.num_threads,
                self.input_name, self.output_name, self.fixed_batch, self.extra_feeds)

    def probe(self, sample):
        """The output's shape past the batch axis and its dtype, from one run here."""
        worker = Worker(self.local_model, "cpu", num_threads=1)
        out = run_batch(worker, sample, self.input_name, self.output_name, self.fixed_batch,
                        self.extra_feeds)
        return out.shape[1:], out.dtype


def map_array(model, x, *, input_name=None, output_name=None, backend="cpu", num_threads=1,
              extra_feeds=None):
    """Runs `model` (a path every worker can read, or the model's bytes) over the dask.array `x`,
    whose axis 0 is the batch: each block along it is one task, on whichever worker process runs
    it. Returns the output named `output_name` (the first by default) as a dask.array chunked
    like `x` along axis 0. `extra_feeds` are fixed inputs given to every run (e.g. a sample rate).
    """
    plan = _Plan(model, input_name, output_name, backend, num_threads, extra_feeds)
    x = x.rechunk({axis: -1 for axis in range(1, x.ndim)})  # a block holds whole inputs
    if plan.fixed_batch and any(c % plan.fixed_batch for c in x.chunks[0]):
        x = x.rechunk({0: max(plan.fixed_batch, x.chunks[0][0] // plan.fixed_batch * plan.fixed_batch)})
    rest, dtype = plan.probe(x[: plan.fixed_batch or 1].compute())
    run = dask.delayed(_run_block, pure=True)
    blocks = x.to_delayed().ravel()
    parts = [da.from_delayed(run(block, *plan.args()), shape=(rows,) + tuple(rest), dtype=dtype)
             for block, rows in zip(blocks, x.chunks[0])]
    return da.concatenate(parts, axis=0)


def _run_partition(column, source, key, backend, num_threads, input_name, output_name, fixed_batch,
                   extra_feeds):
    import pandas as pd

    if len(column) == 0:
        return pd.Series([], index=column.index, dtype=object, name=output_name)
    batch = np.stack([np.asarray(v) for v in column.to_numpy()])
    out = _run_block(batch, source, key, backend, num_threads, input_name, output_name,
                     fixed_batch, extra_feeds)
    return pd.Series(list(out), index=column.index, dtype=object, name=output_name)


def map_column(model, df, column, *, input_name=None, output_name=None, backend="cpu",
               num_threads=1, extra_feeds=None):
    """Runs `model` over the dask.dataframe column `df[column]`, whose every cell holds one input
    (an array of the model's input shape without the batch axis). A partition is one batch.
    Returns a dask.dataframe Series (same index) whose cells are the output arrays."""
    import pandas as pd

    plan = _Plan(model, input_name, output_name, backend, num_threads, extra_feeds)
    meta = pd.Series([], dtype=object, name=plan.output_name)
    return df[column].map_partitions(_run_partition, *plan.args(), meta=meta)
