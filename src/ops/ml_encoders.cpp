// OneHotEncoder and CategoryMapper (ai.onnx.ml): categorical values to one-hot rows, and
// between string and int64 category codes.
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/dtype_dispatch.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/ml_ops.h"

namespace kiln {
namespace {

// ---------------------------------------------------------------------------------------------
// OneHotEncoder: output shape X.shape + [categories], 1 at each element's category. Numbers
// are truncated to int64 and looked up in cats_int64s; strings in cats_strings. An unknown
// value gives a row of zeros, or an error when zeros = 0.

struct OneHotSpec {
  std::unordered_map<int64_t, int64_t> int_cats;
  std::unordered_map<std::string, int64_t> string_cats;
  int64_t count = 0;
  bool zeros_for_unknown = true;
  bool strings = false;
};

CpuKernel make_one_hot_encoder(const NodeInfo& info) {
  OneHotSpec spec;
  const std::vector<int64_t> ints = info.attr_ints("cats_int64s");
  const std::vector<std::string> strings = info.attr_strings("cats_strings");
  if (ints.empty() == strings.empty()) {
    info.fail("exactly one of cats_int64s and cats_strings is needed");
  }
  spec.strings = !strings.empty();
  for (size_t i = 0; i < ints.size(); ++i) spec.int_cats.emplace(ints[i], i);
  for (size_t i = 0; i < strings.size(); ++i) spec.string_cats.emplace(strings[i], i);
  spec.count = static_cast<int64_t>(spec.strings ? strings.size() : ints.size());
  spec.zeros_for_unknown = info.attr_int("zeros", 1) != 0;
  return [spec](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const int64_t n = x.element_count();
    std::vector<int64_t> category(static_cast<size_t>(n), -1);
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (std::is_same_v<T, std::string>) {
        if (!spec.strings) ctx.fail("string input needs cats_strings");
        const std::string* in = x.data<std::string>();
        for (int64_t i = 0; i < n; ++i) {
          auto it = spec.string_cats.find(in[i]);
          if (it != spec.string_cats.end()) category[i] = it->second;
        }
      } else if constexpr (std::is_floating_point_v<T> || is_plain_int_v<T>) {
        if (spec.strings) ctx.fail("numeric input needs cats_int64s");
        const T* in = x.data<T>();
        for (int64_t i = 0; i < n; ++i) {
          const double v = static_cast<double>(in[i]);
          if (!(std::abs(v) < 9.2e18)) continue;  // NaN, infinities: no category
          auto it = spec.int_cats.find(static_cast<int64_t>(v));
          if (it != spec.int_cats.end()) category[i] = it->second;
        }
      } else {
        ctx.fail("unsupported input type " + std::string(dtype_name(x.dtype())));
      }
    });
    Shape shape = x.shape();
    shape.push_back(spec.count);
    float* out = ctx.allocate_output(0, DataType::Float32, shape).mutable_data<float>();
    std::fill(out, out + n * spec.count, 0.0f);
    for (int64_t i = 0; i < n; ++i) {
      if (category[i] >= 0) {
        out[i * spec.count + category[i]] = 1.0f;
      } else if (!spec.zeros_for_unknown) {
        ctx.fail("element " + std::to_string(i) + " is not one of the categories");
      }
    }
  };
}

// ---------------------------------------------------------------------------------------------
// CategoryMapper: cats_strings[i] <-> cats_int64s[i]. String input gives int64 output
// (default_int64 when unknown) and int64 input gives strings (default_string).

struct CategorySpec {
  std::unordered_map<std::string, int64_t> to_int;
  std::unordered_map<int64_t, std::string> to_string;
  int64_t default_int = -1;
  std::string default_string;
};

CpuKernel make_category_mapper(const NodeInfo& info) {
  const std::vector<int64_t> ints = info.attr_ints("cats_int64s");
  const std::vector<std::string> strings = info.attr_strings("cats_strings");
  if (ints.size() != strings.size()) {
    info.fail("cats_int64s and cats_strings must have the same length");
  }
  CategorySpec spec;
  for (size_t i = 0; i < ints.size(); ++i) {
    spec.to_int.emplace(strings[i], ints[i]);
    spec.to_string.emplace(ints[i], strings[i]);
  }
  spec.default_int = info.attr_int("default_int64", -1);
  spec.default_string = info.attr_string("default_string", "_Unused");
  return [spec](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const int64_t n = x.element_count();
    if (x.dtype() == DataType::String) {
      const std::string* in = x.data<std::string>();
      int64_t* out = ctx.allocate_output(0, DataType::Int64, x.shape()).mutable_data<int64_t>();
      for (int64_t i = 0; i < n; ++i) {
        auto it = spec.to_int.find(in[i]);
        out[i] = it == spec.to_int.end() ? spec.default_int : it->second;
      }
    } else if (x.dtype() == DataType::Int64) {
      const int64_t* in = x.data<int64_t>();
      std::string* out =
          ctx.allocate_output(0, DataType::String, x.shape()).mutable_data<std::string>();
      for (int64_t i = 0; i < n; ++i) {
        auto it = spec.to_string.find(in[i]);
        out[i] = it == spec.to_string.end() ? spec.default_string : it->second;
      }
    } else {
      ctx.fail("X must be a string or int64 tensor, got " + std::string(dtype_name(x.dtype())));
    }
  };
}

}  // namespace

KILN_CPU_OPS(ml_encoder);
void register_ml_encoder_ops(OpRegistry& registry) {
  registry.add(kMlDomain, "OneHotEncoder", make_one_hot_encoder);
  registry.add(kMlDomain, "CategoryMapper", make_category_mapper);
}

}  // namespace kiln
