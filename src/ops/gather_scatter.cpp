// Indexed reads and writes: Gather, GatherElements, GatherND and their scatter counterparts
// ScatterElements (and the deprecated Scatter), ScatterND.
//
// Every index is checked before it is used: negative ones count from the end of their axis,
// out-of-range ones fail the layer with the index and the bound. Gathers only move elements
// (any type, by size); scatters with a reduction compute, per element type.
#include <algorithm>
#include <type_traits>

#include "backends/cpu/strided_copy.h"
#include "core/dtype_dispatch.h"
#include "kernels/op_registry.h"
#include "opdefs/scatter_reduction.h"
#include "ops/all_ops.h"
#include "ops/index_list.h"
#include "ops/op_utils.h"

namespace kiln {

namespace {

// Calls f.template operator()<I>() with I the index type of `indices` (int32 or int64).
template <class F>
void visit_index_type(const OpContext& ctx, const Tensor& indices, F&& f) {
  if (indices.dtype() == DataType::Int64) {
    f.template operator()<int64_t>();
  } else if (indices.dtype() == DataType::Int32) {
    f.template operator()<int32_t>();
  } else {
    ctx.fail("indices must be int32 or int64, got " + std::string(dtype_name(indices.dtype())));
  }
}

// `index` wrapped into [0, size) if it is in [-size, size); ctx.fail otherwise.
inline int64_t wrap_index(const OpContext& ctx, int64_t index, int64_t size, int64_t axis) {
  if (index < -size || index >= size) {
    ctx.fail("index " + std::to_string(index) + " is out of range for axis " +
             std::to_string(axis) + " of size " + std::to_string(size) + " (valid: [" +
             std::to_string(-size) + ", " + std::to_string(size - 1) + "])");
  }
  return index < 0 ? index + size : index;
}

std::byte* bytes_of(Tensor& t) { return static_cast<std::byte*>(t.mutable_raw_data()); }
const std::byte* bytes_of(const Tensor& t) { return static_cast<const std::byte*>(t.raw_data()); }

// --- Gather --------------------------------------------------------------------------------

CpuKernel make_gather(const NodeInfo& info) {
  const int64_t axis_attr = info.attr_int("axis", 0);
  return [=](OpContext& ctx) {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Shape& ds = data.shape();
    const auto rank = static_cast<int64_t>(ds.size());
    if (rank == 0) ctx.fail("data must have rank >= 1");
    const int64_t axis = checked_axis(ctx, axis_attr, rank, "axis");
    const int64_t dim = ds[axis];
    int64_t outer = 1, inner = 1;
    Shape out_shape;
    for (int64_t d = 0; d < axis; ++d) {
      outer *= ds[d];
      out_shape.push_back(ds[d]);
    }
    for (int64_t d : indices.shape()) out_shape.push_back(d);
    for (int64_t d = axis + 1; d < rank; ++d) {
      inner *= ds[d];
      out_shape.push_back(ds[d]);
    }
    const int64_t n = indices.element_count();
    visit_index_type(ctx, indices, [&]<class I>() {
      const I* idx = indices.data<I>();
      for (int64_t j = 0; j < n; ++j) wrap_index(ctx, idx[j], dim, axis);
      Tensor& y = ctx.allocate_output(0, data.dtype(), out_shape);
      if (y.element_count() == 0) return;
      cpu::visit_element_mover(data.dtype(), [&]<class M>() {
        constexpr auto size = static_cast<int64_t>(M::size);
        const std::byte* src = bytes_of(data);
        std::byte* dst = bytes_of(y);
        // One unit: the inner block selected by one index for one outer position.
        cpu::for_each_chunk(outer * n, inner * size, [&](int64_t begin, int64_t end) {
          for (int64_t u = begin; u < end; ++u) {
            const int64_t o = u / n, j = u % n;
            const int64_t i = idx[j] < 0 ? idx[j] + dim : idx[j];
            const std::byte* s = src + ((o * dim + i) * inner) * size;
            std::byte* d = dst + u * inner * size;
            if (inner == 1) {
              M::copy(d, s);
            } else {
              M::copy_n(d, s, inner);
            }
          }
        });
      });
    });
  };
}

// --- GatherElements / ScatterElements ------------------------------------------------------------

// Shared checks of the *Elements ops: data and indices of equal rank, indices no larger than
// data outside the axis (every position must address an element of data).
int64_t check_elements_shapes(const OpContext& ctx, const Shape& data, const Shape& indices,
                              int64_t axis_attr) {
  const auto rank = static_cast<int64_t>(data.size());
  if (rank == 0) ctx.fail("data must have rank >= 1");
  if (indices.size() != data.size()) {
    ctx.fail("indices " + indices.to_string() + " and data " + data.to_string() +
             " must have the same rank");
  }
  const int64_t axis = checked_axis(ctx, axis_attr, rank, "axis");
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis && indices[d] > data[d]) {
      ctx.fail("indices shape " + indices.to_string() + " exceeds data shape " + data.to_string() +
               " in dimension " + std::to_string(d));
    }
  }
  return axis;
}

// Calls body(position, data_offset) for every element of `indices`, where data_offset is the
// element of data it addresses: its own coordinates, with the index on the axis.
template <class I, class Body>
void for_each_element_index(const OpContext& ctx, const I* idx, const Shape& indices,
                            const Shape& data, int64_t axis, Body&& body) {
  const int64_t total = indices.element_count();
  if (total == 0) return;
  const size_t rank = indices.size();
  const Shape data_strides = strides_of(data);
  const int64_t dim = data[axis], axis_stride = data_strides[axis];
  Shape pos;
  pos.resize(rank, 0);
  int64_t base = 0;  // data offset of `pos` without the axis coordinate
  for (int64_t p = 0; p < total; ++p) {
    const int64_t i = wrap_index(ctx, idx[p], dim, axis);
    body(p, base + i * axis_stride);
    for (size_t d = rank; d-- > 0;) {
      ++pos[d];
      if (static_cast<int64_t>(d) != axis) base += data_strides[d];
      if (pos[d] < indices[d]) break;
      if (static_cast<int64_t>(d) != axis) base -= data_strides[d] * indices[d];
      pos[d] = 0;
    }
  }
}

CpuKernel make_gather_elements(const NodeInfo& info) {
  const int64_t axis_attr = info.attr_int("axis", 0);
  return [=](OpContext& ctx) {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const int64_t axis = check_elements_shapes(ctx, data.shape(), indices.shape(), axis_attr);
    Tensor& y = ctx.allocate_output(0, data.dtype(), indices.shape());
    if (y.element_count() == 0) return;
    visit_index_type(ctx, indices, [&]<class I>() {
      cpu::visit_element_mover(data.dtype(), [&]<class M>() {
        constexpr auto size = static_cast<int64_t>(M::size);
        const std::byte* src = bytes_of(data);
        std::byte* dst = bytes_of(y);
        for_each_element_index(
            ctx, indices.data<I>(), indices.shape(), data.shape(), axis,
            [&](int64_t p, int64_t off) { M::copy(dst + p * size, src + off * size); });
      });
    });
  };
}

using Reduction = ScatterReduction;

// Whether element type T supports reduction r: every type for none; add and mul for numbers
// (bool as or / and); max and min for ordered ones.
template <class T>
bool supports(Reduction r) {
  if (r == Reduction::None) return true;
  if constexpr (std::is_same_v<T, std::string>) {
    return false;
  } else if constexpr (is_complex_v<T>) {
    return r == Reduction::Add || r == Reduction::Mul;
  } else {
    return true;
  }
}

// dst = dst (r) v. The storage-only float and small integer types compute through float / int;
// integer add and mul wrap around like the hardware does instead of overflowing into UB.
template <class T>
void reduce_into(T& dst, const T& v, Reduction r) {
  if constexpr (std::is_same_v<T, std::string>) {
    dst = v;
  } else if constexpr (std::is_same_v<T, bool>) {
    switch (r) {
      case Reduction::None:
        dst = v;
        break;
      case Reduction::Add:
      case Reduction::Max:
        dst = dst || v;
        break;
      case Reduction::Mul:
      case Reduction::Min:
        dst = dst && v;
        break;
    }
  } else if constexpr (is_complex_v<T>) {
    if (r == Reduction::Add) {
      dst += v;
    } else if (r == Reduction::Mul) {
      dst *= v;
    } else {
      dst = v;
    }
  } else if constexpr (is_small_float_v<T> || is_small_int_v<T>) {
    using C = std::conditional_t<is_small_float_v<T>, float, int>;
    const C a = static_cast<C>(dst), b = static_cast<C>(v);
    switch (r) {
      case Reduction::None:
        dst = v;
        break;
      case Reduction::Add:
        dst = T(a + b);
        break;
      case Reduction::Mul:
        dst = T(a * b);
        break;
      case Reduction::Max:
        dst = T(std::max(a, b));
        break;
      case Reduction::Min:
        dst = T(std::min(a, b));
        break;
    }
  } else {
    switch (r) {
      case Reduction::None:
        dst = v;
        break;
      case Reduction::Add:
        if constexpr (is_plain_int_v<T>) {
          using U = std::make_unsigned_t<T>;
          dst = static_cast<T>(static_cast<U>(static_cast<U>(dst) + static_cast<U>(v)));
        } else {
          dst = dst + v;
        }
        break;
      case Reduction::Mul:
        if constexpr (is_plain_int_v<T>) {
          // Promote to at least unsigned int so that narrow types do not multiply as int.
          using U = std::common_type_t<std::make_unsigned_t<T>, unsigned>;
          dst = static_cast<T>(static_cast<U>(static_cast<U>(dst) * static_cast<U>(v)));
        } else {
          dst = dst * v;
        }
        break;
      case Reduction::Max:
        // std::max(dst, v) would drop a NaN update; keep NaN like numpy's maximum.
        if (v != v || v > dst) dst = v;
        break;
      case Reduction::Min:
        if (v != v || v < dst) dst = v;
        break;
    }
  }
}

// The output starts as a copy of data; the scatter then updates it in place.
Tensor& copy_data_to_output(OpContext& ctx, const Tensor& data) {
  Tensor& y = ctx.allocate_output(0, data.dtype(), data.shape());
  cpu::copy_elements(data.dtype(), y.mutable_raw_data(), data.raw_data(), data.element_count());
  return y;
}

void check_reduction_type(const OpContext& ctx, DataType dtype, Reduction r) {
  visit_dtype(dtype, [&]<class T>() {
    if (!supports<T>(r)) {
      ctx.fail(std::string("reduction '") + scatter_reduction_name(r) + "' does not apply to " +
               std::string(dtype_name(dtype)) + " elements");
    }
  });
}

CpuKernel make_scatter_elements(const NodeInfo& info) {
  const int64_t axis_attr = info.attr_int("axis", 0);
  // Scatter (deprecated) and ScatterElements before opset 16 have no reduction.
  const Reduction reduction = parse_scatter_reduction(info);
  return [=](OpContext& ctx) {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    const int64_t axis = check_elements_shapes(ctx, data.shape(), indices.shape(), axis_attr);
    if (updates.shape() != indices.shape()) {
      ctx.fail("updates shape " + updates.shape().to_string() + " must equal indices shape " +
               indices.shape().to_string());
    }
    if (updates.dtype() != data.dtype()) {
      ctx.fail("updates are " + std::string(dtype_name(updates.dtype())) + ", data is " +
               std::string(dtype_name(data.dtype())));
    }
    check_reduction_type(ctx, data.dtype(), reduction);
    Tensor& y = copy_data_to_output(ctx, data);
    visit_index_type(ctx, indices, [&]<class I>() {
      const I* idx = indices.data<I>();
      if (reduction == Reduction::None) {
        cpu::visit_element_mover(data.dtype(), [&]<class M>() {
          constexpr auto size = static_cast<int64_t>(M::size);
          std::byte* dst = bytes_of(y);
          const std::byte* src = bytes_of(updates);
          for_each_element_index(
              ctx, idx, indices.shape(), data.shape(), axis,
              [&](int64_t p, int64_t off) { M::copy(dst + off * size, src + p * size); });
        });
        return;
      }
      visit_dtype(data.dtype(), [&]<class T>() {
        T* out = y.mutable_data<T>();
        const T* upd = updates.data<T>();
        for_each_element_index(
            ctx, idx, indices.shape(), data.shape(), axis,
            [&](int64_t p, int64_t off) { reduce_into<T>(out[off], upd[p], reduction); });
      });
    });
  };
}

// --- GatherND / ScatterND ------------------------------------------------------------------------

// Offset (in elements of data) of the slice that one index tuple of length k addresses, the
// tuple's dimensions starting at `first_dim` of data.
template <class I>
int64_t tuple_offset(const OpContext& ctx, const I* tuple, int64_t k, const Shape& data,
                     const Shape& data_strides, int64_t first_dim) {
  int64_t off = 0;
  for (int64_t j = 0; j < k; ++j) {
    const int64_t d = first_dim + j;
    off += wrap_index(ctx, tuple[j], data[d], d) * data_strides[d];
  }
  return off;
}

CpuKernel make_gather_nd(const NodeInfo& info) {
  const int64_t batch_dims = info.opset() >= 12 ? info.attr_int("batch_dims", 0) : 0;
  if (batch_dims < 0) info.fail("batch_dims must be >= 0, got " + std::to_string(batch_dims));
  return [=](OpContext& ctx) {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Shape& ds = data.shape();
    const Shape& is = indices.shape();
    const auto r = static_cast<int64_t>(ds.size()), q = static_cast<int64_t>(is.size());
    if (r < 1 || q < 1) ctx.fail("data and indices must have rank >= 1");
    if (batch_dims >= std::min(r, q)) {
      ctx.fail("batch_dims " + std::to_string(batch_dims) + " must be less than the ranks of " +
               "data (" + std::to_string(r) + ") and indices (" + std::to_string(q) + ")");
    }
    const int64_t k = is[q - 1];
    if (k < 1 || k > r - batch_dims) {
      ctx.fail("the last dimension of indices (" + std::to_string(k) + ") must be in [1, " +
               std::to_string(r - batch_dims) + "]");
    }
    int64_t batches = 1;
    for (int64_t d = 0; d < batch_dims; ++d) {
      if (ds[d] != is[d]) {
        ctx.fail("batch dimension " + std::to_string(d) + " differs: data " + ds.to_string() +
                 ", indices " + is.to_string());
      }
      batches *= ds[d];
    }
    Shape out_shape;
    int64_t tuples = 1;  // index tuples per batch
    for (int64_t d = 0; d < q - 1; ++d) {
      out_shape.push_back(is[d]);
      if (d >= batch_dims) tuples *= is[d];
    }
    int64_t slice = 1;
    for (int64_t d = batch_dims + k; d < r; ++d) {
      out_shape.push_back(ds[d]);
      slice *= ds[d];
    }
    const Shape strides = strides_of(ds);
    const int64_t batch_stride = batch_dims > 0 ? strides[batch_dims - 1] : 0;
    Tensor& y = ctx.allocate_output(0, data.dtype(), out_shape);
    visit_index_type(ctx, indices, [&]<class I>() {
      const I* idx = indices.data<I>();
      const int64_t units = batches * tuples;
      // Check every tuple before moving anything: a failure must not leave a half-written
      // output behind in a parallel loop.
      for (int64_t u = 0; u < units; ++u)
        tuple_offset(ctx, idx + u * k, k, ds, strides, batch_dims);
      if (y.element_count() == 0) return;
      cpu::visit_element_mover(data.dtype(), [&]<class M>() {
        constexpr auto size = static_cast<int64_t>(M::size);
        const std::byte* src = bytes_of(data);
        std::byte* dst = bytes_of(y);
        cpu::for_each_chunk(units, slice * size, [&](int64_t begin, int64_t end) {
          for (int64_t u = begin; u < end; ++u) {
            const int64_t off = (u / tuples) * batch_stride +
                                tuple_offset(ctx, idx + u * k, k, ds, strides, batch_dims);
            M::copy_n(dst + u * slice * size, src + off * size, slice);
          }
        });
      });
    });
  };
}

CpuKernel make_scatter_nd(const NodeInfo& info) {
  const Reduction reduction = parse_scatter_reduction(info);
  return [=](OpContext& ctx) {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    const Shape& ds = data.shape();
    const Shape& is = indices.shape();
    const auto r = static_cast<int64_t>(ds.size()), q = static_cast<int64_t>(is.size());
    if (r < 1 || q < 1) ctx.fail("data and indices must have rank >= 1");
    const int64_t k = is[q - 1];
    if (k < 1 || k > r) {
      ctx.fail("the last dimension of indices (" + std::to_string(k) + ") must be in [1, " +
               std::to_string(r) + "]");
    }
    // updates: indices.shape[:-1] + data.shape[k:]
    Shape expected(is.begin(), is.end() - 1);
    int64_t slice = 1;
    for (int64_t d = k; d < r; ++d) {
      expected.push_back(ds[d]);
      slice *= ds[d];
    }
    if (updates.shape() != expected) {
      ctx.fail("updates shape " + updates.shape().to_string() + " must be " + expected.to_string() +
               " for data " + ds.to_string() + " and indices " + is.to_string());
    }
    if (updates.dtype() != data.dtype()) {
      ctx.fail("updates are " + std::string(dtype_name(updates.dtype())) + ", data is " +
               std::string(dtype_name(data.dtype())));
    }
    check_reduction_type(ctx, data.dtype(), reduction);
    const Shape strides = strides_of(ds);
    const int64_t tuples = Shape(is.begin(), is.end() - 1).element_count();
    Tensor& y = copy_data_to_output(ctx, data);
    visit_index_type(ctx, indices, [&]<class I>() {
      const I* idx = indices.data<I>();
      const int64_t n = slice == 0 ? 0 : tuples;  // nothing to write into an empty slice
      if (reduction == Reduction::None) {
        cpu::visit_element_mover(data.dtype(), [&]<class M>() {
          constexpr auto size = static_cast<int64_t>(M::size);
          std::byte* dst = bytes_of(y);
          const std::byte* src = bytes_of(updates);
          for (int64_t u = 0; u < n; ++u) {
            const int64_t off = tuple_offset(ctx, idx + u * k, k, ds, strides, 0);
            M::copy_n(dst + off * size, src + u * slice * size, slice);
          }
        });
        return;
      }
      visit_dtype(data.dtype(), [&]<class T>() {
        T* out = y.mutable_data<T>();
        const T* upd = updates.data<T>();
        for (int64_t u = 0; u < n; ++u) {
          const int64_t off = tuple_offset(ctx, idx + u * k, k, ds, strides, 0);
          for (int64_t e = 0; e < slice; ++e)
            reduce_into<T>(out[off + e], upd[u * slice + e], reduction);
        }
      });
    });
  };
}

}  // namespace

KILN_CPU_OPS(gather_scatter);
void register_gather_scatter_ops(OpRegistry& registry) {
  registry.add("Gather", make_gather);
  registry.add("GatherElements", make_gather_elements);
  registry.add("GatherND", make_gather_nd);
  registry.add("ScatterElements", make_scatter_elements);
  registry.add("Scatter", make_scatter_elements);
  registry.add("ScatterND", make_scatter_nd);
}

}  // namespace kiln
