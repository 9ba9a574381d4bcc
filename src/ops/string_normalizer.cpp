// StringNormalizer: drops the elements of a [C] or [1, C] string tensor that are stopwords,
// then lower- or upper-cases the rest. When every element is dropped the output is a single
// empty string ([1] or [1, 1]), as the ONNX spec asks.
//
// Case mapping is the simple UTF-8 mapping of utf8_case.h; the locale attribute is accepted
// but not needed by it.
#include <string>
#include <unordered_set>
#include <vector>

#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/utf8_case.h"

namespace kiln {
namespace {

enum class CaseChange { kNone, kLower, kUpper };

struct NormalizerSpec {
  CaseChange case_change = CaseChange::kNone;
  bool case_sensitive = false;
  // The stopwords as given (case-sensitive) or lower-cased (case-insensitive).
  std::unordered_set<std::string> stopwords;
};

CpuKernel make_string_normalizer(const NodeInfo& info) {
  NormalizerSpec spec;
  const std::string action = info.attr_string("case_change_action", "NONE");
  if (action == "LOWER") {
    spec.case_change = CaseChange::kLower;
  } else if (action == "UPPER") {
    spec.case_change = CaseChange::kUpper;
  } else if (action != "NONE") {
    info.fail("case_change_action must be LOWER, UPPER or NONE, got '" + action + "'");
  }
  spec.case_sensitive = info.attr_int("is_case_sensitive", 0) != 0;
  for (const std::string& word : info.attr_strings("stopwords")) {
    spec.stopwords.insert(spec.case_sensitive ? word : utf8_to_lower(word));
  }
  return [spec](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::String) {
      ctx.fail("X must be a string tensor, got " + std::string(dtype_name(x.dtype())));
    }
    const Shape& shape = x.shape();
    const bool is_row = shape.size() == 2;
    if (!(shape.size() == 1 || (is_row && shape[0] == 1))) {
      ctx.fail("X must have shape [C] or [1, C], got " + shape.to_string());
    }
    const int64_t count = x.element_count();
    const std::string* in = x.data<std::string>();
    std::vector<std::string> kept;
    kept.reserve(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      const std::string& word = in[i];
      if (!spec.stopwords.empty()) {
        const bool is_stop = spec.case_sensitive ? spec.stopwords.count(word) != 0
                                                 : spec.stopwords.count(utf8_to_lower(word)) != 0;
        if (is_stop) continue;
      }
      switch (spec.case_change) {
        case CaseChange::kLower:
          kept.push_back(utf8_to_lower(word));
          break;
        case CaseChange::kUpper:
          kept.push_back(utf8_to_upper(word));
          break;
        case CaseChange::kNone:
          kept.push_back(word);
          break;
      }
    }
    // An empty input stays empty; an input whose every word was dropped becomes one "".
    if (kept.empty() && count > 0) kept.emplace_back();
    const auto width = static_cast<int64_t>(kept.size());
    const Shape out_shape = is_row ? Shape{1, width} : Shape{width};
    std::string* out =
        ctx.allocate_output(0, DataType::String, out_shape).mutable_data<std::string>();
    for (int64_t i = 0; i < width; ++i) out[i] = std::move(kept[i]);
  };
}

}  // namespace

KILN_CPU_OPS(string_normalizer);
void register_string_normalizer_ops(OpRegistry& registry) {
  registry.add("StringNormalizer", make_string_normalizer);
}

}  // namespace kiln
