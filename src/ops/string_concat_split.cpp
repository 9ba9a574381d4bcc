// StringConcat (elementwise, with numpy broadcasting) and StringSplit (Python str.split
// semantics: a delimiter, or runs of whitespace when there is none, and an optional maxsplit).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/op_utils.h"

namespace kiln {
namespace {

void require_strings(const OpContext& ctx, const Tensor& t, const char* what) {
  if (t.dtype() != DataType::String) {
    ctx.fail(std::string(what) + " must be a string tensor, got " +
             std::string(dtype_name(t.dtype())));
  }
}

// ---------------------------------------------------------------------------------------------
// StringConcat

CpuKernel make_string_concat(const NodeInfo&) {
  return [](OpContext& ctx) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    require_strings(ctx, a, "X");
    require_strings(ctx, b, "Y");
    const Shape out_shape = broadcast_shapes(a.shape(), b.shape(), ctx.node().describe());
    Tensor& out = ctx.allocate_output(0, DataType::String, out_shape);
    const std::string* x = a.data<std::string>();
    const std::string* y = b.data<std::string>();
    std::string* z = out.mutable_data<std::string>();
    for_each_broadcast(out_shape, broadcast_strides(a.shape(), out_shape),
                       broadcast_strides(b.shape(), out_shape),
                       [&](int64_t o, int64_t i, int64_t j) {
                         z[o].reserve(x[i].size() + y[j].size());
                         z[o].assign(x[i]).append(y[j]);
                       });
  };
}

// ---------------------------------------------------------------------------------------------
// StringSplit

// The characters Python's str.split() treats as whitespace within ASCII.
bool is_split_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f');
}

// Python's s.split(None, maxsplit): runs of whitespace separate the pieces, leading and
// trailing whitespace yields no empty pieces. After maxsplit splits the remainder (leading
// whitespace removed) is the last piece. maxsplit < 0 means no limit.
void split_on_whitespace(std::string_view s, int64_t maxsplit, std::vector<std::string>& out) {
  size_t i = 0;
  int64_t splits = 0;
  while (true) {
    while (i < s.size() && is_split_space(s[i])) ++i;
    if (i == s.size()) return;
    if (maxsplit >= 0 && splits == maxsplit) {
      out.emplace_back(s.substr(i));
      return;
    }
    size_t end = i;
    while (end < s.size() && !is_split_space(s[end])) ++end;
    out.emplace_back(s.substr(i, end - i));
    ++splits;
    i = end;
  }
}

// Python's s.split(delimiter, maxsplit): every occurrence separates, so consecutive delimiters
// give empty pieces and "" gives one empty piece.
void split_on_delimiter(std::string_view s, std::string_view delimiter, int64_t maxsplit,
                        std::vector<std::string>& out) {
  size_t start = 0;
  int64_t splits = 0;
  while (maxsplit < 0 || splits < maxsplit) {
    const size_t hit = s.find(delimiter, start);
    if (hit == std::string_view::npos) break;
    out.emplace_back(s.substr(start, hit - start));
    start = hit + delimiter.size();
    ++splits;
  }
  out.emplace_back(s.substr(start));
}

CpuKernel make_string_split(const NodeInfo& info) {
  const std::string delimiter = info.attr_string("delimiter", "");
  const int64_t maxsplit = info.attr_int("maxsplit", -1);
  return [delimiter, maxsplit](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    require_strings(ctx, x, "X");
    const int64_t n = x.element_count();
    const std::string* in = x.data<std::string>();
    std::vector<std::vector<std::string>> pieces(static_cast<size_t>(n));
    size_t widest = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (delimiter.empty()) {
        split_on_whitespace(in[i], maxsplit, pieces[i]);
      } else {
        split_on_delimiter(in[i], delimiter, maxsplit, pieces[i]);
      }
      widest = std::max(widest, pieces[i].size());
    }
    // Y has one more axis, as wide as the longest split; shorter rows are padded with "".
    Shape y_shape = x.shape();
    y_shape.push_back(static_cast<int64_t>(widest));
    Tensor& y = ctx.allocate_output(0, DataType::String, y_shape);
    std::string* out = y.mutable_data<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      std::string* row = out + i * static_cast<int64_t>(widest);
      for (size_t k = 0; k < widest; ++k) {
        if (k < pieces[i].size()) {
          row[k] = std::move(pieces[i][k]);
        } else {
          row[k].clear();
        }
      }
    }
    if (ctx.wants_output(1)) {
      int64_t* counts = ctx.allocate_output(1, DataType::Int64, x.shape()).mutable_data<int64_t>();
      for (int64_t i = 0; i < n; ++i) counts[i] = static_cast<int64_t>(pieces[i].size());
    }
  };
}

}  // namespace

KILN_CPU_OPS(string_concat_split);
void register_string_concat_split_ops(OpRegistry& registry) {
  registry.add("StringConcat", make_string_concat);
  registry.add("StringSplit", make_string_split);
}

}  // namespace kiln
