// RegexFullMatch: whether each string matches the pattern as a whole. ONNX specifies RE2
// syntax, so RE2 itself compiles the pattern (once, at load) and matches it.
#include <memory>
#include <string>

#include <re2/re2.h>

#include "kernels/op_registry.h"
#include "ops/all_ops.h"

namespace kiln {
namespace {

CpuKernel make_regex_full_match(const NodeInfo& info) {
  if (!info.has_attr("pattern")) info.fail("required attribute 'pattern' is missing");
  const std::string pattern = info.attr_string("pattern", "");
  RE2::Options options;
  options.set_log_errors(false);  // a bad pattern is reported through kiln::Error instead
  // RE2 matches against a const object from any number of threads at once.
  auto regex = std::make_shared<const RE2>(pattern, options);
  if (!regex->ok()) info.fail("invalid pattern '" + pattern + "': " + regex->error());
  return [regex](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::String) {
      ctx.fail("X must be a string tensor, got " + std::string(dtype_name(x.dtype())));
    }
    const std::string* in = x.data<std::string>();
    bool* out = ctx.allocate_output(0, DataType::Bool, x.shape()).mutable_data<bool>();
    for (int64_t i = 0; i < x.element_count(); ++i) out[i] = RE2::FullMatch(in[i], *regex);
  };
}

}  // namespace

KILN_CPU_OPS(regex_full_match);
void register_regex_full_match_ops(OpRegistry& registry) {
  registry.add("RegexFullMatch", make_regex_full_match);
}

}  // namespace kiln
