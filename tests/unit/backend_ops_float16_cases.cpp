// 16-bit floats on GPU-compute: the float32 kernels computing float16 and bfloat16 nodes
// (widened on the way in, rounded once on the way out, as the CPU kernels compute them), the
// region copies of 16-bit elements, and Where moving them as bits; and MaxPool of 8-bit
// integers. GPU-pixel keeps these dtypes on the CPU.
#include <gtest/gtest.h>

#include "backend_op_cases.h"
#include "backends/gpu_common/device_unary_op.h"

namespace kiln::testing {
namespace {

Tensor to_f16(const Tensor& f) {
  std::vector<Float16> v;
  for (float x : f.to_vector<float>()) v.push_back(Float16(x));
  return Tensor::from_data<Float16>(f.shape(), v);
}

Tensor to_bf16(const Tensor& f) {
  std::vector<BFloat16> v;
  for (float x : f.to_vector<float>()) v.push_back(BFloat16(x));
  return Tensor::from_data<BFloat16>(f.shape(), v);
}

Tensor half(DataType dt, const Shape& shape, unsigned seed, float lo = -2.0f, float hi = 2.0f) {
  const Tensor f = random_f32(shape, seed, lo, hi);
  return dt == DataType::Float16 ? to_f16(f) : to_bf16(f);
}

// Multiples of 1/4 in [-2, 2]: products and sums of a few dozen are exact in float32 in any
// order, so a kernel summing in another order than the CPU's rounds the same value to float16
// (random values would round to either neighbour now and then).
Tensor quarters(DataType dt, const Shape& shape, unsigned seed) {
  const Tensor k = random_int<int32_t>(shape, seed, -8, 8);
  std::vector<float> v;
  for (int32_t x : k.to_vector<int32_t>()) v.push_back(static_cast<float>(x) * 0.25f);
  const Tensor f = Tensor::from_data<float>(shape, v);
  return dt == DataType::Float16 ? to_f16(f) : to_bf16(f);
}

// Values with the special cases in them: NaN, both infinities, both zeros, a subnormal float16
// and values past float16's range (which round to infinity).
Tensor specials(DataType dt) {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor f = f32({3, 4}, {std::nanf(""), inf, -inf, 0.0f, -0.0f, 3e-6f, 1.5f, -2.25f,
                                65504.0f, -7.0f, 0.1f, 1e5f});
  return dt == DataType::Float16 ? to_f16(f) : to_bf16(f);
}

const char* name_of(DataType dt) { return dt == DataType::Float16 ? "float16" : "bfloat16"; }

void push(std::vector<OpCase>& c, std::string name, std::function<OpTest()> make) {
  c.push_back({std::move(name), std::move(make)});
  c.back().on_pixel = false;
}

// Transpose, Slice, Concat, Expand, Tile and DepthToSpace of 16-bit elements, with odd counts
// so that neighbouring elements of one word come from different places.
void add_half_movement_cases(std::vector<OpCase>& c) {
  for (DataType dt : {DataType::Float16, DataType::BFloat16}) {
    const std::string t = name_of(dt);
    push(c, "Half_Transpose_" + t, [dt] {
      return OpTest("Transpose")
          .input(half(dt, {3, 5, 7}, 1))
          .attr("perm", std::vector<int64_t>{2, 0, 1});
    });
    push(c, "Half_Slice_reversed_" + t, [dt] {
      return OpTest("Slice")
          .input(half(dt, {5, 7}, 2))
          .input(i64({2}, {4, 6}))
          .input(i64({2}, {0, -100}))
          .input(i64({2}, {0, 1}))
          .input(i64({2}, {-1, -2}))
          .constant_input(1)
          .constant_input(2)
          .constant_input(3)
          .constant_input(4);
    });
    push(c, "Half_Concat_odd_slices_" + t, [dt] {
      return OpTest("Concat")
          .input(half(dt, {2, 3, 5}, 3))
          .input(half(dt, {2, 1, 5}, 4))
          .input(half(dt, {2, 3, 5}, 5))
          .attr("axis", int64_t{1});
    });
    push(c, "Half_Concat_last_axis_" + t, [dt] {
      return OpTest("Concat")
          .input(half(dt, {3, 1}, 6))
          .input(half(dt, {3, 2}, 7))
          .attr("axis", int64_t{-1});
    });
    push(c, "Half_Expand_" + t, [dt] {
      return OpTest("Expand")
          .input(half(dt, {3, 1}, 8))
          .input(i64({3}, {2, 3, 5}))
          .constant_input(1);
    });
    push(c, "Half_Tile_" + t, [dt] {
      return OpTest("Tile").input(specials(dt)).input(i64({2}, {2, 3})).constant_input(1);
    });
    push(c, "Half_DepthToSpace_" + t, [dt] {
      return OpTest("DepthToSpace")
          .input(half(dt, {1, 8, 3, 1}, 9))
          .attr("blocksize", int64_t{2})
          .attr("mode", "CRD");
    });
    push(c, "Half_Where_" + t, [dt] {
      return OpTest("Where")
          .input(few_values(DataType::Bool, {3, 4}, 10))
          .input(specials(dt))
          .input(half(dt, {4}, 11));
    });
  }
}

// Arithmetic, comparisons and tests, broadcasting, with the special values.
void add_half_elementwise_cases(std::vector<OpCase>& c) {
  for (DataType dt : {DataType::Float16, DataType::BFloat16}) {
    const std::string t = name_of(dt);
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Max", "Min"}) {
      push(c, std::string("Half_") + op + "_" + t,
           [dt, op] { return OpTest(op).input(specials(dt)).input(half(dt, {4}, 12)); });
      push(c, std::string("Half_") + op + "_specials_" + t,
           [dt, op] { return OpTest(op).input(specials(dt)).input(specials(dt)); });
    }
    push(c, "Half_Div_by_zero_" + t,
         [dt] { return OpTest("Div").input(specials(dt)).input(half(dt, {1}, 13, 0.0f, 0.0f)); });
    push(c, "Half_Mod_fmod_" + t, [dt] {
      return OpTest("Mod")
          .input(half(dt, {2, 6}, 14, -9.0f, 9.0f))
          .input(half(dt, {6}, 15, -3.0f, 3.0f))
          .attr("fmod", int64_t{1});
    });
    for (const char* op : {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"}) {
      push(c, std::string("Half_") + op + "_" + t, [dt, op] {
        return OpTest(op).input(specials(dt)).input(specials(dt) /* ties, NaN, zeros */);
      });
    }
    push(c, "Half_Less_broadcast_" + t, [dt] {
      return OpTest("Less").input(specials(dt)).input(half(dt, {3, 1}, 16));
    });
    push(c, "Half_IsNaN_" + t, [dt] { return OpTest("IsNaN").input(specials(dt)); });
    push(c, "Half_IsInf_" + t, [dt] { return OpTest("IsInf").input(specials(dt)); });
    push(c, "Half_IsInf_positive_" + t,
         [dt] { return OpTest("IsInf").input(specials(dt)).attr("detect_negative", int64_t{0}); });
    push(c, "Half_SwiGLU_" + t, [dt] {
      return OpTest("SwiGLU", 26).input(half(dt, {2, 6}, 17)).input(half(dt, {6}, 18));
    });
    push(c, "Half_Celu_" + t, [dt] {
      return OpTest("Celu").input(half(dt, {3, 5}, 19)).attr("alpha", 0.7f);
    });
  }
  // Every unary op of the shared table on float16 (Clip reads its bounds in their own type).
  for (const std::string& op : unary_onnx_types()) {
    if (op == "Clip") continue;
    push(c, "Half_unary_" + op, [op] {
      return OpTest(op, 24).input(half(DataType::Float16, {2, 9}, 20, -3.0f, 3.0f));
    });
  }
  push(c, "Half_unary_specials_Swish",
       [] { return OpTest("Swish", 24).input(specials(DataType::Float16)); });
}

// Lines, reductions and products accumulated in float32, rounded once.
void add_half_reduction_cases(std::vector<OpCase>& c) {
  for (DataType dt : {DataType::Float16, DataType::BFloat16}) {
    const std::string t = name_of(dt);
    for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
      push(c, std::string("Half_") + op + "_" + t, [dt, op] {
        return OpTest(op).input(half(dt, {2, 3, 7}, 21, -4.0f, 4.0f)).attr("axis", int64_t{1});
      });
    }
    for (const char* op :
         {"ReduceMax", "ReduceMin", "ReduceSum", "ReduceMean", "ReduceProd", "ReduceL1", "ReduceL2",
          "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"}) {
      push(c, std::string("Half_") + op + "_" + t, [dt, op] {
        return OpTest(op)
            // Exact sums where the op only adds and multiplies; positive values for the rest.
            .input(std::string(op) == "ReduceL2" || std::string(op).rfind("ReduceLogSum", 0) == 0
                       ? half(dt, {3, 4, 5}, 22, 0.25f, 2.0f)
                       : quarters(dt, {3, 4, 5}, 22))
            .input(i64({1}, {1}))
            .constant_input(1)
            .attr("keepdims", int64_t{0});
      });
    }
    push(c, "Half_ReduceMax_all_" + t, [dt] { return OpTest("ReduceMax").input(specials(dt)); });
    push(c, "Half_ArgMax_" + t, [dt] {
      return OpTest("ArgMax").input(half(dt, {3, 6}, 23)).attr("axis", int64_t{1});
    });
    push(c, "Half_ArgMin_" + t, [dt] {
      return OpTest("ArgMin").input(half(dt, {3, 6}, 24)).attr("axis", int64_t{0});
    });
    push(c, "Half_MatMul_batched_" + t, [dt] {
      return OpTest("MatMul")
          .input(quarters(dt, {2, 1, 3, 8}, 25))
          .input(quarters(dt, {3, 8, 5}, 26));
    });
    push(c, "Half_Gemm_" + t, [dt] {
      return OpTest("Gemm")
          .input(quarters(dt, {4, 6}, 27))
          .input(quarters(dt, {5, 6}, 28))
          .input(quarters(dt, {5}, 29))
          .attr("transB", int64_t{1})
          .attr("alpha", 0.5f);
    });
    push(c, "Half_Conv_" + t, [dt] {
      return OpTest("Conv")
          .input(quarters(dt, {1, 3, 6, 5}, 30))
          .input(quarters(dt, {4, 3, 3, 3}, 31))
          .input(quarters(dt, {4}, 32))
          .attr("pads", std::vector<int64_t>{1, 1, 1, 1});
    });
    push(c, "Half_Conv_1d_grouped_" + t, [dt] {
      return OpTest("Conv")
          .input(quarters(dt, {2, 4, 9}, 33))
          .input(quarters(dt, {4, 1, 3}, 34))
          .attr("group", int64_t{4});
    });
    for (const char* op : {"MaxPool", "AveragePool", "LpPool"}) {
      push(c, std::string("Half_") + op + "_" + t, [dt, op] {
        return OpTest(op)
            .input(half(dt, {1, 2, 5, 6}, 37))
            .attr("kernel_shape", std::vector<int64_t>{3, 2})
            .attr("pads", std::vector<int64_t>{1, 0, 1, 1})
            .attr("strides", std::vector<int64_t>{2, 1});
      });
    }
    for (const char* op : {"GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool"}) {
      push(c, std::string("Half_") + op + "_" + t, [dt, op] {
        return OpTest(op).input(half(dt, {2, 3, 4, 5}, 38));
      });
    }
    push(c, "Half_ConvTranspose_" + t, [dt] {
      return OpTest("ConvTranspose")
          .input(quarters(dt, {1, 2, 4, 3}, 35))
          .input(quarters(dt, {2, 3, 3, 3}, 36))
          .attr("strides", std::vector<int64_t>{2, 2});
    });
  }
}

// DequantizeLinear into the scale's 16-bit type, per axis with a zero point.
void add_half_dequantize_cases(std::vector<OpCase>& c) {
  for (DataType dt : {DataType::Float16, DataType::BFloat16}) {
    push(c, std::string("Half_DequantizeLinear_int8_") + name_of(dt), [dt] {
      return OpTest("DequantizeLinear", 21)
          .input(random_int<int8_t>({3, 7, 4}, 46, -128, 127))
          .input(half(dt, {7}, 47, 0.001f, 30.0f))
          .constant_input(1)
          .input(random_int<int8_t>({7}, 48, -128, 127))
          .constant_input(2)
          .attr("axis", int64_t{1});
    });
  }
}

// MaxPool of 8-bit integers (through float32, exact): padded, strided, dilated windows.
void add_byte_max_pool_cases(std::vector<OpCase>& c) {
  push(c, "MaxPool_uint8", [] {
    return OpTest("MaxPool")
        .input(random_int<uint8_t>({2, 3, 5, 6}, 49, 0, 255))
        .attr("kernel_shape", std::vector<int64_t>{3, 3})
        .attr("pads", std::vector<int64_t>{1, 1, 1, 0})
        .attr("strides", std::vector<int64_t>{2, 1});
  });
  push(c, "MaxPool_int8_dilated", [] {
    return OpTest("MaxPool")
        .input(random_int<int8_t>({1, 2, 7}, 50, -128, 127))
        .attr("kernel_shape", std::vector<int64_t>{2})
        .attr("dilations", std::vector<int64_t>{3})
        .attr("ceil_mode", int64_t{1});
  });
}

REGISTER_OP_CASES(add_half_movement_cases);
REGISTER_OP_CASES(add_byte_max_pool_cases);
REGISTER_OP_CASES(add_half_dequantize_cases);
REGISTER_OP_CASES(add_half_elementwise_cases);
REGISTER_OP_CASES(add_half_reduction_cases);

// Bad 16-bit input is the op's kiln::Error on GPU-compute, as on the CPU.
TEST(GpuComputeFloat16, BadInputIsAnError) {
  const OpTest add = OpTest("Add")
                         .input(half(DataType::Float16, {2, 3}, 40))
                         .input(half(DataType::Float16, {4}, 41));
  const OpTest concat = OpTest("Concat")
                            .input(half(DataType::Float16, {2, 3}, 42))
                            .input(half(DataType::Float16, {3, 3}, 43))
                            .attr("axis", int64_t{1});
  const OpTest matmul = OpTest("MatMul")
                            .input(half(DataType::BFloat16, {2, 3}, 44))
                            .input(half(DataType::BFloat16, {4, 2}, 45));
  for (const OpTest* test : {&add, &concat, &matmul}) {
    try {
      test->run(Backend::GpuCompute);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      if (is_no_device_error(e)) GTEST_SKIP() << e.what();
    }
  }
}

}  // namespace
}  // namespace kiln::testing
