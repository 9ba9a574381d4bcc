// Cast and CastLike's attributes: one definition for the CPU kernel and the GPU backends.
//
// `saturate` (opset 19) decides what a value beyond a float8 type's range becomes (the largest
// finite value, or inf/NaN; see kiln/float_types.h); `round_mode` (opset 25) how a value rounds
// to float8e8m0. BitCast reads `to` only.
#pragma once

#include <cstdint>

#include "kiln/dtype.h"

namespace kiln {

class NodeInfo;

// The Vulkan cast shader takes these values as its rounding codes: append only.
enum class E8M0Rounding : uint32_t { kUp, kDown, kNearest };

struct CastOptions {
  bool saturate = true;
  E8M0Rounding rounding = E8M0Rounding::kUp;  // ONNX's default
};

// `saturate` and `round_mode`; fails on a round_mode other than "up", "down" or "nearest".
CastOptions parse_cast_options(const NodeInfo& info);

// The element type named by the required attribute 'to' (Cast, BitCast); fails on a code that
// names no ONNX type.
DataType parse_cast_target(const NodeInfo& info);

}  // namespace kiln
