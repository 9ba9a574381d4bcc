#!/usr/bin/env python3
"""Writes a few one-node ONNX backend test folders (model.onnx, test_data_set_0/input_N.pb and
output_N.pb) for test_onnx_test.sh, with the protobuf wire format written by hand so that no
onnx Python package is needed.

usage: make_onnx_tests.py OUT_DIR
"""
import os
import struct
import sys

FLOAT, INT32, STRING = 1, 6, 8


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field_varint(number, value):
    return varint(number << 3) + varint(value)


def field_bytes(number, data):
    if isinstance(data, str):
        data = data.encode()
    return varint(number << 3 | 2) + varint(len(data)) + data


def tensor(name, elem_type, values):
    """An ONNX TensorProto of rank 1."""
    out = field_varint(1, len(values)) + field_varint(2, elem_type) + field_bytes(8, name)
    if elem_type == STRING:
        for v in values:
            out += field_bytes(6, v)
    else:
        fmt = {FLOAT: "f", INT32: "i"}[elem_type]
        out += field_bytes(9, struct.pack("<%d%s" % (len(values), fmt), *values))
    return out


def value_info(name, elem_type, length):
    dim = field_bytes(1, field_varint(1, length))
    tensor_type = field_varint(1, elem_type) + field_bytes(2, dim)
    return field_bytes(1, name) + field_bytes(2, field_bytes(1, tensor_type))


def model(op_type, elem_type, inputs, out_type, out_len):
    names = ["x%d" % i for i in range(len(inputs))]
    node = b"".join(field_bytes(1, n) for n in names) + field_bytes(2, "y") + field_bytes(4, op_type)
    graph = field_bytes(1, node) + field_bytes(2, "g")
    for name, values in zip(names, inputs):
        graph += field_bytes(11, value_info(name, elem_type, len(values)))
    graph += field_bytes(12, value_info("y", out_type, out_len))
    opset = field_bytes(1, "") + field_varint(2, 18)
    return field_varint(1, 8) + field_bytes(7, graph) + field_bytes(8, opset)


def write_test(root, name, op_type, elem_type, inputs, expected, out_type=None):
    out_type = out_type or elem_type
    folder = os.path.join(root, name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(folder, "model.onnx"), "wb") as f:
        f.write(model(op_type, elem_type, inputs, out_type, len(expected)))
    for i, values in enumerate(inputs):
        with open(os.path.join(data, "input_%d.pb" % i), "wb") as f:
            f.write(tensor("x%d" % i, elem_type, values))
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(tensor("y", out_type, expected))


def main():
    root = sys.argv[1]
    write_test(root, "test_relu", "Relu", FLOAT, [[-1.0, 0.5, 2.0, -3.0]], [0.0, 0.5, 2.0, 0.0])
    # Strings stay on the CPU on every GPU backend.
    write_test(root, "test_string_normalizer", "StringNormalizer", STRING, [["a", "b"]], ["a", "b"])
    and_inputs = [[1065353216, 4097], [-1, 4096]]
    write_test(root, "test_bitwise_and", "BitwiseAnd", INT32, and_inputs, [1065353216, 4096])
    # The expected value off by one: integers must compare exactly.
    write_test(root, "test_bitwise_and_tampered", "BitwiseAnd", INT32, and_inputs,
               [1065353216, 4097])


if __name__ == "__main__":
    main()
