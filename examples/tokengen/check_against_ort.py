#!/usr/bin/python3
"""Replays ort_generate.mjs's tokens through kiln (the Python binding, CPU) and compares the
logits of every step with ONNX Runtime's: the prompt in one run, then one token a run with the
previous run's present key/value caches as the past. Exits 1 when a step's logits differ by more
than |a - e| <= atol + rtol |e|, or when kiln's greedy token differs from ONNX Runtime's.

    PYTHONPATH=build/release/python examples/tokengen/check_against_ort.py MODEL REF_DIR
        [--threads 1] [--rtol 1e-3] [--atol 1e-3]
"""
import argparse
import json
import os
import sys
import time

import numpy as np

import kiln


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model")
    p.add_argument("ref")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rtol", type=float, default=1e-3)
    p.add_argument("--atol", type=float, default=1e-3)
    a = p.parse_args()
    ref = json.load(open(os.path.join(a.ref, "tokens.json")))
    tokens, prompt = ref["tokens"], ref["prompt"]
    expected = np.fromfile(os.path.join(a.ref, "logits.f32"), np.float32)
    steps = len(tokens) - prompt + 1
    expected = expected.reshape(steps, -1)

    options = kiln.SessionOptions()
    options.intra_op_num_threads = a.threads
    session = kiln.InferenceSession(a.model, options)
    past_names = [i.name for i in session.get_inputs() if i.name.startswith("past_key_values.")]
    past = {}
    for i in session.get_inputs():
        if i.name in past_names:
            past[i.name] = np.zeros((1, i.shape[1], 0, i.shape[3]), np.float32)
    worst, failed, times = 0.0, 0, []
    for step in range(steps):
        ids = tokens[:prompt] if step == 0 else [tokens[prompt + step - 1]]
        total = prompt + step
        feed = {"input_ids": np.array([ids], np.int64),
                "attention_mask": np.ones((1, total), np.int64), **past}
        t0 = time.perf_counter()
        out = dict(zip([o.name for o in session.get_outputs()], session.run(None, feed)))
        times.append((time.perf_counter() - t0) * 1e3)
        logits = out["logits"][0, -1]
        diff = np.abs(logits - expected[step])
        worst = max(worst, float(diff.max()))
        bad = int((diff > a.atol + a.rtol * np.abs(expected[step])).sum())
        token_ok = step == steps - 1 or int(np.argmax(logits)) == tokens[prompt + step]
        if bad or not token_ok:
            failed += 1
            print(f"step {step}: {bad} logits differ (max |diff| {diff.max():.3g}), "
                  f"greedy token {int(np.argmax(logits))}"
                  f"{'' if token_ok else ', ONNX Runtime chose ' + str(tokens[prompt + step])}")
        past = {n: out[n.replace("past_key_values.", "present.")] for n in past_names}
    decode = sorted(times[1:])
    print(f"{steps} steps (prompt {prompt} tokens, then {steps - 1} generated): "
          f"{steps - failed} match ONNX Runtime's logits, largest |diff| {worst:.3g}")
    print(f"kiln (Python binding, numpy copies between steps): prompt {times[0]:.1f} ms, "
          f"decode median {decode[len(decode) // 2]:.2f} ms/token ({a.threads} threads)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
