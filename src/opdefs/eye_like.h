// EyeLike's attributes, parsed once for the CPU kernel and the GPU backends: the diagonal k and
// the output type (the `dtype` attribute, else the input's).
#pragma once

#include <cstdint>
#include <optional>

#include "kiln/dtype.h"

namespace kiln {

class NodeInfo;

struct EyeLikeAttrs {
  int64_t k = 0;                  // the diagonal of ones: column - row == k
  std::optional<DataType> dtype;  // absent: the input's type
};

// kiln::Error (naming the node) for a dtype that is not a numeric or bool type.
EyeLikeAttrs parse_eye_like_attrs(const NodeInfo& info);

}  // namespace kiln
