#include "backends/cpu/einsum.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "backends/cpu/gemm.h"
#include "backends/cpu/thread_pool.h"
#include "core/dtype_dispatch.h"
#include "kiln/error.h"

namespace kiln::cpu {
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

// --- resolving an equation against concrete shapes ------------------------------------------

// Everything a run needs, in dense label numbering: output labels first (in output order),
// then the summed ones. Storage is per thread and reused, so steady-state runs do not allocate.
struct Resolved {
  int num_labels = 0;
  int num_out = 0;
  Shape sizes;                  // per dense label
  std::vector<int64_t> stride;  // [input][dense label], 0 where the label is absent/broadcast
  Shape out_shape;
  int64_t out_count = 1, sum_count = 1;
};

Resolved& resolve(const EinsumEquation& eq, std::span<const Tensor* const> inputs) {
  thread_local Resolved r;
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
  return r;
}

template <class T>
using Acc = std::conditional_t<is_small_float_v<T>, float, T>;

template <class T>
Acc<T> widen(T v) {
  if constexpr (is_small_float_v<T>) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}

// The general contraction: for every output element, sums the product of the operands over
// every combination of the summed labels, moving each operand's offset incrementally.
template <class T>
void contract_reference(const Resolved& r, std::span<const Tensor* const> inputs, T* out) {
  const size_t n = inputs.size();
  const int L = r.num_labels, nout = r.num_out;
  const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(1, r.sum_count));
  thread_local std::vector<const T*> data_storage;
  data_storage.clear();
  for (const Tensor* t : inputs) data_storage.push_back(t->data<T>());
  const T* const* data = data_storage.data();
  parallel_for(r.out_count, grain, [&](int64_t begin, int64_t end) {
    thread_local std::vector<int64_t> state;
    // Per operand: base offset (output labels) and running offset (summed labels); then the
    // index of every label, and the operands' data pointers.
    state.assign(2 * n + static_cast<size_t>(L), 0);
    int64_t* base = state.data();
    int64_t* off = base + n;
    int64_t* index = off + n;
    // Position the output odometer at `begin`.
    int64_t rest = begin;
    for (int k = nout; k-- > 0;) {
      index[k] = rest % r.sizes[k];
      rest /= r.sizes[k];
    }
    for (size_t i = 0; i < n; ++i) {
      for (int k = 0; k < nout; ++k) base[i] += index[k] * r.stride[i * L + k];
    }
    for (int64_t o = begin; o < end; ++o) {
      Acc<T> acc{};
      if (r.sum_count > 0) {
        for (size_t i = 0; i < n; ++i) off[i] = base[i];
        for (int k = nout; k < L; ++k) index[k] = 0;
        for (int64_t s = 0; s < r.sum_count; ++s) {
          Acc<T> p = widen(data[0][off[0]]);
          for (size_t i = 1; i < n; ++i) p = static_cast<Acc<T>>(p * widen(data[i][off[i]]));
          acc = static_cast<Acc<T>>(acc + p);
          for (int k = L; k-- > nout;) {
            for (size_t i = 0; i < n; ++i) off[i] += r.stride[i * L + k];
            if (++index[k] < r.sizes[k]) break;
            for (size_t i = 0; i < n; ++i) off[i] -= r.stride[i * L + k] * r.sizes[k];
            index[k] = 0;
          }
        }
      }
      out[o] = static_cast<T>(acc);
      for (int k = nout; k-- > 0;) {
        for (size_t i = 0; i < n; ++i) base[i] += r.stride[i * L + k];
        if (++index[k] < r.sizes[k]) break;
        for (size_t i = 0; i < n; ++i) base[i] -= r.stride[i * L + k] * r.sizes[k];
        index[k] = 0;
      }
    }
  });
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

Shape einsum_output_shape(const EinsumEquation& eq, std::span<const Tensor* const> inputs) {
  return resolve(eq, inputs).out_shape;
}

void einsum(const EinsumEquation& eq, std::span<const Tensor* const> inputs, Tensor& output) {
  const Resolved& r = resolve(eq, inputs);
  if (r.out_count == 0) return;
  visit_dtype(output.dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T> || (std::is_integral_v<T> && !std::is_same_v<T, bool>)) {
      contract_reference<T>(r, inputs, output.mutable_data<T>());
    } else {
      throw Error("Einsum: unsupported element type " + std::string(dtype_name(output.dtype())));
    }
  });
}

}  // namespace kiln::cpu
