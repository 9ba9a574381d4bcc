// Shapes and layouts the GPU-compute kernels once left to the CPU: LSTM with layout 1
// (batch-major X, states and outputs; GPU-pixel's too), GatherElements of rank 7 and 8 (the N, C,
// d1..d5 losses), Tile whose repeats and dims leave 8 or more strided dimensions, a rank-9
// Transpose, and QuantizeLinear / DequantizeLinear to and from float4e2m1 (bit for bit).
#include "backend_op_cases.h"

namespace kiln::testing {
namespace {

// LSTM layout 1: every direction, with and without the optional inputs and outputs, and batch
// sizes that make a transpose's mistake visible (batch != seq != directions).
struct BatchMajorLstm {
  std::string name;
  std::string direction = "forward";
  int64_t seq = 3, batch = 2, input = 4, hidden = 5;
  bool optional_inputs = false;  // B, initial_h, initial_c and peepholes
  int outputs = 3;
  bool y = true;  // false: Y left out
};

void add_batch_major_lstm_cases(std::vector<OpCase>& c) {
  const std::vector<BatchMajorLstm> lstms = {
      {.name = "forward"},
      {.name = "forward_all_inputs", .batch = 4, .optional_inputs = true},
      {.name = "reverse_all_inputs",
       .direction = "reverse",
       .seq = 4,
       .batch = 3,
       .optional_inputs = true},
      {.name = "bidirectional_all_inputs",
       .direction = "bidirectional",
       .seq = 5,
       .batch = 3,
       .input = 3,
       .hidden = 6,
       .optional_inputs = true},
      {.name = "bidirectional_y_only", .direction = "bidirectional", .outputs = 1},
      {.name = "states_only", .batch = 3, .optional_inputs = true, .y = false},
  };
  for (size_t i = 0; i < lstms.size(); ++i) {
    OpCase op{"LSTM_layout1_" + lstms[i].name,
              [l = lstms[i], seed = static_cast<unsigned>(4700 + 10 * i)] {
                const int64_t dirs = l.direction == "bidirectional" ? 2 : 1;
                const int64_t gates = 4 * l.hidden;
                const Shape state{l.batch, dirs, l.hidden};
                const bool o = l.optional_inputs;
                OpTest t("LSTM");
                t.input(random_f32({l.batch, l.seq, l.input}, seed))
                    .input(random_f32({dirs, gates, l.input}, seed + 1, -0.5f, 0.5f))
                    .input(random_f32({dirs, gates, l.hidden}, seed + 2, -0.5f, 0.5f))
                    .input(o ? random_f32({dirs, 2 * gates}, seed + 3, -0.5f, 0.5f) : Tensor())
                    .input(Tensor())
                    .input(o ? random_f32(state, seed + 4, -0.5f, 0.5f) : Tensor())
                    .input(o ? random_f32(state, seed + 5) : Tensor())
                    .input(o ? random_f32({dirs, 3 * l.hidden}, seed + 6, -0.5f, 0.5f) : Tensor())
                    .attr("hidden_size", l.hidden)
                    .attr("direction", l.direction)
                    .attr("layout", int64_t{1})
                    .outputs(l.outputs)
                    .constant_input(1)
                    .constant_input(2);
                if (o) t.constant_input(3);
                if (!l.y) t.absent_output(0);
                return t;
              },
              1e-4, 1e-5};
    c.push_back(std::move(op));  // both backends: layout-0 kernels between transposes
  }
}

// GatherElements of rank 7 (as NegativeLogLikelihoodLoss over N, C, d1..d5 expands to) and 8,
// along an inner and the last axis, with negative indices; float32 and int64 data.
void add_high_rank_gather_elements_cases(std::vector<OpCase>& c) {
  for (DataType dt : {DataType::Float32, DataType::Int64}) {
    const std::string suffix = std::string("_") + std::string(dtype_name(dt));
    auto data = [dt](const Shape& s, unsigned seed) {
      return dt == DataType::Int64 ? random_int<int64_t>(s, seed) : random_f32(s, seed);
    };
    c.push_back({"GatherElements_rank7_axis1" + suffix, [data] {
                   return OpTest("GatherElements")
                       .input(data({2, 3, 2, 3, 2, 1, 2}, 4801))
                       .input(random_int<int64_t>({2, 1, 2, 3, 2, 1, 2}, 4802, -3, 2))
                       .attr("axis", int64_t{1});
                 }});
    c.push_back({"GatherElements_rank8_last_smaller" + suffix, [data] {
                   return OpTest("GatherElements")
                       .input(data({2, 2, 3, 1, 2, 2, 3, 4}, 4803))
                       .input(random_int<int32_t>({1, 2, 2, 1, 2, 1, 3, 5}, 4804, -4, 3))
                       .attr("axis", int64_t{-1});
                 }});
  }
  for (size_t i = c.size() - 4; i < c.size(); ++i) c[i].on_pixel = false;
}

// Tile where every dim and every repeat exceeds 1, so nothing merges: rank 4 gives 8 strided
// dimensions. Float32 and int64 (two words per element); and a rank-5 tiling whose unit dims
// drop out.
void add_high_rank_tile_cases(std::vector<OpCase>& c) {
  const size_t first = c.size();
  c.push_back({"Tile_8_strided_dims_float32", [] {
                 return OpTest("Tile")
                     .input(random_f32({2, 3, 4, 5}, 4805))
                     .input(i64({4}, {7, 6, 4, 2}))
                     .constant_input(1);
               }});
  c.push_back({"Tile_8_strided_dims_int64", [] {
                 return OpTest("Tile")
                     .input(random_int<int64_t>({3, 2, 2, 3}, 4806))
                     .input(i64({4}, {2, 3, 2, 2}))
                     .constant_input(1);
               }});
  // 10 strided dimensions: the region copy peels the leading two into 6 copies.
  c.push_back({"Tile_10_strided_dims_float32", [] {
                 return OpTest("Tile")
                     .input(random_f32({3, 2, 2, 3, 2}, 4812))
                     .input(i64({5}, {2, 3, 2, 2, 3}))
                     .constant_input(1);
               }});
  // A rank-9 reversal merges nothing: two copies of 8 dimensions.
  c.push_back(
      {"Transpose_rank9_reversed_int64", [] {
         return OpTest("Transpose").input(random_int<int64_t>({2, 3, 2, 2, 2, 2, 2, 2, 2}, 4813));
       }});
  c.push_back({"Tile_rank5_unit_dims_float32", [] {
                 return OpTest("Tile")
                     .input(random_f32({2, 1, 3, 2, 2}, 4807))
                     .input(i64({5}, {3, 2, 1, 2, 2}))
                     .constant_input(1);
               }});
  for (size_t i = first; i < c.size(); ++i) c[i].on_pixel = false;
}

// A float4e2m1 tensor of the given codes, a byte per element as kiln's tensors hold them.
Tensor float4_codes(const Shape& shape, const std::vector<uint8_t>& codes) {
  Tensor t = Tensor::zeros(DataType::Float4E2M1, shape);
  auto* bytes = static_cast<uint8_t*>(t.mutable_raw_data());
  for (size_t i = 0; i < codes.size(); ++i) bytes[i] = codes[i];
  return t;
}

// QuantizeLinear to float4e2m1: per axis with a zero point of every sign and size, where the
// quotient plus the zero point is a tie only when the sum is rounded twice (0.25 + 2^-25 + 1
// must give 1.5), -0 plus -0 and plus +0; and per tensor without a zero point (-0 gives +0, as
// the CPU's q + 0 does), with NaN, infinities and values beyond the format's range.
// DequantizeLinear from every code, with and without a zero point.
void add_float4_quantize_cases(std::vector<OpCase>& c) {
  const float inf = std::numeric_limits<float>::infinity();
  const size_t first = c.size();
  c.push_back(
      {"QuantizeLinear_float4e2m1_zero_point_axis", [inf] {
         std::vector<float> x = random_f32({3, 8, 4}, 4808, -20.0f, 20.0f).to_vector<float>();
         // Axis index 0 (elements 0..3): scale 1, zero point 1.0.
         x[0] = 0.25f + std::ldexp(1.0f, -25);
         x[1] = 0.25f;
         x[2] = -0.0f;
         x[3] = 0.75f - std::ldexp(1.0f, -24);
         // Axis index 1 (elements 4..7): scale 1, zero point -0.
         x[4] = -0.0f;
         x[5] = 0.0f;
         x[6] = -2.5f;
         x[7] = std::nanf("");
         x[8] = inf;
         x[9] = -inf;
         x[10] = 1e30f;
         std::vector<float> scale = random_f32({8}, 4809, 0.3f, 4.0f).to_vector<float>();
         scale[0] = scale[1] = 1.0f;
         OpTest t("QuantizeLinear", 23);
         t.input(f32({3, 8, 4}, x));
         t.input(f32({8}, scale)).constant_input(1);
         t.input(float4_codes({8}, {0x2, 0x8, 0x1, 0x9, 0x5, 0xC, 0x7, 0xF})).constant_input(2);
         return t.attr("axis", int64_t{1});
       }});
  c.push_back({"QuantizeLinear_float4e2m1_no_zero_point_tensor", [inf] {
                 std::vector<float> x = random_f32({5, 7}, 4810, -9.0f, 9.0f).to_vector<float>();
                 x[0] = -0.0f;
                 x[1] = std::nanf("");
                 x[2] = inf;
                 x[3] = -inf;
                 x[4] = -1e-30f;
                 x[5] = 1.25f;  // ties, with the scale of 1 below
                 x[6] = -5.0f;
                 x[7] = 2.5f;
                 return OpTest("QuantizeLinear", 23)
                     .input(f32({5, 7}, x))
                     .input(f32({}, {1.0f}))
                     .constant_input(1)
                     .attr("output_dtype", int64_t{23});
               }});
  c.push_back({"DequantizeLinear_float4e2m1_zero_point_axis", [] {
                 std::vector<uint8_t> codes;
                 for (int i = 0; i < 64; ++i) codes.push_back(static_cast<uint8_t>(i % 16));
                 OpTest t("DequantizeLinear", 23);
                 t.input(float4_codes({4, 16}, codes));
                 t.input(random_f32({4}, 4811, 0.01f, 3.0f)).constant_input(1);
                 t.input(float4_codes({4}, {0x0, 0x8, 0x3, 0xB})).constant_input(2);
                 return t.attr("axis", int64_t{0});
               }});
  c.push_back({"DequantizeLinear_float4e2m1_tensor", [] {
                 std::vector<uint8_t> codes;
                 for (int i = 0; i < 32; ++i) codes.push_back(static_cast<uint8_t>((i * 7) % 16));
                 return OpTest("DequantizeLinear", 23)
                     .input(float4_codes({2, 16}, codes))
                     .input(f32({}, {0.75f}))
                     .constant_input(1);
               }});
  for (size_t i = first; i < c.size(); ++i) {
    c[i].on_pixel = false;
    c[i].bit_exact = true;
  }
}

REGISTER_OP_CASES(add_batch_major_lstm_cases);
REGISTER_OP_CASES(add_high_rank_gather_elements_cases);
REGISTER_OP_CASES(add_high_rank_tile_cases);
REGISTER_OP_CASES(add_float4_quantize_cases);

}  // namespace
}  // namespace kiln::testing
