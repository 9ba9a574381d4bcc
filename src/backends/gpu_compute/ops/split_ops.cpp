// Split on the GPU: each output is a region copy (shaders/region_copy.comp) of one part of the
// input along the axis. The part sizes follow Split's one definition (opdefs/concat.h): from the
// attribute, the CPU-resident 'split' input, num_outputs or equal parts.
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/region_copy.h"
#include "opdefs/concat.h"
#include "opdefs/node_info.h"

namespace kiln::gpu_compute {
namespace {

RecordFn split(const NodeInfo& info) {
  const SplitAttrs attrs = parse_split_attrs(info);
  // resolve_split_from_host names the node in its errors.
  return [attrs, node = info.node()](OpRecorder& r) {
    const Shape& in = r.shape(0);
    int64_t axis = 0;
    const Shape parts =
        resolve_split_from_host(attrs, in, static_cast<int64_t>(r.num_outputs()),
                                r.has_input(1) ? &r.input(1) : nullptr, node, &axis);
    int64_t start = 0;
    for (size_t k = 0; k < r.num_outputs(); ++k) {
      const int64_t end = start + parts[k];
      const int64_t starts[] = {start}, ends[] = {end}, axes[] = {axis};
      const Region region = slice_region(in, starts, ends, axes, {});
      const Buffer& src = r.buffer(0);
      const Buffer& out = r.output(k, r.dtype(0), Shape(region.shape));
      r.kernel<RegionCopy>().record(r.cmd(), r.arena(), region, r.dtype(0), src, out);
      start = end;
    }
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(split);
void register_split_ops(OpTable& t) {
  t.add("Split", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32, DataType::Int32, DataType::Int64}, reason, 0, 1))
      return nullptr;
    if (q.info.has_input(1) && !q.input_on_cpu[1]) {
      reason = "input 1 is not on the CPU";
      return nullptr;
    }
    return split(q.info);
  });
}

}  // namespace kiln::gpu_compute
