// Shape and Size: int64 tensors that the input's shape alone decides, known on the host while
// recording. The node runs on the device and its output is a host tensor, as on GPU-compute: the
// CPU nodes and the caller that read it need no transfer, and a draw that reads it uploads it
// (into an int64 texture) on first use. The input's elements are never read, so its dtype does
// not matter. Which dimensions Shape returns is the definition's (opdefs/shape_slice.h).
#include <cstdint>
#include <vector>

#include "backends/gpu_pixel/ops/op_table.h"
#include "opdefs/shape_slice.h"

namespace kiln::gpu_pixel {
namespace {

OpFactory shape_factory() {
  return [](const DevicePlacementQuery& q, std::string&) -> RecordFn {
    return [attrs = parse_shape_slice_attrs(q.info)](OpRecorder& r) {
      const Shape& in = r.shape(0);
      const ShapeSlice slice = resolve_shape_slice(attrs, static_cast<int64_t>(in.size()));
      const std::vector<int64_t> dims(in.begin() + slice.begin, in.begin() + slice.end);
      r.host_output(0, Tensor::from_data(Shape{slice.end - slice.begin}, dims));
    };
  };
}

OpFactory size_factory() {
  return [](const DevicePlacementQuery&, std::string&) -> RecordFn {
    return [](OpRecorder& r) {
      r.host_output(0, Tensor::scalar<int64_t>(r.shape(0).element_count()));
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(shape_of_input);
void register_shape_of_input_ops(OpTable& t) {
  t.add("Shape", shape_factory());
  t.add("Size", size_factory());
}

}  // namespace kiln::gpu_pixel
