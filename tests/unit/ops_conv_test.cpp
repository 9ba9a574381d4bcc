// Conv and ConvTranspose against naive loop nests written here, over random shapes and
// attribute values: every fast path (pointwise GEMM, chunked im2col, depthwise, col2im) must
// agree with the definition.
#include <gtest/gtest.h>

#include <random>

#include "test_util.h"

namespace kiln {
namespace {

using testing::OpTest;
using V = std::vector<int64_t>;

Tensor random_tensor(const Shape& shape, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(shape.element_count()));
  for (float& f : v) f = dist(rng);
  return Tensor::from_data<float>(shape, v);
}

struct ConvCase {
  int64_t n = 1, c = 1, m = 1, group = 1;
  V in, kernel, stride, dilation, pad_begin, pad_end;
  bool bias = true;
  bool constant_weights = false;
};

// Splits a flat index into coordinates of `dims` (row-major).
V unflatten(int64_t index, const V& dims) {
  V out(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    out[d] = index % dims[d];
    index /= dims[d];
  }
  return out;
}

int64_t product(const V& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

V conv_out_dims(const ConvCase& t) {
  V out;
  for (size_t d = 0; d < t.in.size(); ++d) {
    const int64_t dk = (t.kernel[d] - 1) * t.dilation[d] + 1;
    out.push_back((t.in[d] + t.pad_begin[d] + t.pad_end[d] - dk) / t.stride[d] + 1);
  }
  return out;
}

// The definition: y[n, m, o] = b[m] + sum over c, k of w[m, c, k] * x[n, g*C/G + c, o*s + k*d - p].
Tensor naive_conv(const ConvCase& t, const Tensor& x, const Tensor& w, const Tensor* b) {
  const V out = conv_out_dims(t);
  const int64_t cg = t.c / t.group, mg = t.m / t.group;
  const int64_t in_size = product(t.in), out_size = product(out), taps = product(t.kernel);
  Shape y_shape{t.n, t.m};
  for (int64_t d : out) y_shape.push_back(d);
  std::vector<float> y(static_cast<size_t>(y_shape.element_count()));
  const float* xp = x.data<float>();
  const float* wp = w.data<float>();
  for (int64_t n = 0; n < t.n; ++n) {
    for (int64_t m = 0; m < t.m; ++m) {
      const int64_t g = m / mg;
      for (int64_t j = 0; j < out_size; ++j) {
        const V o = unflatten(j, out);
        double acc = b ? b->data<float>()[m] : 0.0;
        for (int64_t c = 0; c < cg; ++c) {
          for (int64_t k = 0; k < taps; ++k) {
            const V kk = unflatten(k, t.kernel);
            int64_t offset = 0;
            bool inside = true;
            for (size_t d = 0; d < t.in.size(); ++d) {
              const int64_t i = o[d] * t.stride[d] + kk[d] * t.dilation[d] - t.pad_begin[d];
              inside = inside && i >= 0 && i < t.in[d];
              offset = offset * t.in[d] + i;
            }
            if (!inside) continue;
            acc += static_cast<double>(wp[(m * cg + c) * taps + k]) *
                   xp[(n * t.c + g * cg + c) * in_size + offset];
          }
        }
        y[static_cast<size_t>((n * t.m + m) * out_size + j)] = static_cast<float>(acc);
      }
    }
  }
  return Tensor::from_data<float>(y_shape, y);
}

V concat(const V& a, const V& b) {
  V r = a;
  r.insert(r.end(), b.begin(), b.end());
  return r;
}

void check_conv(const ConvCase& t, std::mt19937& rng) {
  Shape x_shape{t.n, t.c}, w_shape{t.m, t.c / t.group};
  for (int64_t d : t.in) x_shape.push_back(d);
  for (int64_t d : t.kernel) w_shape.push_back(d);
  const Tensor x = random_tensor(x_shape, rng);
  const Tensor w = random_tensor(w_shape, rng);
  const Tensor b = random_tensor(Shape{t.m}, rng);
  OpTest op("Conv");
  op.input(x).input(w);
  if (t.bias) op.input(b);
  if (t.constant_weights) op.constant_input(1);
  op.attr("strides", t.stride).attr("dilations", t.dilation).attr("group", t.group);
  op.attr("pads", concat(t.pad_begin, t.pad_end));
  if (rng() % 2) op.attr("kernel_shape", t.kernel);
  const Tensor expected = naive_conv(t, x, w, t.bias ? &b : nullptr);
  const Tensor actual = op.run()[0];
  ASSERT_EQ(actual.shape(), expected.shape());
  EXPECT_TRUE(all_close(actual, expected, 1e-4, 1e-4))
      << "x " << x_shape.to_string() << " w " << w_shape.to_string() << " group " << t.group;
}

TEST(ConvOp, RandomShapesMatchDefinition) {
  std::mt19937 rng(1234);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int iter = 0; iter < 120; ++iter) {
    ConvCase t;
    const size_t rank = static_cast<size_t>(pick(1, 3));
    t.n = pick(1, 2);
    t.group = pick(0, 3) == 0 ? pick(2, 3) : 1;
    const bool depthwise = pick(0, 3) == 0;
    if (depthwise) {
      t.c = pick(1, 6);
      t.group = t.c;
      t.m = t.c * pick(1, 2);
    } else {
      t.c = t.group * pick(1, 5);
      t.m = t.group * pick(1, 20);
    }
    for (size_t d = 0; d < rank; ++d) {
      t.kernel.push_back(pick(1, rank == 3 ? 2 : 4));
      t.stride.push_back(pick(1, 3));
      t.dilation.push_back(pick(0, 2) == 0 ? 2 : 1);
      t.pad_begin.push_back(pick(0, 2));
      t.pad_end.push_back(pick(0, 2));
      const int64_t dk = (t.kernel.back() - 1) * t.dilation.back() + 1;
      t.in.push_back(std::max<int64_t>(dk, pick(1, rank == 3 ? 7 : (rank == 2 ? 19 : 40))));
    }
    t.bias = pick(0, 1) == 1;
    t.constant_weights = pick(0, 1) == 1;
    SCOPED_TRACE(iter);
    check_conv(t, rng);
  }
}

TEST(ConvOp, PointwiseIsPlainGemm) {
  std::mt19937 rng(7);
  ConvCase t{.n = 2,
             .c = 24,
             .m = 40,
             .group = 1,
             .in = {9, 11},
             .kernel = {1, 1},
             .stride = {1, 1},
             .dilation = {1, 1},
             .pad_begin = {0, 0},
             .pad_end = {0, 0}};
  check_conv(t, rng);
  t.group = 4;
  check_conv(t, rng);
  t.m = 8;  // few output rows: the GEMM reads B in place
  check_conv(t, rng);
  // Constant weights on a small output: the product with load-time packed weights.
  t.constant_weights = true;
  t.m = 40;
  check_conv(t, rng);
  t.group = 1;
  check_conv(t, rng);
}

TEST(ConvOp, ManyIm2colChunks) {
  // 64 channels x 3x3 taps with a 40x40 output spans several column chunks. 24 output
  // channels keep the constant weights off the Winograd path (32 or more; its own test,
  // conv_winograd_test.cpp, holds it to a model's tolerance).
  std::mt19937 rng(8);
  ConvCase t{.n = 1,
             .c = 64,
             .m = 24,
             .group = 1,
             .in = {40, 40},
             .kernel = {3, 3},
             .stride = {1, 1},
             .dilation = {1, 1},
             .pad_begin = {1, 1},
             .pad_end = {1, 1},
             .constant_weights = true};
  check_conv(t, rng);
}

TEST(ConvOp, DepthwiseWideRows) {
  // Rows longer than a vector, strides 1 and 2: the vectorised interior and its edges.
  std::mt19937 rng(9);
  for (int64_t s : {1, 2}) {
    ConvCase t{.n = 1,
               .c = 5,
               .m = 5,
               .group = 5,
               .in = {13, 71},
               .kernel = {3, 3},
               .stride = {s, s},
               .dilation = {1, 1},
               .pad_begin = {1, 1},
               .pad_end = {1, 1}};
    check_conv(t, rng);
    t.kernel = {5, 5};
    t.pad_begin = {2, 2};
    t.pad_end = {2, 2};
    t.dilation = {1, 2};
    t.in = {13, 71};
    check_conv(t, rng);
  }
}

TEST(ConvOp, DepthwiseNarrowPlanes) {
  // The padded 3x3 and 5x5 kernels on planes narrower than a vector and on widths that leave a
  // partial last vector (7, 14 and 28 wide in MobileNet and EfficientNet), with asymmetric
  // padding: the part-stored last vector must not spill into the next row or plane.
  std::mt19937 rng(10);
  for (int64_t k : {3, 5}) {
    for (int64_t s : {1, 2}) {
      for (int64_t width : {1, 2, 5, 7, 14, 17, 28, 33}) {
        const int64_t pad = k / 2;
        ConvCase t{.n = 2,
                   .c = 3,
                   .m = 3,
                   .group = 3,
                   .in = {std::max<int64_t>(k, width), width},
                   .kernel = {k, k},
                   .stride = {s, s},
                   .dilation = {1, 1},
                   .pad_begin = {pad, pad},
                   .pad_end = {pad, width % 2 == 0 ? pad - 1 : pad}};
        SCOPED_TRACE(::testing::Message() << "k " << k << " s " << s << " width " << width);
        check_conv(t, rng);
      }
    }
  }
}

TEST(ConvOp, AutoPad) {
  const Tensor x = Tensor::from_data<float>({1, 1, 5, 5}, std::vector<float>(25, 1.0f));
  const Tensor w = Tensor::from_data<float>({1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  // SAME_UPPER with stride 2: out 3x3, total pad 2 -> 1 each side.
  auto y = OpTest("Conv")
               .input(x)
               .input(w)
               .attr("auto_pad", "SAME_UPPER")
               .attr("strides", V{2, 2})
               .run()[0];
  EXPECT_EQ(y.shape(), (Shape{1, 1, 3, 3}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{4, 6, 4, 6, 9, 6, 4, 6, 4}));
  // SAME_LOWER with a 2x2 kernel, stride 1: the odd pad goes at the beginning.
  const Tensor w2 = Tensor::from_data<float>({1, 1, 2, 2}, std::vector<float>(4, 1.0f));
  y = OpTest("Conv").input(x).input(w2).attr("auto_pad", "SAME_LOWER").run()[0];
  EXPECT_EQ(y.shape(), (Shape{1, 1, 5, 5}));
  EXPECT_EQ(y.to_vector<float>()[0], 1.0f);
  EXPECT_EQ(y.to_vector<float>()[24], 4.0f);
  y = OpTest("Conv").input(x).input(w2).attr("auto_pad", "SAME_UPPER").run()[0];
  EXPECT_EQ(y.to_vector<float>()[0], 4.0f);
  EXPECT_EQ(y.to_vector<float>()[24], 1.0f);
  y = OpTest("Conv").input(x).input(w).attr("auto_pad", "VALID").run()[0];
  EXPECT_EQ(y.shape(), (Shape{1, 1, 3, 3}));
}

TEST(ConvOp, Float16AndDouble) {
  std::mt19937 rng(3);
  const Tensor x = random_tensor({1, 4, 6, 7}, rng);
  const Tensor w = random_tensor({6, 2, 3, 3}, rng);
  const Tensor b = random_tensor({6}, rng);
  auto convert = [](const Tensor& t, auto tag) {
    using T = decltype(tag);
    std::vector<T> v;
    for (float f : t.to_vector<float>()) v.push_back(T(f));
    return Tensor::from_data<T>(t.shape(), v);
  };
  const Tensor expected = OpTest("Conv")
                              .input(x)
                              .input(w)
                              .input(b)
                              .attr("group", 2)
                              .attr("pads", V{1, 0, 1, 2})
                              .run()[0];
  const Tensor yd = OpTest("Conv")
                        .input(convert(x, double{}))
                        .input(convert(w, double{}))
                        .input(convert(b, double{}))
                        .attr("group", 2)
                        .attr("pads", V{1, 0, 1, 2})
                        .run()[0];
  ASSERT_EQ(yd.dtype(), DataType::Float64);
  const Tensor yh = OpTest("Conv")
                        .input(convert(x, Float16{}))
                        .input(convert(w, Float16{}))
                        .input(convert(b, Float16{}))
                        .attr("group", 2)
                        .attr("pads", V{1, 0, 1, 2})
                        .run()[0];
  ASSERT_EQ(yh.dtype(), DataType::Float16);
  const auto e = expected.to_vector<float>();
  const auto d = yd.to_vector<double>();
  const auto h = yh.to_vector<Float16>();
  ASSERT_EQ(e.size(), d.size());
  for (size_t i = 0; i < e.size(); ++i) {
    EXPECT_NEAR(d[i], e[i], 1e-5);
    EXPECT_NEAR(static_cast<float>(h[i]), e[i], 2e-2);
  }
}

TEST(ConvOp, BadInputsThrow) {
  const Tensor x = Tensor::zeros(DataType::Float32, {1, 4, 5, 5});
  auto conv = [&](const Tensor& w) { return OpTest("Conv").input(x).input(w); };
  // Channel mismatch.
  EXPECT_THROW(conv(Tensor::zeros(DataType::Float32, {2, 3, 3, 3})).run(), Error);
  // Group does not divide the channels.
  EXPECT_THROW(conv(Tensor::zeros(DataType::Float32, {3, 1, 3, 3})).attr("group", 3).run(), Error);
  // Group does not divide the output channels.
  EXPECT_THROW(conv(Tensor::zeros(DataType::Float32, {3, 2, 3, 3})).attr("group", 2).run(), Error);
  // Rank mismatch, kernel_shape mismatch, kernel larger than the input, bias length.
  EXPECT_THROW(conv(Tensor::zeros(DataType::Float32, {2, 4, 3})).run(), Error);
  EXPECT_THROW(
      conv(Tensor::zeros(DataType::Float32, {2, 4, 3, 3})).attr("kernel_shape", V{2, 2}).run(),
      Error);
  EXPECT_THROW(conv(Tensor::zeros(DataType::Float32, {2, 4, 7, 7})).run(), Error);
  EXPECT_THROW(conv(Tensor::zeros(DataType::Float32, {2, 4, 3, 3}))
                   .input(Tensor::zeros(DataType::Float32, {3}))
                   .run(),
               Error);
  // Bad attribute values.
  EXPECT_THROW(conv(Tensor::zeros(DataType::Float32, {2, 4, 3, 3})).attr("strides", V{0, 1}).run(),
               Error);
  EXPECT_THROW(conv(Tensor::zeros(DataType::Float32, {2, 4, 3, 3})).attr("pads", V{1, 1}).run(),
               Error);
  EXPECT_THROW(conv(Tensor::zeros(DataType::Float32, {2, 4, 3, 3})).attr("auto_pad", "FOO").run(),
               Error);
  EXPECT_THROW(OpTest("Conv")
                   .input(Tensor::zeros(DataType::Float32, {4, 5}))
                   .input(Tensor::zeros(DataType::Float32, {4, 5}))
                   .run(),
               Error);
  EXPECT_THROW(conv(Tensor::zeros(DataType::Int32, {2, 4, 3, 3})).run(), Error);
}

// ---- ConvTranspose ---------------------------------------------------------------------------

struct TransposeCase {
  int64_t n = 1, c = 1, m = 1, group = 1;  // m: output channels
  V in, kernel, stride, dilation, pad_begin, pad_end, output_padding;
};

// The definition: every x[n, c, i] adds x * w[c, m, k] at output position i*s + k*d - p.
Tensor naive_conv_transpose(const TransposeCase& t, const Tensor& x, const Tensor& w,
                            const Tensor& b, V& out_dims) {
  out_dims.clear();
  for (size_t d = 0; d < t.in.size(); ++d) {
    out_dims.push_back(t.stride[d] * (t.in[d] - 1) + t.output_padding[d] +
                       (t.kernel[d] - 1) * t.dilation[d] + 1 - t.pad_begin[d] - t.pad_end[d]);
  }
  const int64_t cg = t.c / t.group, mg = t.m / t.group;
  const int64_t in_size = product(t.in), out_size = product(out_dims), taps = product(t.kernel);
  Shape y_shape{t.n, t.m};
  for (int64_t d : out_dims) y_shape.push_back(d);
  std::vector<double> y(static_cast<size_t>(y_shape.element_count()));
  for (int64_t n = 0; n < t.n; ++n) {
    for (int64_t m = 0; m < t.m; ++m) {
      for (int64_t j = 0; j < out_size; ++j) y[(n * t.m + m) * out_size + j] = b.data<float>()[m];
    }
    for (int64_t c = 0; c < t.c; ++c) {
      const int64_t g = c / cg;
      for (int64_t j = 0; j < in_size; ++j) {
        const V i = unflatten(j, t.in);
        const float xv = x.data<float>()[(n * t.c + c) * in_size + j];
        for (int64_t mi = 0; mi < mg; ++mi) {
          for (int64_t k = 0; k < taps; ++k) {
            const V kk = unflatten(k, t.kernel);
            int64_t offset = 0;
            bool inside = true;
            for (size_t d = 0; d < t.in.size(); ++d) {
              const int64_t o = i[d] * t.stride[d] + kk[d] * t.dilation[d] - t.pad_begin[d];
              inside = inside && o >= 0 && o < out_dims[d];
              offset = offset * out_dims[d] + o;
            }
            if (!inside) continue;
            const int64_t m = g * mg + mi;
            y[(n * t.m + m) * out_size + offset] +=
                static_cast<double>(xv) * w.data<float>()[(c * mg + mi) * taps + k];
          }
        }
      }
    }
  }
  return Tensor::from_data<float>(y_shape, std::vector<float>(y.begin(), y.end()));
}

TEST(ConvTransposeOp, RandomShapesMatchDefinition) {
  std::mt19937 rng(99);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int iter = 0; iter < 80; ++iter) {
    TransposeCase t;
    const size_t rank = static_cast<size_t>(pick(1, 3));
    t.n = pick(1, 2);
    t.group = pick(1, 2);
    t.c = t.group * pick(1, 4);
    t.m = t.group * pick(1, 4);
    for (size_t d = 0; d < rank; ++d) {
      t.in.push_back(pick(1, rank == 3 ? 4 : 9));
      t.kernel.push_back(pick(1, 3));
      t.stride.push_back(pick(1, 3));
      t.dilation.push_back(pick(1, 2));
      t.output_padding.push_back(pick(0, std::max(t.stride.back(), t.dilation.back()) - 1));
      t.pad_begin.push_back(pick(0, t.kernel.back() - 1));
      t.pad_end.push_back(pick(0, t.kernel.back() - 1));
    }
    Shape x_shape{t.n, t.c}, w_shape{t.c, t.m / t.group};
    for (int64_t d : t.in) x_shape.push_back(d);
    for (int64_t d : t.kernel) w_shape.push_back(d);
    const Tensor x = random_tensor(x_shape, rng);
    const Tensor w = random_tensor(w_shape, rng);
    const Tensor b = random_tensor(Shape{t.m}, rng);
    V out_dims;
    const Tensor expected = naive_conv_transpose(t, x, w, b, out_dims);
    bool positive = true;
    for (int64_t d : out_dims) positive = positive && d > 0;
    if (!positive) continue;
    SCOPED_TRACE(iter);
    OpTest op("ConvTranspose");
    op.input(x)
        .input(w)
        .input(b)
        .attr("strides", t.stride)
        .attr("dilations", t.dilation)
        .attr("group", t.group)
        .attr("output_padding", t.output_padding);
    if (pick(0, 1)) {
      op.attr("pads", concat(t.pad_begin, t.pad_end));
    } else {
      // The same output asked for by size: with equal pads the split is unambiguous.
      if (t.pad_begin != t.pad_end) continue;
      op.attr("output_shape", out_dims);
    }
    if (pick(0, 1)) op.constant_input(1);
    const Tensor actual = op.run()[0];
    ASSERT_EQ(actual.shape(), expected.shape());
    EXPECT_TRUE(all_close(actual, expected, 1e-4, 1e-4));
  }
}

TEST(ConvTransposeOp, OutputShapeLargerThanNaturalAddsBiasOnly) {
  const Tensor x = Tensor::from_data<float>({1, 1, 2}, {1.0f, 2.0f});
  const Tensor w = Tensor::from_data<float>({1, 1, 2}, {1.0f, 1.0f});
  const Tensor b = Tensor::from_data<float>({1}, {0.5f});
  const auto y = OpTest("ConvTranspose")
                     .input(x)
                     .input(w)
                     .input(b)
                     .attr("output_shape", V{5})
                     .attr("strides", V{1})
                     .run()[0];
  EXPECT_EQ(y.shape(), (Shape{1, 1, 5}));
  // total_padding = 3 - 5 = -2 splits as the spec says (begin = total - floor(total / 2)):
  // one bias-only element on each side.
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{0.5f, 1.5f, 3.5f, 2.5f, 0.5f}));
}

TEST(ConvTransposeOp, BadInputsThrow) {
  const Tensor x = Tensor::zeros(DataType::Float32, {1, 4, 5, 5});
  EXPECT_THROW(
      OpTest("ConvTranspose").input(x).input(Tensor::zeros(DataType::Float32, {3, 2, 3, 3})).run(),
      Error);
  EXPECT_THROW(OpTest("ConvTranspose")
                   .input(x)
                   .input(Tensor::zeros(DataType::Float32, {4, 2, 3, 3}))
                   .attr("group", 3)
                   .run(),
               Error);
  EXPECT_THROW(OpTest("ConvTranspose")
                   .input(x)
                   .input(Tensor::zeros(DataType::Float32, {4, 2, 3, 3}))
                   .attr("pads", V{4, 4, 4, 4})
                   .run(),
               Error);
}

}  // namespace
}  // namespace kiln
