#!/usr/bin/python3
"""Builds a decoder-only language model with random weights in the shape ONNX Runtime's
generative-AI model builder exports for int4 LLMs (Llama, Phi, Qwen, Mistral):

    input_ids -> GatherBlockQuantized (int4 embedding table)
    per layer: SkipSimplifiedLayerNormalization -> MatMulNBits (int4, Q, K and V in one)
               -> GroupQueryAttention (packed QKV, rotary with cos/sin caches, BNSH key/value
                  cache) -> MatMulNBits (output projection)
               -> SkipSimplifiedLayerNormalization -> MatMulNBits gate and up -> SiLU(gate) * up
               -> MatMulNBits down
    SkipSimplifiedLayerNormalization -> MatMulNBits (int4 lm_head) -> logits

Inputs: input_ids [batch, seq] int64, attention_mask [batch, total] int64 (seqlens_k and
total_sequence_length come from it, as the builder's models compute them), and per layer
past_key_values.N.key/value [batch, kv_heads, past, head]. Outputs: logits [batch, seq, vocab]
and present.N.key/value.

Needs Debian's python3-onnx and python3-numpy.

    examples/tokengen/build_decoder.py OUT.onnx [--layers 4] [--hidden 1024] [--seed 0]
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MS = "com.microsoft"


class Builder:
    def __init__(self, rng, block=32, accuracy_level=4):
        self.rng = rng
        self.block = block
        self.accuracy_level = accuracy_level
        self.nodes, self.inits = [], []

    def init(self, name, array):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, outputs, domain="", **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, name=outputs[0] + "_node",
                                           domain=domain, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def int4_weight(self, name, n, k):
        """MatMulNBits' B [n, k_blocks, block / 2] (two 4-bit values a byte, low first) and
        float scales [n * k_blocks] for a weight with about unit-variance outputs."""
        blocks = k // self.block
        q = self.rng.integers(0, 16, (n, k), dtype=np.uint8)
        packed = (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8)
        scales = np.full(n * blocks, 1.0 / (8.0 * np.sqrt(k) / 2.0), np.float32)
        scales *= self.rng.uniform(0.5, 1.5, n * blocks).astype(np.float32)
        return (self.init(name + ".qweight", packed.reshape(n, blocks, self.block // 2)),
                self.init(name + ".scales", scales))

    def matmul_nbits(self, x, name, k, n):
        b, s = self.int4_weight(name, n, k)
        return self.node("MatMulNBits", [x, b, s], [name + ".out"], domain=MS, K=k, N=n, bits=4,
                         block_size=self.block, accuracy_level=self.accuracy_level)


def build(layers, hidden, heads, kv_heads, intermediate, vocab, max_len, seed, accuracy_level):
    rng = np.random.default_rng(seed)
    g = Builder(rng, accuracy_level=accuracy_level)
    head = hidden // heads
    kv_hidden = kv_heads * head

    # seqlens_k = sum(attention_mask) - 1 and total_sequence_length = its width, both int32.
    g.init("one", np.array([1], np.int64))
    g.init("axis1", np.array([1], np.int64))
    total_mask = g.node("ReduceSum", ["attention_mask", "axis1"], ["mask_sum"], keepdims=0)
    g.node("Sub", [total_mask, "one"], ["seqlens_k_64"])
    g.node("Cast", ["seqlens_k_64"], ["seqlens_k"], to=TensorProto.INT32)
    g.node("Shape", ["attention_mask"], ["mask_shape"])
    g.node("Gather", ["mask_shape", "one"], ["total_64"], axis=0)
    g.node("Cast", ["total_64"], ["total_sequence_length"], to=TensorProto.INT32)

    # The embedding table: int4 blocks of 32 along the hidden axis, float scales.
    q = rng.integers(0, 16, (vocab, hidden), dtype=np.uint8)
    g.init("embed.qweight", (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8))
    g.init("embed.scales",
           rng.uniform(0.02, 0.06, (vocab, hidden // g.block)).astype(np.float32))
    x = g.node("GatherBlockQuantized", ["embed.qweight", "input_ids", "embed.scales"],
               ["embeddings"], domain=MS, bits=4, block_size=g.block, quantize_axis=1)

    # Rotary caches [max_len, head / 2] (theta 10000).
    inv = 1.0 / (10000.0 ** (np.arange(0, head, 2) / head))
    angles = np.outer(np.arange(max_len), inv)
    g.init("cos_cache", np.cos(angles).astype(np.float32))
    g.init("sin_cache", np.sin(angles).astype(np.float32))

    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                            ["batch", "total"])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                             ["batch", "seq", vocab])]
    residual = None
    for i in range(layers):
        p = f"layers.{i}"
        gamma = g.init(p + ".input_norm", rng.uniform(0.8, 1.2, hidden).astype(np.float32))
        if residual is None:
            normed = g.node("SimplifiedLayerNormalization", [x, gamma], [p + ".normed"],
                            epsilon=1e-5)
            residual = x
        else:
            normed, _, _, residual = g.node(
                "SkipSimplifiedLayerNormalization", [x, residual, gamma],
                [p + ".normed", "", "", p + ".residual_in"], domain=MS, epsilon=1e-5)
        qkv = g.matmul_nbits(normed, p + ".qkv_proj", hidden, hidden + 2 * kv_hidden)
        past_k, past_v = f"past_key_values.{i}.key", f"past_key_values.{i}.value"
        present_k, present_v = f"present.{i}.key", f"present.{i}.value"
        for name in (past_k, past_v):
            inputs.append(helper.make_tensor_value_info(
                name, TensorProto.FLOAT, ["batch", kv_heads, "past", head]))
        for name in (present_k, present_v):
            outputs.append(helper.make_tensor_value_info(
                name, TensorProto.FLOAT, ["batch", kv_heads, "present", head]))
        attn = g.node("GroupQueryAttention",
                      [qkv, "", "", past_k, past_v, "seqlens_k", "total_sequence_length",
                       "cos_cache", "sin_cache"],
                      [p + ".attn", present_k, present_v], domain=MS, num_heads=heads,
                      kv_num_heads=kv_heads, do_rotary=1, rotary_interleaved=0)[0]
        attn_out = g.matmul_nbits(attn, p + ".o_proj", hidden, hidden)
        gamma2 = g.init(p + ".post_norm", rng.uniform(0.8, 1.2, hidden).astype(np.float32))
        normed2, _, _, residual = g.node(
            "SkipSimplifiedLayerNormalization", [attn_out, residual, gamma2],
            [p + ".post_normed", "", "", p + ".residual_mid"], domain=MS, epsilon=1e-5)
        gate = g.matmul_nbits(normed2, p + ".gate_proj", hidden, intermediate)
        up = g.matmul_nbits(normed2, p + ".up_proj", hidden, intermediate)
        sig = g.node("Sigmoid", [gate], [p + ".gate_sigmoid"])
        silu = g.node("Mul", [gate, sig], [p + ".silu"])
        act = g.node("Mul", [silu, up], [p + ".act"])
        x = g.matmul_nbits(act, p + ".down_proj", intermediate, hidden)
    gamma = g.init("final_norm", rng.uniform(0.8, 1.2, hidden).astype(np.float32))
    final = g.node("SkipSimplifiedLayerNormalization", [x, residual, gamma],
                   ["final_normed"], domain=MS, epsilon=1e-5)
    b, s = g.int4_weight("lm_head", vocab, hidden)
    g.node("MatMulNBits", [final, b, s], ["logits"], domain=MS, K=hidden, N=vocab, bits=4,
           block_size=g.block, accuracy_level=g.accuracy_level)

    graph = helper.make_graph(g.nodes, "decoder", inputs, outputs, g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid(MS, 1)],
                              producer_name="kiln examples/tokengen/build_decoder.py")
    model.ir_version = 8
    return model


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--kv-heads", type=int, default=4)
    p.add_argument("--intermediate", type=int, default=2816)
    p.add_argument("--vocab", type=int, default=32000)
    p.add_argument("--max-len", type=int, default=256)
    p.add_argument("--seed", type=int, default=0)
    # 4 is what the builder writes for the CPU (ONNX Runtime then quantizes the activations to
    # int8); 0 asks for float32 arithmetic.
    p.add_argument("--accuracy-level", type=int, default=4)
    a = p.parse_args()
    model = build(a.layers, a.hidden, a.heads, a.kv_heads, a.intermediate, a.vocab, a.max_len,
                  a.seed, a.accuracy_level)
    onnx.save(model, a.out)
    weights = sum(t.ByteSize() for t in model.graph.initializer)
    print(f"wrote {a.out}: {a.layers} layers, hidden {a.hidden}, {weights / 1e6:.1f} MB of weights")


if __name__ == "__main__":
    main()
