// MatMul, Gemm and Einsum against naive double-precision references over random shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kiln/error.h"
#include "random_data.h"
#include "test_util.h"

namespace kiln {
namespace {

using testing::f32;
using testing::OpTest;
using testing::uniform_floats;

std::vector<float> random_values(int64_t n, uint32_t seed) {
  return uniform_floats(n, seed, -1.0f, 1.0f);
}

Tensor random_f32(const Shape& shape, uint32_t seed) {
  return f32(shape, random_values(shape.element_count(), seed));
}

// numpy.matmul in double.
Tensor reference_matmul(const Tensor& a, const Tensor& b) {
  Shape as = a.shape(), bs = b.shape();
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(0, 1);
  if (b_vec) bs.push_back(1);
  const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  Shape ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  const size_t rank = std::max(ab.size(), bb.size());
  while (ab.size() < rank) ab.insert(0, 1);
  while (bb.size() < rank) bb.insert(0, 1);
  Shape batch;
  for (size_t i = 0; i < rank; ++i) batch.push_back(std::max(ab[i], bb[i]));
  Shape out = batch;
  if (!a_vec) out.push_back(M);
  if (!b_vec) out.push_back(N);
  std::vector<float> y(static_cast<size_t>(out.element_count()));
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  const int64_t batches = batch.element_count();
  for (int64_t i = 0; i < batches; ++i) {
    int64_t rest = i, ao = 0, bo = 0, astride = 1, bstride = 1;
    for (size_t d = rank; d-- > 0;) {
      const int64_t idx = rest % batch[d];
      rest /= batch[d];
      ao += (ab[d] == 1 ? 0 : idx) * astride;
      bo += (bb[d] == 1 ? 0 : idx) * bstride;
      astride *= ab[d];
      bstride *= bb[d];
    }
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) {
          s += double(pa[ao * M * K + m * K + k]) * pb[bo * K * N + k * N + n];
        }
        y[static_cast<size_t>((i * M + m) * N + n)] = static_cast<float>(s);
      }
    }
  }
  return f32(out, y);
}

void expect_close(const Tensor& actual, const Tensor& expected, const std::string& what) {
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  EXPECT_TRUE(all_close(actual, expected, 1e-4, 1e-4))
      << what << "\n got " << actual.to_string() << "\n want " << expected.to_string();
}

TEST(MatMul, BroadcastShapesAgainstReference) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{3, 4}, {4, 5}},
      {{4}, {4}},
      {{4}, {4, 5}},
      {{3, 4}, {4}},
      {{2, 3, 4}, {4, 5}},
      {{2, 3, 4}, {4}},
      {{4}, {2, 4, 5}},
      {{2, 3, 4}, {2, 4, 5}},
      {{2, 1, 3, 4}, {5, 4, 6}},
      {{1, 3, 4}, {7, 4, 2}},
      {{70, 33}, {33, 65}},
      {{3, 0}, {0, 4}},
      {{0, 3}, {3, 4}},
      {{6, 2, 17, 9}, {6, 2, 9, 13}},
  };
  uint32_t seed = 1;
  for (const auto& [sa, sb] : cases) {
    const Tensor a = random_f32(sa, seed++), b = random_f32(sb, seed++);
    const Tensor want = reference_matmul(a, b);
    expect_close(OpTest("MatMul").input(a).input(b).run()[0], want,
                 sa.to_string() + " x " + sb.to_string());
    expect_close(OpTest("MatMul").input(a).input(b).constant_input(1).run()[0], want,
                 sa.to_string() + " x const " + sb.to_string());
  }
}

TEST(MatMul, IntegerAndDoubleTypes) {
  const Tensor a = Tensor::from_data<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = Tensor::from_data<int32_t>({3, 2}, {1, -1, 2, 0, 0, 3});
  EXPECT_EQ(OpTest("MatMul").input(a).input(b).run()[0].to_vector<int32_t>(),
            (std::vector<int32_t>{5, 8, 14, 14}));
  const Tensor c = Tensor::from_data<int64_t>({3}, {1, 2, 3});
  EXPECT_EQ(OpTest("MatMul").input(c).input(c).run()[0].to_vector<int64_t>(),
            (std::vector<int64_t>{14}));
  const Tensor d = Tensor::from_data<double>({1, 2}, {0.5, 2});
  const Tensor e = Tensor::from_data<double>({2, 1}, {4, 0.25});
  EXPECT_EQ(OpTest("MatMul").input(d).input(e).run()[0].to_vector<double>(),
            (std::vector<double>{2.5}));
}

TEST(MatMul, Float16AccumulatesInFloat) {
  std::vector<Float16> ones(300, Float16(1.0f));
  const Tensor a = Tensor::from_data<Float16>({1, 300}, ones);
  const Tensor b = Tensor::from_data<Float16>({300, 1}, ones);
  const Tensor y = OpTest("MatMul").input(a).input(b).run()[0];
  EXPECT_EQ(static_cast<float>(y.data<Float16>()[0]), 300.0f);
}

TEST(MatMul, BadInputsThrow) {
  EXPECT_THROW(OpTest("MatMul").input(random_f32({2, 3}, 1)).input(random_f32({4, 2}, 2)).run(),
               Error);
  EXPECT_THROW(
      OpTest("MatMul").input(random_f32({2, 2, 3}, 1)).input(random_f32({3, 3, 2}, 2)).run(),
      Error);
  EXPECT_THROW(OpTest("MatMul").input(Tensor::scalar(1.0f)).input(random_f32({1}, 2)).run(), Error);
  EXPECT_THROW(OpTest("MatMul")
                   .input(random_f32({2, 2}, 1))
                   .input(Tensor::from_data<int32_t>({2, 2}, {1, 2, 3, 4}))
                   .run(),
               Error);
}

TEST(MatMulInteger, ZeroPointsPerTensorRowAndColumn) {
  const Tensor a = Tensor::from_data<uint8_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = Tensor::from_data<int8_t>({3, 2}, {1, -1, 2, 0, 0, 3});
  // No zero points: a plain product in int32.
  EXPECT_EQ(OpTest("MatMulInteger").input(a).input(b).run()[0].to_vector<int32_t>(),
            (std::vector<int32_t>{5, 8, 14, 14}));
  // Per-row zero points for A, per-column for B: (a - za[m]) * (b - zb[n]).
  const Tensor za = Tensor::from_data<uint8_t>({2}, {1, 4});
  const Tensor zb = Tensor::from_data<int8_t>({2}, {1, -1});
  std::vector<int32_t> want;
  const int av[2][3] = {{1, 2, 3}, {4, 5, 6}}, bv[3][2] = {{1, -1}, {2, 0}, {0, 3}};
  const int zav[2] = {1, 4}, zbv[2] = {1, -1};
  for (int m = 0; m < 2; ++m) {
    for (int n = 0; n < 2; ++n) {
      int s = 0;
      for (int k = 0; k < 3; ++k) s += (av[m][k] - zav[m]) * (bv[k][n] - zbv[n]);
      want.push_back(s);
    }
  }
  EXPECT_EQ(
      OpTest("MatMulInteger").input(a).input(b).input(za).input(zb).run()[0].to_vector<int32_t>(),
      want);
  EXPECT_THROW(OpTest("MatMulInteger")
                   .input(a)
                   .input(b)
                   .input(Tensor::from_data<uint8_t>({3}, {1, 2, 3}))
                   .run(),
               Error);
  EXPECT_THROW(
      OpTest("MatMulInteger").input(random_f32({2, 3}, 1)).input(random_f32({3, 2}, 2)).run(),
      Error);
}

TEST(MatMulInteger, ZeroPointsPerBatchMatrixFollowTheirOperandThroughBroadcasting) {
  // A [2, 1, 2, 3] with one zero point per row of each of its 2 batch matrices, against B
  // [3, 3, 2] with one per column of each of its 3: the output [2, 3, 2, 2] pairs every A matrix
  // with every B matrix, each product less its own matrices' zero points.
  const std::vector<int> av = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const std::vector<int> bv = {1, -1, 2, 0, 0, 3, -2, 1, 4, 4, 1, 0, 5, -3, 0, 2, -1, 1};
  const std::vector<int> zav = {1, 2, 3, 4}, zbv = {0, 1, -1, 2, 3, -3};
  std::vector<uint8_t> a8(av.begin(), av.end()), za8(zav.begin(), zav.end());
  std::vector<int8_t> b8(bv.begin(), bv.end()), zb8(zbv.begin(), zbv.end());
  std::vector<int32_t> want;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int m = 0; m < 2; ++m) {
        for (int n = 0; n < 2; ++n) {
          int s = 0;
          for (int k = 0; k < 3; ++k) {
            s +=
                (av[i * 6 + m * 3 + k] - zav[i * 2 + m]) * (bv[j * 6 + k * 2 + n] - zbv[j * 2 + n]);
          }
          want.push_back(s);
        }
      }
    }
  }
  auto y = OpTest("MatMulInteger")
               .input(Tensor::from_data<uint8_t>({2, 1, 2, 3}, a8))
               .input(Tensor::from_data<int8_t>({3, 3, 2}, b8))
               .input(Tensor::from_data<uint8_t>({2, 1, 2}, za8))
               .input(Tensor::from_data<int8_t>({3, 1, 2}, zb8))
               .run();
  EXPECT_EQ(y[0].shape(), (Shape{2, 3, 2, 2}));
  EXPECT_EQ(y[0].to_vector<int32_t>(), want);
}

// Y = alpha * op(A) op(B) + beta * C in double.
Tensor reference_gemm(const Tensor& a, const Tensor& b, const Tensor* c, bool ta, bool tb,
                      float alpha, float beta) {
  const int64_t M = ta ? a.shape()[1] : a.shape()[0];
  const int64_t K = ta ? a.shape()[0] : a.shape()[1];
  const int64_t N = tb ? b.shape()[0] : b.shape()[1];
  std::vector<float> y(static_cast<size_t>(M * N));
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) {
        s += double(ta ? pa[k * M + m] : pa[m * K + k]) * (tb ? pb[n * K + k] : pb[k * N + n]);
      }
      s *= alpha;
      if (c) {
        const Shape& cs = c->shape();
        const int64_t rs = cs.size() == 2 && cs[0] != 1 ? cs.back() : 0;
        const int64_t cst = !cs.empty() && cs.back() != 1 ? 1 : 0;
        s += double(beta) * c->data<float>()[m * rs + n * cst];
      }
      y[static_cast<size_t>(m * N + n)] = static_cast<float>(s);
    }
  }
  return f32({M, N}, y);
}

TEST(GemmOp, AttributesAndBroadcastC) {
  const int64_t M = 5, K = 7, N = 6;
  const std::vector<Shape> c_shapes = {{}, {1}, {N}, {1, N}, {M, 1}, {M, N}, {1, 1}};
  uint32_t seed = 100;
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      for (const Shape& cs : c_shapes) {
        for (float beta : {1.0f, 0.5f}) {
          for (int constant = 0; constant < 2; ++constant) {
            const Tensor a = random_f32(ta ? Shape{K, M} : Shape{M, K}, seed++);
            const Tensor b = random_f32(tb ? Shape{N, K} : Shape{K, N}, seed++);
            const Tensor c = random_f32(cs, seed++);
            const float alpha = 0.75f;
            OpTest t("Gemm");
            t.input(a).input(b).input(c).attr("transA", ta).attr("transB", tb);
            t.attr("alpha", alpha).attr("beta", beta);
            if (constant) t.constant_input(1).constant_input(2);
            expect_close(t.run()[0], reference_gemm(a, b, &c, ta, tb, alpha, beta),
                         "transA=" + std::to_string(ta) + " transB=" + std::to_string(tb) +
                             " C=" + cs.to_string() + " beta=" + std::to_string(beta) +
                             " const=" + std::to_string(constant));
          }
        }
      }
    }
  }
}

TEST(GemmOp, NoCAndOldOpset) {
  const Tensor a = random_f32({3, 4}, 1), b = random_f32({4, 2}, 2);
  expect_close(OpTest("Gemm").input(a).input(b).run()[0],
               reference_gemm(a, b, nullptr, false, false, 1, 1), "no C");
  const Tensor c = random_f32({2}, 3);
  expect_close(OpTest("Gemm", 6).input(a).input(b).input(c).attr("broadcast", 1).run()[0],
               reference_gemm(a, b, &c, false, false, 1, 1), "opset 6 broadcast");
}

TEST(GemmOp, IntegerTypes) {
  const Tensor a = Tensor::from_data<int64_t>({2, 2}, {1, 2, 3, 4});
  const Tensor b = Tensor::from_data<int64_t>({2, 2}, {1, 0, 0, 1});
  const Tensor c = Tensor::from_data<int64_t>({2}, {10, 20});
  EXPECT_EQ(
      OpTest("Gemm").input(a).input(b).input(c).attr("transB", 1).run()[0].to_vector<int64_t>(),
      (std::vector<int64_t>{11, 22, 13, 24}));
}

TEST(GemmOp, BadInputsThrow) {
  EXPECT_THROW(OpTest("Gemm").input(random_f32({2, 3}, 1)).input(random_f32({2, 3}, 2)).run(),
               Error);
  EXPECT_THROW(OpTest("Gemm").input(random_f32({2, 3, 1}, 1)).input(random_f32({3, 2}, 2)).run(),
               Error);
  EXPECT_THROW(OpTest("Gemm")
                   .input(random_f32({2, 3}, 1))
                   .input(random_f32({3, 2}, 2))
                   .input(random_f32({3}, 3))
                   .run(),
               Error);
}

TEST(Einsum, CommonEquations) {
  const Tensor a = random_f32({2, 3, 4}, 1), b = random_f32({2, 4, 5}, 2);
  expect_close(OpTest("Einsum").input(a).input(b).attr("equation", "bij,bjk->bik").run()[0],
               reference_matmul(a, b), "batch matmul");
  const Tensor m = random_f32({3, 4}, 3);
  // Transpose (implicit output sorts the labels: "ji" gives "ij" order = transpose).
  const Tensor t = OpTest("Einsum").input(m).attr("equation", "ji").run()[0];
  ASSERT_EQ(t.shape(), (Shape{4, 3}));
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(t.data<float>()[i * 3 + j], m.data<float>()[j * 4 + i]);
  }
  // Trace, diagonal, sum, outer product, three operands, ellipsis.
  const Tensor sq = f32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(OpTest("Einsum").input(sq).attr("equation", "ii").run()[0].to_vector<float>(),
            (std::vector<float>{15}));
  EXPECT_EQ(OpTest("Einsum").input(sq).attr("equation", "ii->i").run()[0].to_vector<float>(),
            (std::vector<float>{1, 5, 9}));
  EXPECT_EQ(OpTest("Einsum").input(sq).attr("equation", "ij->").run()[0].to_vector<float>(),
            (std::vector<float>{45}));
  const Tensor u = f32({2}, {1, 2}), v = f32({3}, {1, 10, 100});
  EXPECT_EQ(OpTest("Einsum").input(u).input(v).attr("equation", "i,j").run()[0].to_vector<float>(),
            (std::vector<float>{1, 10, 100, 2, 20, 200}));
  EXPECT_EQ(OpTest("Einsum")
                .input(u)
                .input(u)
                .input(u)
                .attr("equation", "i,i,i->")
                .run()[0]
                .to_vector<float>(),
            (std::vector<float>{9}));
  const Tensor e = random_f32({2, 2, 3, 4}, 5), f = random_f32({4, 5}, 6);
  expect_close(OpTest("Einsum").input(e).input(f).attr("equation", "...ij,jk->...ik").run()[0],
               reference_matmul(e, f), "ellipsis");
  // Broadcast ellipsis: [2,1,3,4] x [5,4,6] with batch dims (2,1) and (5).
  const Tensor g = random_f32({2, 1, 3, 4}, 7), h = random_f32({5, 4, 6}, 8);
  expect_close(OpTest("Einsum").input(g).input(h).attr("equation", "...ij,...jk").run()[0],
               reference_matmul(g, h), "broadcast ellipsis");
  const Tensor ints = Tensor::from_data<int32_t>({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(OpTest("Einsum")
                .input(ints)
                .input(ints)
                .attr("equation", "ij,ij->i")
                .run()[0]
                .to_vector<int32_t>(),
            (std::vector<int32_t>{5, 25}));
}

// Float32 two-operand contractions take the GEMM path; float64 takes the general reference
// loop. The two must agree on every layout the GEMM path handles in place or by copying.
TEST(Einsum, GemmPathMatchesReference) {
  struct Case {
    const char* equation;
    Shape a, b;
  };
  const std::vector<Case> cases = {
      {"ij,jk->ik", {3, 4}, {4, 5}},
      {"ij,kj->ik", {3, 4}, {5, 4}},
      {"ji,jk->ik", {4, 3}, {4, 5}},
      {"ji,kj->ki", {4, 3}, {5, 4}},
      {"ij,jk->ki", {3, 4}, {4, 5}},
      {"bij,bjk->bik", {2, 3, 4}, {2, 4, 5}},
      {"bhqd,bhkd->bhqk", {2, 3, 5, 4}, {2, 3, 6, 4}},
      {"bqhd,bkhd->bhqk", {2, 5, 3, 4}, {2, 6, 3, 4}},
      {"ijk,jkl->il", {3, 4, 2}, {4, 2, 5}},
      {"ikj,jkl->il", {3, 2, 4}, {4, 2, 5}},
      {"abc,cd->abd", {2, 3, 4}, {4, 5}},
      {"bij,jk->bik", {2, 3, 4}, {4, 5}},
      {"i,i->", {7}, {7}},
      {"ij,j->i", {3, 4}, {4}},
      {"i,j->ij", {3}, {4}},
      {"ik,kj", {3, 4}, {4, 2}},
      {"...ij,...jk->...ik", {2, 1, 3, 4}, {5, 4, 6}},
      {"bij,bjk->bik", {1, 3, 4}, {2, 4, 5}},
      {"ij,ij->i", {3, 4}, {3, 4}},
      {"ij,jk->", {3, 4}, {4, 5}},
      {"ab,cd->", {2, 3}, {4, 5}},
  };
  uint32_t seed = 50;
  for (const Case& c : cases) {
    const Tensor a = random_f32(c.a, seed++), b = random_f32(c.b, seed++);
    auto to_double = [](const Tensor& t) {
      std::vector<double> v;
      for (float x : t.to_vector<float>()) v.push_back(x);
      return Tensor::from_data<double>(t.shape(), v);
    };
    const Tensor got = OpTest("Einsum").input(a).input(b).attr("equation", c.equation).run()[0];
    const Tensor want_d = OpTest("Einsum")
                              .input(to_double(a))
                              .input(to_double(b))
                              .attr("equation", c.equation)
                              .run()[0];
    std::vector<float> want_v;
    for (double x : want_d.to_vector<double>()) want_v.push_back(static_cast<float>(x));
    expect_close(got, f32(want_d.shape(), want_v), c.equation);
  }
}

TEST(Einsum, BadEquationsThrow) {
  const Tensor m = random_f32({3, 4}, 3);
  EXPECT_THROW(OpTest("Einsum").input(m).attr("equation", "ijk").run(), Error);
  EXPECT_THROW(OpTest("Einsum").input(m).attr("equation", "ij,jk").run(), Error);
  EXPECT_THROW(OpTest("Einsum").input(m).attr("equation", "ij->k").run(), Error);
  EXPECT_THROW(OpTest("Einsum").input(m).attr("equation", "i.j").run(), Error);
  EXPECT_THROW(
      OpTest("Einsum").input(m).input(random_f32({4, 3}, 4)).attr("equation", "ij,ij->ij").run(),
      Error);
}

}  // namespace
}  // namespace kiln
