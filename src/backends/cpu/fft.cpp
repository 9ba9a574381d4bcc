#include "backends/cpu/fft.h"

#include <cmath>
#include <map>
#include <mutex>
#include <numbers>
#include <string>
#include <utility>

#include "kiln/error.h"

namespace kiln::cpu {
namespace {

// Plain multiplication: std::complex's operator* calls a library routine to sort out
// infinities, which the butterflies do not need.
inline Complex mul(const Complex& a, const Complex& b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

bool is_power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

int64_t next_power_of_two(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// Largest length a plan accepts: Bluestein's inner power-of-two transform of a
// kMaxFftLength-point one; bit-reversal indices stay 32-bit.
constexpr int64_t kMaxLength = 2 * kMaxFftLength;

}  // namespace

FftPlan::FftPlan(int64_t n) : n_(n), power_of_two_(is_power_of_two(n)) {
  if (n < 1 || n > kMaxLength) {
    throw Error("FFT length " + std::to_string(n) + " is out of range [1, " +
                std::to_string(kMaxLength) + "]");
  }
  if (power_of_two_) {
    twiddle_.resize(static_cast<size_t>(n / 2));
    for (int64_t k = 0; k < n / 2; ++k) {
      twiddle_[k] = std::polar(
          1.0, -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n));
    }
    int bits = 0;
    while ((int64_t{1} << bits) < n) ++bits;
    bit_reverse_.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      uint32_t r = 0;
      for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1u) << (bits - 1 - b);
      bit_reverse_[i] = r;
    }
    return;
  }
  // Bluestein: j*k = (j^2 + k^2 - (k-j)^2) / 2 turns the DFT into a convolution with the chirp,
  // done as a circular convolution of a power-of-two length m >= 2n - 1.
  const int64_t m = next_power_of_two(2 * n - 1);
  inner_ = std::make_unique<FftPlan>(m);
  chirp_.resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    // j^2 mod 2n keeps the angle small, so large j lose no precision.
    const int64_t sq = (j * j) % (2 * n);
    chirp_[j] =
        std::polar(1.0, -std::numbers::pi * static_cast<double>(sq) / static_cast<double>(n));
  }
  kernel_.assign(static_cast<size_t>(m), Complex(0, 0));
  kernel_[0] = std::conj(chirp_[0]);
  for (int64_t j = 1; j < n; ++j) kernel_[j] = kernel_[m - j] = std::conj(chirp_[j]);
  inner_->transform(kernel_.data(), false, nullptr);
}

FftPlan::~FftPlan() = default;

int64_t FftPlan::scratch_size() const { return inner_ ? inner_->size() : 0; }

void FftPlan::transform(Complex* data, bool inverse, Complex* scratch) const {
  // The inverse transform is the forward one of the conjugate, conjugated.
  if (inverse) {
    for (int64_t i = 0; i < n_; ++i) data[i] = std::conj(data[i]);
  }
  if (power_of_two_) {
    radix2(data);
  } else {
    bluestein(data, scratch);
  }
  if (inverse) {
    for (int64_t i = 0; i < n_; ++i) data[i] = std::conj(data[i]);
  }
}

void FftPlan::radix2(Complex* a) const {
  for (int64_t i = 0; i < n_; ++i) {
    const int64_t j = bit_reverse_[i];
    if (i < j) std::swap(a[i], a[j]);
  }
  for (int64_t len = 2; len <= n_; len <<= 1) {
    const int64_t half = len / 2;
    const int64_t stride = n_ / len;  // twiddle step for this stage
    for (int64_t start = 0; start < n_; start += len) {
      Complex* lo = a + start;
      Complex* hi = lo + half;
      for (int64_t k = 0; k < half; ++k) {
        const Complex v = mul(hi[k], twiddle_[k * stride]);
        hi[k] = lo[k] - v;
        lo[k] += v;
      }
    }
  }
}

void FftPlan::bluestein(Complex* data, Complex* scratch) const {
  const int64_t m = inner_->size();
  for (int64_t j = 0; j < n_; ++j) scratch[j] = mul(data[j], chirp_[j]);
  for (int64_t j = n_; j < m; ++j) scratch[j] = Complex(0, 0);
  inner_->transform(scratch, false, nullptr);
  for (int64_t j = 0; j < m; ++j) scratch[j] = mul(scratch[j], kernel_[j]);
  inner_->transform(scratch, true, nullptr);
  const double scale = 1.0 / static_cast<double>(m);  // the inner inverse is unscaled
  for (int64_t k = 0; k < n_; ++k) data[k] = mul(scratch[k], chirp_[k]) * scale;
}

std::shared_ptr<const FftPlan> fft_plan(int64_t n) {
  // A model uses a handful of lengths; the cap only guards against unbounded growth.
  constexpr size_t kMaxCachedPlans = 64;
  static std::mutex mutex;
  static std::map<int64_t, std::shared_ptr<const FftPlan>> plans;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = plans.find(n);
    if (it != plans.end()) return it->second;
  }
  auto plan = std::make_shared<const FftPlan>(n);  // built outside the lock: may take a while
  std::lock_guard<std::mutex> lock(mutex);
  if (plans.size() < kMaxCachedPlans) plans.emplace(n, plan);
  return plan;
}

}  // namespace kiln::cpu
