// Split as draws, for every texture dtype: each output is a region copy (one strided gather) of one
// part of the input along the axis (of an int64's words, word_region). The part sizes follow
// Split's one definition (opdefs/concat.h): from the attribute, the host 'split' input, num_outputs
// or equal parts.
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/region_copy.h"
#include "opdefs/concat.h"
#include "opdefs/node_info.h"

namespace kiln::gpu_pixel {
namespace {

RecordFn split(const NodeInfo& info) {
  const SplitAttrs attrs = parse_split_attrs(info);
  // resolve_split_from_host names the node in its errors.
  return [attrs, node = info.node()](OpRecorder& r) {
    const Shape& in = r.shape(0);
    int64_t axis = 0;
    const Shape parts = resolve_split_from_host(attrs, in, static_cast<int64_t>(r.num_outputs()),
                                                r.has_input(1) ? &r.host(1) : nullptr, node, &axis);
    int64_t start = 0;
    for (size_t k = 0; k < r.num_outputs(); ++k) {
      const int64_t end = start + parts[k];
      const int64_t starts[] = {start}, ends[] = {end}, axes[] = {axis};
      const Region region = slice_region(in, starts, ends, axes, {});
      const TextureTensor& src = r.texture(0);
      TextureTensor& out = r.output(k, Shape(region.shape), r.dtype(0));
      r.kernel<RegionCopy>().record(word_region(region, r.dtype(0)), src, out);
      start = end;
    }
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(split);
void register_split_ops(OpTable& t) {
  t.add("Split", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!texel_inputs(q, reason, 0, 1) || !host_inputs(q, 1, reason)) return nullptr;
    return split(q.info);
  });
}

}  // namespace kiln::gpu_pixel
