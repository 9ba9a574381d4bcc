// Outputs of float16 or bfloat16 drawn in float32 first, then rounded once (convert.h), as the
// CPU kernels compute in float32 and round: a kernel draws into output(k, ...) as if every
// output were float32, and finish() rounds the stand-ins into the real outputs.
//
//   Float32Outputs outputs(r);
//   draw_into(outputs.output(0, r.dtype(0), shape));
//   outputs.finish();
#pragma once

#include <list>
#include <optional>

#include "backends/gpu_pixel/convert.h"
#include "backends/gpu_pixel/op_recorder.h"

namespace kiln::gpu_pixel {

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
