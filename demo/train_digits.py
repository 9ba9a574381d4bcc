#!/usr/bin/python3
"""Train the kiln demo model: a small CNN that classifies 8x8 handwritten digits.

Data: sklearn.datasets.load_digits (ships with scikit-learn, no download).
Writes, next to this script:
  digits.onnx                     the model (opset 13, input "pixels" [batch,1,8,8],
                                  output "logits" [batch,10])
  samples/digits_8x8.npy          8 held-out test images, float32 [8,1,8,8], in [0,1]
  samples/labels.txt              their true labels, one per line
  samples/expected_logits.npy     the torch model's logits for them, float32 [8,10]

Run with Debian's python3 (python3-torch, python3-sklearn; python3-onnx optional):
  python3 demo/train_digits.py
"""

import os
import random

import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

SEED = 1234
EPOCHS = 40
BATCH = 64
LR = 1e-3
NUM_SAMPLES = 8
OPSET = 13

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL_PATH = os.path.join(HERE, "digits.onnx")
SAMPLES_DIR = os.path.join(HERE, "samples")


class DigitsCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 32, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(32 * 4 * 4, 64),
            nn.ReLU(),
            nn.Linear(64, 10),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)


def load_data():
    digits = load_digits()
    x = (digits.images.astype(np.float32) / 16.0).reshape(-1, 1, 8, 8)
    y = digits.target.astype(np.int64)
    return train_test_split(x, y, test_size=0.2, random_state=SEED, stratify=y)


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        pred = model(torch.from_numpy(x)).argmax(dim=1).numpy()
    return float((pred == y).mean())


def pick_samples(y_test, count):
    """Indices of the first test images with distinct labels, in test-split order."""
    picked, seen = [], set()
    for i, label in enumerate(y_test):
        if label not in seen:
            picked.append(i)
            seen.add(int(label))
        if len(picked) == count:
            break
    return np.array(picked)


def main():
    seed_everything(SEED)
    x_train, x_test, y_train, y_test = load_data()
    print(f"train {len(x_train)} images, test {len(x_test)} images")

    model = DigitsCNN()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    loss_fn = nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
    gen = torch.Generator().manual_seed(SEED)

    for epoch in range(1, EPOCHS + 1):
        model.train()
        perm = torch.randperm(len(xt), generator=gen)
        total = 0.0
        for start in range(0, len(xt), BATCH):
            idx = perm[start:start + BATCH]
            opt.zero_grad()
            loss = loss_fn(model(xt[idx]), yt[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        if epoch % 10 == 0 or epoch == EPOCHS:
            print(f"epoch {epoch:3d}  loss {total / len(xt):.4f}  "
                  f"test acc {accuracy(model, x_test, y_test) * 100:.2f}%")

    acc = accuracy(model, x_test, y_test)
    print(f"test accuracy: {acc * 100:.2f}% ({len(x_test)} held-out images)")

    model.eval()
    # Bundle a few held-out test images with their labels and reference logits.
    os.makedirs(SAMPLES_DIR, exist_ok=True)
    sel = pick_samples(y_test, NUM_SAMPLES)
    samples = np.ascontiguousarray(x_test[sel], dtype="<f4")
    labels = y_test[sel]
    with torch.no_grad():
        logits = model(torch.from_numpy(samples)).numpy()
    logits = np.ascontiguousarray(logits, dtype="<f4")
    np.save(os.path.join(SAMPLES_DIR, "digits_8x8.npy"), samples, allow_pickle=False)
    np.save(os.path.join(SAMPLES_DIR, "expected_logits.npy"), logits, allow_pickle=False)
    with open(os.path.join(SAMPLES_DIR, "labels.txt"), "w") as f:
        f.write("".join(f"{int(v)}\n" for v in labels))
    print("sample labels:   ", " ".join(str(int(v)) for v in labels))
    print("torch predicted: ", " ".join(str(int(v)) for v in logits.argmax(axis=1)))

    # Export. No BatchNorm or fused fast paths here, so plain export works.
    torch.onnx.export(
        model,
        torch.from_numpy(samples),
        MODEL_PATH,
        export_params=True,
        opset_version=OPSET,
        do_constant_folding=True,
        input_names=["pixels"],
        output_names=["logits"],
        dynamic_axes={"pixels": {0: "batch"}, "logits": {0: "batch"}},
    )
    print(f"wrote {os.path.relpath(MODEL_PATH)} ({os.path.getsize(MODEL_PATH)} bytes)")

    try:
        import onnx
    except ImportError:
        print("python3-onnx not installed; skipping the ONNX check")
        return
    m = onnx.load(MODEL_PATH)
    onnx.checker.check_model(m, full_check=True)
    ops = sorted({n.op_type for n in m.graph.node})
    opset = [f"{o.domain or 'ai.onnx'}:{o.version}" for o in m.opset_import]
    print("onnx check ok; opset", ", ".join(opset), "; ops:", " ".join(ops))


if __name__ == "__main__":
    main()
