// Float16 tensors on float draws: textures hold their values as floats exactly, so a draw reads
// them as it reads float32; its float32 result goes to a temporary and is rounded to half
// precision once (convert.h), which is what the CPU's float16 kernels do: compute in float,
// round once.
#pragma once

#include <cstdint>
#include <string>

#include "backends/gpu_pixel/convert.h"
#include "backends/gpu_pixel/op_recorder.h"
#include "kernels/device_backend.h"

namespace kiln::gpu_pixel {

// The inputs [first, first + count) are float32 or float16 (or of unknown dtype, checked per
// run); false with `reason` otherwise.
bool float_or_half_inputs(const DevicePlacementQuery& q, std::string& reason, size_t first = 0,
                          size_t count = SIZE_MAX);

// Draws output 0 of `shape` in `dtype`: directly for float32; for float16 into a float32
// temporary, then rounded to half precision. RunOnCpu for other dtypes (known only per run).
template <class Draw>
void draw_in_dtype(OpRecorder& r, const Shape& shape, DataType dtype, Draw draw) {
  if (dtype == DataType::Float32) {
    draw(r.output(0, shape));
    return;
  }
  if (dtype != DataType::Float16) throw RunOnCpu(RunTimeCause::InputKind, "not a float input");
  TextureTensor wide = r.temporary(shape.element_count());
  draw(wide);
  r.kernel<Convert>().record(ConvertOp::ToFloat16, wide, r.output(0, shape, dtype));
}

}  // namespace kiln::gpu_pixel
