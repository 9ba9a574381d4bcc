"""kiln.dask on a distributed.LocalCluster of two worker processes: every result matches a run in
this process, and each worker process loads the model once."""
import numpy as np
import pytest

import kiln
from conftest import DIGITS, shared_model

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402

import kiln.dask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, host="127.0.0.1") as cluster, \
            distributed.Client(cluster) as client:
        yield client


def single_process(model_path, inputs, batch):
    """The model run in this process, `batch` inputs at a time: the batches the distributed run
    makes, so that both sum in the same order and must agree to float rounding."""
    worker = kiln.Worker(kiln.load_model(model_path), num_threads=1)
    name = worker.model.inputs[0].name
    return np.concatenate([worker.run({name: inputs[i:i + batch]})[0]
                           for i in range(0, len(inputs), batch)])


def test_a_public_model_over_a_dask_array_on_two_worker_processes(client):
    path = shared_model("mnist_cntk_opset8") / "model.onnx"
    images = np.random.default_rng(5).random((300, 1, 28, 28), dtype=np.float32)
    x = da.from_array(images, chunks=(25, 1, 28, 28))
    y = kiln.dask.map_array(str(path), x)
    assert isinstance(y, da.Array) and y.shape == (300, 10)
    got = y.compute()
    np.testing.assert_allclose(got, single_process(path, images, batch=1), rtol=1e-5, atol=1e-6)
    counts = client.run(kiln.dask.load_counts)
    assert len(counts) == 2
    per_worker = [sum(c.values()) for c in counts.values()]
    assert all(n <= 1 for n in per_worker) and sum(per_worker) >= 1  # once per process, not per task


def test_model_bytes_and_a_dataframe_column(client):
    samples = np.random.default_rng(6).random((240, 1, 8, 8), dtype=np.float32)
    frame = pd.DataFrame({"id": np.arange(240), "pixels": list(samples)})
    df = dd.from_pandas(frame, npartitions=6)
    logits = kiln.dask.map_column(DIGITS.read_bytes(), df, "pixels")
    assert isinstance(logits, dd.Series)
    got = logits.compute()
    assert list(got.index) == list(range(240))
    np.testing.assert_allclose(np.stack(got.to_numpy()), single_process(DIGITS, samples, batch=40),
                               rtol=1e-5, atol=1e-6)
    counts = client.run(kiln.dask.load_counts)
    assert all(n <= 1 for c in counts.values() for n in c.values())
