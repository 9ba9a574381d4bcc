#include "opdefs/eye_like.h"

#include "opdefs/node_info.h"

namespace kiln {

EyeLikeAttrs parse_eye_like_attrs(const NodeInfo& info) {
  EyeLikeAttrs a;
  a.k = info.attr_int("k", 0);
  if (info.has_attr("dtype")) {
    const auto dtype = static_cast<DataType>(info.attr_int("dtype", 0));
    if (dtype == DataType::String || dtype == DataType::Undefined) {
      info.fail("dtype must be a numeric or bool type");
    }
    a.dtype = dtype;
  }
  return a;
}

}  // namespace kiln
