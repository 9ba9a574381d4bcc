// Tests of DFT, STFT, the window functions and MelWeightMatrix against hand-computed values and
// the DFT's defining sum.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;

// The DFT by its definition, X[k] = sum_j x[j] exp(-+2 pi i j k / n): the expectation the
// FFT paths are checked against.
std::vector<cd> naive_dft(const std::vector<cd>& x, bool inverse) {
  const size_t n = x.size();
  std::vector<cd> out(n);
  const double sign = inverse ? 1.0 : -1.0;
  for (size_t k = 0; k < n; ++k) {
    cd sum = 0;
    for (size_t j = 0; j < n; ++j) {
      sum += x[j] * std::polar(1.0, sign * 2.0 * kPi * static_cast<double>((j * k) % n) /
                                        static_cast<double>(n));
    }
    out[k] = inverse ? sum / static_cast<double>(n) : sum;
  }
  return out;
}

// A complex tensor [1, n, 2] from complex values.
Tensor complex_signal(const std::vector<cd>& x) {
  std::vector<float> v;
  for (const cd& c : x) {
    v.push_back(static_cast<float>(c.real()));
    v.push_back(static_cast<float>(c.imag()));
  }
  return f32({1, static_cast<int64_t>(x.size()), 2}, v);
}

std::vector<cd> as_complex(const Tensor& t) {
  std::vector<cd> out;
  const auto v = t.to_vector<float>();
  for (size_t i = 0; i + 1 < v.size(); i += 2) out.emplace_back(v[i], v[i + 1]);
  return out;
}

void expect_near(const std::vector<cd>& actual, const std::vector<cd>& expected, double tol) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i].real(), expected[i].real(), tol) << "element " << i;
    EXPECT_NEAR(actual[i].imag(), expected[i].imag(), tol) << "element " << i;
  }
}

void expect_near(const std::vector<float>& actual, const std::vector<double>& expected,
                 double tol) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tol) << "element " << i;
  }
}

// --- DFT -------------------------------------------------------------------------------------

TEST(SignalDft, ImpulseHasAFlatSpectrum) {
  // Length 5 is not a power of two: the Bluestein path.
  auto out = OpTest("DFT", 20).input(f32({1, 5, 1}, {1, 0, 0, 0, 0})).run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 5, 2}));
  expect_near(as_complex(out[0]), std::vector<cd>(5, cd(1, 0)), 1e-6);
}

TEST(SignalDft, CosineHasTwoLines) {
  std::vector<float> x(8);
  for (int n = 0; n < 8; ++n) x[n] = static_cast<float>(std::cos(2 * kPi * n / 8));
  auto out = OpTest("DFT", 20).input(f32({1, 8, 1}, x)).run();
  std::vector<cd> expected(8, cd(0, 0));
  expected[1] = expected[7] = cd(4, 0);
  expect_near(as_complex(out[0]), expected, 1e-5);
}

TEST(SignalDft, ComplexExponentialAndExactZeros) {
  // exp(2 pi i 3 n / 12) puts all its energy in bin 3; the other bins are zero to well below
  // float rounding, since the transform runs in double.
  std::vector<cd> x(12);
  for (int n = 0; n < 12; ++n) x[n] = std::polar(1.0, 2 * kPi * 3 * n / 12);
  auto out = OpTest("DFT", 20).input(complex_signal(x)).run();
  std::vector<cd> expected(12, cd(0, 0));
  expected[3] = cd(12, 0);
  expect_near(as_complex(out[0]), expected, 1e-6);
}

TEST(SignalDft, MatchesTheDefinitionForManyLengths) {
  for (int n = 1; n <= 40; ++n) {
    std::vector<cd> x(n);
    for (int j = 0; j < n; ++j) x[j] = cd(std::sin(0.7 * j + 0.3), std::cos(1.3 * j) - 0.25);
    for (bool inverse : {false, true}) {
      auto out = OpTest("DFT", 20).attr("inverse", int64_t{inverse}).input(complex_signal(x)).run();
      // The input went through float, so compare against the transform of the float values.
      std::vector<cd> rounded(n);
      for (int j = 0; j < n; ++j) {
        rounded[j] = cd(static_cast<float>(x[j].real()), static_cast<float>(x[j].imag()));
      }
      SCOPED_TRACE("n = " + std::to_string(n) + (inverse ? " inverse" : " forward"));
      expect_near(as_complex(out[0]), naive_dft(rounded, inverse), 1e-4 * n);
    }
  }
}

TEST(SignalDft, LongSignalsInSeveralLines) {
  // Three lines of 1000 (Bluestein) and 1024 (radix-2) samples, each line its own signal.
  for (int64_t n : {1000, 1024}) {
    std::vector<float> x(3 * n);
    for (int64_t i = 0; i < 3 * n; ++i) x[i] = static_cast<float>(std::sin(0.01 * i * i));
    auto out = OpTest("DFT", 20).input(f32({3, n, 1}, x)).run();
    const std::vector<cd> all = as_complex(out[0]);
    for (int64_t line = 0; line < 3; ++line) {
      std::vector<cd> signal(x.begin() + line * n, x.begin() + (line + 1) * n);
      SCOPED_TRACE("n = " + std::to_string(n) + " line " + std::to_string(line));
      expect_near(std::vector<cd>(all.begin() + line * n, all.begin() + (line + 1) * n),
                  naive_dft(signal, false), 1e-3);
    }
  }
}

TEST(SignalDft, DftLengthPadsAndTruncates) {
  // [1, 2, 3, 0]: X = [6, -2-2i, 2, -2+2i]
  auto padded = OpTest("DFT", 20).input(f32({1, 3, 1}, {1, 2, 3})).input(i64({}, {4})).run();
  expect_near(as_complex(padded[0]), {cd(6, 0), cd(-2, -2), cd(2, 0), cd(-2, 2)}, 1e-5);
  // [1, 2]: X = [3, -1]
  auto cut =
      OpTest("DFT", 20).input(f32({1, 3, 1}, {1, 2, 3})).input(Tensor::scalar<int32_t>(2)).run();
  expect_near(as_complex(cut[0]), {cd(3, 0), cd(-1, 0)}, 1e-5);
}

TEST(SignalDft, OnesidedKeepsTheFirstHalf) {
  auto out =
      OpTest("DFT", 20).attr("onesided", int64_t{1}).input(f32({1, 4, 1}, {1, 2, 3, 4})).run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 3, 2}));
  expect_near(as_complex(out[0]), {cd(10, 0), cd(-2, 2), cd(-2, 0)}, 1e-5);
  auto odd =
      OpTest("DFT", 20).attr("onesided", int64_t{1}).input(f32({1, 5, 1}, {1, 0, 0, 0, 0})).run();
  EXPECT_EQ(odd[0].shape(), (Shape{1, 3, 2}));
}

TEST(SignalDft, InverseOnesidedRebuildsTheRealSignal) {
  // The half spectrum of [1, 2, 3, 4]; the imaginary part of bin 0 must be ignored.
  auto out = OpTest("DFT", 20)
                 .attr("inverse", int64_t{1})
                 .attr("onesided", int64_t{1})
                 .input(f32({1, 3, 2}, {10, 5, -2, 2, -2, 0}))
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 4, 1}));
  expect_near(out[0].to_vector<float>(), {1, 2, 3, 4}, 1e-5);
  // dft_length 5 reads bins 0..2 of a length-5 spectrum: [5, 0, 0] is the constant 1.
  auto odd = OpTest("DFT", 20)
                 .attr("inverse", int64_t{1})
                 .attr("onesided", int64_t{1})
                 .input(f32({1, 3, 2}, {5, 0, 0, 0, 0, 0}))
                 .input(i64({}, {5}))
                 .run();
  expect_near(odd[0].to_vector<float>(), {1, 1, 1, 1, 1}, 1e-6);
}

TEST(SignalDft, AxisAttributeBeforeOpset20AndInputFrom20) {
  // x[a][b] = a * 10 + b in a [1, 2, 3, 1] tensor.
  const Tensor x = f32({1, 2, 3, 1}, {0, 1, 2, 10, 11, 12});
  // Along axis 1 (length 2): sum and difference.
  const std::vector<cd> along1 = {cd(10, 0),  cd(12, 0),  cd(14, 0),
                                  cd(-10, 0), cd(-10, 0), cd(-10, 0)};
  expect_near(as_complex(OpTest("DFT", 17).input(x).run()[0]), along1, 1e-5);  // default 1
  expect_near(as_complex(OpTest("DFT", 20).input(x).input(Tensor()).input(i64({}, {1})).run()[0]),
              along1, 1e-5);
  // Along axis 2 (length 3) via the opset-20 default -2 and the opset-17 attribute.
  const double s = std::sqrt(3.0) / 2;
  const std::vector<cd> along2 = {cd(3, 0),  cd(-1.5, s), cd(-1.5, -s),
                                  cd(33, 0), cd(-1.5, s), cd(-1.5, -s)};
  expect_near(as_complex(OpTest("DFT", 20).input(x).run()[0]), along2, 1e-5);
  expect_near(as_complex(OpTest("DFT", 17).attr("axis", int64_t{-2}).input(x).run()[0]), along2,
              1e-5);
}

TEST(SignalDft, DoubleAndFloat16) {
  auto d = OpTest("DFT", 20).input(Tensor::from_data<double>({1, 3, 1}, {1, 2, 3})).run();
  ASSERT_EQ(d[0].dtype(), DataType::Float64);
  const auto v = d[0].to_vector<double>();
  const double s = std::sqrt(3.0) / 2;
  const std::vector<double> expected = {6, 0, -1.5, s, -1.5, -s};
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], expected[i], 1e-12);
  auto h = OpTest("DFT", 20)
               .input(Tensor::from_data<Float16>({1, 2, 1}, {Float16(1.0f), Float16(3.0f)}))
               .run();
  ASSERT_EQ(h[0].dtype(), DataType::Float16);
  EXPECT_EQ(static_cast<float>(h[0].data<Float16>()[0]), 4.0f);
  EXPECT_EQ(static_cast<float>(h[0].data<Float16>()[2]), -2.0f);
}

TEST(SignalDft, EmptyBatch) {
  auto out = OpTest("DFT", 20).input(f32({0, 4, 1}, {})).run();
  EXPECT_EQ(out[0].shape(), (Shape{0, 4, 2}));
}

TEST(SignalDft, BadInputFails) {
  EXPECT_THROW(OpTest("DFT", 20).input(f32({1, 2, 3}, {0, 0, 0, 0, 0, 0})).run(), Error);
  EXPECT_THROW(OpTest("DFT", 20).input(f32({2}, {0, 0})).run(), Error);
  EXPECT_THROW(
      OpTest("DFT", 20).input(f32({1, 2, 1}, {0, 0})).input(Tensor()).input(i64({}, {2})).run(),
      Error);  // the component axis
  EXPECT_THROW(OpTest("DFT", 17).attr("axis", int64_t{3}).input(f32({1, 2, 1}, {0, 0})).run(),
               Error);
  EXPECT_THROW(OpTest("DFT", 20).input(f32({1, 2, 1}, {0, 0})).input(i64({}, {0})).run(), Error);
  EXPECT_THROW(
      OpTest("DFT", 20).attr("onesided", int64_t{1}).input(f32({1, 2, 2}, {0, 0, 0, 0})).run(),
      Error);
  EXPECT_THROW(OpTest("DFT", 20).input(f32({1, 0, 1}, {})).run(), Error);  // length 0
  EXPECT_THROW(
      OpTest("DFT", 20).input(f32({1, 2, 1}, {0, 0})).input(i64({}, {int64_t{1} << 40})).run(),
      Error);  // beyond the longest transform
  EXPECT_THROW(OpTest("DFT", 20).input(i64({1, 2, 1}, {0, 0})).run(), Error);
  EXPECT_THROW(OpTest("DFT", 20).attr("axis", int64_t{1}).input(f32({1, 2, 1}, {0, 0})).run(),
               Error);  // opset 20 takes the axis as an input
}

TEST(SignalDft, InputIsNotModified) {
  const Tensor x = f32({1, 4, 1}, {1, 2, 3, 4});
  OpTest("DFT", 20).input(x).constant_input(0).run();
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
}

// --- STFT ------------------------------------------------------------------------------------

TEST(SignalStft, FramesWithoutWindow) {
  // Frames [0 1 2 3] and [2 3 4 5]; onesided spectrum of [a, b, c, d] is
  // [a+b+c+d, (a-c) + (d-b)i, a-b+c-d].
  auto out = OpTest("STFT", 17)
                 .input(f32({1, 6, 1}, {0, 1, 2, 3, 4, 5}))
                 .input(i64({}, {2}))
                 .input(Tensor())
                 .input(i64({}, {4}))
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 2, 3, 2}));
  expect_near(as_complex(out[0]), {cd(6, 0), cd(-2, 2), cd(-2, 0), cd(14, 0), cd(-2, 2), cd(-2, 0)},
              1e-5);
}

TEST(SignalStft, WindowSetsTheFrameLengthAndScales) {
  auto out = OpTest("STFT", 17)
                 .attr("onesided", int64_t{0})
                 .input(f32({1, 4, 1}, {1, 2, 3, 4}))
                 .input(i64({}, {2}))
                 .input(f32({2}, {0.5f, 2}))
                 .run();
  // Frames [1 2] and [3 4], windowed [0.5 4] and [1.5 8]: [4.5, -3.5] and [9.5, -6.5].
  EXPECT_EQ(out[0].shape(), (Shape{1, 2, 2, 2}));
  expect_near(as_complex(out[0]), {cd(4.5, 0), cd(-3.5, 0), cd(9.5, 0), cd(-6.5, 0)}, 1e-5);
}

TEST(SignalStft, ComplexSignalTwoSided) {
  std::vector<cd> x(6);
  for (int n = 0; n < 6; ++n) x[n] = std::polar(1.0, 2 * kPi * n / 3);  // bin 1 of each frame
  auto out = OpTest("STFT", 17)
                 .attr("onesided", int64_t{0})
                 .input(complex_signal(x))
                 .input(i64({}, {3}))
                 .input(Tensor())
                 .input(i64({}, {3}))
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 2, 3, 2}));
  expect_near(as_complex(out[0]), {cd(0, 0), cd(3, 0), cd(0, 0), cd(0, 0), cd(3, 0), cd(0, 0)},
              1e-5);
}

TEST(SignalStft, SignalShorterThanAFrameHasNoFrames) {
  auto out = OpTest("STFT", 17)
                 .input(f32({2, 3, 1}, {1, 2, 3, 4, 5, 6}))
                 .input(i64({}, {1}))
                 .input(Tensor())
                 .input(i64({}, {4}))
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 0, 3, 2}));
}

TEST(SignalStft, BadInputFails) {
  const Tensor x = f32({1, 4, 1}, {1, 2, 3, 4});
  EXPECT_THROW(
      OpTest("STFT", 17).input(x).input(i64({}, {0})).input(Tensor()).input(i64({}, {2})).run(),
      Error);
  EXPECT_THROW(OpTest("STFT", 17)
                   .input(x)
                   .input(i64({}, {1}))
                   .input(f32({3}, {1, 1, 1}))
                   .input(i64({}, {2}))
                   .run(),
               Error);  // window and frame_length disagree
  EXPECT_THROW(OpTest("STFT", 17).input(f32({4, 1}, {1, 2, 3, 4})).input(i64({}, {1})).run(),
               Error);
  EXPECT_THROW(OpTest("STFT", 17).input(f32({1, 2, 2}, {1, 2, 3, 4})).input(i64({}, {1})).run(),
               Error);  // onesided (default) on a complex signal
  EXPECT_THROW(OpTest("STFT", 17).input(x).input(i64({2}, {1, 1})).run(), Error);
}

// --- Window functions -------------------------------------------------------------------------

TEST(SignalWindow, HannPeriodicAndSymmetric) {
  auto periodic = OpTest("HannWindow", 17).input(Tensor::scalar<int32_t>(4)).run();
  EXPECT_EQ(periodic[0].dtype(), DataType::Float32);
  expect_near(periodic[0].to_vector<float>(), {0, 0.5, 1, 0.5}, 1e-7);
  auto symmetric = OpTest("HannWindow", 17).attr("periodic", int64_t{0}).input(i64({}, {5})).run();
  expect_near(symmetric[0].to_vector<float>(), {0, 0.5, 1, 0.5, 0}, 1e-7);
}

TEST(SignalWindow, HammingAndBlackman) {
  auto hamming = OpTest("HammingWindow", 17).input(i64({}, {4})).run();
  expect_near(hamming[0].to_vector<float>(), {4.0 / 46, 25.0 / 46, 1, 25.0 / 46}, 1e-7);
  auto blackman =
      OpTest("BlackmanWindow", 17).attr("periodic", int64_t{0}).input(i64({}, {3})).run();
  expect_near(blackman[0].to_vector<float>(), {0, 1, 0}, 1e-7);
  // Periodic Blackman of 4: n = 1 is 0.42 - 0.5 cos(pi/2) + 0.08 cos(pi) = 0.34.
  auto periodic = OpTest("BlackmanWindow", 17).input(i64({}, {4})).run();
  expect_near(periodic[0].to_vector<float>(), {0, 0.34, 1, 0.34}, 1e-7);
}

TEST(SignalWindow, OutputDatatype) {
  auto d = OpTest("HannWindow", 17).attr("output_datatype", int64_t{11}).input(i64({}, {4})).run();
  ASSERT_EQ(d[0].dtype(), DataType::Float64);
  EXPECT_NEAR(d[0].data<double>()[1], 0.5, 1e-15);
  auto i = OpTest("HannWindow", 17).attr("output_datatype", int64_t{7}).input(i64({}, {4})).run();
  EXPECT_EQ(i[0].to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 1, 0}));
}

TEST(SignalWindow, EmptyAndSinglePoint) {
  EXPECT_EQ(OpTest("HannWindow", 17).input(i64({}, {0})).run()[0].shape(), (Shape{0}));
  auto one = OpTest("HammingWindow", 17).attr("periodic", int64_t{0}).input(i64({}, {1})).run();
  EXPECT_EQ(one[0].to_vector<float>(), (std::vector<float>{1}));
}

TEST(SignalWindow, BadInputFails) {
  EXPECT_THROW(OpTest("HannWindow", 17).input(i64({}, {-1})).run(), Error);
  EXPECT_THROW(OpTest("HannWindow", 17).input(Tensor::scalar<float>(4)).run(), Error);
  EXPECT_THROW(OpTest("HannWindow", 17).input(i64({2}, {4, 4})).run(), Error);
  EXPECT_THROW(
      OpTest("HannWindow", 17).attr("output_datatype", int64_t{8}).input(i64({}, {4})).run(),
      Error);  // string
}

// --- MelWeightMatrix --------------------------------------------------------------------------

TEST(SignalMel, TwoFilters) {
  // dft_length 8 at 8000 Hz, 0..4000 Hz, 2 mel bins: the mel range split in 4 steps gives
  // edges at 0, 427, 1114 and 2220 Hz, i.e. spectrum bins floor(9 f / 8000) = 0, 0, 1, 2.
  // Filter 0 (0, 0, 1) is a spike at bin 0; filter 1 (0, 1, 2) peaks at bin 1.
  auto out = OpTest("MelWeightMatrix", 17)
                 .input(i64({}, {2}))
                 .input(i64({}, {8}))
                 .input(i64({}, {8000}))
                 .input(Tensor::scalar<float>(0))
                 .input(Tensor::scalar<float>(4000))
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{5, 2}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 0, 0, 1, 0, 0, 0, 0, 0, 0}));
}

TEST(SignalMel, OutputDatatypeAndDoubleEdges) {
  auto out = OpTest("MelWeightMatrix", 17)
                 .attr("output_datatype", int64_t{11})
                 .input(Tensor::scalar<int32_t>(2))
                 .input(Tensor::scalar<int32_t>(8))
                 .input(Tensor::scalar<int32_t>(8000))
                 .input(Tensor::scalar<double>(0))
                 .input(Tensor::scalar<double>(4000))
                 .run();
  ASSERT_EQ(out[0].dtype(), DataType::Float64);
  EXPECT_EQ(out[0].data<double>()[3], 1.0);
}

TEST(SignalMel, BadInputFails) {
  auto mel = [](int64_t bins, float lower, float upper) {
    return OpTest("MelWeightMatrix", 17)
        .input(i64({}, {bins}))
        .input(i64({}, {8}))
        .input(i64({}, {8000}))
        .input(Tensor::scalar<float>(lower))
        .input(Tensor::scalar<float>(upper))
        .run();
  };
  EXPECT_THROW(mel(0, 0, 4000), Error);
  EXPECT_THROW(mel(2, 3000, 1000), Error);  // lower above upper
  EXPECT_THROW(mel(2, 0, 100000), Error);   // beyond the spectrum
  EXPECT_THROW(mel(2, -100, 4000), Error);
}

}  // namespace
}  // namespace kiln::testing
