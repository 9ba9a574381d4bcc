// Complex discrete Fourier transforms of any length in O(n log n), computed in double precision
// (the ONNX signal ops compare near-zero bins against an absolute tolerance, which float
// arithmetic cannot meet on long signals).
//
//   auto plan = kiln::cpu::fft_plan(n);
//   std::vector<std::complex<double>> scratch(plan->scratch_size());
//   plan->transform(data, /*inverse=*/false, scratch.data());
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace kiln::cpu {

using Complex = std::complex<double>;

// Everything one transform length needs that does not depend on the data: twiddle factors and
// the bit-reversal order for powers of two; for other lengths, Bluestein's chirp and the
// transform of its convolution kernel. Immutable once built, so one plan serves many threads.
class FftPlan {
 public:
  explicit FftPlan(int64_t n);
  ~FftPlan();
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  int64_t size() const { return n_; }
  // Complex elements of working memory transform() needs (0 for powers of two).
  int64_t scratch_size() const;

  // In place: data[k] <- sum_j data[j] * exp(-+2*pi*i*j*k/n) (minus sign forward, plus inverse),
  // unscaled. `scratch` holds scratch_size() elements and is overwritten.
  void transform(Complex* data, bool inverse, Complex* scratch) const;

 private:
  void radix2(Complex* data) const;  // forward, power-of-two n_ only
  void bluestein(Complex* data, Complex* scratch) const;

  int64_t n_;
  bool power_of_two_;
  // Power of two: twiddle_[k] = exp(-2*pi*i*k/n) for k < n/2, and the bit-reversal of each index.
  std::vector<Complex> twiddle_;
  std::vector<uint32_t> bit_reverse_;
  // Bluestein: chirp_[j] = exp(-pi*i*j^2/n); kernel_ = FFT of the conjugate chirp laid out for
  // a circular convolution of length inner_->size() >= 2n - 1.
  std::vector<Complex> chirp_;
  std::vector<Complex> kernel_;
  std::unique_ptr<FftPlan> inner_;
};

// The longest transform the ops accept (a 2^29-point transform already takes 8 GiB).
inline constexpr int64_t kMaxFftLength = int64_t{1} << 29;

// The shared plan for length n (1 <= n <= kMaxFftLength), built on first use; safe to call
// from any thread.
std::shared_ptr<const FftPlan> fft_plan(int64_t n);

}  // namespace kiln::cpu
