#include "opdefs/dropout.h"

#include <string>

#include "core/dtype_dispatch.h"

namespace kiln {

DropoutMode resolve_dropout_mode(const NodeInputs& inputs, int opset) {
  DropoutMode mode;
  if (opset < 12 || !inputs.has_input(2)) return mode;
  const Tensor& training = inputs.input(2);
  if (training.dtype() != DataType::Bool || training.element_count() != 1)
    inputs.fail("training_mode must be a bool scalar");
  if (!training.data<bool>()[0]) return mode;
  if (inputs.has_input(1)) {
    const Tensor& r = inputs.input(1);
    if (r.element_count() != 1) inputs.fail("ratio must be a scalar");
    visit_dtype(r.dtype(), [&]<class T>() {
      if constexpr (is_float_like_v<T>) {
        mode.ratio = to_double(r.data<T>()[0]);
      } else {
        inputs.fail("ratio must be a float tensor, got " + std::string(dtype_name(r.dtype())));
      }
    });
  }
  mode.drop = mode.ratio != 0;
  return mode;
}

}  // namespace kiln
