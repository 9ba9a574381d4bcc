#include "backends/cpu/einsum.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "backends/cpu/gemm.h"
#include "core/dtype_dispatch.h"
#include "core/thread_pool.h"
#include "kiln/error.h"

namespace kiln::cpu {
namespace {

// The run's problem, in per-thread storage that is reused, so steady-state runs do not
// allocate.
const EinsumProblem& resolve(const EinsumEquation& eq, std::span<const Tensor* const> inputs) {
  thread_local EinsumProblem r;
  resolve_einsum(eq, inputs, r);
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
void contract_reference(const EinsumProblem& r, std::span<const Tensor* const> inputs, T* out) {
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

// --- the GEMM path for two float32 operands -------------------------------------------------
//
// A contraction of two operands in which every label of extent > 1 is either shared by both
// operands and the output (batch), by one operand and the output (m from A, n from B), or by
// both operands only (k) is a batched matrix product. Each operand is used in place when its m
// (or n) and k labels each collapse into one strided dimension, one of them unit-stride;
// otherwise it is first gathered into a contiguous scratch copy.

// Up to this many labels per group; more goes to the reference path.
constexpr int kMaxGroup = 16;

struct Group {
  int count = 0;
  int label[kMaxGroup];
  int64_t extent = 1;
  void add(int l, int64_t size) {
    label[count++] = l;
    extent *= size;
  }
};

// The single stride `g` walks with in the operand whose strides are `st`, if its labels
// collapse into one dimension (0 when the group is empty).
bool collapsed_stride(const Group& g, const int64_t* st, const Shape& sizes, int64_t& stride) {
  if (g.count == 0) {
    stride = 0;
    return true;
  }
  for (int i = 0; i + 1 < g.count; ++i) {
    if (st[g.label[i]] != st[g.label[i + 1]] * sizes[g.label[i + 1]]) return false;
  }
  stride = st[g.label[g.count - 1]];
  return true;
}

// Copies the [rows x cols] matrix whose rows walk `row_group` and columns `col_group` (strides
// from `st`) into dst, row-major.
void gather(const float* src, const Group& row_group, const Group& col_group, const int64_t* st,
            const Shape& sizes, float* dst) {
  auto offset_of = [&](const Group& g, int64_t flat) {
    int64_t off = 0;
    for (int i = g.count; i-- > 0;) {
      const int l = g.label[i];
      off += (flat % sizes[l]) * st[l];
      flat /= sizes[l];
    }
    return off;
  };
  for (int64_t r = 0; r < row_group.extent; ++r) {
    const float* row = src + offset_of(row_group, r);
    for (int64_t c = 0; c < col_group.extent; ++c)
      dst[r * col_group.extent + c] = row[offset_of(col_group, c)];
  }
}

bool has_repeated_label(const std::vector<int>& term) {
  bool seen[kEinsumLetters] = {};
  for (int l : term) {
    if (l == kEllipsis) continue;
    if (seen[l]) return true;
    seen[l] = true;
  }
  return false;
}

bool contract_gemm(const EinsumEquation& eq, const EinsumProblem& r, const float* a, const float* b,
                   float* out) {
  if (eq.terms.size() != 2 || has_repeated_label(eq.terms[0]) || has_repeated_label(eq.terms[1])) {
    return false;
  }
  const int L = r.num_labels;
  const int64_t* sa = r.stride.data();
  const int64_t* sb = sa + L;
  // Output strides: the output is row-major over the first num_out labels.
  int64_t so[kEinsumLetters + 64] = {};
  {
    int64_t acc = 1;
    for (int k = r.num_out; k-- > 0;) {
      so[k] = acc;
      acc *= r.sizes[k];
    }
  }
  Group batch, m, n, k;
  for (int l = 0; l < L; ++l) {
    if (r.sizes[l] == 1) continue;
    const bool in_a = sa[l] != 0, in_b = sb[l] != 0, in_out = l < r.num_out;
    if (batch.count == kMaxGroup || m.count == kMaxGroup || n.count == kMaxGroup ||
        k.count == kMaxGroup) {
      return false;
    }
    if (in_a && in_b && in_out) {
      batch.add(l, r.sizes[l]);
    } else if (in_a && in_out) {
      m.add(l, r.sizes[l]);
    } else if (in_b && in_out) {
      n.add(l, r.sizes[l]);
    } else if (in_a && in_b) {
      k.add(l, r.sizes[l]);
    } else {
      return false;  // summed within one operand (or an output label of neither): reference
    }
  }
  const int64_t M = m.extent, N = n.extent, K = k.extent;

  // Operand A as op(A) = [M x K]; gathered when its labels do not collapse.
  int64_t a_m, a_k, b_k, b_n, c_m, c_n;
  bool trans_a = false, trans_b = false, copy_a = false, copy_b = false, copy_c = false;
  int64_t lda = std::max<int64_t>(K, 1), ldb = std::max<int64_t>(N, 1),
          ldc = std::max<int64_t>(N, 1);
  if (collapsed_stride(m, sa, r.sizes, a_m) && collapsed_stride(k, sa, r.sizes, a_k) &&
      (a_k == 1 || K == 1)) {
    lda = M == 1 ? std::max<int64_t>(K, 1) : a_m;
  } else if (collapsed_stride(m, sa, r.sizes, a_m) && collapsed_stride(k, sa, r.sizes, a_k) &&
             (a_m == 1 || M == 1)) {
    trans_a = true;
    lda = K == 1 ? std::max<int64_t>(M, 1) : a_k;
  } else {
    copy_a = true;
  }
  if (collapsed_stride(k, sb, r.sizes, b_k) && collapsed_stride(n, sb, r.sizes, b_n) &&
      (b_n == 1 || N == 1)) {
    ldb = K == 1 ? std::max<int64_t>(N, 1) : b_k;
  } else if (collapsed_stride(k, sb, r.sizes, b_k) && collapsed_stride(n, sb, r.sizes, b_n) &&
             (b_k == 1 || K == 1)) {
    trans_b = true;
    ldb = N == 1 ? std::max<int64_t>(K, 1) : b_n;
  } else {
    copy_b = true;
  }
  if (collapsed_stride(m, so, r.sizes, c_m) && collapsed_stride(n, so, r.sizes, c_n) &&
      (c_n == 1 || N == 1)) {
    ldc = M == 1 ? std::max<int64_t>(N, 1) : c_m;
  } else {
    copy_c = true;
  }
  // The GEMM's leading dimensions must cover a row; degenerate strides are fixed above, but a
  // layout with overlapping rows cannot be expressed.
  if (!copy_a && lda < (trans_a ? M : K)) copy_a = true;
  if (!copy_b && ldb < (trans_b ? K : N)) copy_b = true;
  if (!copy_c && ldc < N) copy_c = true;
  if (copy_a) trans_a = false, lda = std::max<int64_t>(K, 1);
  if (copy_b) trans_b = false, ldb = std::max<int64_t>(N, 1);
  if (copy_c) ldc = std::max<int64_t>(N, 1);

  thread_local std::vector<float> scratch;
  const size_t need =
      static_cast<size_t>((copy_a ? M * K : 0) + (copy_b ? K * N : 0) + (copy_c ? M * N : 0));
  if (scratch.size() < need) scratch.resize(need);
  float* a_buf = scratch.data();
  float* b_buf = a_buf + (copy_a ? M * K : 0);
  float* c_buf = b_buf + (copy_b ? K * N : 0);

  Shape index;
  index.resize(static_cast<size_t>(batch.count), 0);
  int64_t oa = 0, ob = 0, oc = 0;
  for (int64_t i = 0; i < batch.extent; ++i) {
    const float* pa = a + oa;
    const float* pb = b + ob;
    float* pc = copy_c ? c_buf : out + oc;
    if (copy_a) {
      gather(pa, m, k, sa, r.sizes, a_buf);
      pa = a_buf;
    }
    if (copy_b) {
      gather(pb, k, n, sb, r.sizes, b_buf);
      pb = b_buf;
    }
    sgemm(trans_a, trans_b, M, N, K, 1.0f, pa, lda, pb, ldb, 0.0f, pc, ldc);
    if (copy_c) {
      // Scatter the [M x N] block into the output's layout.
      for (int64_t row = 0; row < M; ++row) {
        int64_t row_off = 0, flat = row;
        for (int g = m.count; g-- > 0;) {
          const int l = m.label[g];
          row_off += (flat % r.sizes[l]) * so[l];
          flat /= r.sizes[l];
        }
        for (int64_t col = 0; col < N; ++col) {
          int64_t off = row_off;
          flat = col;
          for (int g = n.count; g-- > 0;) {
            const int l = n.label[g];
            off += (flat % r.sizes[l]) * so[l];
            flat /= r.sizes[l];
          }
          out[oc + off] = c_buf[row * N + col];
        }
      }
    }
    for (int g = batch.count; g-- > 0;) {
      const int l = batch.label[g];
      oa += sa[l];
      ob += sb[l];
      oc += so[l];
      if (++index[g] < r.sizes[l]) break;
      oa -= sa[l] * r.sizes[l];
      ob -= sb[l] * r.sizes[l];
      oc -= so[l] * r.sizes[l];
      index[g] = 0;
    }
  }
  return true;
}

}  // namespace

Shape einsum_output_shape(const EinsumEquation& eq, std::span<const Tensor* const> inputs) {
  return resolve(eq, inputs).out_shape;
}

void einsum(const EinsumEquation& eq, std::span<const Tensor* const> inputs, Tensor& output) {
  const EinsumProblem& r = resolve(eq, inputs);
  if (r.out_count == 0) return;
  visit_dtype(output.dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T> || (std::is_integral_v<T> && !std::is_same_v<T, bool>)) {
      if constexpr (std::is_same_v<T, float>) {
        if (r.sum_count > 0 &&
            contract_gemm(eq, r, inputs[0]->data<float>(),
                          inputs.size() == 2 ? inputs[1]->data<float>() : nullptr,
                          output.mutable_data<float>())) {
          return;
        }
      }
      contract_reference<T>(r, inputs, output.mutable_data<T>());
    } else {
      throw Error("Einsum: unsupported element type " + std::string(dtype_name(output.dtype())));
    }
  });
}

}  // namespace kiln::cpu
