// ConstantOfShape on a texture tensor: every element one float value, one draw.
//
//   Fill(context).record(-2.5f, y);
#pragma once

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"

namespace kiln::gpu_pixel {

class Fill {
 public:
  explicit Fill(Context& context) : context_(context) {}

  // Draws `value` into every element of y (the texel's lanes past the last element stay zero, as
  // every kernel leaves them).
  void record(float value, TextureTensor& y) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
