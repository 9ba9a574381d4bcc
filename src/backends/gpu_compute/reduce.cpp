#include "backends/gpu_compute/reduce.h"

#include <span>
#include <string>

#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {

// Long lines keep the whole workgroup busy; lavapipe runs a workgroup's invocations as SIMD
// lanes of one thread, where a wider group only adds tree levels.
constexpr uint32_t kWorkgroup = 64;

}  // namespace

std::optional<ReduceProblem> reduce_problem(const Shape& shape, const std::vector<bool>& reduced,
                                            ReduceOp op, bool select_last) {
  // Runs of dimensions, outermost first: extent, row-major stride, reduced or kept.
  struct Run {
    int64_t size;
    int64_t stride;
    bool reduced;
  };
  std::vector<Run> runs;
  int64_t stride = 1;
  int64_t lines = 1, n = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    (reduced[d] ? n : lines) *= shape[d];
    if (shape[d] != 1) {
      if (!runs.empty() && runs.back().reduced == reduced[d] &&
          runs.back().stride * runs.back().size == stride) {
        runs.back().size *= shape[d];
      } else {
        runs.push_back({shape[d], stride, reduced[d]});
      }
    }
    stride *= shape[d];
  }
  if (stride > UINT32_MAX || lines > UINT32_MAX) return std::nullopt;
  ReduceProblem p;
  ReducePushConstants& pc = p.pc;
  pc.op = static_cast<uint32_t>(op);
  pc.lines = static_cast<uint32_t>(lines);
  pc.n = static_cast<uint32_t>(n);
  pc.select_last = select_last ? 1 : 0;
  pc.serial = n <= kReduceSerialLine ? 1 : 0;
  // `runs` is innermost first; the shader wants outermost first.
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    uint32_t& rank = it->reduced ? pc.reduced_rank : pc.kept_rank;
    if (rank == kReduceMaxRank) return std::nullopt;
    (it->reduced ? pc.reduced_size : pc.kept_size)[rank] = static_cast<uint32_t>(it->size);
    (it->reduced ? pc.reduced_stride : pc.kept_stride)[rank] = static_cast<uint32_t>(it->stride);
    ++rank;
  }
  // A line of one element (nothing reduced) still needs an addressable reduced dimension.
  if (pc.reduced_rank == 0) {
    pc.reduced_rank = 1;
    pc.reduced_size[0] = 1;
    pc.reduced_stride[0] = 0;
  }
  return p;
}

Reduce::Reduce(Device& device)
    : device_(device),
      pipeline_(device,
                PipelineDesc{shaders::reduce(), 2, sizeof(ReducePushConstants), kWorkgroup}) {}

void Reduce::record(VkCommandBuffer cmd, DescriptorArena& arena, const ReduceProblem& p,
                    const Buffer& x, const Buffer& y) const {
  const ReducePushConstants& pc = p.pc;
  if (pc.lines == 0) return;
  const bool arg = pc.op == static_cast<uint32_t>(ReduceOp::ArgMax) ||
                   pc.op == static_cast<uint32_t>(ReduceOp::ArgMin);
  check(y.size() >= uint64_t{pc.lines} * (arg ? 8 : 4),
        "reduction on the GPU: the output buffer is too small");
  const Buffer* buffers[] = {&x, &y};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&y};
  // One invocation per short line, else one workgroup per line (the shader reads its line from
  // the workgroup's linear index).
  const uint64_t invocations = pc.serial ? uint64_t{pc.lines} : uint64_t{pc.lines} * kWorkgroup;
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, invocations), written);
}

ReduceInt::ReduceInt(Device& device)
    : device_(device),
      pipeline_(device, PipelineDesc{shaders::reduce_int(), 2, sizeof(ReduceIntPushConstants),
                                     kWorkgroup}) {}

void ReduceInt::record(VkCommandBuffer cmd, DescriptorArena& arena, const ReduceProblem& p,
                       DataType dtype, const Buffer& x, const Buffer& y) const {
  const bool boolean = dtype == DataType::Bool;
  check(dtype == DataType::Int32 || dtype == DataType::Int64 || boolean,
        "integer reduction on the GPU: no kernel for " + std::string(dtype_name(dtype)));
  check(!boolean || p.pc.op == static_cast<uint32_t>(ReduceOp::Max) ||
            p.pc.op == static_cast<uint32_t>(ReduceOp::Min),
        "integer reduction on the GPU: bool lines take Max and Min only");
  ReduceIntPushConstants pc{p.pc, boolean ? 2u : dtype == DataType::Int64 ? 1u : 0u};
  if (pc.base.lines == 0) return;
  check(pc.base.n > 0, "integer reduction on the GPU: an empty line");
  check(y.size() >= uint64_t{pc.base.lines} * dtype_size(dtype),
        "integer reduction on the GPU: the output buffer is too small");
  const Buffer* buffers[] = {&x, &y};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&y};
  // Bool results are written a word (4 lines) per invocation.
  const uint64_t invocations = boolean ? (uint64_t{pc.base.lines} + 3) / 4 : pc.base.lines;
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, invocations), written);
}

}  // namespace kiln::gpu_compute
