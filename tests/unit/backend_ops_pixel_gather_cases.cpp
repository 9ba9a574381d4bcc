// GPU op harness cases for the indexed reads and writes, the generators and the float tests that
// the GPU-pixel backend draws (indices, depths and bounds as host values), and the errors a bad
// index gives there.
#include <gtest/gtest.h>

#include "backend_op_cases.h"
#include "kiln/error.h"

namespace kiln::testing {
namespace {

// GatherElements and GatherND: every axis, negative indices, indices smaller than the data,
// batch dims, tuples of every length, float32, float16 and int8 data, int32 indices.
void add_pixel_gather_cases(std::vector<OpCase>& c) {
  for (int64_t axis : {0, 1, -1}) {
    c.push_back({"GatherElements_axis" + std::to_string(axis + 1) + "_smaller_indices", [axis] {
                   const Shape data{4, 5, 3};
                   Shape idx{3, 4, 2};
                   const int64_t a = axis < 0 ? axis + 3 : axis;
                   idx[static_cast<size_t>(a)] = 6;
                   const int dim = static_cast<int>(data[static_cast<size_t>(a)]);
                   return OpTest("GatherElements", 13)
                       .input(random_f32(data, 400))
                       .input(random_int<int64_t>(idx, 401, -dim, dim - 1))
                       .attr("axis", axis);
                 }});
  }
  for (DataType dt : {DataType::Float16, DataType::Int8}) {
    c.push_back({"GatherElements_" + std::string(dtype_name(dt)), [dt] {
                   return OpTest("GatherElements", 13)
                       .input(few_values(dt, {3, 4}, 402))
                       .input(Tensor::from_data<int32_t>({3, 2}, {0, -1, 3, 2, -4, 1}))
                       .attr("axis", int64_t{1});
                 }});
    c.back().on_compute = false;  // gpu-compute keeps these dtypes on the CPU
  }
  struct NdCase {
    int64_t batch_dims, k;
  };
  for (const NdCase& n :
       {NdCase{0, 1}, NdCase{0, 2}, NdCase{0, 3}, NdCase{1, 1}, NdCase{1, 2}, NdCase{2, 1}}) {
    c.push_back(
        {"GatherND_pixel_batch" + std::to_string(n.batch_dims) + "_k" + std::to_string(n.k), [n] {
           const Shape data{3, 4, 5};
           Shape idx(data.begin(), data.begin() + n.batch_dims);
           idx.push_back(2);
           idx.push_back(n.k);
           return OpTest("GatherND", 13)
               .input(random_f32(data, 403))
               .input(random_int<int64_t>(idx, 404, -3, 2))
               .attr("batch_dims", n.batch_dims);
         }});
  }
  c.push_back({"GatherND_pixel_int32_indices_opset11", [] {
                 return OpTest("GatherND", 11)
                     .input(random_f32({4, 6}, 405))
                     .input(random_int<int32_t>({3, 2}, 406, -4, 3));
               }});
}

// The scatters: every reduction with duplicate and negative indices (applied in the CPU's
// order), every axis, indices smaller than data, ScatterND over element, row and slice tuples,
// the deprecated Scatter, and float16 data without a reduction.
void add_pixel_scatter_cases(std::vector<OpCase>& c) {
  for (const char* reduction : {"none", "add", "mul", "max", "min"}) {
    for (int64_t axis : {0, 1, -1}) {
      c.push_back({"ScatterElements_pixel_axis" + std::to_string(axis + 1) + "_" + reduction,
                   [reduction, axis] {
                     const Shape data{4, 5, 3};
                     Shape idx{3, 4, 2};
                     const int64_t a = axis < 0 ? axis + 3 : axis;
                     idx[static_cast<size_t>(a)] = 7;  // 7 updates per line of 3 to 5 slots
                     const int dim = static_cast<int>(data[static_cast<size_t>(a)]);
                     return OpTest("ScatterElements", 18)
                         .input(random_f32(data, 410))
                         .input(random_int<int64_t>(idx, 411, -dim, dim - 1))
                         .input(random_f32(idx, 412))
                         .attr("axis", axis)
                         .attr("reduction", reduction);
                   }});
    }
    for (int64_t k : {1, 2, 3}) {
      c.push_back({"ScatterND_pixel_k" + std::to_string(k) + "_" + reduction, [reduction, k] {
                     const Shape data{4, 3, 5};
                     Shape idx{6, k};
                     Shape upd{6};
                     for (int64_t d = k; d < 3; ++d) upd.push_back(data[static_cast<size_t>(d)]);
                     return OpTest("ScatterND", 18)
                         .input(random_f32(data, 413))
                         .input(random_int<int64_t>(idx, 414, -3, 2))
                         .input(random_f32(upd, 415))
                         .attr("reduction", reduction);
                   }});
    }
  }
  // NaN updates win a max or min, as on the CPU.
  for (const char* reduction : {"max", "min"}) {
    c.push_back({std::string("ScatterElements_pixel_nan_") + reduction, [reduction] {
                   return OpTest("ScatterElements", 18)
                       .input(few_values(DataType::Float32, {2, 4}, 416))
                       .input(i64({2, 4}, {1, 1, 0, 3, 2, 2, 2, 0}))
                       .input(few_values(DataType::Float32, {2, 4}, 417))
                       .attr("axis", int64_t{1})
                       .attr("reduction", reduction);
                 }});
  }
  c.push_back({"Scatter_pixel_opset10", [] {
                 return OpTest("Scatter", 10)
                     .input(random_f32({3, 6}, 418))
                     .input(i64({3, 2}, {0, 5, -1, 2, 3, 4}))
                     .input(random_f32({3, 2}, 419))
                     .attr("axis", int64_t{1});
               }});
  c.push_back({"ScatterND_pixel_float16", [] {
                 return OpTest("ScatterND", 13)
                     .input(few_values(DataType::Float16, {4, 3}, 420))
                     .input(i64({2, 1}, {2, -4}))
                     .input(few_values(DataType::Float16, {2, 3}, 421));
               }});
  c.back().on_compute = false;  // gpu-compute keeps float16 scatters on the CPU
  c.push_back({"ScatterElements_pixel_int32_indices", [] {
                 return OpTest("ScatterElements", 18)
                     .input(random_f32({5, 4}, 422))
                     .input(random_int<int32_t>({2, 4}, 423, -5, 4))
                     .input(random_f32({2, 4}, 424))
                     .attr("reduction", "add");
               }});
}

// IsNaN and IsInf on float32 and float16 specials (NaN of either sign, infinities, the largest
// finite values), every pair of IsInf's detect flags.
void add_pixel_float_test_cases(std::vector<OpCase>& c) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> specials = {1.0f,  inf, -inf,  std::nanf(""),  0.0f,
                                       -3.0f, inf, 3e38f, -std::nanf(""), -65504.0f};
  for (DataType dt : {DataType::Float32, DataType::Float16}) {
    const std::string type(dtype_name(dt));
    auto x = [specials, dt] {
      if (dt == DataType::Float32) return Tensor::from_data<float>({2, 5}, specials);
      std::vector<Float16> h;
      for (float v : specials) h.push_back(Float16(v == 3e38f ? 65504.0f : v));
      return Tensor::from_data<Float16>({2, 5}, h);
    };
    c.push_back({"IsNaN_pixel_" + type, [x] { return OpTest("IsNaN", 20).input(x()); }});
    c.back().on_compute = dt == DataType::Float32;
    for (int64_t positive : {0, 1}) {
      for (int64_t negative : {0, 1}) {
        c.push_back({"IsInf_pixel_" + type + "_pos" + std::to_string(positive) + "_neg" +
                         std::to_string(negative),
                     [x, positive, negative] {
                       return OpTest("IsInf", 20)
                           .input(x())
                           .attr("detect_positive", positive)
                           .attr("detect_negative", negative);
                     }});
        c.back().on_compute = dt == DataType::Float32;
      }
    }
  }
}

// EyeLike (the input gives the shape), the cosine windows, Range (float32, float16, bfloat16,
// empty and negative steps), OneHot (int64 and float32 indices: negative, out of range,
// fractional, NaN; every axis) and Constant.
void add_pixel_generated_cases(std::vector<OpCase>& c) {
  for (const auto& [name, k, dtype] : std::vector<std::tuple<std::string, int64_t, int64_t>>{
           {"float32", 0, 0},
           {"k2_float16", 2, static_cast<int64_t>(DataType::Float16)},
           {"k_minus1_bool", -1, static_cast<int64_t>(DataType::Bool)},
           {"k_outside", -9, 0}}) {
    c.push_back({"EyeLike_pixel_" + name, [k = k, dtype = dtype] {
                   OpTest t("EyeLike", 9);
                   t.input(random_f32({4, 6}, 440)).attr("k", k);
                   if (dtype != 0) t.attr("dtype", dtype);
                   return t;
                 }});
    c.back().on_compute = dtype == 0;
  }
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"}) {
    for (int64_t periodic : {0, 1}) {
      for (int64_t size : {1, 10, 33}) {
        c.push_back({std::string(op) + "_pixel" + (periodic ? "_periodic_" : "_symmetric_") +
                         std::to_string(size),
                     [op, periodic, size] {
                       return OpTest(op, 17).input(i64({}, {size})).attr("periodic", periodic);
                     }});
      }
    }
  }
  struct RangeCase {
    const char* name;
    float start, limit, delta;
  };
  for (const RangeCase& rc :
       {RangeCase{"up", 1.5f, 9.0f, 0.75f}, RangeCase{"down", 4.0f, -3.0f, -1.25f},
        RangeCase{"empty", 2.0f, 1.0f, 0.5f}}) {
    for (DataType dt : {DataType::Float32, DataType::Float16, DataType::BFloat16}) {
      c.push_back(
          {std::string("Range_pixel_") + rc.name + "_" + std::string(dtype_name(dt)), [rc, dt] {
             auto scalar = [dt](float v) {
               if (dt == DataType::Float32) return Tensor::scalar<float>(v);
               if (dt == DataType::Float16) return Tensor::scalar<Float16>(Float16(v));
               return Tensor::scalar<BFloat16>(BFloat16(v));
             };
             return OpTest("Range", 11)
                 .input(scalar(rc.start))
                 .input(scalar(rc.limit))
                 .input(scalar(rc.delta));
           }});
      c.back().on_compute = false;  // gpu-compute has no Range kernel
    }
  }
  const Tensor int_indices = i64({2, 3}, {0, -1, 5, 6, -6, 2});
  const Tensor float_indices = f32({2, 6}, {0.0f, 2.7f, -1.2f, std::nanf(""), 9.0f, -7.0f, 4.999f,
                                            -0.5f, 3.0f, 1e10f, -6.0f, -3e9f});
  for (const auto& [name, idx] : std::vector<std::pair<std::string, Tensor>>{
           {"int64", int_indices}, {"float32", float_indices}}) {
    for (int64_t axis : {0, 1, -1}) {
      c.push_back({"OneHot_pixel_" + name + "_axis" + std::to_string(axis + 1), [idx = idx, axis] {
                     return OpTest("OneHot", 11)
                         .input(idx)
                         .input(axis == 0 ? f32({}, {6.7f}) : i64({}, {6}))
                         .input(f32({2}, {-0.5f, 2.25f}))
                         .constant_input(1)
                         .attr("axis", axis);
                   }});
    }
  }
  c.push_back({"Constant_pixel_value", [] {
                 return OpTest("Constant").attr("value", random_f32({3, 4}, 441));
               }});
  c.back().on_compute = false;  // gpu-compute keeps Constant on the CPU
  c.push_back(
      {"Constant_pixel_value_floats", [] {
         return OpTest("Constant", 13).attr("value_floats", std::vector<float>{1.5f, -2.0f, 0.25f});
       }});
  c.back().on_compute = false;
}

// Compress with a host condition: along an axis, shorter than it, and flattened (no axis).
void add_pixel_compress_cases(std::vector<OpCase>& c) {
  for (int64_t axis : {0, 1, -1, 99}) {
    c.push_back(
        {"Compress_pixel_axis" + (axis == 99 ? std::string("_none") : std::to_string(axis + 1)),
         [axis] {
           OpTest t("Compress", 11);
           t.input(random_f32({3, 4, 3}, 450))
               .input(Tensor::from_data<bool>({3}, {true, false, true}));
           if (axis != 99) t.attr("axis", axis);
           return t;
         }});
    c.back().on_compute = false;  // gpu-compute has no Compress kernel
  }
}

// Clip whose bounds are graph inputs (one-element textures): NaN passes, min > max gives max, a
// NaN bound is ignored, one bound only.
void add_pixel_clip_cases(std::vector<OpCase>& c) {
  auto x = [] {
    Tensor t = random_f32({3, 7}, 460, -3.0f, 3.0f);
    t.mutable_data<float>()[4] = std::nanf("");
    t.mutable_data<float>()[5] = -std::numeric_limits<float>::infinity();
    return t;
  };
  const std::vector<std::tuple<std::string, Tensor, Tensor>> bounds = {
      {"both", Tensor::scalar<float>(-0.5f), Tensor::from_data<float>({1}, {0.75f})},
      {"min_above_max", Tensor::scalar<float>(1.0f), Tensor::scalar<float>(-1.0f)},
      {"nan_min", Tensor::scalar<float>(std::nanf("")), Tensor::scalar<float>(0.5f)},
      {"min_only", Tensor::scalar<float>(0.25f), Tensor()},
      {"max_only", Tensor(), Tensor::scalar<float>(0.25f)}};
  for (const auto& [name, lo, hi] : bounds) {
    c.push_back({"Clip_pixel_bound_inputs_" + name, [x, lo = lo, hi = hi] {
                   return OpTest("Clip", 13).input(x()).input(lo).input(hi);
                 }});
  }
}

// Clip of the small integers and float16 (bounds as inputs of X's dtype, or none): the result is
// always one of the input values.
void add_pixel_clip_texel_cases(std::vector<OpCase>& c) {
  for (DataType dt : {DataType::Int8, DataType::UInt8, DataType::Int16, DataType::Float16}) {
    const std::string type(dtype_name(dt));
    c.push_back({"Clip_pixel_" + type, [dt] {
                   return OpTest("Clip", 13)
                       .input(few_values(dt, {3, 5}, 480))
                       .input(few_values(dt, {}, 481))
                       .input(few_values(dt, {1}, 482));
                 }});
    c.back().on_compute = dt != DataType::Float16 && dt != DataType::Int16;
    c.push_back({"Clip_pixel_" + type + "_no_bounds",
                 [dt] { return OpTest("Clip", 13).input(few_values(dt, {9}, 483)); }});
    c.back().on_compute = dt != DataType::Float16 && dt != DataType::Int16;
  }
}

// 3-D pools: pads, strides, dilations, ceil_mode, auto_pad, count_include_pad, p = 1, 2, 3.
void add_pixel_pool_3d_cases(std::vector<OpCase>& c) {
  struct Pool3dCase {
    Shape x;
    std::vector<int64_t> kernel, strides, dilations, pads;
    int64_t ceil_mode;
    const char* auto_pad;
  };
  const std::vector<Pool3dCase> pools = {
      {{1, 2, 5, 6, 7}, {2, 3, 2}, {2, 1, 2}, {1, 1, 2}, {1, 0, 1, 0, 1, 1}, 1, nullptr},
      {{2, 1, 6, 5, 4}, {3, 3, 3}, {1, 2, 1}, {1, 1, 1}, {}, 0, "SAME_UPPER"},
      {{1, 1, 8, 8, 8}, {2, 2, 2}, {1, 1, 1}, {2, 2, 2}, {0, 0, 0, 0, 0, 0}, 0, nullptr}};
  for (size_t i = 0; i < pools.size(); ++i) {
    for (const char* op : {"MaxPool", "AveragePool", "AveragePool_include_pad", "LpPool_1",
                           "LpPool_2", "LpPool_3"}) {
      c.push_back({std::string(op) + "_pixel_3d_" + std::to_string(i), [op, k = pools[i], i] {
                     const std::string name(op);
                     OpTest t(name.substr(0, name.find('_')));
                     t.input(random_f32(k.x, 470 + static_cast<unsigned>(i)))
                         .attr("kernel_shape", k.kernel)
                         .attr("strides", k.strides)
                         .attr("dilations", k.dilations)
                         .attr("ceil_mode", k.ceil_mode);
                     if (!k.pads.empty()) t.attr("pads", k.pads);
                     if (k.auto_pad) t.attr("auto_pad", k.auto_pad);
                     if (name == "AveragePool_include_pad") t.attr("count_include_pad", int64_t{1});
                     if (name.rfind("LpPool_", 0) == 0) t.attr("p", int64_t{name.back() - '0'});
                     return t;
                   }});
    }
  }
}

REGISTER_OP_CASES(add_pixel_gather_cases);
REGISTER_OP_CASES(add_pixel_scatter_cases);
REGISTER_OP_CASES(add_pixel_float_test_cases);
REGISTER_OP_CASES(add_pixel_generated_cases);
REGISTER_OP_CASES(add_pixel_compress_cases);
REGISTER_OP_CASES(add_pixel_clip_cases);
REGISTER_OP_CASES(add_pixel_clip_texel_cases);
REGISTER_OP_CASES(add_pixel_pool_3d_cases);

// Runs `test` on the GPU-pixel backend and returns the kiln::Error's message: "" without a
// device, "no error" when it ran.
std::string pixel_error(const OpTest& test) {
  try {
    test.run(Backend::GpuPixel);
  } catch (const Error& e) {
    const std::string message = e.what();
    if (message.find("no OpenGL ES device") != std::string::npos) return "";
    return message;
  }
  return "no error";
}

TEST(GpuPixelIndexedOps, AnIndexOutOfRangeIsAnErrorNamingTheNode) {
  const std::vector<OpTest> bad = {
      OpTest("GatherElements", 13)
          .input(random_f32({2, 3}, 430))
          .input(i64({2, 1}, {0, 3}))
          .attr("axis", int64_t{1}),
      OpTest("GatherND", 13).input(random_f32({2, 3}, 431)).input(i64({1, 2}, {1, -4})),
      OpTest("ScatterElements", 18)
          .input(random_f32({2, 3}, 432))
          .input(i64({1, 2}, {2, -3}))
          .input(random_f32({1, 2}, 433))
          .attr("reduction", "add"),
      OpTest("ScatterND", 18)
          .input(random_f32({2, 3}, 434))
          .input(i64({1, 1}, {2}))
          .input(random_f32({1, 3}, 435))};
  const char* op_types[] = {"GatherElements", "GatherND", "ScatterElements", "ScatterND"};
  for (size_t i = 0; i < bad.size(); ++i) {
    const std::string message = pixel_error(bad[i]);
    if (message.empty()) GTEST_SKIP() << "no OpenGL ES device";
    EXPECT_NE(message.find(op_types[i]), std::string::npos) << message;
    EXPECT_NE(message.find("out of range"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace kiln::testing
