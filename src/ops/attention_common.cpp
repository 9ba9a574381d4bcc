// Float32 conversions shared by the attention family.
#include "ops/attention_common.h"

namespace kiln::attn {

void require_float(const OpContext& ctx, const Tensor& t, const std::string& what) {
  if (!is_attention_float(t.dtype())) {
    ctx.fail(what + " must be float16, bfloat16, float32 or float64, got " +
             std::string(dtype_name(t.dtype())));
  }
}

void copy_to_float(const Tensor& t, float* out) {
  const int64_t n = t.element_count();
  visit_dtype(t.dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T>) {
      const T* p = t.data<T>();
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(p[i]);
    } else {
      throw Error("expected a float tensor, got " + std::string(dtype_name(t.dtype())));
    }
  });
}

const float* as_float(const Tensor& t, float* out) {
  if (t.dtype() == DataType::Float32) return t.data<float>();
  copy_to_float(t, out);
  return out;
}

void store_from_float(const float* src, Tensor& dst, int64_t count, int64_t offset) {
  visit_dtype(dst.dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T>) {
      T* p = dst.mutable_data<T>() + offset;
      for (int64_t i = 0; i < count; ++i) {
        if constexpr (is_small_float_v<T>) {
          p[i] = T(src[i]);
        } else {
          p[i] = static_cast<T>(src[i]);
        }
      }
    } else {
      throw Error("expected a float tensor, got " + std::string(dtype_name(dst.dtype())));
    }
  });
}

}  // namespace kiln::attn
