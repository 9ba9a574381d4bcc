#include "ops/norm_common.h"

namespace kiln::norm {

template <class C>
void convert_to(const Tensor& t, C* out) {
  const int64_t n = t.element_count();
  visit_dtype(t.dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T>) {
      const T* in = t.data<T>();
      for (int64_t i = 0; i < n; ++i) out[i] = load<C>(in[i]);
    } else {
      throw Error("normalization: expected a float tensor, got " + t.to_string(0));
    }
  });
}

bool broadcastable_to(const Shape& shape, const Shape& target) {
  const size_t rank = shape.size(), target_rank = target.size();
  for (size_t i = 0; i < rank; ++i) {
    const int64_t dim = shape[rank - 1 - i];
    if (i >= target_rank) {
      if (dim != 1) return false;
    } else if (dim != 1 && dim != target[target_rank - 1 - i]) {
      return false;
    }
  }
  return true;
}

template <class C>
void expand_to(const Tensor& t, const Shape& target, C* out) {
  const Shape& shape = t.shape();
  // Drop the leading 1s beyond the target's rank, then align to the right.
  Shape trimmed;
  const size_t skip = shape.size() > target.size() ? shape.size() - target.size() : 0;
  for (size_t i = skip; i < shape.size(); ++i) trimmed.push_back(shape[i]);
  if (trimmed.element_count() == target.element_count()) {
    convert_to(t, out);
    return;
  }
  const Shape strides = broadcast_strides(trimmed, target);
  visit_dtype(t.dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T>) {
      const T* in = t.data<T>();
      for_each_broadcast(target, strides, strides,
                         [&](int64_t o, int64_t a, int64_t) { out[o] = load<C>(in[a]); });
    } else {
      throw Error("normalization: expected a float tensor, got " + t.to_string(0));
    }
  });
}

template void convert_to<float>(const Tensor&, float*);
template void convert_to<double>(const Tensor&, double*);
template void expand_to<float>(const Tensor&, const Shape&, float*);
template void expand_to<double>(const Tensor&, const Shape&, double*);

}  // namespace kiln::norm
