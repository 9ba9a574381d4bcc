// Float16 (and bfloat16) tensors on float draws: textures hold their values as floats exactly, so
// a draw reads them as it reads float32; its float32 result goes to a temporary and is rounded
// once (convert.h), which is what the CPU's kernels do: compute in float32, round once.
// draw_in_dtype does that for a kernel's one output; Float32Outputs for several:
//
//   Float32Outputs outputs(r);
//   draw_into(outputs.output(0, r.dtype(0), shape));
//   outputs.finish();
#pragma once

#include <cstdint>
#include <list>
#include <optional>
#include <string>

#include "backends/gpu_pixel/convert.h"
#include "backends/gpu_pixel/op_recorder.h"
#include "kernels/device_backend.h"

namespace kiln::gpu_pixel {

// The inputs [first, first + count) are float32 or float16 (or of unknown dtype, checked per
// run); false with `reason` otherwise.
bool float_or_half_inputs(const DevicePlacementQuery& q, std::string& reason, size_t first = 0,
                          size_t count = SIZE_MAX);
// The same with bfloat16 too, for the kernels whose outputs draw_in_dtype rounds (the unary and
// binary elementwise draws): their float32 result rounds once to bfloat16, as the CPU's does.
bool float_half_or_bfloat16_inputs(const DevicePlacementQuery& q, std::string& reason,
                                   size_t first = 0, size_t count = SIZE_MAX);

// Draws output 0 of `shape` in `dtype`: directly for float32; for float16 and bfloat16 into a
// float32 temporary, then rounded once. RunOnCpu for other dtypes (known only per run).
template <class Draw>
void draw_in_dtype(OpRecorder& r, const Shape& shape, DataType dtype, Draw draw) {
  if (dtype == DataType::Float32) {
    draw(r.output(0, shape));
    return;
  }
  if (dtype != DataType::Float16 && dtype != DataType::BFloat16)
    throw RunOnCpu(RunTimeCause::InputKind, "not a float input");
  TextureTensor wide = r.temporary(shape.element_count());
  draw(wide);
  r.kernel<Convert>().record(*convert_to(dtype), wide, r.output(0, shape, dtype));
}

// Outputs of float16 or bfloat16 drawn in float32 first, then rounded once: a kernel draws into
// output(k, ...) as if every output were float32, and finish() rounds the stand-ins into the
// real outputs.
class Float32Outputs {
 public:
  explicit Float32Outputs(OpRecorder& r) : r_(r) {}

  TextureTensor& output(size_t k, DataType dtype, const Shape& shape) {
    if (dtype == DataType::Float32) return r_.output(k, shape);
    const std::optional<ConvertOp> op = convert_to(dtype);
    if (!op) throw RunOnCpu(RunTimeCause::InputKind, "an output of a dtype textures do not hold");
    pending_.push_back({k, dtype, shape, *op, r_.temporary(shape.element_count())});
    return pending_.back().wide;
  }

  // Rounds the float32 stand-ins into their outputs.
  void finish() {
    for (Pending& p : pending_)
      r_.kernel<Convert>().record(p.op, p.wide, r_.output(p.index, p.shape, p.dtype));
  }

 private:
  struct Pending {
    size_t index;
    DataType dtype;
    Shape shape;
    ConvertOp op;
    TextureTensor wide;
  };
  OpRecorder& r_;
  std::list<Pending> pending_;  // a list: output() hands out references to its elements
};

}  // namespace kiln::gpu_pixel
