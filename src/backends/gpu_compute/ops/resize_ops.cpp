// Resize and Upsample on the GPU (shaders/resize.comp), float32 up to 6-D, every mode: the
// per-axis scales, coordinates and interpolation taps come from the op's definition
// (opdefs/resize.h, through backends/gpu_common/device_resize_axes.h), the taps uploaded as a
// small table.
#include "backends/gpu_common/device_resize_axes.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/resize.h"

namespace kiln::gpu_compute {

KILN_GPU_COMPUTE_OPS(resize);
void register_resize_ops(OpTable& t) {
  for (const char* op : {"Resize", "Upsample"}) {
    t.add(op, [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
      if (!inputs_are(q, {DataType::Float32}, reason, 0, 1)) return nullptr;
      for (size_t k = 1; k < q.input_on_cpu.size(); ++k) {
        if (q.info.has_input(k) && !q.input_on_cpu[k] && !q.info.constant_input(k)) {
          reason = "input " + std::to_string(k) + " is not a host value";
          return nullptr;
        }
      }
      const DeviceResizeAxes resize(q.info);
      return [resize](OpRecorder& r) {
        const std::vector<ResizeAxis> axes = resize.of_run(r);
        const ResizePlan plan = or_run_on_cpu(RunTimeCause::ShapeOutsideKernel, [&] {
          return plan_resize(r.shape(0), axes, resize.options());
        });
        const Buffer& x = r.buffer(0);
        const Buffer& table = r.upload(std::as_bytes(std::span(plan.table)));
        const Buffer& y = r.output(0, DataType::Float32, plan.out_shape);
        r.kernel<Resize>().record(r.cmd(), r.arena(), plan, x, table, y);
      };
    });
  }
}

}  // namespace kiln::gpu_compute
