"""The quantized and fused com.microsoft cases of tests/contrib (generate.py calls define()):
MatMulIntegerToFloat, DynamicQuantizeMatMul, FusedConv and the QLinear family (QLinearAdd,
QLinearMul, QLinearConcat, QLinearGlobalAveragePool, QLinearLeakyRelu, QLinearSigmoid,
QLinearSoftmax), each small, with ONNX Runtime's outputs as references."""
import numpy as np

F32 = {0: np.float32}


def define(case, rng_for, cases):
    """Adds the cases through generate.py's case(); `cases` is its list (for the one attribute,
    QLinearSoftmax's "opset", whose name case()'s own opset argument takes)."""
    def q(r, dtype, *shape):
        info = np.iinfo(dtype)
        return r.integers(info.min, info.max + 1, size=shape, dtype=np.int64).astype(dtype)

    def f32(r, *shape, scale=1.0):
        return (r.standard_normal(shape) * scale).astype(np.float32)

    def scalar(v, dtype=np.float32):
        return np.array(v, dtype)

    # MatMulIntegerToFloat: A per tensor; B per column or per tensor; zero points and bias
    # optional. B and its parameters are weights (initializers), as the quantization tools write.
    def mm_to_float(name, ta, tb, a_shape, n, per_column, zero_points, bias):
        r = rng_for(name)
        k = a_shape[-1]
        b_params = (n,) if per_column else ()
        ins = [("A", q(r, ta, *a_shape)), ("B", q(r, tb, k, n)),
               ("a_scale", scalar(0.02)),
               ("b_scale", (r.uniform(0.005, 0.05, b_params)).astype(np.float32)),
               ("a_zero_point", q(r, ta)) if zero_points else ("", None),
               ("b_zero_point", q(r, tb, *b_params)) if zero_points else ("", None),
               ("bias", f32(r, n)) if bias else ("", None)]
        while ins[-1][0] == "":
            ins.pop()
        case(name, "MatMulIntegerToFloat", ins, ["Y"], output_dtypes=F32,
             constants=("B", "a_scale", "b_scale", "a_zero_point", "b_zero_point", "bias"))

    mm_to_float("ms_matmul_integer_to_float_u8", np.uint8, np.uint8, (2, 3, 8), 5, True, True, True)
    mm_to_float("ms_matmul_integer_to_float_s8", np.int8, np.int8, (4, 16), 6, False, False, False)
    mm_to_float("ms_matmul_integer_to_float_u8s8_zp", np.uint8, np.int8, (3, 8), 4, False, True,
                True)

    # DynamicQuantizeMatMul: float A quantized to uint8 per tensor inside the op.
    def dq_matmul(name, tb, a_shape, n, per_column, zero_point, bias):
        r = rng_for(name)
        b_params = (n,) if per_column else ()
        ins = [("A", f32(r, *a_shape, scale=2.0)), ("B", q(r, tb, a_shape[-1], n)),
               ("b_scale", (r.uniform(0.005, 0.05, b_params)).astype(np.float32)),
               ("b_zero_point", q(r, tb, *b_params)) if zero_point else ("", None),
               ("bias", f32(r, n)) if bias else ("", None)]
        while ins[-1][0] == "":
            ins.pop()
        case(name, "DynamicQuantizeMatMul", ins, ["Y"],
             constants=("B", "b_scale", "b_zero_point", "bias"))

    dq_matmul("ms_dynamic_quantize_matmul", np.int8, (2, 3, 8), 5, True, True, True)
    dq_matmul("ms_dynamic_quantize_matmul_u8", np.uint8, (4, 16), 3, False, True, False)
    dq_matmul("ms_dynamic_quantize_matmul_no_zp", np.int8, (3, 8), 4, True, False, True)

    # FusedConv: Conv, then Z added, then the activation.
    def fused_conv(name, activation=None, params=None, z=False, group=1, stride=1):
        r = rng_for(name)
        out = 6 // stride + 1  # 7x7 input, 3x3 kernel, pads 1
        ins = [("X", f32(r, 1, 6, 7, 7)), ("W", f32(r, 8, 6 // group, 3, 3, scale=0.3)),
               ("B", f32(r, 8))]
        if z:
            ins.append(("Z", f32(r, 1, 8, out, out)))
        attrs = {}
        if activation:
            attrs["activation"] = activation
        if params is not None:
            attrs["activation_params"] = params
        case(name, "FusedConv", ins, ["Y"], constants=("W", "B"), group=group,
             pads=[1, 1, 1, 1], strides=[stride, stride], **attrs)

    fused_conv("ms_fused_conv_none")
    fused_conv("ms_fused_conv_relu", "Relu")
    fused_conv("ms_fused_conv_relu_z", "Relu", z=True)
    fused_conv("ms_fused_conv_sigmoid_stride2", "Sigmoid", stride=2)
    fused_conv("ms_fused_conv_tanh_group", "Tanh", group=2)
    fused_conv("ms_fused_conv_leaky_relu_z", "LeakyRelu", [0.1], z=True)
    fused_conv("ms_fused_conv_clip", "Clip", [-0.5, 0.8])
    fused_conv("ms_fused_conv_hard_sigmoid", "HardSigmoid", [0.3, 0.4])

    # The QLinear family: parameters per tensor, as initializers.
    def params(r, dtype, prefix, scale):
        info = np.iinfo(dtype)
        return [(f"{prefix}_scale", scalar(scale)),
                (f"{prefix}_zero_point", np.array(r.integers(info.min // 2, info.max // 2 + 1), dtype))]

    def qbinary(name, op, dtype, a_shape, b_shape):
        r = rng_for(name)
        ins = ([("A", q(r, dtype, *a_shape))] + params(r, dtype, "A", 0.05) +
               [("B", q(r, dtype, *b_shape))] + params(r, dtype, "B", 0.08) +
               params(r, dtype, "C", 0.11 if op == "QLinearAdd" else 0.3))
        case(name, op, ins, ["C"], constants=[n for n, _ in ins if n not in ("A", "B")])

    for op, tag in (("QLinearAdd", "add"), ("QLinearMul", "mul")):
        qbinary(f"ms_qlinear_{tag}_u8", op, np.uint8, (2, 3, 40), (2, 3, 40))
        qbinary(f"ms_qlinear_{tag}_s8_broadcast", op, np.int8, (2, 3, 8), (8,))
        qbinary(f"ms_qlinear_{tag}_u8_scalar_b", op, np.uint8, (3, 37), (1,))
        qbinary(f"ms_qlinear_{tag}_s8_scalar_a", op, np.int8, (), (3, 37))
        qbinary(f"ms_qlinear_{tag}_u8_column", op, np.uint8, (2, 3, 1), (2, 3, 8))

    def qconcat(name, dtype, shapes, axis):
        r = rng_for(name)
        y = params(r, dtype, "Y", 0.07)
        ins = list(y)
        for i, s in enumerate(shapes):
            ins.append((f"X{i}", q(r, dtype, *s)))
            if i == 1:  # the same parameters as Y: copied, not requantized
                ins += [(f"X{i}_scale", y[0][1].copy()), (f"X{i}_zero_point", y[1][1].copy())]
            else:
                ins += params(r, dtype, f"X{i}", [0.03, 0, 0.2][i])
        case(name, "QLinearConcat", ins, ["Y"], output_dtypes={0: dtype},
             constants=[n for n, _ in ins if "_" in n], axis=axis)

    qconcat("ms_qlinear_concat_u8", np.uint8, [(2, 3, 4), (2, 2, 4), (2, 1, 4)], 1)
    qconcat("ms_qlinear_concat_s8_last_axis", np.int8, [(2, 3), (2, 5), (2, 1)], -1)

    def qpool(name, dtype, shape, channels_last):
        r = rng_for(name)
        ins = ([("X", q(r, dtype, *shape))] + params(r, dtype, "x", 0.04) +
               params(r, dtype, "y", 0.02))
        case(name, "QLinearGlobalAveragePool", ins, ["Y"], constants=[n for n, _ in ins[1:]],
             channels_last=channels_last)

    qpool("ms_qlinear_global_average_pool_u8", np.uint8, (2, 3, 4, 5), 0)
    qpool("ms_qlinear_global_average_pool_s8_channels_last", np.int8, (2, 4, 5, 3), 1)

    def qunary(name, op, dtype, y_scale, shape=(2, 3, 16), **attrs):
        r = rng_for(name)
        ins = ([("X", q(r, dtype, *shape))] + params(r, dtype, "X", 0.05) +
               params(r, dtype, "Y", y_scale))
        case(name, op, ins, ["Y"], constants=[n for n, _ in ins[1:]], **attrs)

    qunary("ms_qlinear_leaky_relu_u8", "QLinearLeakyRelu", np.uint8, 0.03, alpha=0.1)
    qunary("ms_qlinear_leaky_relu_s8", "QLinearLeakyRelu", np.int8, 0.04)
    qunary("ms_qlinear_sigmoid_u8", "QLinearSigmoid", np.uint8, 1 / 256)
    qunary("ms_qlinear_sigmoid_s8", "QLinearSigmoid", np.int8, 1 / 200)

    # QLinearSoftmax: output parameters as the quantization tools choose them (1/256 and 0 for
    # uint8; int8 with 1/255 and -128 keeps every output in range).
    def qsoftmax(name, dtype, shape, opset, **attrs):
        r = rng_for(name)
        info = np.iinfo(dtype)
        ins = ([("X", q(r, dtype, *shape))] + params(r, dtype, "x", 0.06) +
               [("y_scale", scalar(1 / 256 if dtype == np.uint8 else 1 / 255)),
                ("y_zero_point", np.array(info.min, dtype))])
        case(name, "QLinearSoftmax", ins, ["Y"], constants=[n for n, _ in ins[1:]], **attrs)
        cases[-1]["attrs"]["opset"] = opset

    qsoftmax("ms_qlinear_softmax_u8", np.uint8, (2, 3, 10), 13)
    qsoftmax("ms_qlinear_softmax_s8_axis1", np.int8, (2, 5, 3), 13, axis=1)
    # Without an axis attribute both opsets take the last axis (the attribute's default, -1).
    qsoftmax("ms_qlinear_softmax_u8_opset12", np.uint8, (2, 3, 4), 12)
    qsoftmax("ms_qlinear_softmax_u8_opset12_axis1", np.uint8, (2, 3, 4), 12, axis=1)
    qsoftmax("ms_qlinear_softmax_s8_opset12_axis2", np.int8, (2, 3, 4), 12, axis=2)
