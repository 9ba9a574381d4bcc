#!/usr/bin/python3
"""Builds the com.microsoft contrib-operator test cases in the ONNX backend-test layout:

    tests/contrib/<case>/model.onnx
    tests/contrib/<case>/test_data_set_0/input_N.pb, output_N.pb

Each model is one node built with the onnx Python helpers, its inputs are small random tensors
(a fixed seed per case), and its reference outputs are ONNX Runtime's (onnxruntime-node runs the
com.microsoft operators), written by ort-run.mjs from the shared tools.

The checked-in files are what `make test` runs (scripts/run-conformance.sh); this script is only
needed to add or change a case. It needs Debian's python3-onnx and python3-numpy, node, and
ONNX Runtime for Node.js (SHARED/tools/ort/ensure-ort.sh installs it once).

    tests/contrib/generate.py [--shared ../shared] [--filter REGEX] [--keep-going]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import attention_cases

MS = "com.microsoft"
HERE = os.path.dirname(os.path.abspath(__file__))
ONNX_OPSET = 17  # LayerNormalization is a standard op from 17 on

CASES = []


def case(name, op_type, inputs, outputs, domain=MS, output_dtypes=None, opset=ONNX_OPSET,
         reference=None, constants=(), **attrs):
    """One test: `inputs` is a list of (name, array) with "" for an absent optional input,
    `outputs` the output names ("" for an absent optional output). `reference`, where ONNX
    Runtime has no CPU kernel for the node as written, builds the model ONNX Runtime runs instead
    (the same computation in ops it has); the case's comment says why. The inputs named in
    `constants` are initializers (weights), not graph inputs."""
    CASES.append(dict(name=name, op_type=op_type, inputs=inputs, outputs=outputs, domain=domain,
                      output_dtypes=output_dtypes, opset=opset, reference=reference,
                      constants=set(constants), attrs=attrs))


def rng_for(name):
    """A generator seeded from the case name, so a case's data does not change when others do."""
    return np.random.default_rng(sum(ord(c) * (i + 1) for i, c in enumerate(name)))


def f32(r, *shape, scale=1.0):
    return (r.standard_normal(shape) * scale).astype(np.float32)


def build_model(c, nodes=None):
    graph_inputs, node_inputs, initializers = [], [], []
    for name, value in c["inputs"]:
        if name == "":
            node_inputs.append("")
            continue
        node_inputs.append(name)
        if name in c["constants"]:
            initializers.append(numpy_helper.from_array(value, name))
            continue
        graph_inputs.append(helper.make_tensor_value_info(
            name, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(value.dtype)], list(value.shape)))
    if nodes is None:
        nodes = [helper.make_node(c["op_type"], node_inputs, c["outputs"], domain=c["domain"],
                                  name=c["name"], **c["attrs"])]
    outs = []
    first_dtype = next(v for n, v in c["inputs"] if n).dtype
    for i, name in enumerate(c["outputs"]):
        if not name:
            continue
        dtype = (c["output_dtypes"] or {}).get(i, first_dtype)
        outs.append(helper.make_tensor_value_info(
            name, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(np.dtype(dtype))], None))
    graph = helper.make_graph(nodes, c["name"], graph_inputs, outs, initializers)
    opsets = [helper.make_opsetid("", c["opset"]), helper.make_opsetid(MS, 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="kiln contrib tests")
    model.ir_version = 8
    return model


def write_case(c, root, ort_run, ort_dir):
    folder = os.path.join(root, c["name"])
    data = os.path.join(folder, "test_data_set_0")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(data)
    onnx.save(build_model(c), os.path.join(folder, "model.onnx"))
    index = 0
    for name, value in c["inputs"]:
        if not name or name in c["constants"]:
            continue
        tensor = numpy_helper.from_array(value, name)
        with open(os.path.join(data, f"input_{index}.pb"), "wb") as f:
            f.write(tensor.SerializeToString())
        index += 1
    env = dict(os.environ, ORT_NODE_DIR=ort_dir)
    with tempfile.TemporaryDirectory() as out:
        model = os.path.join(folder, "model.onnx")
        if c["reference"]:
            model = os.path.join(out, "reference.onnx")
            onnx.save(build_model(c, c["reference"]()), model)
        outputs = os.path.join(out, "outputs")
        run = subprocess.run(["node", ort_run, "run", model,
                              "--inputs-dir", data, "--outputs-dir", outputs, "--threads", "1"],
                             env=env, capture_output=True, text=True)
        if run.returncode != 0:
            shutil.rmtree(folder)
            raise RuntimeError(next((l for l in run.stderr.splitlines() if "Error" in l), run.stderr.strip()[-300:]))
        for f in sorted(os.listdir(outputs)):
            shutil.copy(os.path.join(outputs, f), os.path.join(data, f))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--shared", default=os.path.join(HERE, "..", "..", "..", "shared"))
    p.add_argument("--filter", default="")
    p.add_argument("--out", default=HERE)
    p.add_argument("--keep-going", action="store_true")
    a = p.parse_args()
    tools = os.path.join(a.shared, "tools", "ort")
    ort_dir = subprocess.run([os.path.join(tools, "ensure-ort.sh")], check=True,
                             capture_output=True, text=True).stdout.strip()
    failed = 0
    for c in CASES:
        if a.filter and not re.search(a.filter, c["name"]):
            continue
        try:
            write_case(c, a.out, os.path.join(tools, "ort-run.mjs"), ort_dir)
            print("wrote", c["name"])
        except RuntimeError as e:
            failed += 1
            print(f"ONNX Runtime refused {c['name']}: {e}", file=sys.stderr)
            if not a.keep_going:
                return 1
    return 1 if failed else 0


# ---- the cases ----------------------------------------------------------------------------
def define_cases():
    def unary(name, op, shape=(2, 3, 8), scale=2.0, **attrs):
        r = rng_for(name)
        case(name, op, [("X", f32(r, *shape, scale=scale))], ["Y"], **attrs)

    # Gelu family: exact (erf) and tanh forms, with and without a bias added first.
    unary("ms_gelu", "Gelu")
    unary("ms_gelu_empty", "Gelu", shape=(2, 0, 4))
    # FastGelu's inputs stay within about +-4: below that, ONNX Runtime's approximate tanh gives
    # 1 + tanh(u) = 0 where the float formula keeps a few 1e-7 (the unit tests check that tail
    # against a double-precision reference instead).
    unary("ms_fast_gelu", "FastGelu", scale=1.0)
    r = rng_for("ms_fast_gelu_bias")
    case("ms_fast_gelu_bias", "FastGelu", [("X", f32(r, 2, 3, 8)), ("bias", f32(r, 8))], ["Y"])
    r = rng_for("ms_bias_gelu")
    case("ms_bias_gelu", "BiasGelu", [("A", f32(r, 2, 3, 8, scale=2.0)), ("B", f32(r, 8))], ["C"])
    unary("ms_quick_gelu", "QuickGelu")
    unary("ms_quick_gelu_alpha", "QuickGelu", alpha=1.5)
    # BiasAdd has no CPU kernel in ONNX Runtime (CUDA only): its reference is Add(Add(X, bias),
    # skip) run by ONNX Runtime.
    r = rng_for("ms_bias_add")
    case("ms_bias_add", "BiasAdd",
         [("X", f32(r, 2, 3, 8)), ("bias", f32(r, 8)), ("skip", f32(r, 2, 3, 8))], ["Y"],
         reference=lambda: [helper.make_node("Add", ["X", "bias"], ["t"]),
                            helper.make_node("Add", ["t", "skip"], ["Y"])])

    # SkipLayerNormalization: every optional input and output.
    for name, beta, bias, outs, eps in [
            ("ms_skip_layer_norm", False, False, ["Y"], 1e-5),
            ("ms_skip_layer_norm_beta_bias", True, True, ["Y"], 1e-5),
            ("ms_skip_layer_norm_all_outputs", True, True, ["Y", "mean", "inv_std", "sum"], 1e-3),
            ("ms_skip_layer_norm_sum_only", False, True, ["Y", "", "", "sum"], 1e-5),
            ("ms_skip_layer_norm_default_epsilon", True, False, ["Y"], None)]:
        r = rng_for(name)
        ins = [("input", f32(r, 2, 3, 16, scale=3.0) + 1), ("skip", f32(r, 2, 3, 16)),
               ("gamma", f32(r, 16)), ("beta", f32(r, 16)) if beta else ("", None),
               ("bias", f32(r, 16)) if bias else ("", None)]
        while ins[-1][0] == "":
            ins.pop()
        attrs = {} if eps is None else {"epsilon": eps}
        case(name, "SkipLayerNormalization", ins, outs, **attrs)
    r = rng_for("ms_skip_layer_norm_2d_skip")
    case("ms_skip_layer_norm_2d_skip", "SkipLayerNormalization",
         [("input", f32(r, 2, 3, 16)), ("skip", f32(r, 3, 16)), ("gamma", f32(r, 16))], ["Y"],
         epsilon=1e-5)
    r = rng_for("ms_skip_layer_norm_float16")
    case("ms_skip_layer_norm_float16", "SkipLayerNormalization",
         [("input", f32(r, 2, 3, 16).astype(np.float16)), ("skip", f32(r, 2, 3, 16).astype(np.float16)),
          ("gamma", f32(r, 16).astype(np.float16)), ("beta", f32(r, 16).astype(np.float16))],
         ["Y", "", "", "sum"], epsilon=1e-5)
    for name, bias, outs in [
            ("ms_skip_simplified_layer_norm", False, ["Y"]),
            ("ms_skip_simplified_layer_norm_bias", True, ["Y", "", "inv_std", "sum"]),
            ("ms_skip_simplified_layer_norm_all_outputs", True, ["Y", "mean", "inv_std", "sum"])]:
        r = rng_for(name)
        ins = [("input", f32(r, 2, 3, 16)), ("skip", f32(r, 2, 3, 16)), ("gamma", f32(r, 16))]
        if bias:
            ins.append(("bias", f32(r, 16)))
        case(name, "SkipSimplifiedLayerNormalization", ins, outs, epsilon=1e-5)

    # SimplifiedLayerNormalization (RMS): ONNX Runtime registers it in the ai.onnx domain.
    r = rng_for("simplified_layer_norm")
    case("simplified_layer_norm", "SimplifiedLayerNormalization",
         [("X", f32(r, 2, 3, 16)), ("scale", f32(r, 16))], ["Y"], domain="", epsilon=1e-5)
    r = rng_for("simplified_layer_norm_axis_inv_std")
    case("simplified_layer_norm_axis_inv_std", "SimplifiedLayerNormalization",
         [("X", f32(r, 2, 3, 4)), ("scale", f32(r, 3, 4))], ["Y", "inv_std"], domain="", axis=1,
         epsilon=1e-5)
    # LayerNormalization before opset 17 is ONNX Runtime's own op in the ai.onnx domain (what its
    # transformer optimizer emits for older models).
    r = rng_for("layer_norm_opset13")
    case("layer_norm_opset13", "LayerNormalization",
         [("X", f32(r, 2, 3, 16)), ("scale", f32(r, 16)), ("B", f32(r, 16))],
         ["Y", "mean", "inv_std"], domain="", opset=13, epsilon=1e-5)
    # Both normalizations also come spelled in the com.microsoft domain, which ONNX Runtime 1.30
    # no longer registers: their reference is the same node in the ai.onnx domain.
    for op, ins, outs in [
            ("SimplifiedLayerNormalization", ["X", "scale"], ["Y", "inv_std"]),
            ("LayerNormalization", ["X", "scale", "B"], ["Y", "mean", "inv_std"])]:
        name = "ms_" + ("simplified_layer_norm" if "Simplified" in op else "layer_norm")
        r = rng_for(name)
        values = [("X", f32(r, 2, 3, 16)), ("scale", f32(r, 16)), ("B", f32(r, 16))]
        case(name, op, values[:len(ins)], outs, epsilon=1e-5,
             reference=lambda op=op, ins=ins, outs=outs: [
                 helper.make_node(op, ins, outs, epsilon=1e-5)])

    # RotaryEmbedding (contrib): inputs (input, position_ids, cos_cache, sin_cache).
    def rotary(name, shape, pos, max_pos, half, **attrs):
        r = rng_for(name)
        angles = r.uniform(-3, 3, (max_pos, half))
        case(name, "RotaryEmbedding",
             [("input", f32(r, *shape)), ("position_ids", pos),
              ("cos_cache", np.cos(angles).astype(np.float32)),
              ("sin_cache", np.sin(angles).astype(np.float32))], ["output"], **attrs)

    ids = np.array([[0, 3, 5], [7, 2, 1]], np.int64)
    rotary("ms_rotary", (2, 3, 16), ids, 8, 4)                     # heads from the cache: 2 x 8
    rotary("ms_rotary_interleaved", (2, 3, 16), ids, 8, 4, interleaved=1)
    rotary("ms_rotary_offset", (2, 3, 16), np.array([2], np.int64), 8, 4)
    rotary("ms_rotary_4d", (2, 2, 3, 8), ids, 8, 4)                # [batch, heads, seq, head]
    rotary("ms_rotary_partial", (2, 3, 32), ids, 8, 4, num_heads=2, rotary_embedding_dim=8)
    rotary("ms_rotary_partial_interleaved", (2, 3, 32), ids, 8, 4, num_heads=2,
           rotary_embedding_dim=8, interleaved=1)

    # FusedMatMul: alpha * op(A) * op(B) over broadcast batches.
    def fused_matmul(name, a, b, **attrs):
        r = rng_for(name)
        case(name, "FusedMatMul", [("A", f32(r, *a)), ("B", f32(r, *b))], ["Y"], **attrs)

    fused_matmul("ms_fused_matmul", (3, 4), (4, 5))
    fused_matmul("ms_fused_matmul_trans_alpha", (4, 3), (5, 4), transA=1, transB=1, alpha=0.5)
    fused_matmul("ms_fused_matmul_batch_trans_b", (2, 3, 4), (5, 4), transB=1, alpha=2.0)
    fused_matmul("ms_fused_matmul_broadcast", (2, 1, 4, 3), (3, 4, 5), transA=1)

    define_block_quantized_cases()
    define_gather_cases()
    attention_cases.define_cases(case, rng_for, f32)


def pack_bits(values, bits):
    """Packs each row of small unsigned integers into bytes, from the low bits up."""
    per = 8 // bits
    rows, count = values.shape
    padded = np.zeros((rows, -(-count // per) * per), np.uint8)
    padded[:, :count] = values
    out = np.zeros((rows, padded.shape[1] // per), np.uint8)
    for j in range(per):
        out |= (padded[:, j::per] << (j * bits)).astype(np.uint8)
    return out


def define_block_quantized_cases():
    # MatMulNBits: B [N, k_blocks, blob] of `bits`-bit values, scales [N * k_blocks], zero points
    # packed (uint8) or float, absent (2^(bits-1)); K need not be a multiple of block_size.
    def nbits(name, m_shape, K, N, bits, block, zp="none", g_idx=False, bias=False, **attrs):
        r = rng_for(name)
        blocks = -(-K // block)
        q = r.integers(0, 2**bits, (N, blocks * block), dtype=np.uint8)
        q[:, K:] = 0  # the padding of the last block
        b = pack_bits(q, bits).reshape(N, blocks, block * bits // 8)
        scales = r.uniform(0.01, 0.1, N * blocks).astype(np.float32)
        inputs = [("A", f32(r, *m_shape, K)), ("B", b), ("scales", scales)]
        if zp == "packed":
            inputs.append(("zero_points",
                           pack_bits(r.integers(0, 2**bits, (N, blocks), dtype=np.uint8), bits)
                           .reshape(-1)))
        elif zp == "float":
            inputs.append(("zero_points", r.uniform(0, 2**bits - 1, N * blocks).astype(np.float32)))
        else:
            inputs.append(("", None))
        if g_idx:
            inputs.append(("g_idx", (np.arange(K) // block)[r.permutation(K)].astype(np.int32)))
        else:
            inputs.append(("", None))
        inputs.append(("bias", f32(r, N)) if bias else ("", None))
        while inputs[-1][0] == "":
            inputs.pop()
        case(name, "MatMulNBits", inputs, ["Y"],
             constants=("B", "scales", "zero_points", "g_idx", "bias"), K=K, N=N, bits=bits,
             block_size=block, **attrs)

    nbits("ms_matmul_nbits_4bit", (3,), 64, 8, 4, 32)
    nbits("ms_matmul_nbits_4bit_zp_bias", (2, 3), 48, 10, 4, 16, zp="packed", bias=True)
    nbits("ms_matmul_nbits_4bit_block128_tail", (2,), 200, 6, 4, 128, zp="packed")
    nbits("ms_matmul_nbits_4bit_block256", (1,), 256, 4, 4, 256)
    nbits("ms_matmul_nbits_4bit_float_zp", (2,), 64, 5, 4, 32, zp="float")
    # With g_idx, ONNX Runtime 1.30 reads packed uint8 zero points but then uses 8 in their place
    # (its reordered dequantization drops them), so g_idx is checked here without zero points
    # and with float ones; the unit tests cover g_idx with packed zero points.
    nbits("ms_matmul_nbits_4bit_g_idx", (2,), 64, 5, 4, 16, g_idx=True)
    nbits("ms_matmul_nbits_4bit_g_idx_float_zp", (2,), 64, 5, 4, 16, zp="float", g_idx=True)
    nbits("ms_matmul_nbits_8bit", (4,), 64, 6, 8, 32)
    nbits("ms_matmul_nbits_8bit_zp_block64", (2,), 100, 6, 8, 64, zp="packed", bias=True)
    nbits("ms_matmul_nbits_2bit", (3,), 64, 6, 2, 32)
    nbits("ms_matmul_nbits_2bit_zp", (2,), 80, 5, 2, 16, zp="packed")
    nbits("ms_matmul_nbits_accuracy1", (2,), 64, 4, 4, 32, zp="packed", accuracy_level=1)



def define_gather_cases():
    # GatherBlockQuantized: rows of a uint8 table of `bits`-bit values (quantized along the last
    # axis), gathered along axis 0 by int64 or int32 indices (negative ones count from the end).
    def gather(name, rows, inner, cols, bits, block, indices, zp=False, scale_type=np.float32,
               **attrs):
        r = rng_for(name)
        per = 8 // bits
        shape = (rows,) + inner
        lines = int(np.prod(shape))
        blocks = -(-cols // block)
        q = r.integers(0, 2**bits, (lines, cols), dtype=np.uint8)
        data = pack_bits(q, bits).reshape(shape + (cols // per,))
        scales = r.uniform(0.01, 0.1, (lines, blocks)).astype(scale_type).reshape(shape + (blocks,))
        inputs = [("data", data), ("indices", indices), ("scales", scales)]
        if zp:
            z = r.integers(0, 2**bits, (lines, blocks), dtype=np.uint8)
            inputs.append(("zero_points", pack_bits(z, bits).reshape(shape + (-(-blocks // per),))))
        case(name, "GatherBlockQuantized", inputs, ["Y"], output_dtypes={0: scale_type},
             constants=("data", "scales", "zero_points"), bits=bits, block_size=block, **attrs)

    ids = np.array([[3, 0, 5], [5, -1, 2]], np.int64)
    gather("ms_gather_block_quantized_4bit", 6, (), 64, 4, 32, ids)
    gather("ms_gather_block_quantized_4bit_zp", 6, (), 48, 4, 16, ids, zp=True)
    gather("ms_gather_block_quantized_8bit_zp_int32", 5, (), 40, 8, 16,
           np.array([4, 1, 1], np.int32), zp=True)
    gather("ms_gather_block_quantized_2bit", 4, (), 64, 2, 32, np.array([3, 2], np.int64))
    gather("ms_gather_block_quantized_rank3", 4, (2,), 32, 4, 16, np.array([[1], [3]], np.int64),
           zp=True, quantize_axis=2)
    gather("ms_gather_block_quantized_block128_float16", 3, (), 256, 4, 128,
           np.array([2, 0], np.int64), zp=True, scale_type=np.float16)


define_cases()

if __name__ == "__main__":
    sys.exit(main())
