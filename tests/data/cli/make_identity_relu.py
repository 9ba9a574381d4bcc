#!/usr/bin/env python3
"""Writes identity_relu.onnx: x float32[4] -> Identity -> Relu -> y (opset 13). The load-time
passes remove the Identity, so `kiln inspect --no-optimize` shows one node more than without it.
Encodes the protobuf by hand (standard library only):  python3 tests/data/cli/make_identity_relu.py"""
import os
import struct


def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field(number, wire, payload):
    key = varint((number << 3) | wire)
    if wire == 0:
        return key + varint(payload)
    return key + varint(len(payload)) + payload


def string(number, text):
    return field(number, 2, text.encode())


def node(op, inputs, outputs, name):  # NodeProto: input=1, output=2, name=3, op_type=4
    return b"".join(string(1, i) for i in inputs) + b"".join(string(2, o) for o in outputs) + \
        string(3, name) + string(4, op)


def value_info(name, dims):  # ValueInfoProto{name=1, type=2{tensor_type=1{elem_type=1, shape=2}}}
    shape = b"".join(field(1, 2, field(1, 0, d)) for d in dims)
    tensor = field(1, 0, 1) + field(2, 2, shape)
    return string(1, name) + field(2, 2, field(1, 2, tensor))


graph = (field(1, 2, node("Identity", ["x"], ["t"], "identity")) +
         field(1, 2, node("Relu", ["t"], ["y"], "relu")) + string(2, "identity_relu") +
         field(11, 2, value_info("x", [4])) + field(12, 2, value_info("y", [4])))
model = field(1, 0, 8) + string(2, "kiln-test") + field(7, 2, graph) + \
    field(8, 2, field(2, 0, 13))  # ir_version 8, producer, graph, opset_import{version=13}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "identity_relu.onnx"), "wb") as f:
    f.write(model)
