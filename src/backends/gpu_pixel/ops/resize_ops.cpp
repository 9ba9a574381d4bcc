// Resize and Upsample as draws (backends/gpu_pixel/resize) over the last two axes; the per-axis
// scales and coordinates come from the op's definition (backends/gpu_common/device_resize_axes.h).
#include "backends/gpu_common/device_resize_axes.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/resize.h"

namespace kiln::gpu_pixel {

KILN_GPU_PIXEL_OPS(resize);
void register_resize_ops(OpTable& t) {
  for (const char* op : {"Resize", "Upsample"}) {
    t.add(op, [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
      if (!float_inputs(q, reason, 0, 1) || !host_inputs(q, 1, reason)) return nullptr;
      const DeviceResizeAxes resize(q.info);
      return [resize](OpRecorder& r) {
        const std::vector<ResizeAxis> axes = resize.of_run(r);
        Shape y_shape = r.shape(0);
        for (size_t d = 0; d < axes.size(); ++d) {
          // The draws resize the last two axes; the others must keep their size.
          if (d + 2 < axes.size() && axes[d].out != axes[d].in)
            throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "a leading axis changes size");
          y_shape[d] = axes[d].out;
        }
        const TextureTensor& x = r.texture(0);
        TextureTensor& y = r.output(0, y_shape);
        r.kernel<Resize>().record(axes, resize.options(), x, y);
      };
    });
  }
}

}  // namespace kiln::gpu_pixel
