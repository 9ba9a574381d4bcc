#!/usr/bin/python3
"""The cost of calling kiln from Python: InferenceSession.run (and Worker.run) against the C++
figure of `kiln bench` on the same model, inputs, backend and thread count.

    PYTHONPATH=build/release/python bench/python_vs_cli.py build/release/kiln MODEL \
        [--runs N] [--rounds R] [--threads T] [--backend B] [--dim NAME=VALUE ...]

Both sides time one inference as schedule + readback of every output, after a warm-up, and
take the median of N runs. The two alternate R times (kiln bench, then the Python loops), so
that load from other processes on a shared machine falls on both alike; the figures are the
medians over the rounds, and their difference is what the binding adds per run.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import kiln


def random_inputs(model, dims):
    rng = np.random.default_rng(0)
    feeds = {}
    for info in model.inputs:
        shape = [d if isinstance(d, int) else dims.get(d, 1) for d in (info.shape or [])]
        if info.dtype.kind == "f":
            feeds[info.name] = rng.random(shape).astype(info.dtype)
        else:
            feeds[info.name] = np.zeros(shape, info.dtype)
    return feeds


def cli_median_ms(kiln_binary, model_path, feeds, args):
    with tempfile.TemporaryDirectory() as folder:
        cmd = [kiln_binary, "bench", model_path, "--runs", str(args.runs), "--warmup", "10",
               "--threads", str(args.threads), "--backend", args.backend]
        for name, value in feeds.items():
            path = os.path.join(folder, f"{len(cmd)}.npy")
            np.save(path, value)
            cmd += ["--input", f"{name}={path}"]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return float(re.search(r"median_ms=([0-9.]+)", out).group(1))


def python_median_ms(call, runs):
    for _ in range(10):
        call()
    times = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        call()
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times) / 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kiln_binary")
    parser.add_argument("model")
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--dim", action="append", default=[], help="NAME=VALUE for symbolic dims")
    args = parser.parse_args()
    dims = {k: int(v) for k, v in (d.split("=") for d in args.dim)}

    options = kiln.SessionOptions()
    options.intra_op_num_threads = args.threads
    session = kiln.InferenceSession(args.model, sess_options=options, providers=[args.backend])
    feeds = random_inputs(session.model, dims)

    worker = session.worker
    names = worker.output_names

    def schedule_and_read():
        worker.schedule(feeds)
        for n in names:
            worker.peek_output(n).numpy()

    cli, run, sched = [], [], []
    for _ in range(args.rounds):
        cli.append(cli_median_ms(args.kiln_binary, args.model, feeds, args))
        run.append(python_median_ms(lambda: session.run(None, feeds), args.runs))
        sched.append(python_median_ms(schedule_and_read, args.runs))
    c = statistics.median(cli)
    print(f"model={args.model} backend={args.backend} threads={args.threads} runs={args.runs} "
          f"rounds={args.rounds}")
    print(f"  kiln bench (C++)                     median {c * 1e3:11.1f} us   "
          f"rounds: {' '.join(f'{v * 1e3:.1f}' for v in cli)}")
    for label, values in (("InferenceSession.run", run),
                          ("Worker.schedule + peek_output.numpy", sched)):
        m = statistics.median(values)
        print(f"  {label:36} median {m * 1e3:11.1f} us   over C++: {(m - c) * 1e3:+.1f} us "
              f"({(m / c - 1) * 100:+.1f}%)   rounds: {' '.join(f'{v * 1e3:.1f}' for v in values)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
