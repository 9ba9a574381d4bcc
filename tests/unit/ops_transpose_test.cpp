#include <gtest/gtest.h>

#include "backends/cpu/strided_copy.h"
#include "ops/op_utils.h"
#include "test_util.h"

using namespace kiln;
using kiln::testing::f32;
using kiln::testing::OpTest;

namespace {

// Naive transpose oracle over row-major indices.
template <class T>
std::vector<T> naive_transpose(const std::vector<T>& in, const Shape& shape,
                               const std::vector<int64_t>& perm) {
  const Shape in_strides = strides_of(shape);
  Shape out_shape;
  for (int64_t p : perm) out_shape.push_back(shape[p]);
  const int64_t n = shape.element_count();
  std::vector<T> out(n);
  for (int64_t o = 0; o < n; ++o) {
    int64_t rem = o, src = 0;
    for (size_t d = perm.size(); d-- > 0;) {
      src += (rem % out_shape[d]) * in_strides[perm[d]];
      rem /= out_shape[d];
    }
    out[o] = in[src];
  }
  return out;
}

std::vector<float> iota_f(int64_t n) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

}  // namespace

TEST(Transpose, DefaultReversesAxes) {
  auto out = OpTest("Transpose").input(f32({2, 3}, {0, 1, 2, 3, 4, 5})).run()[0];
  EXPECT_EQ(out.shape(), (Shape{3, 2}));
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(Transpose, AllPermutationsOfRank4MatchOracle) {
  const Shape shape{2, 3, 4, 5};
  const auto data = iota_f(shape.element_count());
  std::vector<int64_t> perm{0, 1, 2, 3};
  do {
    auto out = OpTest("Transpose").input(f32(shape, data)).attr("perm", perm).run()[0];
    EXPECT_EQ(out.to_vector<float>(), naive_transpose(data, shape, perm));
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(Transpose, LargeTiledAndParallelPaths) {
  // Big enough for the tiled path and for the parallel split, with ragged tile edges.
  for (auto [shape, perm] : std::vector<std::pair<Shape, std::vector<int64_t>>>{
           {{517, 301}, {1, 0}},
           {{2, 67, 45, 33}, {0, 2, 3, 1}},  // NCHW -> NHWC
           {{2, 45, 33, 67}, {0, 3, 1, 2}},  // NHWC -> NCHW
           {{3, 70, 90, 5}, {2, 1, 0, 3}}}) {
    const auto data = iota_f(shape.element_count());
    auto out = OpTest("Transpose").input(f32(shape, data)).attr("perm", perm).run()[0];
    EXPECT_EQ(out.to_vector<float>(), naive_transpose(data, shape, perm)) << shape.to_string();
  }
}

TEST(Transpose, LargeTiledPathsForEveryElementSize) {
  const Shape shape{130, 70};
  const std::vector<int64_t> perm{1, 0};
  const int64_t n = shape.element_count();
  std::vector<uint8_t> u8(n);
  std::vector<int64_t> i64v(n);
  std::vector<std::complex<double>> c128(n);
  std::vector<std::string> str(n);
  for (int64_t i = 0; i < n; ++i) {
    u8[i] = static_cast<uint8_t>(i * 7);
    i64v[i] = i * 1000003;
    c128[i] = {static_cast<double>(i), -static_cast<double>(i)};
    str[i] = "s" + std::to_string(i);
  }
  auto run = [&](const Tensor& x) {
    return OpTest("Transpose").input(x).attr("perm", perm).run()[0];
  };
  EXPECT_EQ(run(Tensor::from_data<uint8_t>(shape, u8)).to_vector<uint8_t>(),
            naive_transpose(u8, shape, perm));
  EXPECT_EQ(run(Tensor::from_data<int64_t>(shape, i64v)).to_vector<int64_t>(),
            naive_transpose(i64v, shape, perm));
  EXPECT_EQ(
      run(Tensor::from_data<std::complex<double>>(shape, c128)).to_vector<std::complex<double>>(),
      naive_transpose(c128, shape, perm));
  EXPECT_EQ(run(Tensor::from_data<std::string>(shape, str)).to_vector<std::string>(),
            naive_transpose(str, shape, perm));
}

TEST(Transpose, OtherTypesAndEdgeCases) {
  auto s = Tensor::from_data<std::string>({2, 2}, {"a", "b", "c", "d"});
  EXPECT_EQ(OpTest("Transpose").input(s).run()[0].to_vector<std::string>(),
            (std::vector<std::string>{"a", "c", "b", "d"}));
  auto b = Tensor::from_data<uint8_t>({1, 3}, {1, 2, 3});
  auto ob = OpTest("Transpose").input(b).run()[0];
  EXPECT_EQ(ob.shape(), (Shape{3, 1}));
  EXPECT_EQ(ob.to_vector<uint8_t>(), (std::vector<uint8_t>{1, 2, 3}));
  auto c = Tensor::from_data<std::complex<double>>({2, 1, 2}, {{1, 1}, {2, 2}, {3, 3}, {4, 4}});
  auto oc = OpTest("Transpose").input(c).attr("perm", std::vector<int64_t>{2, 1, 0}).run()[0];
  EXPECT_EQ(oc.to_vector<std::complex<double>>()[1], (std::complex<double>{3, 3}));
  EXPECT_EQ(OpTest("Transpose").input(Tensor::zeros(DataType::Float32, {0, 3})).run()[0].shape(),
            (Shape{3, 0}));
  EXPECT_EQ(OpTest("Transpose").input(Tensor::scalar<int32_t>(5)).run()[0].to_vector<int32_t>(),
            (std::vector<int32_t>{5}));
  EXPECT_THROW(OpTest("Transpose")
                   .input(f32({2, 2}, {1, 2, 3, 4}))
                   .attr("perm", std::vector<int64_t>{0, 0})
                   .run(),
               kiln::Error);
  EXPECT_THROW(OpTest("Transpose")
                   .input(f32({2, 2}, {1, 2, 3, 4}))
                   .attr("perm", std::vector<int64_t>{0})
                   .run(),
               kiln::Error);
}

TEST(DepthToSpace, DcrAndCrd) {
  // N=1, C=4, H=1, W=2, blocksize 2.
  auto x = f32({1, 4, 1, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto dcr = OpTest("DepthToSpace").input(x).attr("blocksize", 2).run()[0];
  EXPECT_EQ(dcr.shape(), (Shape{1, 1, 2, 4}));
  // DCR: out[0,0,h*2+i,w*2+j] = in[0, (i*2+j), h, w]
  EXPECT_EQ(dcr.to_vector<float>(), (std::vector<float>{0, 2, 1, 3, 4, 6, 5, 7}));
  auto crd = OpTest("DepthToSpace").input(x).attr("blocksize", 2).attr("mode", "CRD").run()[0];
  // With one output channel the two modes agree.
  EXPECT_EQ(crd.to_vector<float>(), dcr.to_vector<float>());
  auto x2 = f32({1, 8, 1, 1}, iota_f(8));
  auto d2 = OpTest("DepthToSpace").input(x2).attr("blocksize", 2).run()[0];
  auto c2 = OpTest("DepthToSpace").input(x2).attr("blocksize", 2).attr("mode", "CRD").run()[0];
  EXPECT_EQ(d2.shape(), (Shape{1, 2, 2, 2}));
  EXPECT_EQ(d2.to_vector<float>(), (std::vector<float>{0, 2, 4, 6, 1, 3, 5, 7}));
  EXPECT_EQ(c2.to_vector<float>(), iota_f(8));
  EXPECT_THROW(
      OpTest("DepthToSpace").input(f32({1, 3, 1, 1}, {1, 2, 3})).attr("blocksize", 2).run(),
      kiln::Error);
  EXPECT_THROW(OpTest("DepthToSpace").input(f32({4}, {1, 2, 3, 4})).attr("blocksize", 2).run(),
               kiln::Error);
}

TEST(SpaceToDepth, InvertsDepthToSpace) {
  const auto data = iota_f(2 * 3 * 4 * 6);
  auto x = f32({2, 3, 4, 6}, data);
  auto s2d = OpTest("SpaceToDepth").input(x).attr("blocksize", 2).run()[0];
  EXPECT_EQ(s2d.shape(), (Shape{2, 12, 2, 3}));
  auto back = OpTest("DepthToSpace").input(s2d).attr("blocksize", 2).run()[0];
  EXPECT_EQ(back.to_vector<float>(), data);
  EXPECT_THROW(
      OpTest("SpaceToDepth").input(f32({1, 1, 3, 2}, iota_f(6))).attr("blocksize", 2).run(),
      kiln::Error);
}

TEST(StridedCopy, NegativeAndZeroSourceStrides) {
  const std::vector<int32_t> src{0, 1, 2, 3, 4, 5};
  std::vector<int32_t> dst(6);
  // Rows reversed, columns read backwards: start at the last element.
  cpu::strided_copy_to_contiguous(DataType::Int32, Shape{2, 3}, dst.data(), src.data() + 5,
                                  Shape{-3, -1});
  EXPECT_EQ(dst, (std::vector<int32_t>{5, 4, 3, 2, 1, 0}));
  // Broadcast a row.
  cpu::strided_copy_to_contiguous(DataType::Int32, Shape{2, 3}, dst.data(), src.data(),
                                  Shape{0, 1});
  EXPECT_EQ(dst, (std::vector<int32_t>{0, 1, 2, 0, 1, 2}));
  // Scatter into a strided destination: every other element.
  std::vector<int32_t> wide(6, -1);
  cpu::strided_copy(DataType::Int32, Shape{3}, wide.data(), Shape{2}, src.data(), Shape{1});
  EXPECT_EQ(wide, (std::vector<int32_t>{0, -1, 1, -1, 2, -1}));
}
