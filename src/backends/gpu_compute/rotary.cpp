// RotaryEmbedding (ai.onnx 23) on the GPU (shaders/rotary.comp): float32, 3-D or 4-D input,
// interleaved or not, a partial rotary_embedding_dim, caches indexed by position_ids or one row
// per token. The rows of the caches each token uses are worked out on the host (position_ids
// computed on the device cannot be checked there: such a run goes to the CPU).
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. The geometry and the caches' checks are the op's definition
// (opdefs/rotary.h), as on the CPU.
#include "backends/gpu_compute/rotary.h"

#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"
#include "opdefs/rotary.h"

namespace kiln::gpu_compute {

// ---- The kernel ------------------------------------------------------------------------------

namespace {

constexpr uint32_t kWorkgroup = 64;

// Mirrors the shader's push-constant block.
struct RotaryPushConstants {
  uint32_t count = 0, heads = 0, seq = 0, head_size = 0, half_dim = 0, packed = 0, interleaved = 0,
           cache_stride = 0;
};
static_assert(sizeof(RotaryPushConstants) <= kMaxPushConstantBytes);

}  // namespace

Rotary::Rotary(Device& device)
    : device_(device),
      pipeline_(device,
                PipelineDesc{shaders::rotary(), 5, sizeof(RotaryPushConstants), kWorkgroup}) {}

void Rotary::record(VkCommandBuffer cmd, DescriptorArena& arena, const RotaryGeometry& g,
                    bool interleaved, const Buffer& x, const Buffer& cos_cache,
                    const Buffer& sin_cache, int64_t cache_stride, const Buffer& rows,
                    const Buffer& y) const {
  const int64_t count = g.batch * g.heads * g.seq * g.head_size;
  if (count == 0) return;
  check(count <= UINT32_MAX && cache_stride <= UINT32_MAX,
        "RotaryEmbedding on the GPU: the tensors exceed 32-bit indexing");
  check(x.size() >= static_cast<uint64_t>(count) * sizeof(float) && y.size() >= x.size(),
        "RotaryEmbedding on the GPU: a buffer is too small");
  RotaryPushConstants pc{static_cast<uint32_t>(count),
                         static_cast<uint32_t>(g.heads),
                         static_cast<uint32_t>(g.seq),
                         static_cast<uint32_t>(g.head_size),
                         static_cast<uint32_t>(g.rotary_dim / 2),
                         g.packed ? 1u : 0u,
                         interleaved ? 1u : 0u,
                         static_cast<uint32_t>(cache_stride)};
  // Without a rotated feature the caches may be empty: x stands in, never read through them.
  const Buffer* cos_slot = cos_cache.size() > 0 ? &cos_cache : &x;
  const Buffer* sin_slot = sin_cache.size() > 0 ? &sin_cache : &x;
  const Buffer* buffers[] = {&x, cos_slot, sin_slot, &rows, &y};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&y};
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, static_cast<uint64_t>(count)), written);
}

// ---- The adapter -----------------------------------------------------------------------------

namespace {

constexpr size_t kPositionIds = 3;

// The cache row of each token b * seq + s, as int32 on the device.
const Buffer& cache_rows(OpRecorder& r, const RotaryGeometry& g, int64_t cache_rows_count) {
  const int64_t tokens = g.batch * g.seq;
  std::vector<int32_t> rows(static_cast<size_t>(std::max<int64_t>(tokens, 1)), 0);
  if (r.has_input(kPositionIds)) {
    const Tensor& ids = r.input(kPositionIds);
    if (ids.impl()->device)
      throw RunOnCpu(RunTimeCause::InputValues,
                     "position_ids computed on the device cannot be checked");
    if (ids.dtype() != DataType::Int64)
      throw RunOnCpu(RunTimeCause::InputKind, "position_ids that are not int64");
    const int64_t* v = ids.data<int64_t>();
    for (int64_t t = 0; t < tokens; ++t) {
      if (v[t] < 0 || v[t] >= cache_rows_count)
        throw RunOnCpu(RunTimeCause::InputValues, "a position id outside the caches");
      rows[static_cast<size_t>(t)] = static_cast<int32_t>(v[t]);
    }
  } else {
    for (int64_t t = 0; t < tokens; ++t) rows[static_cast<size_t>(t)] = static_cast<int32_t>(t);
  }
  return r.upload(std::as_bytes(std::span(rows)));
}

RecordFn rotary(RotaryAttrs a, NodeRef node) {
  return [=](OpRecorder& r) {
    const RotaryGeometry g = resolve_rotary(*node.node, a, r.shape(0));
    const Shape& cs = r.shape(1);
    check_rotary_caches(*node.node, g, cs, r.shape(2),
                        r.has_input(kPositionIds) ? &r.shape(kPositionIds) : nullptr);
    check(cs.element_count() <= INT32_MAX, "RotaryEmbedding on the GPU: caches too large");
    const Buffer& rows = cache_rows(r, g, cs[0]);
    const Buffer& x = r.buffer(0);
    const Buffer& y = r.output(0, DataType::Float32, r.shape(0));
    r.kernel<Rotary>().record(r.cmd(), r.arena(), g, a.interleaved, x, r.buffer(1), r.buffer(2),
                              cs.back(), rows, y);
  };
}

RecordFn rotary_factory(const DevicePlacementQuery& q, std::string& reason) {
  if (!inputs_are(q, {DataType::Float32}, reason, 0, 3) ||
      !inputs_are(q, {DataType::Int64}, reason, kPositionIds, 1))
    return nullptr;
  return rotary(parse_rotary_attrs(q.info), NodeRef(q.info));
}

}  // namespace

KILN_GPU_COMPUTE_OPS(rotary);
void register_rotary_ops(OpTable& t) { t.add("RotaryEmbedding", rotary_factory); }

}  // namespace kiln::gpu_compute
