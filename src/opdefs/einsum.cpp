// Einsum's definition: parsing the equation (numpy's rules) and the output shape rule.
#include "opdefs/einsum.h"

#include <algorithm>
#include <map>
#include <span>
#include <string>

#include "kiln/error.h"
#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

int label_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -2;
}

std::vector<int> parse_term(std::string_view term, std::string_view equation) {
  std::vector<int> labels;
  bool seen_ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term[i] == '.') {
      if (term.substr(i, 3) != "..." || seen_ellipsis) {
        throw Error("Einsum equation '" + std::string(equation) +
                    "': '.' must appear only as one '...' per term");
      }
      seen_ellipsis = true;
      labels.push_back(kEllipsis);
      i += 2;
      continue;
    }
    const int l = label_of(term[i]);
    if (l < 0) {
      throw Error("Einsum equation '" + std::string(equation) + "': unexpected character '" +
                  std::string(1, term[i]) + "'");
    }
    labels.push_back(l);
  }
  return labels;
}

}  // namespace

EinsumEquation parse_einsum(std::string_view equation, size_t num_inputs) {
  std::string eq;
  for (char c : equation) {
    if (c != ' ') eq.push_back(c);
  }
  EinsumEquation result;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  size_t start = 0;
  for (;;) {
    const size_t comma = lhs.find(',', start);
    result.terms.push_back(
        parse_term(std::string_view(lhs).substr(start, comma - start), equation));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (result.terms.size() != num_inputs) {
    throw Error("Einsum equation '" + std::string(equation) + "' has " +
                std::to_string(result.terms.size()) + " operands but the node has " +
                std::to_string(num_inputs) + " inputs");
  }
  int count[kEinsumLetters] = {};
  bool any_ellipsis = false;
  for (const auto& term : result.terms) {
    for (int l : term) {
      if (l == kEllipsis) {
        any_ellipsis = true;
      } else {
        ++count[l];
      }
    }
  }
  if (arrow != std::string::npos) {
    result.explicit_output = true;
    result.output = parse_term(std::string_view(eq).substr(arrow + 2), equation);
    bool seen[kEinsumLetters] = {};
    for (int l : result.output) {
      if (l == kEllipsis) continue;
      if (seen[l] || count[l] == 0) {
        throw Error("Einsum equation '" + std::string(equation) +
                    "': output labels must be distinct and appear in an operand");
      }
      seen[l] = true;
    }
  } else {
    // numpy's implicit mode: broadcast dimensions first, then the labels used exactly once, in
    // alphabetical (ASCII) order.
    if (any_ellipsis) result.output.push_back(kEllipsis);
    for (int l = 0; l < kEinsumLetters; ++l) {
      if (count[l] == 1) result.output.push_back(l);
    }
  }
  return result;
}

void resolve_einsum(const EinsumEquation& eq, std::span<const Tensor* const> inputs,
                    EinsumProblem& r) {
  const size_t n = inputs.size();
  if (n != eq.terms.size()) {
    throw Error("Einsum: the equation has " + std::to_string(eq.terms.size()) +
                " operands but the node has " + std::to_string(n) + " inputs");
  }
  // Ellipsis dimensions are right-aligned across operands, like numpy broadcasting.
  int64_t ell_rank = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto& term = eq.terms[i];
    const int64_t letters =
        static_cast<int64_t>(std::count_if(term.begin(), term.end(), [](int l) { return l >= 0; }));
    const bool has_ell = letters != static_cast<int64_t>(term.size());
    const int64_t rank = static_cast<int64_t>(inputs[i]->rank());
    if (has_ell ? rank < letters : rank != letters) {
      throw Error("Einsum: operand " + std::to_string(i) + " has shape " +
                  inputs[i]->shape().to_string() + ", which does not match its term's " +
                  std::to_string(letters) + " labels");
    }
    if (has_ell) ell_rank = std::max(ell_rank, rank - letters);
  }
  const int total_labels = kEinsumLetters + static_cast<int>(ell_rank);
  constexpr int kMaxLabels = kEinsumLetters + 64;
  if (total_labels > kMaxLabels) throw Error("Einsum: too many ellipsis dimensions");
  // Global label -> extent (-1: unused). A fixed array: a Shape this long would live on the heap.
  int64_t global_size[kMaxLabels];
  std::fill_n(global_size, total_labels, -1);
  auto for_each_dim = [&](size_t i, auto&& f) {
    const auto& term = eq.terms[i];
    const Shape& shape = inputs[i]->shape();
    const int64_t ell_here =
        static_cast<int64_t>(shape.size()) -
        static_cast<int64_t>(std::count_if(term.begin(), term.end(), [](int l) { return l >= 0; }));
    size_t d = 0;
    for (int l : term) {
      if (l == kEllipsis) {
        for (int64_t e = 0; e < ell_here; ++e, ++d) {
          f(d, kEinsumLetters + static_cast<int>(ell_rank - ell_here + e), shape[d]);
        }
      } else {
        f(d, l, shape[d]);
        ++d;
      }
    }
  };
  for (size_t i = 0; i < n; ++i) {
    for_each_dim(i, [&](size_t, int l, int64_t size) {
      int64_t& g = global_size[l];
      if (g == -1 || g == 1) {
        g = size;  // an extent of 1 broadcasts to whatever else the label has
      } else if (size != g && size != 1) {
        throw Error("Einsum: a label has extents " + std::to_string(g) + " and " +
                    std::to_string(size) + " in different places");
      }
    });
  }
  // Output labels in order (ellipsis expanded), then the others.
  int dense_of[kMaxLabels];
  std::fill_n(dense_of, total_labels, -1);
  r.sizes.clear();
  r.out_shape.clear();
  auto add_label = [&](int l) {
    dense_of[l] = static_cast<int>(r.sizes.size());
    r.sizes.push_back(global_size[l]);
  };
  for (int l : eq.output) {
    if (l == kEllipsis) {
      for (int e = 0; e < ell_rank; ++e) add_label(kEinsumLetters + e);
    } else {
      if (global_size[l] == -1) {
        throw Error("Einsum: an output label does not appear in any operand");
      }
      add_label(l);
    }
  }
  r.num_out = static_cast<int>(r.sizes.size());
  for (int l = 0; l < total_labels; ++l) {
    if (global_size[l] != -1 && dense_of[l] == -1) add_label(l);
  }
  r.num_labels = static_cast<int>(r.sizes.size());
  r.out_count = r.sum_count = 1;
  for (int k = 0; k < r.num_labels; ++k) {
    if (k < r.num_out) {
      r.out_shape.push_back(r.sizes[k]);
      r.out_count *= r.sizes[k];
    } else {
      r.sum_count *= r.sizes[k];
    }
  }
  r.stride.assign(n * static_cast<size_t>(r.num_labels), 0);
  for (size_t i = 0; i < n; ++i) {
    const Shape& shape = inputs[i]->shape();
    // Row-major strides of the operand.
    Shape s;
    s.resize(shape.size());
    int64_t acc = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      s[d] = acc;
      acc *= shape[d];
    }
    for_each_dim(i, [&](size_t d, int l, int64_t size) {
      const int k = dense_of[l];
      // A broadcast dimension (extent 1 against a larger label) does not move.
      if (size == r.sizes[k]) r.stride[i * static_cast<size_t>(r.num_labels) + k] += s[d];
    });
  }
}

namespace {

// Einsum(operands...): the operands' type; one dim per output label, the extent the label has in
// the operands (an extent of 1 broadcasts against the others, as in the kernel), and the
// ellipsis' dims broadcast right-aligned across the operands that have one.
std::vector<ValueInfo> einsum_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const EinsumEquation eq = parse_einsum(ctx.info().attr_string("equation", ""), ctx.num_inputs());
  std::vector<const std::vector<Dim>*> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    shapes.push_back(ctx.shape(i));
    if (!shapes.back()) return {dtype_only(x->dtype)};
  }
  // Ranks: a term without "..." names every axis; one with it at least its letters.
  std::vector<size_t> ellipsis_rank(shapes.size(), 0);
  size_t max_ellipsis = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::vector<int>& term = eq.terms[i];
    const size_t letters =
        static_cast<size_t>(std::count_if(term.begin(), term.end(), [](int l) { return l >= 0; }));
    const bool has_ellipsis = letters != term.size();
    const size_t rank = shapes[i]->size();
    if (has_ellipsis ? rank < letters : rank != letters) return {dtype_only(x->dtype)};
    ellipsis_rank[i] = rank - letters;
    max_ellipsis = std::max(max_ellipsis, ellipsis_rank[i]);
  }
  // Label -> extent; the ellipsis' dims are labels kEinsumLetters + k, right-aligned.
  std::map<int, Dim> extent;
  auto meet = [&](int label, const Dim& d) {
    auto [it, fresh] = extent.try_emplace(label, d);
    if (!fresh) it->second = broadcast_dim(it->second, d);
  };
  for (size_t i = 0; i < shapes.size(); ++i) {
    size_t d = 0;
    for (int l : eq.terms[i]) {
      if (l != kEllipsis) {
        meet(l, (*shapes[i])[d++]);
        continue;
      }
      for (size_t e = 0; e < ellipsis_rank[i]; ++e) {
        meet(kEinsumLetters + static_cast<int>(max_ellipsis - ellipsis_rank[i] + e),
             (*shapes[i])[d++]);
      }
    }
  }
  std::vector<Dim> out;
  for (int l : eq.output) {
    if (l == kEllipsis) {
      for (size_t e = 0; e < max_ellipsis; ++e)
        out.push_back(extent[kEinsumLetters + static_cast<int>(e)]);
    } else {
      auto it = extent.find(l);
      if (it == extent.end()) return {dtype_only(x->dtype)};  // the kernel reports it
      out.push_back(it->second);
    }
  }
  return {tensor_type(x->dtype, out)};
}

}  // namespace

KILN_OP_DEFS(einsum);
void define_einsum_ops(OpDefs& defs) { defs.define("Einsum").infer = einsum_rule; }

}  // namespace kiln
