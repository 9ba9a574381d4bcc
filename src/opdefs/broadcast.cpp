#include "opdefs/broadcast.h"

#include <algorithm>

#include "kiln/error.h"

namespace kiln {

int64_t normalize_axis(int64_t axis, int64_t rank, const std::string& where) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1)) {
    throw Error(where + ": axis " + std::to_string(axis) + " is out of range for rank " +
                std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& where) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out;
  out.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw Error(where + ": shapes " + a.to_string() + " and " + b.to_string() +
                  " cannot be broadcast together");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Shape strides_of(const Shape& shape) {
  Shape s;
  s.resize(shape.size());
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = stride;
    stride *= shape[i];
  }
  return s;
}

Shape broadcast_strides(const Shape& shape, const Shape& out) {
  Shape s;
  s.resize(out.size(), 0);
  const size_t offset = out.size() - shape.size();
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i + offset] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return s;
}

std::vector<int64_t> to_int64_vector(const Tensor& t, const std::string& where) {
  const int64_t n = t.element_count();
  if (t.dtype() == DataType::Int64) {
    const int64_t* p = t.data<int64_t>();
    return {p, p + n};
  }
  if (t.dtype() == DataType::Int32) {
    const int32_t* p = t.data<int32_t>();
    return {p, p + n};
  }
  throw Error(where + ": expected an int32 or int64 tensor, got " +
              std::string(dtype_name(t.dtype())));
}

}  // namespace kiln
