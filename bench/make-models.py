#!/usr/bin/python3
"""Exports the side-by-side benchmark models to ONNX, each as a test folder:
    OUT/<name>/model.onnx + OUT/<name>/test_data_set_0/input_0.pb

Random weights with a fixed seed (the point is speed; the outputs are checked against ONNX Runtime's
on the same inputs, not against labels). Needs Debian's python3-torch, python3-torchvision and
python3-onnx (scripts/install-deps.sh --with-bench). A model whose folder already has model.onnx
is left as it is, so a second run costs nothing.

usage: make-models.py OUT [NAME ...]     names: see MODELS below; default all
"""
import os
import sys

import torch
import torchvision
from onnx import numpy_helper


class Encoder(torch.nn.Module):
    """A BERT-style encoder: token embedding, 4 layers of width 512 with 8 heads and GELU, a
    two-class head; sequence length 128."""

    def __init__(self, layers=4, width=512, heads=8, vocab=8000):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, width)
        layer = torch.nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0,
                                                 activation="gelu", batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers)
        self.head = torch.nn.Linear(width, 2)

    def forward(self, ids):
        return self.head(self.encoder(self.embed(ids)))


def image(generator):
    return torch.rand(1, 3, 224, 224, generator=generator)


MODELS = {
    "resnet50": (torchvision.models.resnet50, image),
    "mobilenet_v2": (torchvision.models.mobilenet_v2, image),
    "efficientnet_b0": (torchvision.models.efficientnet_b0, image),
    "squeezenet1_1": (torchvision.models.squeezenet1_1, image),
    "encoder_l4_d512": (Encoder, lambda g: torch.randint(0, 8000, (1, 128), generator=g)),
}


def export(name, out):
    folder = os.path.join(out, name)
    model_path = os.path.join(folder, "model.onnx")
    if os.path.exists(model_path):
        return
    make_model, make_input = MODELS[name]
    torch.manual_seed(0)
    model = make_model().eval()
    x = make_input(torch.Generator().manual_seed(1))
    os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
    # Written to a temporary name first, so an interrupted export is not taken for a finished one.
    # Gradients stay on: torch's fused inference path for attention has no ONNX export.
    partial = model_path + ".partial"
    torch.onnx.export(model, x, partial, opset_version=17, input_names=["input"],
                      output_names=["output"], do_constant_folding=True)
    with open(os.path.join(folder, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x.numpy(), "input").SerializeToString())
    os.replace(partial, model_path)
    print(f"exported {name}: {os.path.getsize(model_path) / 1e6:.1f} MB", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    unknown = [n for n in sys.argv[2:] if n not in MODELS]
    if unknown:
        sys.exit(f"unknown model(s): {' '.join(unknown)}; known: {' '.join(MODELS)}")
    for name in sys.argv[2:] or MODELS:
        export(name, sys.argv[1])
