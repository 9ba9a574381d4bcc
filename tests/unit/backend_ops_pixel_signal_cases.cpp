// GPU op harness cases for the draws the GPU-pixel backend gained, beyond the cases it shares with
// GPU-compute in backend_ops_test.cpp (DFT, STFT, CenterCropPad, Col2Im, AffineGrid, SwiGLU):
// longer transforms, float16 data, and the ops only GPU-pixel runs natively so far.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "backend_op_cases.h"

namespace kiln::testing {
namespace {

Tensor to_half(const Tensor& x) {
  std::vector<Float16> v;
  for (float f : x.to_vector<float>()) v.push_back(Float16(f));
  return Tensor::from_data<Float16>(x.shape(), v);
}

// Transforms long enough that a float sum would drift from the CPU's double one: 300 points of
// a real line, a complex inverse of 257 (odd, so no symmetry helps), and an STFT whose frames
// overlap with a window and a frame_length input.
void add_long_signal_cases(std::vector<OpCase>& c) {
  c.push_back({"DFT_long_real", [] {
                 return OpTest("DFT", 17)
                     .input(random_f32({2, 300, 1}, 400))
                     .input(Tensor())
                     .attr("axis", int64_t{1});
               }});
  c.push_back({"DFT_long_inverse_complex", [] {
                 return OpTest("DFT", 17)
                     .input(random_f32({1, 257, 2}, 401))
                     .input(Tensor())
                     .attr("axis", int64_t{1})
                     .attr("inverse", int64_t{1});
               }});
  c.push_back({"STFT_overlapping_window", [] {
                 return OpTest("STFT", 17)
                     .input(random_f32({1, 200, 1}, 402))
                     .input(i64({}, {16}))
                     .input(random_f32({64}, 403, 0.0f, 1.0f))
                     .input(i64({}, {64}))
                     .constant_input(1)
                     .constant_input(3);
               }});
}

// Float16 data where the GPU-pixel draws take it (GPU-compute keeps it on the CPU): SwiGLU
// computes in float and rounds once; CenterCropPad moves the values.
void add_half_cases(std::vector<OpCase>& c) {
  c.push_back({"SwiGLU_float16", [] {
                 return OpTest("SwiGLU", 24)
                     .input(to_half(random_f32({4, 6}, 404, -4.0f, 4.0f)))
                     .input(to_half(random_f32({1, 6}, 405)));
               }});
  c.back().on_compute = false;
  c.push_back({"CenterCropPad_float16", [] {
                 return OpTest("CenterCropPad", 18)
                     .input(to_half(random_f32({5, 4, 3}, 406)))
                     .input(i64({2}, {3, 7}))
                     .constant_input(1)
                     .attr("axes", std::vector<int64_t>{0, 1});
               }});
  c.back().on_compute = false;
}

// Float16 on the float32 draws (GPU-pixel): MatMul in batches and as a vector product, a grouped
// padded Conv and a strided 1-D ConvTranspose (float32 sums rounded once), Softmax and LogSoftmax
// along a middle axis, ReduceMax and ReduceMin over axes kept ones interrupt (values exact in half
// precision: the CPU's and the draw's sums in another order round alike).
void add_half_float_draw_cases(std::vector<OpCase>& c) {
  auto quarters = [](const Shape& shape, unsigned seed) {
    std::vector<Float16> v;
    for (float f : random_f32(shape, seed).to_vector<float>())
      v.push_back(Float16(std::round(f * 4) / 4));
    return Tensor::from_data<Float16>(shape, v);
  };
  c.push_back(
      {"MatMul_float16_batched", [quarters] {
         return OpTest("MatMul", 13).input(quarters({2, 3, 5}, 450)).input(quarters({5, 4}, 451));
       }});
  c.back().on_compute = false;
  c.push_back(
      {"MatMul_float16_vector", [quarters] {
         return OpTest("MatMul", 13).input(quarters({6}, 452)).input(quarters({2, 6, 3}, 453));
       }});
  c.back().on_compute = false;
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    c.push_back({std::string(op) + "_float16", [op] {
                   return OpTest(op, 13)
                       .input(to_half(random_f32({2, 5, 3}, 454)))
                       .attr("axis", int64_t{1});
                 }});
    c.back().on_compute = false;
  }
  c.push_back({"Conv_float16_grouped_padded", [quarters] {
                 return OpTest("Conv", 11)
                     .input(quarters({1, 4, 6, 5}, 456))
                     .input(quarters({6, 2, 3, 3}, 457))
                     .input(quarters({6}, 458))
                     .attr("group", int64_t{2})
                     .attr("pads", std::vector<int64_t>{1, 1, 1, 1});
               }});
  c.back().on_compute = false;
  c.push_back({"ConvTranspose_float16_1d", [quarters] {
                 return OpTest("ConvTranspose", 11)
                     .input(quarters({2, 3, 7}, 459))
                     .input(quarters({3, 2, 3}, 460))
                     .attr("strides", std::vector<int64_t>{2});
               }});
  c.back().on_compute = false;
  for (const char* op : {"ReduceMax", "ReduceMin"}) {
    c.push_back({std::string(op) + "_float16", [op] {
                   return OpTest(op, 18)
                       .input(to_half(random_f32({3, 4, 5}, 455)))
                       .input(i64({2}, {0, 2}))
                       .constant_input(1);
                 }});
    c.back().on_compute = false;
  }
}

// LRN (GPU-pixel only): odd and even window sizes (the extra channel after the centre), a
// window wider than the channels, 1 and 2 spatial axes, custom coefficients.
void add_lrn_cases(std::vector<OpCase>& c) {
  struct LrnCase {
    std::string name;
    Shape shape;
    int64_t size;
    float alpha = 1e-4f, beta = 0.75f, bias = 1.0f;
  };
  const std::vector<LrnCase> lrns = {
      {"size3", {2, 5, 4, 3}, 3},
      {"size4_even", {1, 6, 7}, 4, 0.02f, 0.5f, 2.0f},
      {"window_beyond_channels", {2, 3, 5}, 9, 0.5f, 1.25f, 0.5f},
      {"channels_only", {3, 8}, 5, 1e-3f, 0.75f, 1.0f},
  };
  for (size_t i = 0; i < lrns.size(); ++i) {
    c.push_back({"LRN_" + lrns[i].name, [l = lrns[i], i] {
                   return OpTest("LRN", 13)
                       .input(random_f32(l.shape, 410 + static_cast<unsigned>(i), -3.0f, 3.0f))
                       .attr("size", l.size)
                       .attr("alpha", l.alpha)
                       .attr("beta", l.beta)
                       .attr("bias", l.bias);
                 }});
    c.back().on_compute = false;
  }
}

// MeanVarianceNormalization (GPU-pixel only): the default axes (0, 2, 3, not contiguous), the
// last axis, every axis, negative axes. (Data far from zero is left out: there the CPU's own
// float32 sums and multiply-add decide the last bits.)
void add_mvn_cases(std::vector<OpCase>& c) {
  struct MvnCase {
    std::string name;
    Shape shape;
    std::optional<std::vector<int64_t>> axes;
  };
  const std::vector<MvnCase> mvns = {
      {"default_axes", {2, 3, 4, 5}, std::nullopt},
      {"last_axis", {3, 7}, std::vector<int64_t>{-1}},
      {"every_axis", {2, 3, 4}, std::vector<int64_t>{0, 1, 2}},
      {"middle_axes", {2, 3, 4, 2}, std::vector<int64_t>{1, -2}},
  };
  for (size_t i = 0; i < mvns.size(); ++i) {
    c.push_back({"MeanVarianceNormalization_" + mvns[i].name, [m = mvns[i], i] {
                   OpTest t("MeanVarianceNormalization", 13);
                   t.input(random_f32(m.shape, 420 + static_cast<unsigned>(i)));
                   if (m.axes) t.attr("axes", *m.axes);
                   return t;
                 }});
    c.back().on_compute = false;
  }
}

// ReverseSequence (GPU-pixel only): time-major and batch-major, lengths of 0, 1 and all the
// steps, trailing axes, int32 lengths, float16 data.
void add_reverse_sequence_cases(std::vector<OpCase>& c) {
  c.push_back({"ReverseSequence_time_major", [] {
                 return OpTest("ReverseSequence", 10)
                     .input(random_f32({5, 4, 3}, 430))
                     .input(i64({4}, {5, 0, 1, 3}))
                     .attr("batch_axis", int64_t{1})
                     .attr("time_axis", int64_t{0});
               }});
  c.back().on_compute = false;
  c.push_back({"ReverseSequence_batch_major_int32_lengths", [] {
                 return OpTest("ReverseSequence", 10)
                     .input(random_f32({3, 6}, 431))
                     .input(Tensor::from_data<int32_t>({3}, {2, 6, 4}))
                     .attr("batch_axis", int64_t{0})
                     .attr("time_axis", int64_t{1});
               }});
  c.back().on_compute = false;
  c.push_back({"ReverseSequence_float16", [] {
                 return OpTest("ReverseSequence", 10)
                     .input(to_half(random_f32({2, 4, 2, 2}, 432)))
                     .input(i64({2}, {3, 4}))
                     .attr("batch_axis", int64_t{0})
                     .attr("time_axis", int64_t{1});
               }});
  c.back().on_compute = false;
}

// MelWeightMatrix (GPU-pixel only): the ONNX example's filters, more filters than spectrum
// bins between the edges (spikes of zero width), a raised lower edge, int32 scalars.
void add_mel_weight_matrix_cases(std::vector<OpCase>& c) {
  struct MelCase {
    std::string name;
    int64_t mel_bins, dft_length, sample_rate;
    float lower, upper;
  };
  const std::vector<MelCase> mels = {
      {"example", 8, 16, 8192, 0.0f, 4096.0f},
      {"narrow_filters", 20, 64, 16000, 0.0f, 8000.0f},
      {"raised_lower_edge", 10, 256, 22050, 300.0f, 9000.0f},
  };
  for (size_t i = 0; i < mels.size(); ++i) {
    c.push_back(
        {"MelWeightMatrix_" + mels[i].name, [m = mels[i], i] {
           OpTest t("MelWeightMatrix", 17);
           if (i % 2) {
             t.input(Tensor::from_data<int32_t>({}, {static_cast<int32_t>(m.mel_bins)}))
                 .input(Tensor::from_data<int32_t>({}, {static_cast<int32_t>(m.dft_length)}))
                 .input(Tensor::from_data<int32_t>({}, {static_cast<int32_t>(m.sample_rate)}));
           } else {
             t.input(i64({}, {m.mel_bins}))
                 .input(i64({}, {m.dft_length}))
                 .input(i64({}, {m.sample_rate}));
           }
           t.input(Tensor::scalar<float>(m.lower)).input(Tensor::scalar<float>(m.upper));
           for (size_t k = 0; k < 5; ++k) t.constant_input(k);
           return t;
         }});
    c.back().on_compute = false;
  }
}

// Det (GPU-pixel only): 1 x 1 to 8 x 8 matrices in batches, a singular matrix (two equal rows)
// and one whose first pivot is zero (a row swap flips the sign).
void add_det_cases(std::vector<OpCase>& c) {
  for (int64_t n : {1, 2, 3, 5, 8}) {
    c.push_back(
        {"Det_" + std::to_string(n) + "x" + std::to_string(n), [n] {
           return OpTest("Det", 11).input(random_f32({2, 3, n, n}, 440 + static_cast<unsigned>(n)));
         }});
    c.back().on_compute = false;
  }
  c.push_back({"Det_singular_and_pivoting", [] {
                 return OpTest("Det", 11).input(Tensor::from_data<float>(
                     {2, 3, 3}, {1, 2, 3, 1, 2, 3, 4, 5, 6, 0, 2, 1, 3, 1, 4, 2, 0, 5}));
               }});
  c.back().on_compute = false;
}

REGISTER_OP_CASES(add_long_signal_cases);
REGISTER_OP_CASES(add_half_cases);
REGISTER_OP_CASES(add_half_float_draw_cases);
REGISTER_OP_CASES(add_lrn_cases);
REGISTER_OP_CASES(add_mvn_cases);
REGISTER_OP_CASES(add_reverse_sequence_cases);
REGISTER_OP_CASES(add_mel_weight_matrix_cases);
REGISTER_OP_CASES(add_det_cases);

}  // namespace
}  // namespace kiln::testing
