// Edge values of every fixed-size element type, as sources for Cast tests: zeros of both
// signs, NaN and infinities where the type has them, ties and values just beyond each narrower
// type's range and rounding points, and every code of the 8-, 4- and 2-bit types.
#pragma once

#include "kiln/dtype.h"
#include "kiln/tensor.h"

namespace kiln::testing {

Tensor cast_source(DataType dt);

}  // namespace kiln::testing
