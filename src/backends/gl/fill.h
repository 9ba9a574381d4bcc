// ConstantOfShape on a texture tensor: every element one float value, one draw.
//
//   Fill(context).record(-2.5f, y);
#pragma once

#include "backends/gl/context.h"
#include "backends/gl/texture.h"

namespace kiln::gl {

class Fill {
 public:
  explicit Fill(Context& context) : context_(context) {}

  // Draws `value` into every element of y (the texel's lanes past the last element stay zero, as
  // every kernel leaves them).
  void record(float value, TextureTensor& y) const;

 private:
  Context& context_;
};

}  // namespace kiln::gl
