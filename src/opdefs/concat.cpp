#include "opdefs/concat.h"

#include "opdefs/node_info.h"

namespace kiln {

int64_t parse_concat_axis(const NodeInfo& info) {
  return info.opset() < 4 ? info.attr_int("axis", 1) : info.required_int("axis");
}

Shape concat_output_shape(size_t count, FunctionRef<const Shape&(size_t)> shape_of, int64_t axis,
                          FunctionRef<std::string()> where) {
  if (count == 0) throw Error(where() + ": needs at least one input");
  const Shape& first = shape_of(0);
  const auto rank = static_cast<int64_t>(first.size());
  if (rank == 0) throw Error(where() + ": cannot concatenate scalars");
  if (axis < -rank || axis >= rank) {
    throw Error(where() + ": axis " + std::to_string(axis) + " is out of range for rank " +
                std::to_string(rank));
  }
  const int64_t a = axis < 0 ? axis + rank : axis;
  Shape out = first;
  out[a] = 0;
  for (size_t i = 0; i < count; ++i) {
    const Shape& s = shape_of(i);
    bool compatible = s.size() == first.size();
    for (int64_t d = 0; compatible && d < rank; ++d) compatible = d == a || s[d] == first[d];
    if (!compatible) {
      throw Error(where() + ": input " + std::to_string(i) + " has shape " + s.to_string() +
                  ", which does not match input 0's " + first.to_string() + " outside axis " +
                  std::to_string(a));
    }
    out[a] += s[a];
  }
  return out;
}

}  // namespace kiln
