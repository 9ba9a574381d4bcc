// Pooling ops against naive loop nests written here, and hand-checked corner cases.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "hwy/targets.h"
#include "test_util.h"

namespace kiln {
namespace {

using testing::OpTest;
using V = std::vector<int64_t>;

int64_t product(const V& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

V unflatten(int64_t index, const V& dims) {
  V out(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    out[d] = index % dims[d];
    index /= dims[d];
  }
  return out;
}

V concat(const V& a, const V& b) {
  V r = a;
  r.insert(r.end(), b.begin(), b.end());
  return r;
}

struct PoolCase {
  int64_t n = 1, c = 1;
  V in, kernel, stride, dilation, pad_begin, pad_end;
  bool ceil_mode = false;
};

V pool_out_dims(const PoolCase& t) {
  V out;
  for (size_t d = 0; d < t.in.size(); ++d) {
    const int64_t dk = (t.kernel[d] - 1) * t.dilation[d] + 1;
    const int64_t span = t.in[d] + t.pad_begin[d] + t.pad_end[d] - dk;
    int64_t o = t.ceil_mode ? (span + t.stride[d] - 1) / t.stride[d] + 1 : span / t.stride[d] + 1;
    if (t.ceil_mode && (o - 1) * t.stride[d] >= t.in[d] + t.pad_begin[d]) --o;
    out.push_back(o);
  }
  return out;
}

enum class Kind { kMax, kAvg, kAvgIncludePad, kLp2, kLp3 };

// Returns y and (for max) the row-major argmax indices.
std::pair<std::vector<float>, std::vector<int64_t>> naive_pool(const PoolCase& t, Kind kind,
                                                               const std::vector<float>& x) {
  const V out = pool_out_dims(t);
  const int64_t in_size = product(t.in), out_size = product(out), taps = product(t.kernel);
  std::vector<float> y;
  std::vector<int64_t> idx;
  for (int64_t plane = 0; plane < t.n * t.c; ++plane) {
    for (int64_t j = 0; j < out_size; ++j) {
      const V o = unflatten(j, out);
      double acc = kind == Kind::kMax ? -INFINITY : 0.0;
      int64_t best = -1, count = 0, padded_count = 0;
      for (int64_t k = 0; k < taps; ++k) {
        const V kk = unflatten(k, t.kernel);
        int64_t offset = 0;
        bool inside = true, in_padded = true;
        for (size_t d = 0; d < t.in.size(); ++d) {
          const int64_t i = o[d] * t.stride[d] + kk[d] * t.dilation[d] - t.pad_begin[d];
          inside = inside && i >= 0 && i < t.in[d];
          in_padded = in_padded && i < t.in[d] + t.pad_end[d];
          offset = offset * t.in[d] + i;
        }
        padded_count += in_padded;
        if (!inside) continue;
        ++count;
        const double v = x[static_cast<size_t>(plane * in_size + offset)];
        switch (kind) {
          case Kind::kMax:
            // The first tap inside the image seeds the maximum; a later one replaces it only
            // when greater: a NaN never replaces a number, and a NaN first tap stays.
            if (best < 0 || v > acc) {
              acc = v;
              best = plane * in_size + offset;
            }
            break;
          case Kind::kAvg:
          case Kind::kAvgIncludePad:
            acc += v;
            break;
          case Kind::kLp2:
            acc += v * v;
            break;
          case Kind::kLp3:
            acc += std::pow(std::abs(v), 3.0);
            break;
        }
      }
      if (kind == Kind::kAvg) acc /= static_cast<double>(count);
      if (kind == Kind::kAvgIncludePad) acc /= static_cast<double>(padded_count);
      if (kind == Kind::kLp2) acc = std::sqrt(acc);
      if (kind == Kind::kLp3) acc = std::pow(acc, 1.0 / 3.0);
      y.push_back(static_cast<float>(acc));
      idx.push_back(best);
    }
  }
  return {y, idx};
}

TEST(PoolOps, RandomShapesMatchDefinition) {
  std::mt19937 rng(42);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (int iter = 0; iter < 150; ++iter) {
    PoolCase t;
    const size_t rank = static_cast<size_t>(pick(1, 3));
    t.n = pick(1, 2);
    t.c = pick(1, 3);
    t.ceil_mode = pick(0, 1) == 1;
    for (size_t d = 0; d < rank; ++d) {
      t.kernel.push_back(pick(1, 3));
      t.stride.push_back(pick(1, 3));
      t.dilation.push_back(pick(1, 2));
      // Pads smaller than the kernel, so no window lies wholly in the padding.
      t.pad_begin.push_back(pick(0, t.kernel.back() - 1));
      t.pad_end.push_back(pick(0, t.kernel.back() - 1));
      const int64_t dk = (t.kernel.back() - 1) * t.dilation.back() + 1;
      t.in.push_back(std::max<int64_t>(dk, pick(1, rank == 3 ? 6 : 12)));
    }
    Shape x_shape{t.n, t.c};
    for (int64_t d : t.in) x_shape.push_back(d);
    std::vector<float> xv(static_cast<size_t>(x_shape.element_count()));
    for (float& f : xv) f = value(rng);
    const Tensor x = Tensor::from_data<float>(x_shape, xv);
    Shape y_shape{t.n, t.c};
    for (int64_t d : pool_out_dims(t)) y_shape.push_back(d);
    SCOPED_TRACE(iter);
    for (Kind kind : {Kind::kMax, Kind::kAvg, Kind::kAvgIncludePad, Kind::kLp2, Kind::kLp3}) {
      const char* op_type = kind == Kind::kMax                           ? "MaxPool"
                            : (kind == Kind::kLp2 || kind == Kind::kLp3) ? "LpPool"
                                                                         : "AveragePool";
      OpTest op(op_type);
      op.input(x)
          .attr("kernel_shape", t.kernel)
          .attr("strides", t.stride)
          .attr("dilations", t.dilation)
          .attr("pads", concat(t.pad_begin, t.pad_end));
      if (kind != Kind::kLp2 && kind != Kind::kLp3) op.attr("ceil_mode", int64_t{t.ceil_mode});
      if (kind == Kind::kAvgIncludePad) op.attr("count_include_pad", 1);
      if (kind == Kind::kLp3) op.attr("p", 3);
      if (kind == Kind::kMax) op.outputs(2);
      PoolCase tk = t;
      if (kind == Kind::kLp2 || kind == Kind::kLp3) tk.ceil_mode = false;
      const auto [ey, eidx] = naive_pool(tk, kind, xv);
      const auto out = op.run();
      Shape expected_shape{t.n, t.c};
      for (int64_t d : pool_out_dims(tk)) expected_shape.push_back(d);
      ASSERT_EQ(out[0].shape(), expected_shape) << op_type;
      EXPECT_TRUE(all_close(out[0], Tensor::from_data<float>(expected_shape, ey), 1e-5, 1e-5))
          << op_type << " kind " << static_cast<int>(kind);
      if (kind == Kind::kMax) EXPECT_EQ(out[1].to_vector<int64_t>(), eidx);
    }
  }
}

// Equal floats, a NaN equal to a NaN (value_matches with no tolerance).
bool same_floats(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!testing::value_matches(a[i], b[i], 0.0, 0.0)) return false;
  }
  return true;
}

TEST(PoolOps, MaxPool2dWideRowsOnEveryTarget) {
  // The 2-D float path without Indices vectorises the columns whose windows lie inside the
  // row (strides 1 and 2): rows wider than a vector, and narrower ones (which take shorter
  // vectors), on every SIMD target compiled in and supported here, with the edge columns, ceil
  // mode and dilation around them. Some inputs are NaN, which must land as the scalar rule says
  // wherever the column is computed.
  std::mt19937 rng(43);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::uniform_int_distribution<int> one_in_16(0, 15);
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (int64_t stride : {1, 2, 3}) {
      for (int64_t width : {5, 12, 16, 17, 27, 33, 55, 111}) {
        for (int variant = 0; variant < 3; ++variant) {
          PoolCase t;
          t.c = 2;
          t.kernel = {3, variant == 2 ? 2 : 3};
          t.stride = {stride, stride};
          t.dilation = {1, variant == 1 ? 2 : 1};
          t.pad_begin = {variant == 0 ? 0 : 1, variant == 0 ? 0 : 1};
          t.pad_end = {0, variant == 2 ? 1 : 0};
          t.ceil_mode = variant != 1;
          t.in = {7, width};
          Shape x_shape{t.n, t.c, t.in[0], t.in[1]};
          std::vector<float> xv(static_cast<size_t>(x_shape.element_count()));
          for (float& f : xv) f = one_in_16(rng) == 0 ? std::nanf("") : value(rng);
          const Tensor x = Tensor::from_data<float>(x_shape, xv);
          const Tensor y = OpTest("MaxPool")
                               .input(x)
                               .attr("kernel_shape", t.kernel)
                               .attr("strides", t.stride)
                               .attr("dilations", t.dilation)
                               .attr("pads", concat(t.pad_begin, t.pad_end))
                               .attr("ceil_mode", int64_t{t.ceil_mode})
                               .run()[0];
          const V out = pool_out_dims(t);
          const auto [ey, eidx] = naive_pool(t, Kind::kMax, xv);
          EXPECT_TRUE(same_floats(y.to_vector<float>(), ey))
              << "stride " << stride << " width " << width << " variant " << variant;
          EXPECT_EQ(y.shape(), (Shape{t.n, t.c, out[0], out[1]}));
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(PoolOps, MaxPoolIndicesColumnMajor) {
  // 1 x 2 x 2 x 3: the max of each plane is at (h=1, w=2).
  const Tensor x = Tensor::from_data<float>({1, 2, 2, 3}, {0, 1, 2, 3, 4, 5, 5, 4, 3, 2, 1, 9});
  auto out = OpTest("MaxPool")
                 .input(x)
                 .outputs(2)
                 .attr("kernel_shape", V{2, 3})
                 .attr("storage_order", 1)
                 .run();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{5, 9}));
  // Column-major offset of (1, 2) in a 2 x 3 plane is 2 * 2 + 1 = 5; plane 1 adds 6.
  EXPECT_EQ(out[1].to_vector<int64_t>(), (std::vector<int64_t>{5, 11}));
  out = OpTest("MaxPool").input(x).outputs(2).attr("kernel_shape", V{2, 3}).run();
  EXPECT_EQ(out[1].to_vector<int64_t>(), (std::vector<int64_t>{5, 11}));
}

TEST(PoolOps, MaxPoolIntegers) {
  const Tensor x = Tensor::from_data<int8_t>({1, 1, 4}, {-5, -7, 3, -128});
  const auto y =
      OpTest("MaxPool").input(x).attr("kernel_shape", V{2}).attr("pads", V{1, 1}).run()[0];
  EXPECT_EQ(y.to_vector<int8_t>(), (std::vector<int8_t>{-5, -5, 3, 3, -128}));
  const Tensor u = Tensor::from_data<uint8_t>({1, 1, 2, 2}, {200, 10, 255, 0});
  const auto yu = OpTest("MaxPool").input(u).attr("kernel_shape", V{2, 2}).run()[0];
  EXPECT_EQ(yu.to_vector<uint8_t>(), (std::vector<uint8_t>{255}));
  const auto gu = OpTest("GlobalMaxPool").input(u).run()[0];
  EXPECT_EQ(gu.to_vector<uint8_t>(), (std::vector<uint8_t>{255}));
}

TEST(PoolOps, AutoPadSame) {
  const Tensor x = Tensor::from_data<float>({1, 1, 1, 4}, {1, 2, 3, 4});
  // SAME_UPPER, kernel 2: out 4, the extra pad at the end; SAME_LOWER at the start.
  auto y = OpTest("AveragePool")
               .input(x)
               .attr("kernel_shape", V{1, 2})
               .attr("auto_pad", "SAME_UPPER")
               .run()[0];
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1.5f, 2.5f, 3.5f, 4.0f}));
  y = OpTest("AveragePool")
          .input(x)
          .attr("kernel_shape", V{1, 2})
          .attr("auto_pad", "SAME_LOWER")
          .run()[0];
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1.0f, 1.5f, 2.5f, 3.5f}));
  y = OpTest("MaxPool")
          .input(x)
          .attr("kernel_shape", V{1, 3})
          .attr("strides", V{1, 2})
          .attr("auto_pad", "VALID")
          .run()[0];
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{3}));
}

TEST(PoolOps, GlobalPools) {
  std::vector<float> v(2 * 3 * 5 * 7);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<float>(i));
  const Tensor x = Tensor::from_data<float>({2, 3, 5, 7}, v);
  const auto avg = OpTest("GlobalAveragePool").input(x).run()[0];
  const auto mx = OpTest("GlobalMaxPool").input(x).run()[0];
  const auto lp = OpTest("GlobalLpPool").input(x).attr("p", 3).run()[0];
  ASSERT_EQ(avg.shape(), (Shape{2, 3, 1, 1}));
  for (int64_t plane = 0; plane < 6; ++plane) {
    double sum = 0, best = -INFINITY, lp_sum = 0;
    for (int64_t i = 0; i < 35; ++i) {
      const double e = v[static_cast<size_t>(plane * 35 + i)];
      sum += e;
      best = std::max(best, e);
      lp_sum += std::pow(std::abs(e), 3.0);
    }
    EXPECT_NEAR(avg.to_vector<float>()[plane], sum / 35, 1e-5);
    EXPECT_EQ(mx.to_vector<float>()[plane], static_cast<float>(best));
    EXPECT_NEAR(lp.to_vector<float>()[plane], std::cbrt(lp_sum), 1e-5);
  }
}

TEST(PoolOps, Float16AndDouble) {
  const Tensor xd = Tensor::from_data<double>({1, 1, 3}, {1.0, 2.0, 4.0});
  const auto yd = OpTest("AveragePool").input(xd).attr("kernel_shape", V{2}).run()[0];
  EXPECT_EQ(yd.to_vector<double>(), (std::vector<double>{1.5, 3.0}));
  const Tensor xh =
      Tensor::from_data<Float16>({1, 1, 3}, {Float16(1.0f), Float16(-2.0f), Float16(4.0f)});
  const auto yh = OpTest("MaxPool").input(xh).attr("kernel_shape", V{2}).run()[0];
  ASSERT_EQ(yh.dtype(), DataType::Float16);
  EXPECT_EQ(static_cast<float>(yh.to_vector<Float16>()[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(yh.to_vector<Float16>()[1]), 4.0f);
}

TEST(PoolOps, BadInputsThrow) {
  const Tensor x = Tensor::zeros(DataType::Float32, {1, 1, 4, 4});
  EXPECT_THROW(OpTest("MaxPool").input(x).run(), Error);  // no kernel_shape
  EXPECT_THROW(OpTest("MaxPool").input(x).attr("kernel_shape", V{2}).run(), Error);
  EXPECT_THROW(OpTest("MaxPool").input(x).attr("kernel_shape", V{5, 5}).run(), Error);
  EXPECT_THROW(
      OpTest("AveragePool").input(x).attr("kernel_shape", V{2, 2}).attr("strides", V{1, 0}).run(),
      Error);
  EXPECT_THROW(
      OpTest("AveragePool").input(x).attr("kernel_shape", V{2, 2}).attr("pads", V{1, 1, 1}).run(),
      Error);
  EXPECT_THROW(OpTest("AveragePool")
                   .input(Tensor::zeros(DataType::Int8, {1, 1, 4, 4}))
                   .attr("kernel_shape", V{2, 2})
                   .run(),
               Error);
  EXPECT_THROW(OpTest("GlobalAveragePool").input(Tensor::zeros(DataType::Float32, {4, 4})).run(),
               Error);
}

}  // namespace
}  // namespace kiln
