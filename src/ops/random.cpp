// RandomUniform, RandomNormal, their -Like forms, Bernoulli, Multinomial.
//
// Every draw comes from a counter-based generator: draw i of a stream is a hash of the stream's
// key and i. Elements can then be generated independently, in parallel and in any order, and
// a node with a `seed` attribute produces the same tensor on every run whatever the number of
// threads. Without a seed each run takes a fresh key. The values do not (and cannot) match
// numpy's or another engine's generator; only their distribution is specified.
#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/dtype_dispatch.h"
#include "core/element_storage.h"
#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"

namespace kiln {
namespace {

// SplitMix64's output function: a bijective mix of all 64 bits.
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Draw i of the stream is SplitMix64's i-th output from the state `key`.
class RandomStream {
 public:
  explicit RandomStream(uint64_t key) : key_(key) {}
  uint64_t bits(uint64_t i) const { return mix64(key_ + (i + 1) * 0x9E3779B97F4A7C15ull); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform(uint64_t i) const { return static_cast<double>(bits(i) >> 11) * 0x1.0p-53; }
  // Standard normal by the Box-Muller transform: draws 2k and 2k + 1 make one pair of
  // independent normals, element 2k takes the cosine and element 2k + 1 the sine.
  double normal(uint64_t i) const {
    const uint64_t pair = i & ~uint64_t{1};
    const double radius = std::sqrt(-2.0 * std::log(1.0 - uniform(pair)));  // 1 - u is in (0, 1]
    const double angle = 2.0 * std::numbers::pi * uniform(pair + 1);
    return radius * ((i & 1) ? std::sin(angle) : std::cos(angle));
  }

 private:
  uint64_t key_;
};

// The `seed` attribute, when present, fixes the stream's key.
std::optional<uint64_t> parse_seed(const NodeInfo& info) {
  if (!info.has_attr("seed")) return std::nullopt;
  return mix64(std::bit_cast<uint32_t>(info.attr_float("seed", 0)) ^ 0x6B696C6E5EEDull);
}

// A fresh key for each run of an unseeded node: process entropy plus a global counter, so
// concurrent runs never share a stream.
RandomStream stream_for_run(const std::optional<uint64_t>& seed) {
  if (seed) return RandomStream(*seed);
  static const uint64_t entropy =
      (uint64_t{std::random_device{}()} << 32) ^
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  static std::atomic<uint64_t> runs{0};
  return RandomStream(mix64(entropy + runs.fetch_add(1, std::memory_order_relaxed)));
}

bool is_random_float_dtype(DataType t) {
  return t == DataType::Float32 || t == DataType::Float64 || t == DataType::Float16 ||
         t == DataType::BFloat16;
}

// The optional `dtype` attribute as a DataType; nullopt when absent.
std::optional<DataType> parse_dtype(const NodeInfo& info) {
  if (!info.has_attr("dtype")) return std::nullopt;
  const int64_t code = info.attr_int("dtype", 0);
  if (code <= 0 || code > INT32_MAX || !is_valid_dtype(static_cast<int32_t>(code))) {
    info.fail("attribute 'dtype' is not a valid ONNX element type: " + std::to_string(code));
  }
  return static_cast<DataType>(code);
}

// y[i] = value(i) for every element of y, split over the job system; value(i) returns double.
template <class Value>
void fill_elements(Tensor& y, Value&& value) {
  const int64_t n = y.element_count();
  visit_dtype(y.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, std::string> && !is_complex_v<T>) {
      T* out = y.mutable_data<T>();
      parallel_for(n, 16384, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) out[i] = from_double<T>(value(i));
      });
    }
  });
}

// ---------------------------------------------------------------------------------------------
// RandomUniform, RandomNormal and their -Like forms

enum class Distribution { kUniform, kNormal };

struct DistributionParams {
  Distribution kind;
  double a, b;  // [low, high) for uniform; mean and scale for normal
};

DistributionParams parse_distribution(const NodeInfo& info, Distribution kind) {
  if (kind == Distribution::kUniform) {
    return {kind, info.attr_float("low", 0.0f), info.attr_float("high", 1.0f)};
  }
  return {kind, info.attr_float("mean", 0.0f), info.attr_float("scale", 1.0f)};
}

void fill_distribution(Tensor& y, const DistributionParams& p, const RandomStream& stream) {
  if (p.kind == Distribution::kUniform) {
    fill_elements(y, [&](int64_t i) { return p.a + (p.b - p.a) * stream.uniform(i); });
  } else {
    fill_elements(y, [&](int64_t i) { return p.a + p.b * stream.normal(i); });
  }
}

std::string float_types_message(DataType t) {
  return "output type must be float16, bfloat16, float32 or float64, got " +
         std::string(dtype_name(t));
}

CpuKernel make_random(const NodeInfo& info, Distribution kind) {
  const DistributionParams params = parse_distribution(info, kind);
  const std::optional<uint64_t> seed = parse_seed(info);
  const DataType dtype = parse_dtype(info).value_or(DataType::Float32);
  if (!is_random_float_dtype(dtype)) info.fail(float_types_message(dtype));
  const std::vector<int64_t> dims = info.required_ints("shape");
  for (int64_t d : dims) {
    if (d < 0) info.fail("attribute 'shape' has a negative dimension " + std::to_string(d));
  }
  const Shape shape(dims);
  return [=](OpContext& ctx) {
    Tensor& y = ctx.allocate_output(0, dtype, shape);
    fill_distribution(y, params, stream_for_run(seed));
  };
}

CpuKernel make_random_like(const NodeInfo& info, Distribution kind) {
  const DistributionParams params = parse_distribution(info, kind);
  const std::optional<uint64_t> seed = parse_seed(info);
  const std::optional<DataType> dtype = parse_dtype(info);
  if (dtype && !is_random_float_dtype(*dtype)) info.fail(float_types_message(*dtype));
  return [=](OpContext& ctx) {
    const Tensor& like = ctx.input(0);
    // Without `dtype` the output takes the input's type, which must then be a float type.
    const DataType out_type = dtype.value_or(like.dtype());
    if (!is_random_float_dtype(out_type)) ctx.fail(float_types_message(out_type));
    Tensor& y = ctx.allocate_output(0, out_type, like.shape());
    fill_distribution(y, params, stream_for_run(seed));
  };
}

// ---------------------------------------------------------------------------------------------
// Bernoulli

CpuKernel make_bernoulli(const NodeInfo& info) {
  const std::optional<uint64_t> seed = parse_seed(info);
  const std::optional<DataType> dtype = parse_dtype(info);
  if (dtype && (*dtype == DataType::String || *dtype == DataType::Complex64 ||
                *dtype == DataType::Complex128)) {
    info.fail("output type must be numeric or bool, got " + std::string(dtype_name(*dtype)));
  }
  return [=](OpContext& ctx) {
    const Tensor& p = ctx.input(0);
    if (!is_random_float_dtype(p.dtype())) {
      ctx.fail("probabilities must be float16, bfloat16, float32 or float64, got " +
               std::string(dtype_name(p.dtype())));
    }
    visit_dtype(p.dtype(), [&]<class T>() {
      if constexpr (is_float_like_v<T>) {
        const T* probability = p.data<T>();
        for (int64_t i = 0; i < p.element_count(); ++i) {
          const double v = to_double(probability[i]);
          if (!(v >= 0 && v <= 1)) {
            ctx.fail("probability " + std::to_string(v) + " at position " + std::to_string(i) +
                     " is outside [0, 1]");
          }
        }
        Tensor& y = ctx.allocate_output(0, dtype.value_or(p.dtype()), p.shape());
        const RandomStream stream = stream_for_run(seed);
        // 1 with probability p: u < p for u uniform in [0, 1), so p = 0 never and p = 1 always.
        fill_elements(y, [&](int64_t i) {
          return stream.uniform(i) < to_double(probability[i]) ? 1.0 : 0.0;
        });
      }
    });
  };
}

// ---------------------------------------------------------------------------------------------
// Multinomial

CpuKernel make_multinomial(const NodeInfo& info) {
  const std::optional<uint64_t> seed = parse_seed(info);
  const DataType dtype = parse_dtype(info).value_or(DataType::Int32);
  if (dtype != DataType::Int32 && dtype != DataType::Int64) {
    info.fail("attribute 'dtype' must be int32 or int64, got " + std::string(dtype_name(dtype)));
  }
  const int64_t samples = info.attr_int("sample_size", 1);
  if (samples < 0) info.fail("sample_size must be >= 0, got " + std::to_string(samples));
  return [=](OpContext& ctx) {
    const Tensor& logits = ctx.input(0);
    if (!is_random_float_dtype(logits.dtype())) {
      ctx.fail("input must be float16, bfloat16, float32 or float64, got " +
               std::string(dtype_name(logits.dtype())));
    }
    if (logits.rank() != 2) {
      ctx.fail("input must have shape [batch_size, class_size], got " + logits.shape().to_string());
    }
    const int64_t batch = logits.shape()[0], classes = logits.shape()[1];
    Tensor& y = ctx.allocate_output(0, dtype, Shape{batch, samples});
    if (batch == 0 || samples == 0) return;
    if (classes == 0) ctx.fail("cannot draw from zero classes");
    const RandomStream stream = stream_for_run(seed);
    // Per row: the cumulative distribution of softmax(logits), then one binary search per draw.
    std::vector<double> cumulative(static_cast<size_t>(classes));
    std::vector<int64_t> drawn(static_cast<size_t>(samples));
    visit_dtype(logits.dtype(), [&]<class T>() {
      if constexpr (is_float_like_v<T>) {
        for (int64_t row = 0; row < batch; ++row) {
          const T* x = logits.data<T>() + row * classes;
          double max = -INFINITY;
          for (int64_t c = 0; c < classes; ++c) max = std::max(max, to_double(x[c]));
          double total = 0;
          for (int64_t c = 0; c < classes; ++c) {
            const double v = to_double(x[c]);
            if (std::isnan(v) || v == INFINITY) {
              ctx.fail("row " + std::to_string(row) + " holds a NaN or +inf log-probability");
            }
            total += max == -INFINITY ? 0 : std::exp(v - max);
            cumulative[c] = total;
          }
          if (!(total > 0)) ctx.fail("row " + std::to_string(row) + " has no class to draw");
          for (int64_t s = 0; s < samples; ++s) {
            const double u = stream.uniform(static_cast<uint64_t>(row * samples + s)) * total;
            // The first class whose cumulative weight exceeds u; never one of weight zero.
            const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), u);
            drawn[s] = std::min<int64_t>(it - cumulative.begin(), classes - 1);
          }
          if (dtype == DataType::Int64) {
            std::copy(drawn.begin(), drawn.end(), y.mutable_data<int64_t>() + row * samples);
          } else {
            std::transform(drawn.begin(), drawn.end(), y.mutable_data<int32_t>() + row * samples,
                           [](int64_t v) { return static_cast<int32_t>(v); });
          }
        }
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(random);
void register_random_ops(OpRegistry& registry) {
  registry.add("RandomUniform",
               [](const NodeInfo& info) { return make_random(info, Distribution::kUniform); });
  registry.add("RandomNormal",
               [](const NodeInfo& info) { return make_random(info, Distribution::kNormal); });
  registry.add("RandomUniformLike",
               [](const NodeInfo& info) { return make_random_like(info, Distribution::kUniform); });
  registry.add("RandomNormalLike",
               [](const NodeInfo& info) { return make_random_like(info, Distribution::kNormal); });
  registry.add("Bernoulli", make_bernoulli);
  registry.add("Multinomial", make_multinomial);
}

}  // namespace kiln
