// One harness for every GPU backend: each op runs as a one-node model over shapes, broadcasts
// and dtypes on the backend and on the CPU (the reference), the results must agree, and the
// node must have run natively on the backend (not quietly on the CPU fallback).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "backend_op_cases.h"
#include "backends/gpu_common/device_unary_op.h"
#include "cast_sources.h"
#include "kernels/device_backend.h"
#include "test_util.h"
#if KILN_GPU_COMPUTE
#include "backends/gpu_compute/device.h"
#include "gpu_compute_fixture.h"
#endif

namespace kiln::testing {
namespace {

// The dtypes GPU-pixel keeps in float textures besides float32 (float16, bfloat16, float8, bool,
// 8-, 16- and 4-bit integers), most of which GPU-compute leaves to the CPU: Cast between each pair
// (saturation, wrapping, NaN, float16 rounding ties and overflow, float8 with and without
// saturate), the comparisons (NaN, -inf, negative values), Where, data movement and float16
// arithmetic. Non-float32 results are compared bit for bit.
void add_texel_dtype_cases(std::vector<OpCase>& c) {
  const size_t first = c.size();
  const DataType texel[] = {
      DataType::Float32, DataType::Float16, DataType::BFloat16, DataType::Bool, DataType::Int8,
      DataType::UInt8,   DataType::Int16,   DataType::UInt16,   DataType::Int4, DataType::UInt4};
  auto small_int = [](DataType t) {
    return t == DataType::Int8 || t == DataType::UInt8 || t == DataType::Int16 ||
           t == DataType::UInt16 || t == DataType::Int4 || t == DataType::UInt4;
  };

  for (DataType from : texel) {
    for (DataType to : texel) {
      if (!small_int(from) && !small_int(to)) continue;  // among the Cast cases above
      c.push_back(
          {"Texel_Cast_" + std::string(dtype_name(from)) + "_to_" + std::string(dtype_name(to)),
           [from, to] {
             return OpTest("Cast").input(cast_source(from)).attr("to", static_cast<int64_t>(to));
           }});
    }
  }
  // float8: from float32's edges (beyond each type's range, inf, NaN, ties), saturating and not,
  // and back.
  for (DataType f8 : {DataType::Float8E4M3FN, DataType::Float8E4M3FNUZ, DataType::Float8E5M2,
                      DataType::Float8E5M2FNUZ}) {
    for (int64_t saturate : {1, 0}) {
      c.push_back({"Texel_Cast_float32_to_" + std::string(dtype_name(f8)) + "_saturate" +
                       std::to_string(saturate),
                   [f8, saturate] {
                     std::vector<float> v = cast_source(DataType::Float32).to_vector<float>();
                     for (float x : {448.0f, 464.0f, 480.0f, 57344.0f, 61440.0f, 0.0009765625f,
                                     0.001953125f, 1.0625f, 1.1875f, -3.5e-3f, 1e-6f, 240.0f}) {
                       v.push_back(x);
                       v.push_back(-x);
                     }
                     return OpTest("Cast", 21)
                         .input(Tensor::from_data<float>({static_cast<int64_t>(v.size())}, v))
                         .attr("to", static_cast<int64_t>(f8))
                         .attr("saturate", saturate);
                   }});
    }
    c.push_back({"Texel_Cast_" + std::string(dtype_name(f8)) + "_to_float16", [f8] {
                   Tensor x = Tensor::zeros(f8, {256});
                   auto* bits = static_cast<uint8_t*>(x.mutable_raw_data());
                   for (int i = 0; i < 256; ++i) bits[i] = static_cast<uint8_t>(i);
                   return OpTest("Cast", 21).input(x).attr("to", int64_t{10});
                 }});
  }
  c.push_back({"Texel_CastLike_int16_to_uint8", [] {
                 return OpTest("CastLike")
                     .input(cast_source(DataType::Int16))
                     .input(cast_source(DataType::UInt8));
               }});
  const std::vector<std::pair<Shape, Shape>> pairs = {{{13}, {13}}, {{3, 1}, {1, 7}}, {{}, {6}}};
  for (const char* op : {"Equal", "Less", "GreaterOrEqual"}) {
    for (DataType dt : {DataType::Float16, DataType::Int8, DataType::UInt8, DataType::Int16,
                        DataType::UInt16, DataType::Bool}) {
      if (dt == DataType::Bool && std::string(op) != "Equal") continue;  // not an ONNX type there
      for (size_t i = 0; i < pairs.size(); ++i) {
        c.push_back({"Texel_" + std::string(op) + "_" + std::string(dtype_name(dt)) + "_" +
                         std::to_string(i),
                     [op, dt, p = pairs[i], i] {
                       return OpTest(op)
                           .input(few_values(dt, p.first, 230 + i))
                           .input(few_values(dt, p.second, 240 + i));
                     }});
      }
    }
  }
  for (DataType dt : {DataType::Float16, DataType::Int8, DataType::UInt16, DataType::Bool}) {
    c.push_back({"Texel_Where_" + std::string(dtype_name(dt)), [dt] {
                   return OpTest("Where")
                       .input(few_values(DataType::Bool, {3, 1, 5}, 250))
                       .input(few_values(dt, {4, 1}, 251))
                       .input(few_values(dt, {1, 4, 5}, 252));
                 }});
    c.push_back({"Texel_Transpose_" + std::string(dtype_name(dt)), [dt] {
                   return OpTest("Transpose")
                       .input(few_values(dt, {2, 3, 5}, 253))
                       .attr("perm", std::vector<int64_t>{2, 0, 1});
                 }});
    c.push_back({"Texel_Concat_" + std::string(dtype_name(dt)), [dt] {
                   return OpTest("Concat")
                       .input(few_values(dt, {2, 3}, 254))
                       .input(few_values(dt, {2, 5}, 255))
                       .attr("axis", int64_t{1});
                 }});
  }
  // float16 arithmetic: computed in float32, rounded once to half precision, as on the CPU.
  auto halves = [](const Shape& shape, unsigned seed) {
    const Tensor f = random_f32(shape, seed, -3.0f, 3.0f);
    std::vector<Float16> v;
    for (float x : f.to_vector<float>()) v.push_back(Float16(x));
    return Tensor::from_data<Float16>(shape, v);
  };
  for (const char* op : {"Add", "Sub", "Mul", "Max", "Min"}) {
    c.push_back({std::string("Texel_") + op + "_float16", [op, halves] {
                   return OpTest(op).input(halves({3, 1, 5}, 256)).input(halves({4, 5}, 257));
                 }});
  }
  for (const char* op : {"Relu", "Neg", "Abs", "Floor"}) {
    c.push_back({std::string("Texel_") + op + "_float16", [op, halves] {
                   return OpTest(op).input(halves({2, 7}, 258));
                 }});
  }
  c.push_back({"Texel_Pad_int16_constant", [] {
                 return OpTest("Pad")
                     .input(cast_source(DataType::Int16))
                     .input(i64({2}, {2, 3}))
                     .input(Tensor::from_data<int16_t>({}, {-32768}))
                     .constant_input(1)
                     .constant_input(2);
               }});
  c.push_back({"Texel_ConstantOfShape_uint8", [] {
                 return OpTest("ConstantOfShape")
                     .input(i64({2}, {3, 5}))
                     .attr("value", Tensor::from_data<uint8_t>({1}, {255}));
               }});
  for (size_t i = first; i < c.size(); ++i) c[i].on_compute = false;
}

// LSTM: every direction, optional input and output combination the step kernels take; hidden
// sizes that are and are not a multiple of 4 (the pixel kernel reads R a texel at a time when
// they are). W, R and B are initializers as in exported models; initial states are graph inputs.
struct LstmCase {
  std::string name;
  std::string direction = "forward";
  int64_t seq = 3, batch = 1, input = 4, hidden = 5;
  bool bias = false, initial_h = false, initial_c = false, peepholes = false;
  bool full_sequence_lens = false;  // sequence_lens given, every entry equal to seq
  int outputs = 3;
  bool y = true;           // false: Y left out, Y_h and Y_c only
  bool on_compute = true;  // the GPU-compute kernel falls back for an empty sequence
};

// Attention (opset 23, 24) on both GPU backends: each layout, head grouping, mask form, the cache
// and every scores output. Key lengths of 70 and more span several workgroup strides of the
// Vulkan shader's key loop.
struct AttentionCase {
  std::string name;
  bool packed = false;  // 3-D inputs
  int64_t batch = 2, q_heads = 4, kv_heads = 2, q_len = 3, kv_len = 5, past = 0;
  int64_t head = 8, v_head = 8;
  Shape mask;  // empty: none
  bool bool_mask = false;
  bool causal = false;
  float scale = 0, softcap = 0;  // 0: the attribute is left out
  int scores_mode = -1;          // -1: no scores output
  bool nonpad = false;           // opset 24's nonpad_kv_seqlen
  bool fp16 = false;             // float16 operands, mask and outputs
};

void add_attention_cases(std::vector<OpCase>& c) {
  std::vector<AttentionCase> cases = {
      {.name = "4d"},
      {.name = "4d_mha", .kv_heads = 4},
      {.name = "4d_long_keys", .batch = 1, .q_len = 2, .kv_len = 150, .head = 16, .v_head = 12},
      {.name = "4d_diff_head_sizes", .v_head = 5},
      {.name = "3d", .packed = true},
      {.name = "3d_gqa_causal_mask", .packed = true, .mask = {3, 5}, .causal = true},
      {.name = "4d_float_mask_4d", .mask = {2, 4, 3, 5}},
      {.name = "4d_float_mask_broadcast", .mask = {2, 1, 1, 5}},
      {.name = "4d_float_mask_short", .mask = {3, 4}},
      {.name = "4d_bool_mask", .mask = {1, 4, 3, 5}, .bool_mask = true},
      {.name = "4d_bool_mask_causal_past",
       .past = 4,
       .mask = {3, 9},
       .bool_mask = true,
       .causal = true},
      {.name = "4d_causal", .q_len = 5, .causal = true},
      {.name = "4d_scaled_softcap", .scale = 0.7f, .softcap = 2.0f},
      {.name = "4d_past", .past = 6},
      {.name = "3d_past_causal",
       .packed = true,
       .q_len = 1,
       .kv_len = 1,
       .past = 70,
       .causal = true},
      {.name = "4d_nonpad_causal",
       .batch = 3,
       .q_len = 2,
       .kv_len = 7,
       .causal = true,
       .nonpad = true},
  };
  cases.push_back({.name = "4d_fp16_past_mask_probs",
                   .past = 3,
                   .mask = {3, 8},
                   .scores_mode = 3,
                   .fp16 = true});
  for (int mode = 0; mode < 4; ++mode) {
    cases.push_back({.name = "4d_scores_mode" + std::to_string(mode),
                     .past = 2,
                     .mask = {3, 7},
                     .softcap = 3.0f,
                     .scores_mode = mode});
  }
  for (const AttentionCase& a : cases) {
    OpCase op{"Attention_" + a.name,
              [a] {
                OpTest t("Attention", a.nonpad ? 24 : 23);
                // The float32 values, rounded to float16 for the float16 cases.
                auto values = [&](const Shape& s, unsigned seed) {
                  const Tensor f = random_f32(s, seed);
                  if (!a.fp16) return f;
                  std::vector<Float16> h;
                  for (float v : f.to_vector<float>()) h.push_back(Float16(v));
                  return Tensor::from_data<Float16>(s, h);
                };
                auto operand = [&](int64_t heads, int64_t seq, int64_t size, unsigned seed) {
                  const Shape s = a.packed ? Shape{a.batch, seq, heads * size}
                                           : Shape{a.batch, heads, seq, size};
                  return values(s, seed);
                };
                t.input(operand(a.q_heads, a.q_len, a.head, 200))
                    .input(operand(a.kv_heads, a.kv_len, a.head, 201))
                    .input(operand(a.kv_heads, a.kv_len, a.v_head, 202));
                if (a.mask.empty()) {
                  t.input(Tensor());
                } else if (a.bool_mask) {
                  // Every row keeps its first key visible, so some row is partly hidden and
                  // none wholly (a wholly hidden row is the fully-masked case below).
                  Tensor m = few_values(DataType::Bool, a.mask, 203);
                  bool* v = m.mutable_data<bool>();
                  for (int64_t i = 0; i < m.element_count(); i += a.mask.back()) v[i] = true;
                  t.input(m);
                } else {
                  t.input(values(a.mask, 203));
                }
                if (a.past > 0) {
                  t.input(values({a.batch, a.kv_heads, a.past, a.head}, 204))
                      .input(values({a.batch, a.kv_heads, a.past, a.v_head}, 205));
                } else {
                  t.input(Tensor()).input(Tensor());
                }
                if (a.nonpad) {
                  std::vector<int64_t> lengths;
                  for (int64_t b = 0; b < a.batch; ++b) lengths.push_back(a.kv_len - 2 * b);
                  t.input(Tensor::from_data<int64_t>({a.batch}, lengths));
                }
                if (a.packed) t.attr("q_num_heads", a.q_heads).attr("kv_num_heads", a.kv_heads);
                if (a.causal) t.attr("is_causal", int64_t{1});
                if (a.scale != 0) t.attr("scale", a.scale);
                if (a.softcap != 0) t.attr("softcap", a.softcap);
                if (a.scores_mode >= 0) {
                  t.outputs(4).attr("qk_matmul_output_mode", int64_t{a.scores_mode});
                } else if (a.past > 0) {
                  t.outputs(3);
                }
                return t;
              },
              1e-4, 1e-5};
    c.push_back(op);
  }
  // RotaryEmbedding (opset 23): both layouts, both pairings, a partial rotation, and caches
  // indexed by position_ids or holding a row per token.
  for (bool packed : {false, true}) {
    for (bool interleaved : {false, true}) {
      for (int64_t dim : {0, 6}) {
        for (bool ids : {true, false}) {
          OpCase rot{std::string("RotaryEmbedding_") + (packed ? "3d" : "4d") +
                         (interleaved ? "_interleaved" : "") + "_dim" + std::to_string(dim) +
                         (ids ? "_ids" : "_rows"),
                     [=] {
                       const int64_t batch = 2, heads = 3, seq = 4, head = 10;
                       const int64_t half = (dim == 0 ? head : dim) / 2;
                       const Shape x = packed ? Shape{batch, seq, heads * head}
                                              : Shape{batch, heads, seq, head};
                       const Shape cache = ids ? Shape{20, half} : Shape{batch, seq, half};
                       OpTest t("RotaryEmbedding", 23);
                       t.input(random_f32(x, 210))
                           .input(random_f32(cache, 211, -1.0f, 1.0f))
                           .input(random_f32(cache, 212, -1.0f, 1.0f));
                       if (ids) {
                         t.input(random_int<int64_t>({batch, seq}, 213, 0, 19));
                       }
                       if (packed) t.attr("num_heads", heads);
                       if (interleaved) t.attr("interleaved", int64_t{1});
                       if (dim != 0) t.attr("rotary_embedding_dim", dim);
                       return t;
                     }};
          c.push_back(rot);
        }
      }
    }
  }
  // A row the mask hides wholly attends to nothing: probabilities and output zero, not NaN.
  OpCase hidden{
      "Attention_fully_masked_row", [] {
        return OpTest("Attention", 23)
            .input(random_f32({1, 2, 3, 8}, 206))
            .input(random_f32({1, 2, 4, 8}, 207))
            .input(random_f32({1, 2, 4, 8}, 208))
            .input(Tensor::from_data<bool>({3, 4}, {true, false, true, true, false, false, false,
                                                    false, true, true, false, true}))
            .outputs(4)
            .attr("qk_matmul_output_mode", int64_t{3});
      }};
  c.push_back(hidden);
}

// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: every reduction, with and without
// weights, an ignore_index among the targets (negative too), int32 and int64 targets, spatial
// dimensions, more samples than the reducing workgroup (and than one chunk of the GPU-pixel
// sums), a mean over only ignored samples (NaN), and SoftmaxCrossEntropyLoss's log_prob output.
void add_loss_cases(std::vector<OpCase>& c) {
  struct LossCase {
    std::string name;
    Shape x;
    const char* reduction = "mean";
    bool weight = false;
    std::optional<int64_t> ignore_index;
    DataType target_type = DataType::Int64;
    bool all_ignored = false;
  };
  const std::vector<LossCase> losses = {
      {.name = "none", .x = {3, 5}, .reduction = "none"},
      {.name = "sum_weight", .x = {3, 5}, .reduction = "sum", .weight = true},
      {.name = "mean", .x = {4, 6}},
      {.name = "mean_weight_ii_int32",
       .x = {2, 4, 3, 2},
       .weight = true,
       .ignore_index = 1,
       .target_type = DataType::Int32},
      {.name = "none_weight_negative_ii",
       .x = {2, 3, 4, 5},
       .reduction = "none",
       .weight = true,
       .ignore_index = -1},
      {.name = "sum_many_samples", .x = {4, 7, 300}, .reduction = "sum", .ignore_index = 2},
      {.name = "mean_weight_many_samples", .x = {3, 5, 211}, .weight = true},
      {.name = "mean_all_ignored", .x = {2, 3}, .ignore_index = 2, .all_ignored = true},
  };
  for (const LossCase& l : losses) {
    for (const char* op : {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}) {
      for (int outputs : {1, 2}) {
        const bool sce = std::string(op) == "SoftmaxCrossEntropyLoss";
        if (!sce && outputs == 2) continue;
        c.push_back({std::string(sce ? "SCELoss_" : "NLLLoss_") + l.name +
                         (outputs == 2 ? "_log_prob" : ""),
                     [l, op, outputs] {
                       const int64_t classes = l.x[1];
                       Shape t_shape = l.x;
                       t_shape.erase(1);
                       const int lo = l.ignore_index && *l.ignore_index < 0 ? -1 : 0;
                       Tensor target = random_int<int64_t>(t_shape, 190, lo, int(classes) - 1);
                       if (l.all_ignored) {
                         std::vector<int64_t> v(static_cast<size_t>(t_shape.element_count()),
                                                *l.ignore_index);
                         target = i64(t_shape, v);
                       }
                       if (l.target_type == DataType::Int32) {
                         target = random_int<int32_t>(t_shape, 190, lo, int(classes) - 1);
                       }
                       OpTest t(op);
                       t.input(random_f32(l.x, 191, -4.0f, 1.0f)).input(target);
                       if (l.weight) t.input(random_f32({classes}, 192, 0.1f, 2.0f));
                       t.attr("reduction", l.reduction).outputs(outputs);
                       if (l.ignore_index) t.attr("ignore_index", *l.ignore_index);
                       return t;
                     }});
      }
    }
  }
}

// GridSample: every mode, padding and align_corners over 2-D and 3-D inputs
// with several channels and batches, and grid positions well outside [-1, 1].
void add_grid_sample_cases(std::vector<OpCase>& c) {
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    for (const char* padding : {"zeros", "border", "reflection"}) {
      for (int64_t align : {0, 1}) {
        for (int spatial : {2, 3}) {
          if (spatial == 3 && std::string(mode) == "cubic") continue;  // 64 taps: the CPU's too
          c.push_back({"GridSample_" + std::string(mode) + "_" + padding + "_align" +
                           std::to_string(align) + "_" + std::to_string(spatial) + "d",
                       [mode, padding, align, spatial] {
                         const Shape x = spatial == 2 ? Shape{2, 3, 5, 4} : Shape{2, 2, 3, 4, 5};
                         const Shape g = spatial == 2 ? Shape{2, 6, 7, 2} : Shape{2, 3, 2, 4, 3};
                         return OpTest("GridSample", 22)
                             .input(random_f32(x, 197))
                             .input(random_f32(g, 198, -1.7f, 1.7f))
                             .attr("mode", mode)
                             .attr("padding_mode", padding)
                             .attr("align_corners", align);
                       }});
          // Cubic sums 16 float32 products of weights up to 1.2 with values up to 2, which the
          // CPU sums in double: float32 rounding alone is ~1e-6 absolute.
          if (std::string(mode) == "cubic") c.back().atol = 1e-5;
        }
      }
    }
  }
}

// Scatters (GPU-compute only): every reduction on float32 and int32 data, int64 data without
// one, negative and duplicate indices (applied in the CPU's order), indices smaller than data,
// int32 indices, ScatterND over element, row and slice tuples, and the deprecated Scatter.
void add_scatter_cases(std::vector<OpCase>& c) {
  auto data_of = [](DataType dt, const Shape& s, unsigned seed) {
    if (dt == DataType::Float32) return random_f32(s, seed);
    if (dt == DataType::Int32) return random_int<int32_t>(s, seed, -9, 9);
    return few_values(DataType::Int64, s, seed);
  };
  const std::vector<std::pair<DataType, const char*>> variants = {
      {DataType::Float32, "none"}, {DataType::Float32, "add"}, {DataType::Float32, "mul"},
      {DataType::Float32, "max"},  {DataType::Float32, "min"}, {DataType::Int32, "add"},
      {DataType::Int32, "mul"},    {DataType::Int32, "max"},   {DataType::Int32, "min"},
      {DataType::Int64, "none"}};
  for (const auto& [dt, reduction] : variants) {
    const std::string suffix = std::string(dtype_name(dt)) + "_" + reduction;
    for (int64_t axis : {0, 1, -1}) {
      c.push_back({"ScatterElements_axis" + std::to_string(axis + 1) + "_" + suffix,
                   [data_of, dt = dt, reduction = reduction, axis] {
                     // Indices smaller than data outside the axis; 7 updates per axis line
                     // into 4 or 5 slots make duplicates.
                     const Shape data{4, 5, 3};
                     Shape idx{3, 4, 2};
                     const int64_t a = axis < 0 ? axis + 3 : axis;
                     idx[a] = 7;
                     const int dim = static_cast<int>(data[a]);
                     return OpTest("ScatterElements", 18)
                         .input(data_of(dt, data, 200))
                         .input(random_int<int64_t>(idx, 201, -dim, dim - 1))
                         .input(data_of(dt, idx, 202))
                         .attr("axis", axis)
                         .attr("reduction", reduction);
                   }});
      c.back().on_pixel = false;
    }
    // ScatterND: element tuples (k = rank), row tuples (k = 1) and k = 2, duplicates among them.
    for (int64_t k : {1, 2, 3}) {
      c.push_back({"ScatterND_k" + std::to_string(k) + "_" + suffix,
                   [data_of, dt = dt, reduction = reduction, k] {
                     const Shape data{4, 3, 5};
                     Shape idx{6, k};
                     Shape upd{6};
                     for (int64_t d = k; d < 3; ++d) upd.push_back(data[d]);
                     std::vector<int64_t> v =
                         random_int<int64_t>(idx, 203, -3, 2).to_vector<int64_t>();
                     return OpTest("ScatterND", 18)
                         .input(data_of(dt, data, 204))
                         .input(i64(idx, v))
                         .input(data_of(dt, upd, 205))
                         .attr("reduction", reduction);
                   }});
      c.back().on_pixel = false;
    }
  }
  c.push_back({"ScatterElements_int32_indices", [] {
                 return OpTest("ScatterElements", 18)
                     .input(random_f32({5, 4}, 206))
                     .input(random_int<int32_t>({2, 4}, 207, -5, 4))
                     .input(random_f32({2, 4}, 208))
                     .attr("reduction", "add");
               }});
  c.back().on_pixel = false;
  c.push_back({"Scatter_opset10", [] {
                 return OpTest("Scatter", 10)
                     .input(random_f32({3, 6}, 209))
                     .input(i64({3, 2}, {0, 5, -1, 2, 3, 4}))
                     .input(random_f32({3, 2}, 210))
                     .attr("axis", int64_t{1});
               }});
  c.back().on_pixel = false;
}

// A tensor of integer type `dt` (8 or 16 bits an element as kiln holds them: the 4- and 2-bit
// types a sign-extended byte each) with random values in the type's range.
Tensor random_quantized(DataType dt, const Shape& shape, unsigned seed) {
  const std::map<DataType, std::pair<int, int>> ranges = {
      {DataType::Int8, {-128, 127}},      {DataType::UInt8, {0, 255}},
      {DataType::Int16, {-32768, 32767}}, {DataType::UInt16, {0, 65535}},
      {DataType::Int4, {-8, 7}},          {DataType::UInt4, {0, 15}},
      {DataType::Int2, {-2, 1}},          {DataType::UInt2, {0, 3}}};
  const auto [lo, hi] = ranges.at(dt);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  Tensor t = Tensor::zeros(dt, shape);
  const bool wide = dt == DataType::Int16 || dt == DataType::UInt16;
  for (int64_t i = 0; i < shape.element_count(); ++i) {
    const int v = dist(rng);
    if (wide) {
      static_cast<uint16_t*>(t.mutable_raw_data())[i] = static_cast<uint16_t>(v);
    } else {
      static_cast<uint8_t*>(t.mutable_raw_data())[i] = static_cast<uint8_t>(v);
    }
  }
  return t;
}

// QuantizeLinear and DequantizeLinear to and from the float8 types (both GPU backends), per tensor
// and per axis, saturating and not, with a zero zero point, quotients beyond each type's range, NaN
// and infinities; and DequantizeLinear with float16 scales into float16.
void add_float8_quantize_cases(std::vector<OpCase>& c) {
  const float inf = std::numeric_limits<float>::infinity();
  for (DataType f8 : {DataType::Float8E4M3FN, DataType::Float8E4M3FNUZ, DataType::Float8E5M2,
                      DataType::Float8E5M2FNUZ}) {
    for (int64_t saturate : {1, 0}) {
      for (bool per_axis : {false, true}) {
        c.push_back({"QuantizeLinear_" + std::string(dtype_name(f8)) + "_saturate" +
                         std::to_string(saturate) + (per_axis ? "_axis" : "_tensor"),
                     [f8, saturate, per_axis, inf] {
                       std::vector<float> x =
                           random_f32({3, 7, 4}, 216, -3000.0f, 3000.0f).to_vector<float>();
                       x[0] = std::nanf("");
                       x[1] = inf;
                       x[2] = -inf;
                       x[3] = 1e30f;
                       x[4] = 1e-30f;
                       OpTest t("QuantizeLinear", 21);
                       t.input(f32({3, 7, 4}, x));
                       const Shape ps = per_axis ? Shape{7} : Shape{};
                       t.input(random_f32(ps, 217, 0.3f, 9.0f)).constant_input(1);
                       t.input(Tensor::zeros(f8, ps)).constant_input(2);
                       return t.attr("axis", int64_t{1}).attr("saturate", saturate);
                     }});
      }
    }
    c.push_back({"DequantizeLinear_" + std::string(dtype_name(f8)), [f8] {
                   // Every code, NaN and the infinities included.
                   Tensor x = Tensor::zeros(f8, {4, 64});
                   auto* bits = static_cast<uint8_t*>(x.mutable_raw_data());
                   for (int i = 0; i < 256; ++i) bits[i] = static_cast<uint8_t>(i);
                   return OpTest("DequantizeLinear", 21)
                       .input(x)
                       .input(random_f32({4}, 218, 0.01f, 3.0f))
                       .constant_input(1)
                       .attr("axis", int64_t{0});
                 }});
  }
  c.push_back({"DequantizeLinear_int8_float16_scale", [] {
                 std::vector<Float16> scale;
                 for (float v : random_f32({7}, 219, 0.001f, 30.0f).to_vector<float>())
                   scale.push_back(Float16(v));
                 OpTest t("DequantizeLinear", 21);
                 t.input(random_quantized(DataType::Int8, {3, 7, 4}, 220));
                 t.input(Tensor::from_data<Float16>({7}, scale)).constant_input(1);
                 t.input(random_quantized(DataType::Int8, {7}, 221)).constant_input(2);
                 return t.attr("axis", int64_t{1});
               }});
}

// DynamicQuantizeLinear (both GPU backends): ranges all positive, all negative, mixed (more
// elements than one chunk of the range pass), a constant tensor (scale 1), NaN among the values
// and both infinities (a NaN zero point, made 0).
void add_dynamic_quantize_cases(std::vector<OpCase>& c) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<std::pair<std::string, std::function<Tensor()>>> inputs = {
      {"positive",
       [] {
         return random_f32({5, 6}, 222, 0.5f, 40.0f);
       }},
      {"negative", [] { return random_f32({17}, 223, -9.0f, -0.25f); }},
      {"mixed",
       [] {
         return random_f32({3, 50, 7}, 224, -3.0f, 11.0f);
       }},
      {"constant",
       [] {
         return f32({4}, {2.5f, 2.5f, 2.5f, 2.5f});
       }},
      {"nan",
       [] {
         return f32({5}, {1.0f, std::nanf(""), -2.0f, 7.0f, 3.5f});
       }},
      {"infinities",
       [inf] {
         return f32({4}, {1.0f, inf, -inf, 3.0f});
       }},
  };
  for (const auto& input : inputs) {
    c.push_back({"DynamicQuantizeLinear_" + input.first, [make = input.second] {
                   return OpTest("DynamicQuantizeLinear").input(make()).outputs(3);
                 }});
  }
}

// QuantizeLinear and DequantizeLinear for every integer type the kernels take, per tensor, per
// axis and blocked, with and without a zero point; quantized values include exact ties
// (x / scale = k + 0.5), NaN, infinities and values beyond the type's range, and non-dyadic
// scales whose quotients a GPU's division may round differently.
void add_quantize_cases(std::vector<OpCase>& c) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<DataType> types = {DataType::Int8,   DataType::UInt8, DataType::Int16,
                                       DataType::UInt16, DataType::Int4,  DataType::UInt4,
                                       DataType::Int2,   DataType::UInt2};
  enum class Layout { Tensor, Axis, Blocked };
  for (DataType dt : types) {
    for (Layout layout : {Layout::Tensor, Layout::Axis, Layout::Blocked}) {
      for (bool zero_point : {false, true}) {
        const std::string name = std::string(dtype_name(dt)) +
                                 (layout == Layout::Tensor ? "_tensor"
                                  : layout == Layout::Axis ? "_axis"
                                                           : "_blocked") +
                                 (zero_point ? "_zp" : "");
        // x [3, 7, 4] quantized along axis 1: 7 scales, or blocks of 3 (3 blocks, the last
        // short).
        auto params = [dt, layout, zero_point](OpTest& t, float lo, float hi) {
          Shape ps = layout == Layout::Tensor ? Shape{}
                     : layout == Layout::Axis ? Shape{7}
                                              : Shape{3, 3, 4};
          t.input(random_f32(ps, 211, lo, hi)).constant_input(1);
          if (zero_point) t.input(random_quantized(dt, ps, 212)).constant_input(2);
          t.attr("axis", int64_t{1});
          if (layout == Layout::Blocked) t.attr("block_size", int64_t{3});
        };
        c.push_back({"DequantizeLinear_" + name, [dt, params] {
                       OpTest t("DequantizeLinear", 21);
                       t.input(random_quantized(dt, {3, 7, 4}, 213));
                       params(t, 0.01f, 3.0f);
                       return t;
                     }});
        c.push_back({"QuantizeLinear_" + name, [dt, params, inf] {
                       OpTest t("QuantizeLinear", 21);
                       std::vector<float> x =
                           random_f32({3, 7, 4}, 214, -300.0f, 300.0f).to_vector<float>();
                       x[0] = std::nanf("");
                       x[1] = inf;
                       x[2] = -inf;
                       x[3] = 1e30f;
                       t.input(f32({3, 7, 4}, x));
                       params(t, 0.3f, 9.0f);
                       return t;
                     }});
      }
    }
  }
  // Ties: x / 2 = k + 0.5 round to even, before the zero point is added.
  c.push_back({"QuantizeLinear_ties", [] {
                 return OpTest("QuantizeLinear", 21)
                     .input(f32({8}, {1.0f, 3.0f, 5.0f, -1.0f, -3.0f, -5.0f, 0.0f, -0.0f}))
                     .input(Tensor::scalar<float>(2.0f))
                     .input(random_quantized(DataType::Int8, {}, 215))
                     .constant_input(1)
                     .constant_input(2);
               }});
  add_float8_quantize_cases(c);
  add_dynamic_quantize_cases(c);
}

// TopK: float32 with ties and a NaN, int32, and int64 values differing only
// above 32 bits; every axis, largest and smallest, k from 0 to the whole line, and opset 1's k
// attribute. Values and int64 indices both compared exactly.
void add_top_k_cases(std::vector<OpCase>& c) {
  for (DataType dt : {DataType::Float32, DataType::Int32, DataType::Int64}) {
    for (int64_t axis : {0, 1, -1}) {
      for (int64_t largest : {0, 1}) {
        for (int64_t k : {0, 1, 3, 5}) {
          c.push_back({"TopK_" + std::string(dtype_name(dt)) + "_axis" + std::to_string(axis + 1) +
                           (largest ? "_largest" : "_smallest") + "_k" + std::to_string(k),
                       [dt, axis, largest, k] {
                         // Every axis is at least 5 long.
                         return OpTest("TopK", 11)
                             .input(few_values(dt, {5, 6, 7}, 223))
                             .input(i64({1}, {k}))
                             .constant_input(1)
                             .outputs(2)
                             .attr("axis", axis)
                             .attr("largest", largest);
                       }});
        }
      }
    }
  }
  c.push_back(
      {"TopK_opset1_k_attribute", [] {
         return OpTest("TopK", 1).input(random_f32({4, 9}, 224)).outputs(2).attr("k", int64_t{4});
       }});
}

// CumSum and CumProd (GPU-compute only): float32, float64 (bit for bit: the totals round in
// the CPU's order) and int32 (wrapping products), every axis (negative too, int32 and int64 axis
// tensors), exclusive and reverse.
void add_cumulative_cases(std::vector<OpCase>& c) {
  for (const char* op : {"CumSum", "CumProd"}) {
    const bool product = std::string(op) == "CumProd";
    for (DataType dt : {DataType::Float32, DataType::Int32, DataType::Float64}) {
      for (int64_t axis : {0, 1, -1}) {
        for (int64_t exclusive : {0, 1}) {
          for (int64_t reverse : {0, 1}) {
            c.push_back({std::string(op) + "_" + std::string(dtype_name(dt)) + "_axis" +
                             std::to_string(axis + 1) + (exclusive ? "_exclusive" : "") +
                             (reverse ? "_reverse" : ""),
                         [op, product, dt, axis, exclusive, reverse] {
                           // Products of values near 1 stay finite; int32 ones overflow and wrap.
                           const Shape x{4, 6, 9};
                           Tensor in = dt == DataType::Int32
                                           ? random_int<int32_t>(x, 226, -99, 99)
                                           : random_f32(x, 225, product ? 0.6f : -2.0f,
                                                        product ? 1.5f : 2.0f);
                           if (dt == DataType::Float64) {
                             // Every bit of the significand in use, so rounding shows.
                             std::vector<double> v;
                             for (float f : in.to_vector<float>()) v.push_back(f * (1.0 + 1e-9));
                             in = Tensor::from_data<double>(x, v);
                           }
                           Tensor axis_t = axis == 1 ? Tensor::scalar<int32_t>(1) : i64({}, {axis});
                           return OpTest(op)
                               .input(in)
                               .input(axis_t)
                               .constant_input(1)
                               .attr("exclusive", exclusive)
                               .attr("reverse", reverse);
                         }});
            c.back().on_pixel = false;
          }
        }
      }
    }
  }
}

// OneHot (GPU-compute only): float32 indices (fractions, NaN, negatives, out of range), int32
// and int64 ones (beyond 32 bits too); float32, int32 and int64 values; every axis; a
// fractional float32 depth and an int64 one.
void add_one_hot_cases(std::vector<OpCase>& c) {
  const Tensor float_indices =
      f32({2, 5}, {0.0f, 2.7f, -1.2f, std::nanf(""), 9.0f, -7.0f, 4.999f, -0.5f, 3.0f, 1e10f});
  const Tensor int32_indices = Tensor::from_data<int32_t>({2, 3}, {0, -1, 5, 6, -6, 2});
  const Tensor int64_indices = i64({5}, {1, -3, int64_t{1} << 33, -(int64_t{1} << 40), 4});
  const std::vector<std::pair<std::string, Tensor>> indices = {
      {"float32", float_indices}, {"int32", int32_indices}, {"int64", int64_indices}};
  const std::vector<Tensor> values = {f32({2}, {-0.5f, 2.25f}),
                                      Tensor::from_data<int32_t>({2}, {7, -9}),
                                      i64({2}, {int64_t{3} << 35, -1})};
  for (const auto& [name, idx] : indices) {
    for (const Tensor& v : values) {
      for (int64_t axis : {0, 1, -1}) {
        c.push_back({"OneHot_" + name + "_indices_" + std::string(dtype_name(v.dtype())) + "_axis" +
                         std::to_string(axis + 1),
                     [idx = idx, v, axis] {
                       Tensor depth = axis == 0 ? f32({}, {6.7f}) : i64({}, {6});
                       return OpTest("OneHot", 11)
                           .input(idx)
                           .input(depth)
                           .input(v)
                           .constant_input(1)
                           .attr("axis", axis);
                     }});
        c.back().on_pixel = false;
      }
    }
  }
}

// GatherND (GPU-compute only): tuples of every length, batch dims, negative indices, int32
// indices, and float32, int32 and int64 data.
void add_gather_nd_cases(std::vector<OpCase>& c) {
  struct NdCase {
    int64_t batch_dims, k;
  };
  for (const NdCase& n :
       {NdCase{0, 1}, NdCase{0, 2}, NdCase{0, 3}, NdCase{1, 1}, NdCase{1, 2}, NdCase{2, 1}}) {
    for (DataType dt : {DataType::Float32, DataType::Int32, DataType::Int64}) {
      c.push_back({"GatherND_batch" + std::to_string(n.batch_dims) + "_k" + std::to_string(n.k) +
                       "_" + std::string(dtype_name(dt)),
                   [n, dt] {
                     const Shape data{3, 4, 5};
                     Shape idx(data.begin(), data.begin() + n.batch_dims);
                     idx.push_back(2);
                     idx.push_back(n.k);
                     // Each component in [-3, 2] addresses every dim (all at least 3 long).
                     return OpTest("GatherND", 13)
                         .input(few_values(dt, data, 227))
                         .input(random_int<int64_t>(idx, 228, -3, 2))
                         .attr("batch_dims", n.batch_dims);
                   }});
      c.back().on_pixel = false;
    }
  }
  c.push_back({"GatherND_int32_indices", [] {
                 return OpTest("GatherND", 13)
                     .input(random_f32({4, 6}, 229))
                     .input(random_int<int32_t>({3, 2}, 230, -4, 3));
               }});
  c.back().on_pixel = false;
}

// Bitwise ops on int32 and int64 (values differing above 32 bits, negative ones), broadcast.
void add_bitwise_cases(std::vector<OpCase>& c) {
  for (DataType dt : {DataType::Int32, DataType::Int64}) {
    const std::string type(dtype_name(dt));
    for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"}) {
      c.push_back({std::string(op) + "_" + type, [op, dt] {
                     return OpTest(op, 18)
                         .input(few_values(dt, {3, 1, 5}, 231))
                         .input(few_values(dt, {4, 1}, 232));
                   }});
    }
    c.push_back({"BitwiseNot_" + type, [dt] {
                   return OpTest("BitwiseNot", 18).input(few_values(dt, {2, 7}, 233));
                 }});
  }
}

// The 8-, 16-bit and unsigned integers through the integer and comparison kernels: values over
// each type's whole range (its minimum and -1 included, so division wraps), odd output lengths
// (8- and 16-bit outputs are written a word at a time), divisors never zero.
Tensor full_range(DataType dt, const Shape& shape, unsigned seed, bool nonzero) {
  std::mt19937_64 rng(seed);
  Tensor t = Tensor::zeros(dt, shape);
  const size_t size = dtype_size(dt);
  auto* bytes = static_cast<uint8_t*>(t.mutable_raw_data());
  for (int64_t i = 0; i < t.element_count(); ++i) {
    uint8_t* e = bytes + static_cast<size_t>(i) * size;
    const uint64_t bits = rng();
    std::memcpy(e, &bits, size);
    if (i == 0) std::memset(e, 0xff, size);  // -1, or the largest unsigned
    if (i == 1) {                            // the signed minimum
      std::memset(e, 0, size);
      e[size - 1] = 0x80;
    }
    if (nonzero && std::all_of(e, e + size, [](uint8_t b) { return b == 0; })) e[0] = 3;
  }
  return t;
}

void add_small_integer_cases(std::vector<OpCase>& c) {
  const DataType types[] = {DataType::Int8,   DataType::UInt8,  DataType::Int16,
                            DataType::UInt16, DataType::UInt32, DataType::UInt64};
  for (DataType dt : types) {
    const std::string type(dtype_name(dt));
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Mod", "FMod", "Max", "Min", "BitwiseAnd",
                           "BitwiseXor", "Less", "Equal"}) {
      c.push_back({std::string(op) + "_" + type, [op, dt] {
                     const std::string name = op;
                     const bool divides = name == "Div" || name == "Mod" || name == "FMod";
                     OpTest t(name == "FMod" ? "Mod" : name, 18);
                     t.input(full_range(dt, {3, 1, 7}, 301, false))
                         .input(full_range(dt, {5, 1}, 302, divides));
                     if (name == "FMod") t.attr("fmod", int64_t{1});
                     return t;
                   }});
      c.back().on_pixel = dt != DataType::UInt64;
    }
    c.push_back({"BitwiseNot_" + type, [dt] {
                   return OpTest("BitwiseNot", 18).input(full_range(dt, {3, 5}, 303, false));
                 }});
    c.back().on_pixel = dt != DataType::UInt64;
  }
  for (DataType dt : {DataType::Int16, DataType::UInt64}) {
    for (const char* op : {"LessOrEqual", "Greater", "GreaterOrEqual", "BitwiseOr"}) {
      c.push_back({std::string(op) + "_" + std::string(dtype_name(dt)), [op, dt] {
                     return OpTest(op, 18)
                         .input(full_range(dt, {2, 9}, 304, false))
                         .input(full_range(dt, {9}, 305, false));
                   }});
      c.back().on_pixel = dt != DataType::UInt64;
    }
  }
}

// BitShift on the unsigned types (shifts past the width give 0; uint64 GPU-compute only) and Pow
// on integers: an integer base to its own type's power (negative exponents, wrapping products),
// and (GPU-compute only) a float32 base to every integer type's power, and int32 / int64 bases
// to float32 powers (integral, negative, fractional, infinite and NaN exponents; results beyond
// the type).
void add_integer_shift_pow_cases(std::vector<OpCase>& c) {
  for (DataType dt : {DataType::UInt8, DataType::UInt16, DataType::UInt32, DataType::UInt64}) {
    for (const char* direction : {"LEFT", "RIGHT"}) {
      c.push_back({"BitShift_" + std::string(direction) + "_" + std::string(dtype_name(dt)),
                   [dt, direction] {
                     // Shift amounts 0 .. 2 past the width, as the type's values.
                     const auto width = static_cast<int64_t>(8 * dtype_size(dt));
                     std::vector<int64_t> amounts;
                     for (int64_t s = 0; s <= width + 2; s += 3) amounts.push_back(s);
                     Tensor shifts = Tensor::zeros(dt, {static_cast<int64_t>(amounts.size()), 1});
                     auto* bytes = static_cast<uint8_t*>(shifts.mutable_raw_data());
                     for (size_t i = 0; i < amounts.size(); ++i)
                       std::memcpy(bytes + i * dtype_size(dt), &amounts[i], dtype_size(dt));
                     return OpTest("BitShift", 11)
                         .input(full_range(dt, {5}, 311, false))
                         .input(shifts)
                         .attr("direction", direction);
                   }});
      c.back().on_pixel = dt != DataType::UInt64;
    }
  }
  // Integer bases to integer powers: small bases, exponents -3 .. 40 (wrapping past the type).
  for (DataType dt : {DataType::Int32, DataType::Int64, DataType::Int8, DataType::UInt16}) {
    c.push_back(
        {"Pow_" + std::string(dtype_name(dt)) + "_" + std::string(dtype_name(dt)), [dt] {
           const bool is_unsigned = dt == DataType::UInt16;
           auto values = [dt](const Shape& s, std::vector<int64_t> v) {
             Tensor t = Tensor::zeros(dt, s);
             auto* bytes = static_cast<uint8_t*>(t.mutable_raw_data());
             for (size_t i = 0; i < v.size(); ++i)
               std::memcpy(bytes + i * dtype_size(dt), &v[i], dtype_size(dt));
             return t;
           };
           std::vector<int64_t> bases = {0, 1, -1, 2, -2, 3, -3, 7};
           if (is_unsigned) bases = {0, 1, 2, 3, 5, 7, 11, 255};
           std::vector<int64_t> exponents = {-3, -1, 0, 1, 2, 3, 7, 13, 31, 40};
           if (is_unsigned) exponents = {0, 1, 2, 3, 7, 13, 16, 17, 31, 40};
           return OpTest("Pow", 15).input(values({8, 1}, bases)).input(values({1, 10}, exponents));
         }});
  }
  // float32 bases to integer powers.
  for (DataType dt : {DataType::Int32, DataType::Int64, DataType::UInt32, DataType::UInt64}) {
    c.push_back({"Pow_float32_" + std::string(dtype_name(dt)),
                 [dt] {
                   Tensor e = full_range(dt, {6}, 312, false);
                   auto* bytes = static_cast<uint8_t*>(e.mutable_raw_data());
                   const bool is_signed = dt == DataType::Int32 || dt == DataType::Int64;
                   const std::vector<int64_t> small = {0, 1, 2, 3, is_signed ? -2 : 5, 11};
                   for (size_t i = 0; i < small.size(); ++i)
                     std::memcpy(bytes + i * dtype_size(dt), &small[i], dtype_size(dt));
                   return OpTest("Pow", 15).input(random_f32({4, 1}, 313, -2.0f, 2.0f)).input(e);
                 },
                 2e-5});
    c.back().on_pixel = dt != DataType::UInt64;
  }
  // int32 and int64 bases to float32 powers.
  for (DataType dt : {DataType::Int32, DataType::Int64}) {
    c.push_back({"Pow_" + std::string(dtype_name(dt)) + "_float32", [dt] {
                   const float inf = std::numeric_limits<float>::infinity();
                   const std::vector<int64_t> bases = {0, 1, -1, 2, -2, 3, -7, 5, 1000};
                   Tensor b = dt == DataType::Int32
                                  ? Tensor::from_data<int32_t>(
                                        {9, 1}, std::vector<int32_t>(bases.begin(), bases.end()))
                                  : i64({9, 1}, bases);
                   // Fractional exponents whose powers are no integers, so float32's pow
                   // truncates as double's does.
                   return OpTest("Pow", 15).input(b).input(Tensor::from_data<float>(
                       {1, 12}, {0.0f, 1.0f, 2.0f, 3.0f, -1.0f, -2.0f, 10.0f, 40.0f, 0.3f, 1.7f,
                                 inf, std::nanf("")}));
                 }});
    c.back().on_pixel = false;
  }
}

// Clip whose bounds the GPU reads as one-element buffers (graph inputs, not constants): float32
// (NaN passes, min > max gives max, one bound only) and the integers, with no bound at all too.
void add_clip_bound_input_cases(std::vector<OpCase>& c) {
  const size_t first = c.size();
  auto specials = [] {
    Tensor x = random_f32({3, 7}, 320, -3.0f, 3.0f);
    x.mutable_data<float>()[4] = std::nanf("");
    return x;
  };
  c.push_back({"Clip_bound_inputs", [specials] {
                 return OpTest("Clip", 13)
                     .input(specials())
                     .input(Tensor::scalar<float>(-0.5f))
                     .input(Tensor::from_data<float>({1}, {0.75f}));
               }});
  c.push_back({"Clip_bound_inputs_min_above_max", [specials] {
                 return OpTest("Clip", 13)
                     .input(specials())
                     .input(Tensor::scalar<float>(1.0f))
                     .input(Tensor::scalar<float>(-1.0f));
               }});
  c.push_back({"Clip_bound_input_min_only", [specials] {
                 return OpTest("Clip", 13).input(specials()).input(Tensor::scalar<float>(0.25f));
               }});
  c.push_back({"Clip_bound_input_max_only", [specials] {
                 return OpTest("Clip", 13)
                     .input(specials())
                     .input(Tensor())
                     .input(Tensor::scalar<float>(0.25f));
               }});
  for (size_t i = first; i < c.size(); ++i) c[i].on_pixel = false;
  for (DataType dt :
       {DataType::Int8, DataType::UInt8, DataType::Int32, DataType::Int64, DataType::UInt64}) {
    const std::string type(dtype_name(dt));
    c.push_back({"Clip_" + type, [dt] {
                   Tensor x = full_range(dt, {3, 5}, 321, false);
                   Tensor lo = full_range(dt, {}, 322, false);
                   Tensor hi = full_range(dt, {}, 323, false);
                   return OpTest("Clip", 13).input(x).input(lo).input(hi);
                 }});
    c.back().on_pixel = false;
    c.push_back({"Clip_" + type + "_max_only", [dt] {
                   return OpTest("Clip", 13)
                       .input(full_range(dt, {3, 5}, 324, false))
                       .input(Tensor())
                       .input(full_range(dt, {1}, 325, false));
                 }});
    c.back().on_pixel = false;
  }
  c.push_back({"Clip_int8_no_bounds", [] {
                 return OpTest("Clip", 13).input(full_range(DataType::Int8, {9}, 326, false));
               }});
  c.back().on_pixel = false;
}

// Where moving 1-, 2- and 8-byte values and bools, TopK of the unsigned 32- and 64-bit integers,
// ReduceMax and ReduceMin of bool (GPU-compute only, but for TopK of uint32).
void add_integer_movement_cases(std::vector<OpCase>& c) {
  for (DataType dt : {DataType::Int8, DataType::UInt8, DataType::Int16, DataType::UInt16,
                      DataType::UInt32, DataType::UInt64, DataType::Bool}) {
    c.push_back({"Where_" + std::string(dtype_name(dt)), [dt] {
                   auto values = [dt](const Shape& s, unsigned seed) {
                     return dt == DataType::Bool ? few_values(dt, s, seed)
                                                 : full_range(dt, s, seed, false);
                   };
                   return OpTest("Where")
                       .input(few_values(DataType::Bool, {3, 1, 5}, 330))
                       .input(values({4, 1}, 331))
                       .input(values({1, 4, 5}, 332));
                 }});
    c.back().on_pixel = false;
  }
  for (DataType dt : {DataType::UInt32, DataType::UInt64}) {
    for (int64_t largest : {0, 1}) {
      c.push_back({"TopK_" + std::string(dtype_name(dt)) + (largest ? "_largest" : "_smallest"),
                   [dt, largest] {
                     // Values over the whole range (above 2^31 and 2^63 too), with ties.
                     Tensor x = full_range(dt, {4, 6}, 333, false);
                     auto* bytes = static_cast<uint8_t*>(x.mutable_raw_data());
                     std::memcpy(bytes + 5 * dtype_size(dt), bytes + 7 * dtype_size(dt),
                                 dtype_size(dt));
                     return OpTest("TopK", 11)
                         .input(x)
                         .input(i64({1}, {4}))
                         .constant_input(1)
                         .outputs(2)
                         .attr("largest", largest);
                   }});
      c.back().on_pixel = dt == DataType::UInt32;  // textures hold no uint64
    }
  }
  for (const char* op : {"ReduceMax", "ReduceMin"}) {
    for (int64_t keepdims : {0, 1}) {
      c.push_back({std::string(op) + "_bool_keep" + std::to_string(keepdims), [op, keepdims] {
                     // Lines of all true, all false and mixed; 9 lines, so the last output
                     // word is partial.
                     Tensor x = few_values(DataType::Bool, {9, 5}, 334);
                     bool* v = x.mutable_data<bool>();
                     for (int j = 0; j < 5; ++j) {
                       v[j] = true;
                       v[5 + j] = false;
                     }
                     return OpTest(op, 20)
                         .input(x)
                         .input(i64({1}, {1}))
                         .constant_input(1)
                         .attr("keepdims", keepdims);
                   }});
      c.back().on_pixel = false;
    }
  }
}

// The float32 reductions of an empty input into a non-empty output: the identity element (0, 1,
// -inf, +inf, NaN for the mean, -inf for the log-sums), as ONNX's empty-set tests ask.
void add_empty_reduction_cases(std::vector<OpCase>& c) {
  for (const char* op :
       {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"}) {
    c.push_back({std::string(op) + "_empty_input", [op] {
                   return OpTest(op, 18)
                       .input(Tensor::zeros(DataType::Float32, {2, 0, 4}))
                       .input(i64({1}, {1}))
                       .constant_input(1)
                       .attr("keepdims", int64_t{1});
                 }});
    c.back().on_pixel = false;
  }
}

// Pad whose constant value is a graph input (a one-element buffer the shader reads), EyeLike,
// the cosine windows and Dropout's mask at inference (GPU-compute only), and SwiGLU.
void add_generated_and_gated_cases(std::vector<OpCase>& c) {
  c.push_back({"Pad_constant_value_input_float32", [] {
                 return OpTest("Pad", 18)
                     .input(random_f32({2, 3}, 340))
                     .input(i64({4}, {1, 0, 2, 3}))
                     .input(Tensor::scalar<float>(-1.5f))
                     .constant_input(1);
               }});
  c.push_back({"Pad_constant_value_input_int64", [] {
                 return OpTest("Pad", 18)
                     .input(few_values(DataType::Int64, {3, 2}, 341))
                     .input(i64({4}, {0, 2, 1, -1}))
                     .input(i64({}, {int64_t{5} << 40}))
                     .constant_input(1);
               }});
  c[c.size() - 2].on_pixel = false;
  c.back().on_pixel = false;
  for (const auto& [name, k, dtype] : std::vector<std::tuple<std::string, int64_t, int64_t>>{
           {"float32", 0, 0},
           {"k2_int64", 2, static_cast<int64_t>(DataType::Int64)},
           {"k_minus1_float64", -1, static_cast<int64_t>(DataType::Float64)},
           {"k_outside", -9, 0}}) {
    c.push_back({"EyeLike_" + name, [k = k, dtype = dtype] {
                   OpTest t("EyeLike", 9);
                   t.input(random_f32({4, 6}, 342)).attr("k", k);
                   if (dtype != 0) t.attr("dtype", dtype);
                   return t;
                 }});
    c.back().on_pixel = false;
  }
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"}) {
    for (int64_t periodic : {0, 1}) {
      for (int64_t size : {1, 10, 33}) {
        c.push_back(
            {std::string(op) + (periodic ? "_periodic_" : "_symmetric_") + std::to_string(size),
             [op, periodic, size] {
               return OpTest(op, 17)
                   .input(i64({}, {size}))
                   .constant_input(0)
                   .attr("periodic", periodic);
             }});
        c.back().on_pixel = false;
      }
    }
  }
  c.push_back({"SwiGLU_broadcast", [] {
                 return OpTest("SwiGLU", 24)
                     .input(random_f32({3, 1, 8}, 343, -4.0f, 4.0f))
                     .input(random_f32({4, 8}, 344));
               }});
  c.push_back({"SwiGLU_alpha", [] {
                 return OpTest("SwiGLU", 24)
                     .input(random_f32({5, 6}, 345, -4.0f, 4.0f))
                     .input(random_f32({5, 6}, 346))
                     .attr("alpha", 1.702f);
               }});
  c.push_back({"Dropout_mask", [] {
                 return OpTest("Dropout", 13).input(random_f32({3, 7}, 347)).outputs(2);
               }});
}

void add_lstm_cases(std::vector<OpCase>& c) {
  const std::vector<LstmCase> lstms = {
      {.name = "forward_defaults"},
      {.name = "forward_bias_initial_states", .bias = true, .initial_h = true, .initial_c = true},
      {.name = "forward_initial_c_only", .batch = 2, .initial_c = true},
      {.name = "reverse",
       .direction = "reverse",
       .seq = 4,
       .batch = 2,
       .bias = true,
       .initial_h = true},
      {.name = "bidirectional",
       .direction = "bidirectional",
       .seq = 5,
       .batch = 3,
       .input = 7,
       .hidden = 6,
       .bias = true,
       .initial_h = true,
       .initial_c = true},
      {.name = "bidirectional_Y_only",
       .direction = "bidirectional",
       .seq = 4,
       .batch = 2,
       .bias = true,
       .outputs = 1},
      {.name = "forward_Y_and_Y_h", .seq = 2, .batch = 2, .bias = true, .outputs = 2},
      {.name = "peepholes",
       .seq = 4,
       .batch = 2,
       .bias = true,
       .initial_c = true,
       .peepholes = true},
      {.name = "bidirectional_peepholes",
       .direction = "bidirectional",
       .seq = 3,
       .batch = 2,
       .peepholes = true},
      {.name = "full_sequence_lens",
       .seq = 3,
       .batch = 2,
       .bias = true,
       .full_sequence_lens = true},
      {.name = "forward_hidden3",
       .seq = 3,
       .batch = 2,
       .input = 2,
       .hidden = 3,
       .bias = true,
       .initial_h = true,
       .initial_c = true},
      {.name = "bidirectional_hidden3",
       .direction = "bidirectional",
       .seq = 3,
       .batch = 3,
       .hidden = 3,
       .bias = true,
       .initial_h = true,
       .initial_c = true},
      {.name = "states_only",
       .direction = "bidirectional",
       .batch = 2,
       .bias = true,
       .initial_h = true,
       .initial_c = true,
       .y = false},
      {.name = "empty_sequence",
       .direction = "bidirectional",
       .seq = 0,
       .batch = 2,
       .bias = true,
       .initial_h = true,
       .initial_c = true,
       .on_compute = false},
      {.name = "wide",
       .direction = "bidirectional",
       .seq = 6,
       .batch = 2,
       .input = 24,
       .hidden = 40,
       .bias = true},
  };
  for (size_t i = 0; i < lstms.size(); ++i) {
    OpCase op{"LSTM_" + lstms[i].name,
              [l = lstms[i], seed = static_cast<unsigned>(400 + 10 * i)] {
                const int64_t dirs = l.direction == "bidirectional" ? 2 : 1;
                const int64_t gates = 4 * l.hidden;
                const Shape state{dirs, l.batch, l.hidden};
                OpTest t("LSTM");
                t.input(random_f32({l.seq, l.batch, l.input}, seed))
                    .input(random_f32({dirs, gates, l.input}, seed + 1, -0.5f, 0.5f))
                    .input(random_f32({dirs, gates, l.hidden}, seed + 2, -0.5f, 0.5f))
                    .input(l.bias ? random_f32({dirs, 2 * gates}, seed + 3, -0.5f, 0.5f) : Tensor())
                    .input(l.full_sequence_lens
                               ? Tensor::from_data<int32_t>(
                                     {l.batch}, std::vector<int32_t>(static_cast<size_t>(l.batch),
                                                                     static_cast<int32_t>(l.seq)))
                               : Tensor())
                    .input(l.initial_h ? random_f32(state, seed + 4, -0.5f, 0.5f) : Tensor())
                    .input(l.initial_c ? random_f32(state, seed + 5) : Tensor())
                    .input(l.peepholes ? random_f32({dirs, 3 * l.hidden}, seed + 6, -0.5f, 0.5f)
                                       : Tensor())
                    .attr("hidden_size", l.hidden)
                    .attr("direction", l.direction)
                    .outputs(l.outputs)
                    .constant_input(1)
                    .constant_input(2);
                if (l.bias) t.constant_input(3);
                if (l.full_sequence_lens) t.constant_input(4);
                if (!l.y) t.absent_output(0);
                return t;
              },
              1e-4, 1e-5};
    op.on_compute = lstms[i].on_compute;
    c.push_back(std::move(op));
  }
}
// Cast, compared bit for bit over each type's edge values (cast_sources.h): every pair of the
// types cast.comp converts; each other fixed-size type (cast_wide.comp) from float32, float64
// and int64 and to float32 (the floats to int64 too), the paths that round twice on a careless
// device, float8 without saturation and float8e8m0's rounding modes.
void add_cast_cases(std::vector<OpCase>& c) {
  auto cast_case = [&c](DataType from, DataType to, int64_t saturate = 1,
                        const char* round_mode = nullptr) {
    std::string name =
        std::string("Cast_") + std::string(dtype_name(from)) + "_to_" + std::string(dtype_name(to));
    if (saturate == 0) name += "_no_saturate";
    if (round_mode) name += std::string("_") + round_mode;
    OpCase op{name, [from, to, saturate, round_mode] {
                OpTest t = OpTest("Cast", 25).input(cast_source(from));
                t.attr("to", static_cast<int64_t>(to)).attr("saturate", saturate);
                if (round_mode) t.attr("round_mode", round_mode);
                return t;
              }};
    op.bit_exact = true;
    c.push_back(op);
  };
  const DataType narrow[] = {DataType::Float32, DataType::Float16, DataType::BFloat16,
                             DataType::Int32,   DataType::Int64,   DataType::Bool};
  for (DataType from : narrow) {
    for (DataType to : narrow) cast_case(from, to);
  }
  const DataType wide[] = {DataType::Float64,    DataType::Int8,           DataType::Int16,
                           DataType::UInt8,      DataType::UInt16,         DataType::UInt32,
                           DataType::UInt64,     DataType::Float8E4M3FN,   DataType::Float8E4M3FNUZ,
                           DataType::Float8E5M2, DataType::Float8E5M2FNUZ, DataType::Float8E8M0,
                           DataType::Float4E2M1, DataType::Int4,           DataType::UInt4,
                           DataType::Int2,       DataType::UInt2};
  for (DataType t : wide) {
    cast_case(DataType::Float32, t);
    cast_case(t, DataType::Float32);
    cast_case(DataType::Int64, t);
    if (t != DataType::Float64) cast_case(DataType::Float64, t);
    if (is_float_dtype(t)) cast_case(t, DataType::Int64);
  }
  // float64 and the 64-bit integers to the 16-bit floats round once (through float32 rounded
  // to odd); the narrow floats to bool; the sub-byte integers between themselves.
  const std::pair<DataType, DataType> pairs[] = {
      {DataType::Float64, DataType::Float16},      {DataType::Float64, DataType::BFloat16},
      {DataType::UInt64, DataType::Float16},       {DataType::Float16, DataType::Float64},
      {DataType::Float16, DataType::Float8E4M3FN}, {DataType::BFloat16, DataType::Float8E5M2},
      {DataType::Float64, DataType::Bool},         {DataType::Float8E4M3FNUZ, DataType::Bool},
      {DataType::Float4E2M1, DataType::Bool},      {DataType::Int4, DataType::UInt2},
      {DataType::UInt4, DataType::Int4},           {DataType::Bool, DataType::Float8E8M0}};
  for (const auto& [from, to] : pairs) cast_case(from, to);
  for (DataType to : {DataType::Float8E4M3FN, DataType::Float8E4M3FNUZ, DataType::Float8E5M2,
                      DataType::Float8E5M2FNUZ, DataType::Float8E8M0})
    cast_case(DataType::Float32, to, 0);
  cast_case(DataType::Float64, DataType::Float8E5M2, 0);
  cast_case(DataType::Float16, DataType::Float8E4M3FN, 0);
  for (const char* mode : {"down", "nearest"}) {
    cast_case(DataType::Float32, DataType::Float8E8M0, 1, mode);
    cast_case(DataType::Float64, DataType::Float8E8M0, 1, mode);
  }
  c.push_back({"CastLike", [] {
                 return OpTest("CastLike")
                     .input(cast_source(DataType::Float32))
                     .input(Tensor::from_data<int64_t>({1}, {0}));
               }});
  c.push_back({"CastLike_float16", [] {
                 return OpTest("CastLike")
                     .input(cast_source(DataType::Float32))
                     .input(cast_source(DataType::Float16));
               }});
  c.push_back({"CastLike_float8_no_saturate", [] {
                 return OpTest("CastLike", 19)
                     .input(cast_source(DataType::Float32))
                     .input(cast_source(DataType::Float8E5M2))
                     .attr("saturate", int64_t{0});
               }});
}

// ONNX Runtime's ops of an LLM decoder (com.microsoft) on the GPU-compute backend (the GPU-pixel
// one leaves them to the CPU), and the shape arithmetic around them.
OpTest ms_op(const std::string& op) { return OpTest(op, 17, "com.microsoft"); }

Tensor random_bytes(const Shape& shape, unsigned seed) {
  return random_int<uint8_t>(shape, seed, 0, 255);
}

// MatMulNBits: every bit width, block sizes 16 to 256, K with and without a partial last block,
// no / packed / float zero points, a g_idx that permutes the blocks, bias, A of rank 2 and 3
// (one row: the decode GEMV; 19 rows: several blocks of a workgroup's rows), and weights given
// at run time rather than as initializers.
struct NBitsCase {
  std::string name;
  int64_t bits = 4, block = 32, K = 64, N = 24;
  Shape a = {3, 64};
  enum { kNoZp, kPackedZp, kFloatZp } zp = kNoZp;
  bool g_idx = false, bias = false, constant_weights = true;
};

void add_matmul_nbits_cases(std::vector<OpCase>& c) {
  std::vector<NBitsCase> cases = {
      {.name = "4bit"},
      {.name = "4bit_gemv", .a = {1, 1, 64}},
      {.name = "4bit_packed_zp_bias", .zp = NBitsCase::kPackedZp, .bias = true},
      {.name = "4bit_float_zp", .zp = NBitsCase::kFloatZp},
      {.name = "4bit_g_idx_packed_zp", .zp = NBitsCase::kPackedZp, .g_idx = true},
      {.name = "4bit_g_idx_float_zp_bias", .zp = NBitsCase::kFloatZp, .g_idx = true, .bias = true},
      {.name = "4bit_block128_tail", .block = 128, .K = 200, .a = {2, 200}},
      {.name = "4bit_block256_rank3", .block = 256, .K = 300, .a = {2, 2, 300}},
      {.name = "2bit", .bits = 2, .block = 16},
      {.name = "2bit_packed_zp_tail",
       .bits = 2,
       .block = 16,
       .K = 72,
       .a = {3, 72},
       .zp = NBitsCase::kPackedZp},
      {.name = "8bit_block64_packed_zp",
       .bits = 8,
       .block = 64,
       .K = 130,
       .a = {4, 130},
       .zp = NBitsCase::kPackedZp,
       .bias = true},
      {.name = "8bit_float_zp_gemv",
       .bits = 8,
       .block = 16,
       .a = {1, 64},
       .zp = NBitsCase::kFloatZp},
      {.name = "4bit_weights_at_run_time",
       .zp = NBitsCase::kPackedZp,
       .bias = true,
       .constant_weights = false},
      {.name = "4bit_no_rows", .a = {0, 64}},
      // More rows than one workgroup takes (8), and not a multiple of them.
      {.name = "4bit_19_rows_packed_zp", .a = {19, 64}, .zp = NBitsCase::kPackedZp, .bias = true},
  };
  for (const NBitsCase& n : cases) {
    OpCase op{
        "MatMulNBits_" + n.name,
        [n] {
          const int64_t blocks = (n.K + n.block - 1) / n.block;
          const int64_t blob = n.block * n.bits / 8;
          OpTest t = ms_op("MatMulNBits");
          t.input(random_f32(n.a, 230))
              .input(random_bytes({n.N, blocks, blob}, 231))
              .input(random_f32({n.N * blocks}, 232, 0.01f, 0.1f));
          if (n.zp == NBitsCase::kPackedZp) {
            t.input(random_bytes({n.N, (blocks * n.bits + 7) / 8}, 233));
          } else if (n.zp == NBitsCase::kFloatZp) {
            t.input(random_f32({n.N * blocks}, 233, 0.0f, float(1 << n.bits)));
          } else {
            t.input(Tensor());
          }
          if (n.g_idx) {
            // Block b of the quantization holds the columns of block blocks - 1 - b.
            std::vector<int32_t> g;
            for (int64_t k = 0; k < n.K; ++k)
              g.push_back(static_cast<int32_t>(blocks - 1 - k / n.block));
            t.input(Tensor::from_data<int32_t>({n.K}, g)).constant_input(4);
          } else {
            t.input(Tensor());
          }
          t.input(n.bias ? random_f32({n.N}, 234) : Tensor());
          if (n.constant_weights) {
            t.constant_input(1).constant_input(2);
            if (n.zp != NBitsCase::kNoZp) t.constant_input(3);
          }
          return t.attr("K", n.K).attr("N", n.N).attr("bits", n.bits).attr("block_size", n.block);
        },
        1e-4, 1e-4};
    op.on_pixel = false;
    c.push_back(op);
  }
}

// GatherBlockQuantized: 2, 4 and 8 bits, zero points or not, int32 and int64 indices (negative
// ones count from the end), a rank-3 table, float16 scales (the output rounded to float16 as
// on the CPU, compared bit for bit).
void add_gather_block_quantized_cases(std::vector<OpCase>& c) {
  struct GbqCase {
    std::string name;
    int64_t bits = 4, block = 16;
    Shape data = {10, 16};  // packed bytes in the last axis
    bool zp = false, int32_indices = false, float16 = false;
  };
  const std::vector<GbqCase> cases = {
      {.name = "4bit"},
      {.name = "4bit_zp_int32", .zp = true, .int32_indices = true},
      {.name = "8bit_zp_block32", .bits = 8, .block = 32, .data = {10, 48}, .zp = true},
      {.name = "2bit_tail", .bits = 2, .block = 16, .data = {10, 9}},
      {.name = "4bit_rank3_zp", .data = {10, 3, 16}, .zp = true},
      {.name = "4bit_float16_scales", .block = 32, .float16 = true},
  };
  for (const GbqCase& g : cases) {
    OpCase op{"GatherBlockQuantized_" + g.name, [g] {
                const int64_t per = 8 / g.bits, cols = g.data.back() * per;
                const int64_t blocks = (cols + g.block - 1) / g.block;
                Shape scales_shape = g.data;
                scales_shape.back() = blocks;
                Tensor scales = random_f32(scales_shape, 241, 0.01f, 0.5f);
                if (g.float16) {
                  Tensor h = Tensor::zeros(DataType::Float16, scales_shape);
                  for (int64_t i = 0; i < h.element_count(); ++i)
                    h.mutable_data<Float16>()[i] = Float16(scales.data<float>()[i]);
                  scales = h;
                }
                const std::vector<int64_t> rows = {3, 0, -1, 9, 3, -10};
                Tensor indices = g.int32_indices
                                     ? Tensor::from_data<int32_t>({2, 3}, {3, 0, -1, 9, 3, -10})
                                     : Tensor::from_data<int64_t>({2, 3}, rows);
                OpTest t = ms_op("GatherBlockQuantized");
                t.input(random_bytes(g.data, 240)).input(indices).input(scales);
                if (g.zp) {
                  Shape zp_shape = g.data;
                  zp_shape.back() = (blocks + per - 1) / per;
                  t.input(random_bytes(zp_shape, 242)).constant_input(3);
                }
                return t.constant_input(0)
                    .constant_input(2)
                    .attr("bits", g.bits)
                    .attr("block_size", g.block)
                    .attr("quantize_axis", static_cast<int64_t>(g.data.size()) - 1);
              }};
    op.on_pixel = false;
    c.push_back(op);
  }
}

// GroupQueryAttention: a first prompt (with padded sequences), decode steps over a past that
// grows and over the shared buffer (a past as long as the present), a later prompt chunk,
// packed and separate Q, K, V, rotary embedding interleaved or not (a partial rotary width,
// position_ids), a local window, softcap, scale, attention_bias, non-causal, and presents left
// out. Present keys of 70 rows span several strides of the shader's key loop.
struct GqaCase {
  std::string name;
  int64_t batch = 2, seq = 3, heads = 4, kv_heads = 2, head = 8;
  int64_t past = 0;              // rows of past_key / past_value (0: none)
  std::vector<int32_t> seqlens;  // empty: every sequence's keys are past + seq
  int32_t total = 0;             // 0: past + seq
  bool packed = false, rotary = false, interleaved = false, position_ids = false;
  int64_t rotary_half = 0;  // cache width (0: head / 2)
  int64_t window = -1;
  float softcap = 0, scale = 0;
  bool causal = true, bias = false, presents = true;
  bool float16 = false;  // every float operand float16 (the kernel computes in float32)
};

void add_group_query_attention_cases(std::vector<OpCase>& c) {
  const std::vector<GqaCase> cases = {
      {.name = "prompt"},
      {.name = "prompt_padded", .seq = 5, .seqlens = {4, 2}},
      {.name = "prompt_packed_rotary", .packed = true, .rotary = true},
      {.name = "prompt_rotary_interleaved_partial",
       .rotary = true,
       .interleaved = true,
       .rotary_half = 2},
      {.name = "decode", .seq = 1, .past = 5},
      {.name = "decode_packed_rotary_long",
       .batch = 1,
       .seq = 1,
       .past = 69,
       .packed = true,
       .rotary = true},
      {.name = "decode_shared_buffer",
       .seq = 1,
       .past = 8,
       .seqlens = {5, 3},
       .total = 6,
       .rotary = true},
      {.name = "decode_window", .seq = 1, .past = 9, .window = 4},
      {.name = "later_prompt_window_rotary",
       .batch = 1,
       .seq = 3,
       .past = 4,
       .rotary = true,
       .window = 3},
      {.name = "softcap_scale", .seq = 4, .softcap = 2.0f, .scale = 0.3f},
      {.name = "non_causal", .seq = 4, .causal = false},
      {.name = "attention_bias_mha",
       .batch = 1,
       .seq = 2,
       .heads = 2,
       .kv_heads = 2,
       .past = 3,
       .bias = true},
      {.name = "decode_attention_bias", .seq = 1, .past = 4, .bias = true},
      {.name = "position_ids", .seq = 1, .past = 3, .rotary = true, .position_ids = true},
      {.name = "no_presents", .batch = 1, .seq = 2, .past = 3, .presents = false},
      {.name = "float16_packed_rotary_decode",
       .seq = 1,
       .past = 4,
       .packed = true,
       .rotary = true,
       .float16 = true},
  };
  for (const GqaCase& g : cases) {
    OpCase op{"GroupQueryAttention_" + g.name,
              [g] {
                const int64_t hidden = g.heads * g.head, kv_hidden = g.kv_heads * g.head;
                const int32_t total = g.total ? g.total : static_cast<int32_t>(g.past + g.seq);
                std::vector<int32_t> seqlens = g.seqlens;
                if (seqlens.empty()) seqlens.assign(static_cast<size_t>(g.batch), total - 1);
                // Float operands, float16 when the case asks for it.
                auto fl = [&g](const Shape& shape, unsigned seed, float lo = -2.0f,
                               float hi = 2.0f) {
                  const Tensor f = random_f32(shape, seed, lo, hi);
                  if (!g.float16) return f;
                  Tensor h = Tensor::zeros(DataType::Float16, shape);
                  for (int64_t i = 0; i < h.element_count(); ++i)
                    h.mutable_data<Float16>()[i] = Float16(f.data<float>()[i]);
                  return h;
                };
                OpTest t = ms_op("GroupQueryAttention");
                if (g.packed) {
                  t.input(fl({g.batch, g.seq, hidden + 2 * kv_hidden}, 250))
                      .input(Tensor())
                      .input(Tensor());
                } else {
                  t.input(fl({g.batch, g.seq, hidden}, 250))
                      .input(fl({g.batch, g.seq, kv_hidden}, 251))
                      .input(fl({g.batch, g.seq, kv_hidden}, 252));
                }
                if (g.past > 0) {
                  t.input(fl({g.batch, g.kv_heads, g.past, g.head}, 253))
                      .input(fl({g.batch, g.kv_heads, g.past, g.head}, 254));
                } else {
                  t.input(Tensor()).input(Tensor());
                }
                t.input(Tensor::from_data<int32_t>({g.batch}, seqlens))
                    .input(Tensor::from_data<int32_t>({1}, {total}));
                if (g.rotary || g.position_ids || g.bias) {
                  const int64_t half = g.rotary_half ? g.rotary_half : g.head / 2;
                  if (g.rotary) {
                    t.input(fl({80, half}, 255, -1.0f, 1.0f))
                        .input(fl({80, half}, 256, -1.0f, 1.0f))
                        .constant_input(7)
                        .constant_input(8);
                  } else {
                    t.input(Tensor()).input(Tensor());
                  }
                  if (g.position_ids) {
                    std::vector<int64_t> ids;
                    for (int64_t i = 0; i < g.batch * g.seq; ++i) ids.push_back((7 + 33 * i) % 80);
                    t.input(Tensor::from_data<int64_t>({g.batch, g.seq}, ids));
                  } else {
                    t.input(Tensor());
                  }
                  if (g.bias) t.input(fl({1, g.heads, g.seq, total}, 257));
                }
                t.attr("num_heads", g.heads).attr("kv_num_heads", g.kv_heads);
                if (g.rotary) t.attr("do_rotary", int64_t{1});
                if (g.interleaved) t.attr("rotary_interleaved", int64_t{1});
                if (g.window > 0) t.attr("local_window_size", g.window);
                if (g.softcap != 0) t.attr("softcap", g.softcap);
                if (g.scale != 0) t.attr("scale", g.scale);
                if (!g.causal) t.attr("causal", int64_t{0});
                if (g.presents) t.outputs(3);
                return t;
              },
              g.float16 ? 4e-3 : 1e-4, g.float16 ? 1e-3 : 1e-5};
    op.on_pixel = false;
    c.push_back(op);
  }
}

// Shape (start / end), Size, and the integer reductions that compute sequence lengths from an
// attention mask. Int64 values differ above 32 bits, so a reduction that dropped the high words
// would fail.
// Type names in a case's name that GPU-pixel keeps on the CPU ("int32" also matches uint32).
constexpr const char* kNotInTextures[] = {"int32", "int64", "float64", "float4e2m1", "float8e8m0"};

void add_shape_arithmetic_cases(std::vector<OpCase>& c) {
  const std::vector<std::pair<int64_t, std::optional<int64_t>>> slices = {
      {0, std::nullopt}, {1, std::nullopt}, {-2, -1}, {3, 1}, {-9, 9}};
  for (const auto& [start, end] : slices) {
    c.push_back({"Shape_start" + std::to_string(start) +
                     (end ? "_end" + std::to_string(*end) : std::string()),
                 [start = start, end = end] {
                   OpTest t("Shape", 21);
                   t.input(random_f32({2, 3, 0, 5}, 260)).attr("start", start);
                   if (end) t.attr("end", *end);
                   return t;
                 }});
  }
  c.push_back({"Size", [] {
                 return OpTest("Size").input(few_values(DataType::Int64, {3, 4}, 261));
               }});
  for (const char* op : {"ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin"}) {
    for (DataType dt : {DataType::Int32, DataType::Int64}) {
      for (int64_t keepdims : {0, 1}) {
        c.push_back({std::string(op) + "_" + std::string(dtype_name(dt)) + "_keep" +
                         std::to_string(keepdims),
                     [op, dt, keepdims] {
                       return OpTest(op, 18)
                           .input(few_values(dt, {3, 4, 5}, 262))
                           .input(i64({2}, {0, 2}))
                           .constant_input(1)
                           .attr("keepdims", keepdims);
                     }});
        c.back().on_pixel = false;
      }
    }
    c.push_back({std::string(op) + "_int64_all", [op] {
                   return OpTest(op, 18).input(few_values(DataType::Int64, {40, 3}, 263));
                 }});
    c.back().on_pixel = false;
  }
}

// DFT and STFT: real and complex signals, padded and truncated by
// dft_length, along a middle axis, onesided, inverse, the inverse of a half spectrum (even and
// odd lengths), the axis as an attribute (opset 17) and as an input (opset 20); STFT with and
// without a window, and a complex signal. The CPU transforms in double: the GPU sum must hold
// to the default tolerances even where bins cancel to nearly zero.
void add_signal_cases(std::vector<OpCase>& c) {
  struct DftCase {
    std::string name;
    Shape shape;
    std::optional<int64_t> length;
    int64_t axis = 1;  // opset 17: the attribute; opset 20: input 2
    int64_t inverse = 0, onesided = 0;
    int opset = 17;
  };
  const std::vector<DftCase> dfts = {
      {"real", {2, 8, 1}, std::nullopt},
      {"complex_padded", {3, 5, 2}, 8},
      {"complex_truncated", {2, 7, 2}, 3},
      {"middle_axis", {2, 3, 6, 2}, std::nullopt, 2},
      {"onesided", {2, 9, 1}, std::nullopt, 1, 0, 1},
      {"inverse", {2, 7, 2}, std::nullopt, 1, 1},
      {"irfft_even", {2, 5, 2}, std::nullopt, 1, 1, 1},
      {"irfft_odd", {3, 5, 2}, 9, 1, 1, 1},
      {"opset20_axis_input", {2, 6, 3, 1}, std::nullopt, -3, 0, 0, 20},
      {"opset20_default_axis", {3, 4, 12, 2}, 16, -2, 1, 0, 20},
  };
  for (size_t i = 0; i < dfts.size(); ++i) {
    c.push_back({"DFT_" + dfts[i].name, [d = dfts[i], i] {
                   OpTest t("DFT", d.opset);
                   t.input(random_f32(d.shape, 270 + static_cast<unsigned>(i)))
                       .input(d.length ? i64({}, {*d.length}) : Tensor())
                       .attr("inverse", d.inverse)
                       .attr("onesided", d.onesided);
                   if (d.opset >= 20) {
                     t.input(i64({}, {d.axis})).constant_input(2);
                   } else {
                     t.attr("axis", d.axis);
                   }
                   if (d.length) t.constant_input(1);
                   return t;
                 }});
  }
  struct StftCase {
    std::string name;
    Shape signal;
    int64_t step = 1;
    std::optional<int64_t> window, frame_length;
    int64_t onesided = 1;
  };
  const std::vector<StftCase> stfts = {
      {"window", {2, 64, 1}, 8, 16, std::nullopt},
      {"frame_length", {2, 50, 1}, 6, std::nullopt, 15},
      {"window_and_frame_length", {1, 40, 1}, 7, 12, 12},
      {"complex", {2, 40, 2}, 5, std::nullopt, 10, 0},
  };
  for (size_t i = 0; i < stfts.size(); ++i) {
    c.push_back({"STFT_" + stfts[i].name, [s = stfts[i], i] {
                   OpTest t("STFT", 17);
                   t.input(random_f32(s.signal, 280 + static_cast<unsigned>(i)))
                       .input(i64({}, {s.step}))
                       .input(s.window ? random_f32({*s.window}, 290, 0.0f, 1.0f) : Tensor())
                       .input(s.frame_length ? i64({}, {*s.frame_length}) : Tensor())
                       .attr("onesided", s.onesided)
                       .constant_input(1);
                   if (s.frame_length) t.constant_input(3);
                   return t;
                 }});
  }
}

// CenterCropPad (int64 data on GPU-compute only): cropping and padding by even and odd differences,
// on every axis and on listed (negative) axes, float32 and int64 data, int32 and int64 sizes.
void add_center_crop_pad_cases(std::vector<OpCase>& c) {
  struct CropCase {
    std::string name;
    Shape x;
    std::vector<int64_t> sizes;
    std::optional<std::vector<int64_t>> axes;
    DataType dtype = DataType::Float32;
  };
  const std::vector<CropCase> crops = {
      {"crop", {10, 9, 3}, {6, 6, 3}},
      {"pad", {3, 4, 2}, {6, 7, 2}},
      {"crop_and_pad", {8, 3, 5}, {5, 8, 5}},
      {"axes", {3, 9, 11}, {6, 4}, std::vector<int64_t>{-2, 2}},
      {"int64_odd", {7, 2, 5}, {4, 5}, std::vector<int64_t>{0, 1}, DataType::Int64},
  };
  for (size_t i = 0; i < crops.size(); ++i) {
    c.push_back({"CenterCropPad_" + crops[i].name, [cc = crops[i], i] {
                   const auto n = static_cast<int64_t>(cc.sizes.size());
                   Tensor sizes =
                       i % 2 ? i64({n}, cc.sizes)
                             : Tensor::from_data<int32_t>(
                                   {n}, std::vector<int32_t>(cc.sizes.begin(), cc.sizes.end()));
                   Tensor x =
                       cc.dtype == DataType::Int64
                           ? few_values(DataType::Int64, cc.x, 300 + static_cast<unsigned>(i))
                           : random_f32(cc.x, 300 + static_cast<unsigned>(i));
                   OpTest t("CenterCropPad", 18);
                   t.input(x).input(sizes).constant_input(1);
                   if (cc.axes) t.attr("axes", *cc.axes);
                   return t;
                 }});
    c.back().on_pixel = crops[i].dtype != DataType::Int64;
  }
}

// Einsum (GPU-compute only): batched products, diagonals under an ellipsis, transposes, sums,
// inner products to a scalar, an implicit output, broadcasting extents of 1, float32 and
// float64 (values exact in a few bits, so every order of summation gives the same doubles).
void add_einsum_cases(std::vector<OpCase>& c) {
  struct EinsumCase {
    std::string name, equation;
    std::vector<Shape> shapes;
  };
  const std::vector<EinsumCase> einsums = {
      {"batch_matmul", "bij,bjk->bik", {{3, 2, 5}, {3, 5, 4}}},
      {"batch_diagonal", "...ii->...i", {{2, 3, 4, 4}}},
      {"transpose", "ij->ji", {{3, 7}}},
      {"sum", "ij->i", {{4, 6}}},
      {"inner_product", "i,i", {{9}, {9}}},
      {"implicit_trace_product", "ij,jk", {{2, 3}, {3, 5}}},
      {"broadcast_ellipsis", "...j,...j->...", {{4, 1, 6}, {1, 3, 6}}},
      {"outer", "i,j->ij", {{5}, {3}}},
  };
  for (DataType dt : {DataType::Float32, DataType::Float64}) {
    for (size_t i = 0; i < einsums.size(); ++i) {
      c.push_back({"Einsum_" + einsums[i].name + "_" + std::string(dtype_name(dt)),
                   [e = einsums[i], dt, i] {
                     OpTest t("Einsum", 12);
                     for (size_t k = 0; k < e.shapes.size(); ++k) {
                       const Tensor x =
                           random_f32(e.shapes[k], 310 + static_cast<unsigned>(10 * i + k));
                       if (dt == DataType::Float32) {
                         t.input(x);
                       } else {
                         std::vector<double> v;
                         for (float f : x.to_vector<float>()) v.push_back(std::round(f * 4) / 4);
                         t.input(Tensor::from_data<double>(e.shapes[k], v));
                       }
                     }
                     return t.attr("equation", e.equation);
                   }});
      c.back().on_pixel = false;
    }
  }
}

// Col2Im: overlapping blocks (sums of several columns per pixel), strides,
// pads, dilations, one and three spatial axes.
void add_col2im_cases(std::vector<OpCase>& c) {
  struct Col2ImCase {
    std::string name;
    std::vector<int64_t> image, block, dilations, pads, strides;
  };
  const std::vector<Col2ImCase> folds = {
      {"overlapping", {5, 6}, {2, 3}, {}, {}, {}},
      {"strides", {7, 5}, {3, 2}, {}, {}, {2, 1}},
      {"pads", {4, 5}, {3, 3}, {}, {1, 0, 2, 1}, {}},
      {"dilations", {6, 6}, {2, 2}, {2, 3}, {}, {}},
      {"one_axis", {9}, {4}, {}, {1, 2}, {2}},
      {"three_axes", {3, 4, 5}, {2, 2, 3}, {1, 2, 1}, {0, 1, 0, 0, 0, 1}, {1, 1, 2}},
  };
  for (size_t i = 0; i < folds.size(); ++i) {
    c.push_back({"Col2Im_" + folds[i].name, [f = folds[i], i] {
                   const size_t r = f.image.size();
                   int64_t block_size = 1, columns = 1;
                   for (size_t d = 0; d < r; ++d) {
                     const int64_t dil = f.dilations.empty() ? 1 : f.dilations[d];
                     const int64_t stride = f.strides.empty() ? 1 : f.strides[d];
                     const int64_t room =
                         f.image[d] + (f.pads.empty() ? 0 : f.pads[d] + f.pads[d + r]);
                     block_size *= f.block[d];
                     columns *= (room - dil * (f.block[d] - 1) - 1) / stride + 1;
                   }
                   const auto rank = static_cast<int64_t>(r);
                   OpTest t("Col2Im", 18);
                   t.input(random_f32({2, 3 * block_size, columns}, 330 + static_cast<unsigned>(i)))
                       .input(i64({rank}, f.image))
                       .input(i64({rank}, f.block))
                       .constant_input(1)
                       .constant_input(2);
                   if (!f.dilations.empty()) t.attr("dilations", f.dilations);
                   if (!f.pads.empty()) t.attr("pads", f.pads);
                   if (!f.strides.empty()) t.attr("strides", f.strides);
                   return t;
                 }});
  }
}

// AffineGrid: 2 and 3 spatial axes, with and without align_corners, an axis
// of one position.
void add_affine_grid_cases(std::vector<OpCase>& c) {
  const std::vector<std::vector<int64_t>> sizes = {{2, 3, 5, 7}, {3, 1, 1, 6}, {2, 4, 3, 5, 4}};
  for (size_t i = 0; i < sizes.size(); ++i) {
    for (int64_t align : {0, 1}) {
      c.push_back({"AffineGrid_" + std::to_string(sizes[i].size() - 2) + "d_" + std::to_string(i) +
                       (align ? "_align_corners" : ""),
                   [size = sizes[i], align, i] {
                     const auto r = static_cast<int64_t>(size.size()) - 2;
                     return OpTest("AffineGrid", 20)
                         .input(random_f32({size[0], r, r + 1}, 340 + static_cast<unsigned>(i)))
                         .input(i64({static_cast<int64_t>(size.size())}, size))
                         .constant_input(1)
                         .attr("align_corners", align);
                   }});
    }
  }
}

// QLinearMatMul (GPU-compute only): uint8 and int8 operands, float32, float16 and bfloat16
// scales, per-tensor and per-row / per-column scales and zero points, batches that broadcast,
// 1-D operands, no output zero point, results that saturate; compared bit for bit.
void add_qlinear_matmul_cases(std::vector<OpCase>& c) {
  struct QCase {
    std::string name;
    Shape a, b;
    DataType operand = DataType::UInt8, scale = DataType::Float32;
    bool per_line = false, y_zero = true;
  };
  const std::vector<QCase> qs = {
      {"2d_uint8", {4, 7}, {7, 5}},
      {"2d_int8_float16", {3, 9}, {9, 6}, DataType::Int8, DataType::Float16},
      {"3d_broadcast_uint8_bfloat16", {2, 3, 5}, {5, 4}, DataType::UInt8, DataType::BFloat16},
      {"batch_broadcast_int8", {2, 1, 3, 6}, {1, 3, 6, 2}, DataType::Int8},
      {"per_line_uint8", {5, 8}, {8, 3}, DataType::UInt8, DataType::Float32, true},
      {"per_line_int8_float16", {2, 4, 6}, {6, 7}, DataType::Int8, DataType::Float16, true},
      {"vector_no_y_zero", {6}, {6, 4}, DataType::Int8, DataType::Float32, false, false},
  };
  for (size_t i = 0; i < qs.size(); ++i) {
    c.push_back({"QLinearMatMul_" + qs[i].name, [q = qs[i], i] {
                   const auto seed = 350 + static_cast<unsigned>(10 * i);
                   auto operand = [&](const Shape& s, unsigned k) {
                     return q.operand == DataType::Int8 ? random_int<int8_t>(s, seed + k, -128, 127)
                                                        : random_int<uint8_t>(s, seed + k, 0, 255);
                   };
                   auto scales = [&](int64_t n, unsigned k) {
                     const Tensor f = random_f32({n}, seed + k, 0.002f, 0.05f);
                     if (q.scale == DataType::Float32) return f;
                     std::vector<float> v = f.to_vector<float>();
                     if (q.scale == DataType::Float16) {
                       std::vector<Float16> out;
                       for (float x : v) out.push_back(Float16(x));
                       return Tensor::from_data<Float16>({n}, out);
                     }
                     std::vector<BFloat16> out;
                     for (float x : v) out.push_back(BFloat16(x));
                     return Tensor::from_data<BFloat16>({n}, out);
                   };
                   const int64_t m = q.a.size() > 1 ? q.a[q.a.size() - 2] : 1;
                   const int64_t n = q.b.back();
                   const int64_t rows = q.per_line ? m : 1, cols = q.per_line ? n : 1;
                   auto zeros = [&](int64_t count, unsigned k) {
                     return q.operand == DataType::Int8
                                ? random_int<int8_t>({count}, seed + k, -20, 20)
                                : random_int<uint8_t>({count}, seed + k, 100, 150);
                   };
                   OpTest t("QLinearMatMul", 21);
                   t.input(operand(q.a, 1))
                       .input(scales(rows, 2))
                       .input(zeros(rows, 3))
                       .input(operand(q.b, 4))
                       .input(scales(cols, 5))
                       .input(zeros(cols, 6))
                       .input(scales(1, 7));
                   if (q.y_zero) t.input(zeros(1, 8));
                   return t;
                 }});
    c.back().on_pixel = false;
  }
}

std::vector<OpCase> make_cases() {
  std::vector<OpCase> c;
  // Element-wise binary with broadcasting.
  const std::vector<std::pair<Shape, Shape>> pairs = {{{7}, {7}},
                                                      {{2, 3, 4}, {4}},
                                                      {{2, 1, 4}, {3, 1}},
                                                      {{1}, {5, 6}},
                                                      {{}, {3}},
                                                      {{0, 3}, {1, 3}},
                                                      {{2, 1, 3, 1, 2, 1, 2}, {3, 2, 1, 2}}};
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Max", "Min"}) {
    for (size_t i = 0; i < pairs.size(); ++i) {
      c.push_back({std::string(op) + "_" + std::to_string(i), [op, p = pairs[i], i] {
                     return OpTest(op)
                         .input(random_f32(p.first, 10 + i))
                         .input(random_f32(p.second, 20 + i, 0.5f, 2.0f));
                   }});
    }
  }
  // NaN propagates from either operand of Max and Min, as on the CPU.
  for (const char* op : {"Max", "Min"}) {
    c.push_back({std::string(op) + "_nan", [op] {
                   return OpTest(op)
                       .input(few_values(DataType::Float32, {3, 4}, 39))
                       .input(few_values(DataType::Float32, {4}, 40));
                 }});
  }
  // A NaN in the first operand only.
  for (const char* op : {"Max", "Min"}) {
    c.push_back({std::string(op) + "_nan_first", [op] {
                   return OpTest(op)
                       .input(few_values(DataType::Float32, {3, 4}, 54))
                       .input(random_f32({4}, 55));
                 }});
  }
  // Float Mod is C's fmod (fmod=1): remainders of both signs, divisors of both signs broadcast.
  c.push_back({"FMod_float32", [] {
                 return OpTest("Mod")
                     .input(random_f32({2, 3, 4}, 41, -50.0f, 50.0f))
                     .input(f32({4}, {0.7f, -1.5f, 3.0f, -0.3f}))
                     .attr("fmod", int64_t{1});
               }});
  for (const Shape& slope : {Shape{1}, Shape{3, 1, 1}, Shape{2, 3, 4, 5}}) {
    c.push_back(
        {"PRelu_" + std::to_string(slope.size()), [slope] {
           return OpTest("PRelu").input(random_f32({2, 3, 4, 5}, 31)).input(random_f32(slope, 32));
         }});
  }
  c.push_back({"Mean_2", [] {
                 return OpTest("Mean").input(random_f32({2, 3}, 37)).input(random_f32({3}, 38));
               }});
  for (const char* op : {"Sum", "Max", "Min", "Mean"}) {
    c.push_back({std::string(op) + "_variadic", [op] {
                   return OpTest(op)
                       .input(random_f32({3, 1}, 33))
                       .input(random_f32({2, 3, 4}, 34))
                       .input(random_f32({4}, 35))
                       .input(random_f32({1, 1, 1}, 36));
                 }});
    // Equal shapes (the texel-for-texel draws on the GPU-pixel backend), a NaN in a later input
    // only, and a broadcast that yields an empty result.
    c.push_back({std::string(op) + "_variadic_same_shape", [op] {
                   return OpTest(op)
                       .input(random_f32({5, 7}, 40))
                       .input(random_f32({5, 7}, 41))
                       .input(random_f32({5, 7}, 42))
                       .input(random_f32({5, 7}, 43))
                       .input(random_f32({5, 7}, 44));
                 }});
    c.push_back({std::string(op) + "_variadic_nan", [op] {
                   return OpTest(op)
                       .input(random_f32({2, 5}, 45))
                       .input(random_f32({5}, 46))
                       .input(few_values(DataType::Float32, {2, 5}, 47));
                 }});
    c.push_back({std::string(op) + "_variadic_nan_first", [op] {
                   return OpTest(op)
                       .input(few_values(DataType::Float32, {2, 5}, 51))
                       .input(random_f32({5}, 52))
                       .input(random_f32({2, 5}, 53));
                 }});
    c.push_back({std::string(op) + "_variadic_empty", [op] {
                   return OpTest(op)
                       .input(random_f32({0, 3}, 48))
                       .input(random_f32({3}, 49))
                       .input(random_f32({1, 3}, 50));
                 }});
    // One input is its own result.
    c.push_back({std::string(op) + "_one_input", [op] {
                   return OpTest(op).input(random_f32({4, 3}, 51));
                 }});
  }
  c.push_back(
      {"Pow",
       [] {
         return OpTest("Pow").input(random_f32({3, 4}, 1, 0.1f, 3.0f)).input(random_f32({4}, 2));
       },
       2e-5});
  // Unary math and activations: every op of the shared GPU table (gpu_common/unary_ops.inc)
  // with its ONNX defaults, on values of both signs (Log and Sqrt check the positive ones).
  for (const std::string& op : unary_onnx_types()) {
    if (op == "Clip") continue;  // its bounds are constant inputs, below
    c.push_back({op, [op] { return OpTest(op).input(random_f32({3, 17}, 3, -4.0f, 4.0f)); }});
  }
  c.push_back({"LeakyRelu_alpha", [] {
                 return OpTest("LeakyRelu").input(random_f32({5, 5}, 6)).attr("alpha", 0.3f);
               }});
  c.push_back({"Elu_alpha", [] {
                 return OpTest("Elu").input(random_f32({5, 5}, 7)).attr("alpha", 0.7f);
               }});
  c.push_back({"Gelu_tanh", [] {
                 return OpTest("Gelu").input(random_f32({33}, 9)).attr("approximate", "tanh");
               }});
  c.push_back({"Clip", [] {
                 return OpTest("Clip")
                     .input(random_f32({4, 6}, 10))
                     .input(Tensor::scalar<float>(-0.5f))
                     .input(Tensor::scalar<float>(0.75f))
                     .constant_input(1)
                     .constant_input(2);
               }});
  // Data movement for every dtype the GPU moves.
  for (DataType dt : {DataType::Float32, DataType::Int32, DataType::Int64}) {
    const std::string suffix = std::string("_") + std::string(dtype_name(dt));
    const size_t first = c.size();
    auto data = [dt](const Shape& s, unsigned seed) {
      if (dt == DataType::Int32) return random_int<int32_t>(s, seed);
      if (dt == DataType::Int64) return random_int<int64_t>(s, seed);
      return random_f32(s, seed);
    };
    c.push_back({"Transpose" + suffix, [data] {
                   return OpTest("Transpose")
                       .input(data({2, 3, 4, 5}, 11))
                       .attr("perm", std::vector<int64_t>{3, 1, 0, 2});
                 }});
    c.push_back({"Slice" + suffix, [data] {
                   return OpTest("Slice")
                       .input(data({6, 7, 5}, 12))
                       .input(i64({3}, {1, -1, 0}))
                       .input(i64({3}, {5, -8, 5}))
                       .input(i64({3}, {0, 1, 2}))
                       .input(i64({3}, {2, -2, 1}))
                       .constant_input(1)
                       .constant_input(2)
                       .constant_input(3)
                       .constant_input(4);
                 }});
    c.push_back({"Concat" + suffix, [data] {
                   return OpTest("Concat")
                       .input(data({2, 3, 4}, 13))
                       .input(data({2, 1, 4}, 14))
                       .input(data({2, 5, 4}, 15))
                       .attr("axis", int64_t{-2});
                 }});
    c.push_back({"Split_variable" + suffix, [data] {
                   return OpTest("Split", 18)
                       .input(data({2, 7, 3}, 17))
                       .input(i64({3}, {2, 0, 5}))
                       .constant_input(1)
                       .outputs(3)
                       .attr("axis", int64_t{-2});
                 }});
    c.push_back({"Split_num_outputs" + suffix, [data] {
                   return OpTest("Split", 18)
                       .input(data({7, 2}, 18))
                       .outputs(3)
                       .attr("num_outputs", int64_t{3});
                 }});
    c.push_back({"Expand" + suffix, [data] {
                   return OpTest("Expand")
                       .input(data({3, 1}, 16))
                       .input(i64({3}, {2, 3, 4}))
                       .constant_input(1);
                 }});
    c.push_back({"Tile" + suffix, [data] {
                   return OpTest("Tile")
                       .input(data({2, 1, 3}, 29))
                       .input(i64({3}, {2, 3, 1}))
                       .constant_input(1);
                 }});
    c.push_back({"DepthToSpace_DCR" + suffix, [data] {
                   return OpTest("DepthToSpace")
                       .input(data({2, 8, 3, 2}, 26))
                       .attr("blocksize", int64_t{2});
                 }});
    c.push_back({"DepthToSpace_CRD" + suffix, [data] {
                   return OpTest("DepthToSpace")
                       .input(data({1, 18, 2, 3}, 27))
                       .attr("blocksize", int64_t{3})
                       .attr("mode", "CRD");
                 }});
    c.push_back({"SpaceToDepth" + suffix, [data] {
                   return OpTest("SpaceToDepth")
                       .input(data({2, 3, 4, 6}, 28))
                       .attr("blocksize", int64_t{2});
                 }});
    c.push_back({"Reshape" + suffix, [data] {
                   return OpTest("Reshape")
                       .input(data({2, 3, 4}, 17))
                       .input(i64({2}, {0, -1}))
                       .constant_input(1);
                 }});
    for (size_t i = first; i < c.size(); ++i) c[i].on_pixel = dt == DataType::Float32;
  }
  const size_t first_compute_indexing = c.size();
  // Indexed reads: every data dtype, int32 and int64 indices (negative ones too), any axis,
  // indices constant or a graph input.
  for (DataType dt : {DataType::Float32, DataType::Int32, DataType::Int64}) {
    const std::string suffix = std::string("_") + std::string(dtype_name(dt));
    auto data = [dt](const Shape& s, unsigned seed) {
      if (dt == DataType::Int32) return random_int<int32_t>(s, seed);
      if (dt == DataType::Int64) return random_int<int64_t>(s, seed);
      return random_f32(s, seed);
    };
    c.push_back({"Gather_axis0" + suffix, [data] {
                   return OpTest("Gather")
                       .input(data({5, 4}, 18))
                       .input(i64({2, 3}, {0, -1, 4, 2, -5, 1}))
                       .constant_input(1);
                 }});
    c.push_back({"Gather_axis1_int32" + suffix, [data] {
                   return OpTest("Gather")
                       .input(data({3, 6, 4}, 19))
                       .input(random_int<int32_t>({7}, 20, -6, 5))
                       .attr("axis", int64_t{1});
                 }});
    c.push_back({"Gather_last_scalar" + suffix, [data] {
                   return OpTest("Gather")
                       .input(data({2, 3, 5}, 21))
                       .input(Tensor::scalar<int64_t>(-2))
                       .attr("axis", int64_t{-1});
                 }});
    c.push_back({"GatherElements" + suffix, [data] {
                   return OpTest("GatherElements")
                       .input(data({4, 5, 3}, 22))
                       .input(random_int<int64_t>({4, 2, 3}, 23, -5, 4))
                       .attr("axis", int64_t{1});
                 }});
    c.push_back({"GatherElements_int32_smaller" + suffix, [data] {
                   return OpTest("GatherElements")
                       .input(data({4, 5}, 24))
                       .input(random_int<int32_t>({3, 2}, 25, -4, 3))
                       .attr("axis", int64_t{0});
                 }});
  }
  add_cast_cases(c);
  // Integer arithmetic with broadcasting; divisors are never zero (the CPU rejects those).
  auto nonzero = [](Tensor t) {
    if (t.dtype() == DataType::Int32) {
      for (int64_t i = 0; i < t.element_count(); ++i)
        if (t.data<int32_t>()[i] == 0) t.mutable_data<int32_t>()[i] = 3;
    } else {
      for (int64_t i = 0; i < t.element_count(); ++i)
        if (t.data<int64_t>()[i] == 0) t.mutable_data<int64_t>()[i] = -3;
    }
    return t;
  };
  const std::vector<std::pair<Shape, Shape>> int_pairs = {
      {{11}, {11}}, {{2, 3, 4}, {4}}, {{3, 1}, {1, 5}}, {{}, {6}}, {{0, 2}, {1, 2}}};
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Mod", "FMod", "Max", "Min"}) {
    for (DataType dt : {DataType::Int32, DataType::Int64}) {
      for (size_t i = 0; i < int_pairs.size(); ++i) {
        c.push_back({std::string(op) + "_" + std::string(dtype_name(dt)) + "_" + std::to_string(i),
                     [op, dt, nonzero, p = int_pairs[i], i] {
                       auto gen = [dt](const Shape& s, unsigned seed) {
                         return dt == DataType::Int32 ? random_int<int32_t>(s, seed, -60, 60)
                                                      : random_int<int64_t>(s, seed, -60, 60);
                       };
                       const std::string name = op;
                       OpTest t(name == "FMod" ? "Mod" : name);
                       t.input(gen(p.first, 170 + i)).input(nonzero(gen(p.second, 180 + i)));
                       if (name == "FMod") t.attr("fmod", int64_t{1});
                       return t;
                     }});
      }
    }
  }
  c.push_back({"Div_int32_wraps", [] {
                 return OpTest("Div")
                     .input(Tensor::from_data<int32_t>({4}, {INT32_MIN, 7, -7, 100}))
                     .input(Tensor::from_data<int32_t>({4}, {-1, -2, 2, -7}));
               }});
  c.push_back({"Mul_int64_wraps", [] {
                 return OpTest("Mul")
                     .input(i64({3}, {int64_t{1} << 40, -(int64_t{3} << 33), INT64_MAX}))
                     .input(i64({3}, {int64_t{1} << 30, int64_t{5} << 31, 3}));
               }});
  for (const char* op : {"Neg", "Abs"}) {
    c.push_back({std::string(op) + "_int32", [op] {
                   return OpTest(op).input(random_int<int32_t>({3, 7}, 190));
                 }});
    c.push_back({std::string(op) + "_int64", [op] {
                   return OpTest(op).input(i64({4}, {-5, 7, INT64_MAX, -(int64_t{1} << 50)}));
                 }});
  }
  // Comparisons and logic (bool outputs of odd lengths: the shader packs 4 per word), Where.
  const std::vector<std::pair<Shape, Shape>> logic_pairs = {
      {{13}, {13}}, {{2, 3, 5}, {5}}, {{3, 1}, {1, 7}}, {{}, {6}}, {{0, 3}, {1, 3}}};
  for (const char* op : {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"}) {
    for (DataType dt : {DataType::Float32, DataType::Int32, DataType::Int64}) {
      for (size_t i = 0; i < logic_pairs.size(); ++i) {
        c.push_back({std::string(op) + "_" + std::string(dtype_name(dt)) + "_" + std::to_string(i),
                     [op, dt, p = logic_pairs[i], i] {
                       return OpTest(op)
                           .input(few_values(dt, p.first, 110 + i))
                           .input(few_values(dt, p.second, 120 + i));
                     }});
      }
    }
  }
  for (const char* op : {"And", "Or", "Xor"}) {
    for (size_t i = 0; i < logic_pairs.size(); ++i) {
      c.push_back({std::string(op) + "_" + std::to_string(i), [op, p = logic_pairs[i], i] {
                     return OpTest(op)
                         .input(few_values(DataType::Bool, p.first, 130 + i))
                         .input(few_values(DataType::Bool, p.second, 140 + i));
                   }});
    }
  }
  c.push_back({"Not", [] { return OpTest("Not").input(few_values(DataType::Bool, {3, 5}, 150)); }});
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor specials = Tensor::from_data<float>(
      {9}, {1.0f, inf, -inf, std::nanf(""), 0.0f, -3.0f, inf, 3e38f, -std::nanf("")});
  c.push_back({"IsNaN", [specials] { return OpTest("IsNaN").input(specials); }});
  c.push_back({"IsInf", [specials] { return OpTest("IsInf").input(specials); }});
  c.push_back({"IsInf_positive", [specials] {
                 return OpTest("IsInf").input(specials).attr("detect_negative", int64_t{0});
               }});
  c.push_back({"IsInf_negative", [specials] {
                 return OpTest("IsInf").input(specials).attr("detect_positive", int64_t{0});
               }});
  for (DataType dt : {DataType::Float32, DataType::Int32, DataType::Int64}) {
    c.push_back({"Where_" + std::string(dtype_name(dt)), [dt] {
                   return OpTest("Where")
                       .input(few_values(DataType::Bool, {3, 1, 5}, 160))
                       .input(few_values(dt, {4, 1}, 161))
                       .input(few_values(dt, {1, 4, 5}, 162));
                 }});
  }
  // ConstantOfShape: each fillable value type (bool of odd length: the last word is partial).
  const std::vector<std::pair<std::string, Tensor>> fill_values = {
      {"default", Tensor()},
      {"float32", Tensor::from_data<float>({1}, {-2.5f})},
      {"int32", Tensor::from_data<int32_t>({1}, {-7})},
      {"int64", i64({1}, {(int64_t{5} << 40) - 3})},
      {"bool", Tensor::from_data<bool>({1}, {true})}};
  for (const auto& [name, fill] : fill_values) {
    c.push_back({"ConstantOfShape_" + name, [value = fill] {
                   OpTest t("ConstantOfShape");
                   t.input(i64({3}, {3, 1, 5}));
                   if (value.defined()) t.attr("value", value);
                   return t;
                 }});
  }
  // On GPU-pixel: Gather of float32 data (indices are host values); Cast, the comparisons, the
  // logical ops, Where and ConstantOfShape of the dtypes textures hold (float32, float16,
  // bfloat16, float8 but float8e8m0, bool, the 8-, 16-, 4- and 2-bit integers); the int32 and
  // int64 arithmetic; nothing else with 32- or 64-bit integers, float64, float4e2m1 or
  // float8e8m0, and no device-computed indices.
  static constexpr const char* kIntegerArithmetic[] = {"Add_int", "Sub_int",  "Mul_int", "Div_int",
                                                       "Mod_int", "FMod_int", "Max_int", "Min_int"};
  for (size_t i = first_compute_indexing; i < c.size(); ++i) {
    const std::string& name = c[i].name;
    auto starts = [&](const char* prefix) { return name.rfind(prefix, 0) == 0; };
    const bool texel_types =
        std::none_of(std::begin(kNotInTextures), std::end(kNotInTextures),
                     [&](const char* type) { return name.find(type) != std::string::npos; });
    const bool texel_op = starts("Cast_") || name == "CastLike_float16" || starts("Equal_") ||
                          starts("Less") || starts("Greater") || starts("And_") || starts("Or_") ||
                          starts("Xor_") || name == "Not" || starts("Where_") ||
                          starts("ConstantOfShape_");
    // Integer arithmetic draws on the integer textures (integer_arithmetic.h).
    const bool integer_arithmetic =
        std::any_of(std::begin(kIntegerArithmetic), std::end(kIntegerArithmetic),
                    [&](const char* op) { return starts(op); });
    c[i].on_pixel = (starts("Gather_") && name.ends_with("_float32")) ||
                    (texel_op && texel_types) || integer_arithmetic;
  }
  const size_t first_product = c.size();
  // Matrix products: odd sizes exercise the edges of the 4x4 register blocks.
  const std::vector<std::pair<Shape, Shape>> mm = {
      {{1, 1}, {1, 1}}, {{3, 17}, {17, 5}},     {{13, 63}, {63, 66}},      {{7}, {7, 9}},
      {{9, 7}, {7}},    {{2, 3, 5, 8}, {8, 6}}, {{2, 1, 5, 8}, {3, 8, 6}}, {{4, 1, 6}, {4, 6, 1}}};
  for (size_t i = 0; i < mm.size(); ++i) {
    c.push_back({"MatMul_" + std::to_string(i),
                 [p = mm[i], i] {
                   return OpTest("MatMul")
                       .input(random_f32(p.first, 30 + i))
                       .input(random_f32(p.second, 40 + i));
                 },
                 1e-4, 1e-5});
  }
  struct GemmCase {
    bool ta, tb;
    Shape c;
  };
  const std::vector<GemmCase> gemms = {{false, false, {}},
                                       {true, false, {6}},
                                       {false, true, {5, 1}},
                                       {true, true, {5, 6}},
                                       {false, false, {1}}};
  for (size_t i = 0; i < gemms.size(); ++i) {
    c.push_back({"Gemm_" + std::to_string(i),
                 [g = gemms[i], i] {
                   OpTest t("Gemm");
                   t.input(random_f32(g.ta ? Shape{9, 5} : Shape{5, 9}, 50 + i));
                   t.input(random_f32(g.tb ? Shape{6, 9} : Shape{9, 6}, 60 + i));
                   if (!g.c.empty()) t.input(random_f32(g.c, 70 + i));
                   return t.attr("transA", int64_t{g.ta})
                       .attr("transB", int64_t{g.tb})
                       .attr("alpha", 0.7f)
                       .attr("beta", 1.3f);
                 },
                 1e-4, 1e-5});
  }
  // Convolutions: groups, depthwise, strides, dilations, asymmetric pads, 1-D, 1x1, bias.
  struct ConvCase {
    Shape x, w;
    int64_t group;
    std::vector<int64_t> strides, dilations, pads;
    bool bias;
  };
  const std::vector<ConvCase> convs = {
      {{1, 3, 9, 11}, {5, 3, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, true},
      {{2, 4, 10, 7}, {6, 2, 3, 2}, 2, {2, 1}, {1, 2}, {0, 1, 2, 0}, false},
      {{1, 6, 8, 8}, {6, 1, 3, 3}, 6, {2, 2}, {1, 1}, {1, 1, 1, 1}, true},
      {{1, 4, 8, 8}, {8, 1, 5, 5}, 4, {1, 1}, {2, 2}, {4, 4, 4, 4}, false},
      {{2, 8, 5, 6}, {7, 8, 1, 1}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, true},
      {{1, 3, 20}, {4, 3, 5}, 1, {3}, {1}, {2, 1}, true},
      // 15 input channels keep the CPU's reference off its Winograd path (16 or more on a
      // 13 x 13 map or larger), which is held to a model's tolerance, not to this one.
      {{1, 15, 14, 14}, {33, 15, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}};
  for (size_t i = 0; i < convs.size(); ++i) {
    c.push_back({"Conv_" + std::to_string(i),
                 [k = convs[i], i] {
                   OpTest t("Conv");
                   t.input(random_f32(k.x, 80 + i)).input(random_f32(k.w, 90 + i));
                   if (k.bias) t.input(random_f32({k.w[0]}, 100 + i));
                   return t.constant_input(1)
                       .attr("group", k.group)
                       .attr("strides", k.strides)
                       .attr("dilations", k.dilations)
                       .attr("pads", k.pads);
                 },
                 1e-4, 1e-5});
  }
  // Transposed convolutions: strides, output_padding, groups, pads.
  struct ConvTransposeCase {
    Shape x, w;
    int64_t group;
    std::vector<int64_t> strides, pads, output_padding;
  };
  const std::vector<ConvTransposeCase> deconvs = {
      {{1, 4, 5, 6}, {4, 3, 3, 3}, 1, {2, 2}, {1, 1, 1, 1}, {1, 0}},
      {{2, 6, 4, 4}, {6, 2, 2, 3}, 3, {1, 2}, {0, 1, 0, 1}, {0, 1}},
      {{1, 3, 9}, {3, 5, 4}, 1, {3}, {1, 2}, {0}}};
  for (size_t i = 0; i < deconvs.size(); ++i) {
    c.push_back({"ConvTranspose_" + std::to_string(i),
                 [k = deconvs[i], i] {
                   return OpTest("ConvTranspose")
                       .input(random_f32(k.x, 110 + i))
                       .input(random_f32(k.w, 120 + i))
                       .input(random_f32({k.w[1] * k.group}, 130 + i))
                       .constant_input(1)
                       .attr("group", k.group)
                       .attr("strides", k.strides)
                       .attr("pads", k.pads)
                       .attr("output_padding", k.output_padding);
                 },
                 1e-4, 1e-5});
  }
  // Resize of the last two axes: scales with nearest, sizes with linear and half_pixel.
  c.push_back({"Resize_nearest_scales", [] {
                 return OpTest("Resize")
                     .input(random_f32({1, 2, 3, 5}, 150))
                     .input(Tensor())
                     .input(f32({4}, {1, 1, 2, 1.5f}))
                     .constant_input(2)
                     .attr("mode", "nearest");
               }});
  c.push_back({"Resize_linear_sizes",
               [] {
                 return OpTest("Resize")
                     .input(random_f32({2, 1, 4, 6}, 151))
                     .input(Tensor())
                     .input(Tensor())
                     .input(i64({4}, {2, 1, 7, 3}))
                     .constant_input(3)
                     .attr("mode", "linear")
                     .attr("coordinate_transformation_mode", "half_pixel");
               },
               1e-5, 1e-6});
  // Pad in two modes (both backends).
  c.push_back({"Pad_reflect", [] {
                 return OpTest("Pad")
                     .input(random_f32({3, 5, 4}, 142))
                     .input(i64({6}, {1, 2, 0, 2, -1, 3}))
                     .constant_input(1)
                     .attr("mode", "reflect");
               }});
  c.push_back({"Pad_constant", [] {
                 return OpTest("Pad")
                     .input(random_f32({2, 3}, 143))
                     .input(i64({4}, {1, 0, 2, 3}))
                     .input(Tensor::scalar<float>(1.5f))
                     .constant_input(1)
                     .constant_input(2);
               }});
  c.push_back({"Gather_host_indices", [] {
                 return OpTest("Gather")
                     .input(random_f32({5, 4, 3}, 147))
                     .input(i64({2, 2}, {3, -1, 0, 2}))
                     .constant_input(1)
                     .attr("axis", int64_t{1});
               }});
  const size_t first_compute_only = c.size();
  // Global pools: one workgroup per plane; planes shorter and longer than a workgroup.
  const std::vector<Shape> planes = {{2, 3, 5, 7}, {1, 2, 300}, {1, 1, 1, 1}, {2, 2, 3, 4, 5}};
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
    for (size_t i = 0; i < planes.size(); ++i) {
      c.push_back({std::string(op) + "_" + std::to_string(i),
                   [op, s = planes[i], i] { return OpTest(op).input(random_f32(s, 110 + i)); },
                   1e-5, 1e-6});
    }
  }
  // GlobalLpPool with the exponents the GPU-compute backend reduces natively.
  for (int64_t p : {1, 2}) {
    for (size_t i = 0; i < planes.size(); ++i) {
      c.push_back(
          {"GlobalLpPool_p" + std::to_string(p) + "_" + std::to_string(i), [p, s = planes[i], i] {
             return OpTest("GlobalLpPool").input(random_f32(s, 115 + i)).attr("p", p);
           }});
    }
  }
  // Softmax along every axis (lines longer than a workgroup on the last), and the pre-13
  // semantics that flattens to 2-D at the axis.
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (int64_t axis : {-3, -2, -1, 0, 1, 2}) {
      c.push_back(
          {std::string(op) + "_axis" + std::to_string(axis + 3), [op, axis] {
             return OpTest(op).input(random_f32({3, 5, 130}, 120, -8.0f, 8.0f)).attr("axis", axis);
           }});
    }
    for (int64_t axis : {0, 1, 2, 3}) {
      c.push_back({std::string(op) + "_opset11_axis" + std::to_string(axis), [op, axis] {
                     return OpTest(op, 11)
                         .input(random_f32({2, 3, 7}, 121, -8.0f, 8.0f))
                         .attr("axis", axis);
                   }});
    }
  }
  // Hardmax marks the first maximum: few distinct values make ties within lines longer than a
  // workgroup; a NaN first element wins its line, a later NaN never does (as on the CPU).
  auto hardmax_input = [] {
    std::vector<float> v = few_values(DataType::Float32, {3, 5, 130}, 122).to_vector<float>();
    v[0] = v[1000] = std::nanf("");
    return f32({3, 5, 130}, v);
  };
  for (int64_t axis : {-3, -2, -1, 0, 1, 2}) {
    c.push_back({"Hardmax_axis" + std::to_string(axis + 3), [hardmax_input, axis] {
                   return OpTest("Hardmax").input(hardmax_input()).attr("axis", axis);
                 }});
  }
  for (int64_t axis : {0, 1, 2, 3}) {
    c.push_back({"Hardmax_opset11_axis" + std::to_string(axis), [hardmax_input, axis] {
                   return OpTest("Hardmax", 11).input(hardmax_input()).attr("axis", axis);
                 }});
  }
  // Lines of only -inf (the first one is the maximum), beside a NaN, short and long.
  for (int64_t axis : {0, 1}) {
    c.push_back({"Hardmax_infinities_axis" + std::to_string(axis), [axis] {
                   const float inf = std::numeric_limits<float>::infinity();
                   std::vector<float> v(3 * 40, -inf);
                   v[41] = std::nanf("");
                   for (size_t i = 80; i < v.size(); ++i) v[i] = static_cast<float>(i % 7) - 3.0f;
                   return OpTest("Hardmax").input(f32({3, 40}, v)).attr("axis", axis);
                 }});
  }
  // Windowed pools: pads (asymmetric), strides, dilations, ceil_mode, auto_pad, 1-D to 3-D (the
  // GPU-pixel backend draws 1-D and 2-D only).
  struct PoolCase {
    Shape x;
    std::vector<int64_t> kernel, strides, dilations, pads;
    int64_t ceil_mode;
    const char* auto_pad;
  };
  const std::vector<PoolCase> pools = {
      {{2, 3, 9, 11}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, 0, nullptr},
      {{1, 2, 10, 7}, {3, 2}, {2, 3}, {1, 1}, {0, 1, 2, 0}, 1, nullptr},
      {{1, 2, 12, 12}, {3, 3}, {1, 1}, {2, 2}, {2, 2, 2, 2}, 0, nullptr},
      {{1, 3, 8, 9}, {2, 3}, {2, 2}, {1, 1}, {}, 0, "SAME_UPPER"},
      {{1, 3, 8, 9}, {3, 3}, {2, 2}, {1, 1}, {}, 0, "SAME_LOWER"},
      {{2, 3, 20}, {4}, {3}, {1}, {1, 2}, 1, nullptr},
      {{1, 1, 13, 13}, {5, 5}, {3, 3}, {1, 1}, {2, 2, 2, 2}, 1, nullptr},
      {{1, 2, 5, 6, 7}, {2, 3, 2}, {2, 1, 2}, {1, 1, 2}, {1, 0, 1, 0, 1, 1}, 1, nullptr},
      {{2, 1, 6, 5, 4}, {3, 3, 3}, {1, 2, 1}, {1, 1, 1}, {}, 0, "SAME_UPPER"}};
  auto pool_test = [](const char* op, const PoolCase& k, unsigned seed) {
    OpTest t(op);
    t.input(random_f32(k.x, seed))
        .attr("kernel_shape", k.kernel)
        .attr("strides", k.strides)
        .attr("dilations", k.dilations)
        .attr("ceil_mode", k.ceil_mode);
    if (!k.pads.empty()) t.attr("pads", k.pads);
    if (k.auto_pad) t.attr("auto_pad", k.auto_pad);
    return t;
  };
  for (const char* op : {"MaxPool", "AveragePool"}) {
    for (int64_t include_pad : {0, 1}) {
      if (std::string(op) == "MaxPool" && include_pad) continue;
      for (size_t i = 0; i < pools.size(); ++i) {
        OpCase pool{std::string(op) + (include_pad ? "_include_pad_" : "_") + std::to_string(i),
                    [op, include_pad, k = pools[i], i, pool_test] {
                      OpTest t = pool_test(op, k, 130 + i);
                      if (std::string(op) == "AveragePool")
                        t.attr("count_include_pad", include_pad);
                      return t;
                    }};
        pool.on_pixel = pools[i].kernel.size() <= 2;
        c.push_back(pool);
      }
    }
  }
  // A NaN stays a window's maximum where it is the first tap inside the image, and never wins
  // from a later tap (as on the CPU).
  c.push_back({"MaxPool_nan", [] {
                 return OpTest("MaxPool")
                     .input(few_values(DataType::Float32, {1, 2, 5, 5}, 160))
                     .attr("kernel_shape", std::vector<int64_t>{3, 3})
                     .attr("pads", std::vector<int64_t>{1, 1, 1, 1});
               }});
  // LpPool over every window, and over some with p = 1 and 3 (the GPU special-cases 1 and 2, as
  // the CPU does, and takes powers otherwise).
  for (int64_t p : {2, 1, 3}) {
    for (size_t i = 0; i < pools.size(); ++i) {
      if (p != 2 && i % 3 != 0) continue;
      OpCase pool{
          "LpPool_p" + std::to_string(p) + "_" + std::to_string(i),
          [p, k = pools[i], i, pool_test] { return pool_test("LpPool", k, 150 + i).attr("p", p); }};
      pool.on_pixel = pools[i].kernel.size() <= 2;
      c.push_back(pool);
    }
  }
  // Normalizations: statistics over lines shorter and longer than a workgroup.
  for (int64_t axis : {0, 1, -1}) {
    for (bool bias : {false, true}) {
      c.push_back({"LayerNormalization_axis" + std::to_string(axis + 1) + (bias ? "_bias" : ""),
                   [axis, bias] {
                     const Shape x{3, 5, 130};
                     const Shape norm(x.begin() + (axis < 0 ? axis + 3 : axis), x.end());
                     OpTest t("LayerNormalization");
                     t.input(random_f32(x, 140, -3.0f, 5.0f)).input(random_f32(norm, 141));
                     if (bias) t.input(random_f32(norm, 142));
                     return t.attr("axis", axis).attr("epsilon", 1e-3f);
                   },
                   1e-4, 1e-5});
    }
  }
  for (int64_t axis : {0, 1, -1}) {
    c.push_back({"LayerNormalization_stats_axis" + std::to_string(axis + 1),
                 [axis] {
                   const Shape x{3, 5, 130};
                   const Shape norm(x.begin() + (axis < 0 ? axis + 3 : axis), x.end());
                   return OpTest("LayerNormalization")
                       .input(random_f32(x, 143, -3.0f, 5.0f))
                       .input(random_f32(norm, 144))
                       .input(random_f32(norm, 145))
                       .outputs(3)
                       .attr("axis", axis);
                 },
                 1e-4, 1e-5});
  }
  c.push_back({"LayerNormalization_short_rows_stats",
               [] {
                 return OpTest("LayerNormalization")
                     .input(random_f32({6, 7}, 146, -3.0f, 5.0f))
                     .input(random_f32({7}, 147))
                     .outputs(3);
               },
               1e-4, 1e-5});
  // RMSNormalization over lines shorter and longer than a workgroup, and parameters that
  // broadcast over the normalized dimensions (expanded before the kernel runs).
  for (int64_t axis : {0, 1, -1}) {
    c.push_back({"RMSNormalization_axis" + std::to_string(axis + 1),
                 [axis] {
                   const Shape x{3, 5, 130};
                   const Shape norm(x.begin() + (axis < 0 ? axis + 3 : axis), x.end());
                   return OpTest("RMSNormalization", 23)
                       .input(random_f32(x, 148, -3.0f, 5.0f))
                       .input(random_f32(norm, 149))
                       .attr("axis", axis)
                       .attr("epsilon", 1e-3f);
                 },
                 1e-4, 1e-5});
  }
  c.push_back({"RMSNormalization_broadcast_scale",
               [] {
                 return OpTest("RMSNormalization", 23)
                     .input(random_f32({2, 3, 4, 5}, 150, -3.0f, 5.0f))
                     .input(random_f32({4, 1}, 151))
                     .attr("axis", int64_t{2});
               },
               1e-4, 1e-5});
  // ONNX Runtime's row normalizations: the RMS form in both domains with its inv_std_var, and
  // the Skip forms with every optional input and output, skip broadcast over the batch.
  for (const char* domain : {"", "com.microsoft"}) {
    c.push_back({std::string("SimplifiedLayerNormalization_") + (*domain ? "ms" : "onnx"),
                 [domain] {
                   return OpTest("SimplifiedLayerNormalization", 17, domain)
                       .input(random_f32({2, 3, 40}, 155, -3.0f, 5.0f))
                       .input(random_f32({3, 40}, 156))
                       .outputs(2)
                       .attr("axis", int64_t{1});
                 },
                 1e-4, 1e-5, true, /*on_pixel=*/false});
  }
  for (bool simplified : {false, true}) {
    for (bool broadcast_skip : {false, true}) {
      const std::string op =
          simplified ? "SkipSimplifiedLayerNormalization" : "SkipLayerNormalization";
      c.push_back({op + (broadcast_skip ? "_broadcast_skip" : "_every_output"),
                   [op, simplified, broadcast_skip] {
                     const Shape x{2, 3, 70}, hidden{70};
                     OpTest t(op, 1, "com.microsoft");
                     t.input(random_f32(x, 157, -3.0f, 5.0f))
                         .input(random_f32(broadcast_skip ? Shape{3, 70} : x, 158))
                         .input(random_f32(hidden, 159));
                     if (!simplified) t.input(random_f32(hidden, 160));
                     if (!broadcast_skip) t.input(random_f32(hidden, 161)).outputs(4);
                     return t.attr("epsilon", 1e-4f);
                   },
                   1e-4, 1e-5, true, /*on_pixel=*/false});
    }
  }
  c.push_back({"LayerNormalization_broadcast_params",
               [] {
                 return OpTest("LayerNormalization", 17)
                     .input(random_f32({2, 3, 4, 5}, 152, -3.0f, 5.0f))
                     .input(random_f32({3, 1, 5}, 153))
                     .input(random_f32({5}, 154))
                     .attr("axis", int64_t{1});
               },
               1e-4, 1e-5, true, /*on_pixel=*/false});
  for (const Shape& x : std::vector<Shape>{{2, 3, 5, 7}, {1, 2, 300}, {2, 4, 3}}) {
    c.push_back({"InstanceNormalization_" + std::to_string(x.element_count()),
                 [x] {
                   return OpTest("InstanceNormalization")
                       .input(random_f32(x, 143, -3.0f, 5.0f))
                       .input(random_f32({x[1]}, 144))
                       .input(random_f32({x[1]}, 145));
                 },
                 1e-4, 1e-5});
  }
  for (int opset : {18, 21}) {
    for (int64_t groups : {1, 2, 6}) {
      c.push_back(
          {"GroupNormalization_opset" + std::to_string(opset) + "_groups" + std::to_string(groups),
           [opset, groups] {
             const int64_t params = opset < 21 ? groups : 6;
             return OpTest("GroupNormalization", opset)
                 .input(random_f32({2, 6, 5, 9}, 146, -3.0f, 5.0f))
                 .input(random_f32({params}, 147))
                 .input(random_f32({params}, 148))
                 .attr("num_groups", groups)
                 .attr("epsilon", 1e-3f);
           },
           1e-4, 1e-5});
    }
  }
  for (const Shape& x : std::vector<Shape>{{2, 3, 5, 7}, {4, 3}}) {
    c.push_back({"BatchNormalization_" + std::to_string(x.size()) + "d",
                 [x] {
                   return OpTest("BatchNormalization")
                       .input(random_f32(x, 149))
                       .input(random_f32({3}, 150))
                       .input(random_f32({3}, 151))
                       .input(random_f32({3}, 152))
                       .input(random_f32({3}, 153, 0.5f, 2.0f));
                 },
                 1e-5, 1e-5});
  }
  for (int64_t p : {1, 2}) {
    for (int64_t axis : {0, 1, 2}) {
      c.push_back({"LpNormalization_p" + std::to_string(p) + "_axis" + std::to_string(axis),
                   [p, axis] {
                     return OpTest("LpNormalization")
                         .input(random_f32({3, 70, 5}, 154))
                         .attr("p", p)
                         .attr("axis", axis);
                   },
                   1e-5, 1e-6});
    }
  }
  // Reductions over every axis position, non-contiguous axes, all axes, and lines longer than a
  // workgroup; axes as a constant input (opset 21) and as an attribute (opset 13).
  const std::vector<std::vector<int64_t>> axes_sets = {{}, {0}, {1}, {-1}, {0, 2}, {1, 2}};
  for (const char* op :
       {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"}) {
    const std::string name = op;
    const bool prod = name == "ReduceProd";
    const Shape x = prod ? Shape{3, 4, 6} : Shape{3, 5, 70};
    const float lo = prod ? 0.7f : (name == "ReduceLogSum" ? 0.1f : -3.0f);
    const float hi = prod ? 1.3f : 3.0f;
    for (size_t i = 0; i < axes_sets.size(); ++i) {
      for (int64_t keepdims : {0, 1}) {
        c.push_back({name + "_axes" + std::to_string(i) + "_keep" + std::to_string(keepdims),
                     [op, x, lo, hi, axes = axes_sets[i], keepdims, i] {
                       OpTest t(op);
                       t.input(random_f32(x, 160 + i, lo, hi));
                       if (!axes.empty()) {
                         t.input(i64({static_cast<int64_t>(axes.size())}, axes)).constant_input(1);
                       }
                       return t.attr("keepdims", keepdims);
                     },
                     1e-4, 1e-5});
      }
    }
    c.push_back({name + "_noop_empty_axes",
                 [op, x, lo, hi] {
                   return OpTest(op)
                       .input(random_f32(x, 170, lo, hi))
                       .attr("noop_with_empty_axes", int64_t{1});
                 },
                 1e-5, 1e-6});
    c.push_back({name + "_axes_attribute",
                 [op, x, lo, hi] {
                   OpTest t(op, 13);
                   t.input(random_f32(x, 171, lo, hi));
                   // ReduceSum takes its axes as an input from opset 13.
                   if (std::string(op) == "ReduceSum") {
                     t.input(i64({2}, {2, 0})).constant_input(1);
                   } else {
                     t.attr("axes", std::vector<int64_t>{2, 0});
                   }
                   return t;
                 },
                 1e-4, 1e-5});
  }
  // ArgMax / ArgMin on every axis; small integers make ties for select_last_index.
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (int64_t axis : {0, 1, -1}) {
      for (int64_t keepdims : {0, 1}) {
        for (int64_t last : {0, 1}) {
          c.push_back({std::string(op) + "_axis" + std::to_string(axis + 1) + "_keep" +
                           std::to_string(keepdims) + "_last" + std::to_string(last),
                       [op, axis, keepdims, last] {
                         Tensor x = random_int<int32_t>({3, 5, 70}, 180, -4, 4);
                         std::vector<float> v;
                         for (int32_t e : x.to_vector<int32_t>())
                           v.push_back(static_cast<float>(e));
                         return OpTest(op)
                             .input(f32({3, 5, 70}, v))
                             .attr("axis", axis)
                             .attr("keepdims", keepdims)
                             .attr("select_last_index", last);
                       }});
        }
      }
    }
  }
  // What the GPU-pixel backend leaves to the CPU: ArgMax/ArgMin (int64 outputs).
  for (OpCase& op : c) {
    for (const char* prefix : {"ArgMax", "ArgMin"}) {
      if (op.name.rfind(prefix, 0) == 0) op.on_pixel = false;
    }
  }
  add_lstm_cases(c);
  add_attention_cases(c);
  add_loss_cases(c);
  add_grid_sample_cases(c);
  add_scatter_cases(c);
  add_quantize_cases(c);
  add_top_k_cases(c);
  add_cumulative_cases(c);
  add_one_hot_cases(c);
  add_gather_nd_cases(c);
  add_bitwise_cases(c);
  add_small_integer_cases(c);
  add_integer_shift_pow_cases(c);
  add_clip_bound_input_cases(c);
  add_integer_movement_cases(c);
  add_empty_reduction_cases(c);
  add_generated_and_gated_cases(c);
  add_matmul_nbits_cases(c);
  add_gather_block_quantized_cases(c);
  add_group_query_attention_cases(c);
  add_shape_arithmetic_cases(c);
  add_signal_cases(c);
  add_center_crop_pad_cases(c);
  add_einsum_cases(c);
  add_col2im_cases(c);
  add_affine_grid_cases(c);
  add_qlinear_matmul_cases(c);
  // Views take any element type on GPU-compute (they copy nothing); bytes compared exactly.
  c.push_back({"Reshape_float16", [] {
                 Tensor x = Tensor::zeros(DataType::Float16, {2, 3, 4});
                 auto* bits = static_cast<uint16_t*>(x.mutable_raw_data());
                 for (uint16_t i = 0; i < 24; ++i) bits[i] = static_cast<uint16_t>(0x3c00 + 37 * i);
                 return OpTest("Reshape").input(x).input(i64({2}, {4, -1})).constant_input(1);
               }});
  // BitCast between types of equal size is a view with the bytes read as the new type.
  const std::vector<std::pair<Tensor, DataType>> bit_casts = {
      {random_f32({3, 4}, 216), DataType::Int32},
      {random_int<int32_t>({2, 5}, 217, -1000000, 1000000), DataType::UInt32},
      {few_values(DataType::Int64, {7}, 218), DataType::Float64},
      {few_values(DataType::Bool, {2, 3}, 219), DataType::UInt8},
      {random_int<int8_t>({9}, 220, -128, 127), DataType::UInt8}};
  for (const auto& [x, to] : bit_casts) {
    c.push_back(
        {"BitCast_" + std::string(dtype_name(x.dtype())) + "_to_" + std::string(dtype_name(to)),
         [x = x, to = to] {
           return OpTest("BitCast", 26).input(x).attr("to", static_cast<int64_t>(to));
         }});
    c.back().on_pixel = to != DataType::Float64;  // GPU-pixel: no float64 textures
  }
  c.push_back({"Squeeze_bool", [] {
                 return OpTest("Squeeze")
                     .input(few_values(DataType::Bool, {3, 1, 5}, 196))
                     .input(i64({1}, {1}))
                     .constant_input(1);
               }});
  add_texel_dtype_cases(c);
  for (OpCaseAdder add : registered_op_case_adders()) add(c);
  return c;
}

const std::vector<OpCase>& cases() {
  static const std::vector<OpCase> all = make_cases();
  return all;
}

struct Param {
  Backend backend;
  size_t index;
};

class BackendOps : public ::testing::TestWithParam<Param> {};

TEST_P(BackendOps, MatchesTheCpuAndRunsNatively) {
  const OpCase& op = cases()[GetParam().index];
  const Backend backend = GetParam().backend;
#if KILN_GPU_COMPUTE
  // The validation layer watches every GPU-compute run; any message fails the case.
  gpu_compute::ScopedEnv validation("KILN_VULKAN_VALIDATION", "1");
  gpu_compute::clear_validation_messages_of_all_devices();
  struct CheckValidation {
    ~CheckValidation() {
      for (const std::string& m : gpu_compute::validation_messages_of_all_devices())
        ADD_FAILURE() << m;
    }
  } check_validation;
#endif
  const OpTest test = op.make();
  const Model model = test.model();
  std::optional<Worker> worker;
  try {
    worker.emplace(model, backend, WorkerOptions{.verify_shapes = true});
  } catch (const Error& e) {
    if (!is_no_device_error(e)) throw;  // a worker that fails to build is a failure, not a skip
    GTEST_SKIP() << backend_name(backend) << " is not available here: " << e.what();
  }
  for (const NodePlacement& p : worker->placements()) {
    EXPECT_EQ(p.backend, backend) << p.op_type << " fell back: " << p.fallback_reason;
  }
  const std::vector<Tensor> expected = test.run(Backend::Cpu);
  const RunTimeFallbacks before = run_time_fallbacks();
  const std::vector<Tensor> actual = test.run(*worker);
  const RunTimeFallbacks after = run_time_fallbacks();
  EXPECT_EQ(after.count, before.count) << "ran on the CPU at run time: " << after.last_reason;
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    ASSERT_EQ(actual[k].dtype(), expected[k].dtype());
    ASSERT_EQ(actual[k].shape(), expected[k].shape());
    if (!op.bit_exact &&
        (expected[k].dtype() == DataType::Float32 || expected[k].dtype() == DataType::Float16)) {
      // float16 results compare as values: a kernel that sums in another order may round
      // the float32 result to the neighbouring float16.
      auto floats = [](const Tensor& t) {
        if (t.dtype() == DataType::Float32) return t.to_vector<float>();
        std::vector<float> v;
        for (Float16 h : t.to_vector<Float16>()) v.push_back(static_cast<float>(h));
        return v;
      };
      const auto a = floats(actual[k]), e = floats(expected[k]);
      for (size_t i = 0; i < e.size(); ++i) {
        ASSERT_TRUE(value_matches(a[i], e[i], op.atol, op.rtol))
            << "element " << i << " is " << a[i] << ", expected " << e[i];
      }
    } else {
      // Bit for bit; the first differing element's bytes tell what went wrong.
      const auto* a = static_cast<const uint8_t*>(actual[k].raw_data());
      const auto* e = static_cast<const uint8_t*>(expected[k].raw_data());
      const size_t size = dtype_size(expected[k].dtype());
      for (size_t i = 0; i < expected[k].byte_size(); i += size) {
        if (std::memcmp(a + i, e + i, size) == 0) continue;
        std::string got, want;
        for (size_t b = size; b-- > 0;) {
          got += std::to_string(a[i + b]) + (b ? "." : "");
          want += std::to_string(e[i + b]) + (b ? "." : "");
        }
        FAIL() << "element " << i / size << " has bytes " << got << ", expected " << want;
      }
    }
  }
}

std::vector<Param> all_params() {
  std::vector<Param> out;
  const size_t n = cases().size();
  for (Backend b : {Backend::GpuCompute, Backend::GpuPixel}) {
    for (size_t i = 0; i < n; ++i) {
      if (b == Backend::GpuPixel && !cases()[i].on_pixel) continue;
      if (b == Backend::GpuCompute && !cases()[i].on_compute) continue;
      out.push_back({b, i});
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Gpu, BackendOps, ::testing::ValuesIn(all_params()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           std::string name = std::string(backend_name(info.param.backend)) + "_" +
                                              cases()[info.param.index].name;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace kiln::testing
