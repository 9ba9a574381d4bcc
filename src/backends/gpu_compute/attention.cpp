// Attention (opset 23, 24) on the GPU (shaders/attention.comp): Q, K, V in the 3-D
// ([batch, seq, heads * size]) or 4-D ([batch, heads, seq, size]) layout, read in place through
// strides; grouped-query heads; float or bool masks broadcast from the right; is_causal; scale;
// softcap; the key/value cache (past_key / past_value -> present_key / present_value, built
// with region copies); every qk_matmul_output_mode; opset 24's nonpad_kv_seqlen when its values
// are on the host (they are checked there, as the CPU kernel checks them). The shader computes
// in float32; float16 and bfloat16 operands are converted on the way in and out.
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. The geometry, the mask's broadcast and the attributes come from the op's
// definition (opdefs/attention.h), as on the CPU.
#include "backends/gpu_compute/attention.h"

#include <vulkan/vulkan.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/cast.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/region_copy.h"
#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"
#include "opdefs/attention.h"

namespace kiln::gpu_compute {

// ---- The kernel ------------------------------------------------------------------------------

namespace {

constexpr uint32_t kWorkgroup = 64;
constexpr uint32_t kCausalFlag = 1, kPaddedFlag = 2, kBatchOffsetsFlag = 4;

// Mirrors the shader's push-constant block.
struct AttentionPushConstants {
  uint32_t rows = 0, q_heads = 0, group = 1, q_len = 0, total = 0, head_size = 0, v_head_size = 0;
  uint32_t q[3] = {}, k[3] = {}, v[3] = {}, y[3] = {};
  uint32_t mask_kind = 0, m_batch = 0, m_head = 0, m_row = 0, m_columns = 0;
  int32_t causal_offset = 0;
  uint32_t flags = 0, scores_stage = kNoScores;
  float scale = 1, softcap = 0;
  int32_t local_window = -1;
};
static_assert(sizeof(AttentionPushConstants) <= kMaxPushConstantBytes);

uint32_t narrow(int64_t v) {
  check(v >= 0 && v <= UINT32_MAX, "Attention on the GPU: the tensors exceed 32-bit indexing");
  return static_cast<uint32_t>(v);
}

}  // namespace

AttentionKernel::AttentionKernel(Device& device)
    : device_(device),
      pipeline_(device,
                PipelineDesc{shaders::attention(), 8, sizeof(AttentionPushConstants), kWorkgroup}) {
}

void AttentionKernel::record(VkCommandBuffer cmd, DescriptorArena& arena,
                             const AttentionProblem& pr, const AttentionBuffers& b) const {
  const AttentionGeometry& g = pr.g;
  const int64_t rows = g.batch * g.q_heads * g.q_len;
  if (rows == 0 || g.v_head_size == 0) return;
  check(rows * std::max<int64_t>(g.total(), 1) <= UINT32_MAX,
        "Attention on the GPU: the scores exceed 32-bit indexing");
  AttentionPushConstants pc;
  pc.rows = narrow(rows);
  pc.q_heads = narrow(g.q_heads);
  pc.group = narrow(g.q_heads / g.kv_heads);
  pc.q_len = narrow(g.q_len);
  pc.total = narrow(g.total());
  pc.head_size = narrow(g.head_size);
  pc.v_head_size = narrow(g.v_head_size);
  auto put = [](uint32_t* out, const HeadStrides& s) {
    out[0] = narrow(s.batch);
    out[1] = narrow(s.head);
    out[2] = narrow(s.row);
  };
  put(pc.q, pr.q);
  put(pc.k, pr.k);
  put(pc.v, pr.v);
  put(pc.y, pr.y);
  pc.mask_kind = static_cast<uint32_t>(pr.mask);
  pc.m_batch = narrow(pr.mask_layout.batch);
  pc.m_head = narrow(pr.mask_layout.head);
  pc.m_row = narrow(pr.mask_layout.row);
  pc.m_columns = narrow(pr.mask_layout.columns);
  check(pr.causal_offset >= INT32_MIN && pr.causal_offset <= INT32_MAX,
        "Attention on the GPU: the past exceeds 32-bit indexing");
  pc.causal_offset = static_cast<int32_t>(pr.causal_offset);
  pc.flags = (pr.causal ? kCausalFlag : 0) | (pr.padded ? kPaddedFlag : 0) |
             (pr.batch_offsets ? kBatchOffsetsFlag : 0);
  check(pr.local_window >= -1 && pr.local_window <= INT32_MAX,
        "Attention on the GPU: the local window exceeds 32-bit indexing");
  pc.local_window = static_cast<int32_t>(pr.local_window);
  pc.scores_stage = b.scores ? pr.scores_stage : kNoScores;
  pc.scale = pr.scale;
  pc.softcap = pr.softcap;
  check(b.probs->size() >= static_cast<uint64_t>(rows * g.total()) * sizeof(float),
        "Attention on the GPU: the probabilities buffer is too small");
  // Bindings the problem does not read still need a buffer (and an empty tensor has none):
  // the probabilities stand in, which the shader then never reads through them.
  auto or_probs = [&](const Buffer* buf) {
    return buf != nullptr && buf->size() > 0 ? buf : b.probs;
  };
  const Buffer* scores = b.scores ? b.scores : b.probs;
  const Buffer* buffers[] = {b.q, or_probs(b.k), or_probs(b.v), or_probs(b.mask), or_probs(b.valid),
                             b.y, b.probs,       scores};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {b.y, b.probs, scores};
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, static_cast<uint64_t>(rows) * kWorkgroup),
                  written);
}

// ---- The adapter -----------------------------------------------------------------------------

namespace {

// The keys (or values) attended to, [batch, kv_heads, past + new, size] contiguous, in `out`:
// the past followed by the new ones, each placed by a region copy.
void build_present(OpRecorder& r, const AttentionGeometry& g, const Buffer* past,
                   const Buffer& current, int64_t size, const Buffer& out) {
  const int64_t total = g.total();
  const std::vector<int64_t> out_strides{g.kv_heads * total * size, total * size, size, 1};
  RegionCopy& copy = r.kernel<RegionCopy>();
  if (past != nullptr && g.past_len > 0) {
    Region region;
    region.shape = {g.batch, g.kv_heads, g.past_len, size};
    region.in_strides = {g.kv_heads * g.past_len * size, g.past_len * size, size, 1};
    region.out_strides = out_strides;
    copy.record(r.cmd(), r.arena(), region, DataType::Float32, *past, out);
  }
  const HeadStrides cur = head_strides(g.packed, g.kv_heads, g.new_kv_len, size);
  Region region;
  region.shape = {g.batch, g.kv_heads, g.new_kv_len, size};
  region.in_strides = {cur.batch, cur.head, cur.row, 1};
  region.out_offset = g.past_len * size;
  region.out_strides = out_strides;
  copy.record(r.cmd(), r.arena(), region, DataType::Float32, current, out);
}

constexpr size_t kMaskInput = 3, kPastKey = 4, kPastValue = 5, kNonpad = 6;

// nonpad_kv_seqlen as int32 on the device, checked as the CPU kernel checks it (which reports
// bad values: RunOnCpu).
const Buffer& valid_lengths(OpRecorder& r, const AttentionGeometry& g) {
  const Tensor& t = r.input(kNonpad);
  if (t.impl()->device)
    throw RunOnCpu(RunTimeCause::InputValues,
                   "nonpad_kv_seqlen computed on the device cannot be checked");
  if (t.dtype() != DataType::Int64 || t.rank() != 1 || t.shape()[0] != g.batch)
    throw RunOnCpu(RunTimeCause::InputValues, "nonpad_kv_seqlen of the wrong type or shape");
  std::vector<int32_t> lengths;
  for (int64_t b = 0; b < g.batch; ++b) {
    const int64_t n = t.data<int64_t>()[b];
    if (n < 0 || n > g.total())
      throw RunOnCpu(RunTimeCause::InputValues, "nonpad_kv_seqlen outside [0, keys]");
    lengths.push_back(static_cast<int32_t>(n));
  }
  return r.upload(std::as_bytes(std::span(lengths)));
}

RecordFn attention(AttentionAttrs a, NodeRef node) {
  return [=](OpRecorder& r) {
    const bool has_past = r.has_input(kPastKey) && r.has_input(kPastValue);
    const AttentionGeometry g =
        resolve_attention(*node.node, a, r.shape(0), r.shape(1), r.shape(2),
                          r.has_input(kPastKey) ? &r.shape(kPastKey) : nullptr,
                          r.has_input(kPastValue) ? &r.shape(kPastValue) : nullptr);
    if (r.dtype(1) != r.dtype(0) ||
        (has_past && (r.dtype(kPastKey) != r.dtype(1) || r.dtype(kPastValue) != r.dtype(2))))
      throw RunOnCpu(RunTimeCause::InputKind, "operands of differing element types");
    Float32Io io(r);
    AttentionProblem p;
    p.g = g;
    p.q = head_strides(g.packed, g.q_heads, g.q_len, g.head_size);
    p.y = head_strides(g.packed, g.q_heads, g.q_len, g.v_head_size);
    p.scale = a.has_scale ? a.scale : 1.0f / std::sqrt(static_cast<float>(g.head_size));
    p.softcap = a.softcap;
    p.causal = a.is_causal;
    p.causal_offset = g.past_len;
    AttentionBuffers b;
    if (r.has_input(kMaskInput)) {
      p.mask_layout = resolve_attention_mask(*node.node, g, r.shape(kMaskInput));
      p.mask = r.dtype(kMaskInput) == DataType::Bool ? MaskKind::Bool : MaskKind::Float;
      b.mask = &io.input(kMaskInput);
    }
    if (r.has_input(kNonpad)) {
      p.padded = true;
      b.valid = &valid_lengths(r, g);
    }
    b.q = &io.input(0);
    b.y = &io.output(0, r.dtype(0), g.y_shape());
    // The keys and values: in place without a cache, else the present ones (outputs 1 and 2,
    // or scratch when the graph leaves them out).
    const bool present = has_past || r.num_outputs() > 1;
    if (present) {
      auto cache = [&](size_t out, size_t past, size_t current, int64_t size) -> const Buffer& {
        const Shape shape = g.present_shape(size);
        const Buffer& dest = r.num_outputs() > out
                                 ? io.output(out, r.dtype(current), shape)
                                 : io.scratch(static_cast<uint64_t>(shape.element_count()));
        build_present(r, g, has_past ? &io.input(past) : nullptr, io.input(current), size, dest);
        return dest;
      };
      b.k = &cache(1, kPastKey, 1, g.head_size);
      b.v = &cache(2, kPastValue, 2, g.v_head_size);
      p.k = head_strides(false, g.kv_heads, g.total(), g.head_size);
      p.v = head_strides(false, g.kv_heads, g.total(), g.v_head_size);
    } else {
      b.k = &io.input(1);
      b.v = &io.input(2);
      p.k = head_strides(g.packed, g.kv_heads, g.new_kv_len, g.head_size);
      p.v = head_strides(g.packed, g.kv_heads, g.new_kv_len, g.v_head_size);
    }
    const int64_t rows = g.batch * g.q_heads * g.q_len;
    b.probs = &io.scratch(static_cast<uint64_t>(rows * g.total()));
    if (r.num_outputs() > 3) {
      b.scores = &io.output(3, r.dtype(0), g.scores_shape());
      p.scores_stage = static_cast<uint32_t>(a.qk_output_mode);
      if (rows * g.total() == 0) b.scores = nullptr;
    }
    r.add_work(static_cast<uint64_t>(rows * g.total() * (g.head_size + g.v_head_size)));
    r.kernel<AttentionKernel>().record(r.cmd(), r.arena(), p, b);
    io.finish();
  };
}

RecordFn attention_factory(const DevicePlacementQuery& q, std::string& reason) {
  const std::initializer_list<DataType> floats = {DataType::Float32, DataType::Float16,
                                                  DataType::BFloat16};
  if (!inputs_are(q, floats, reason, 0, 3) ||
      !inputs_are(q, {DataType::Float32, DataType::Float16, DataType::BFloat16, DataType::Bool},
                  reason, kMaskInput, 1) ||
      !inputs_are(q, floats, reason, kPastKey, 2) ||
      !inputs_are(q, {DataType::Int64}, reason, kNonpad, 1))
    return nullptr;
  return attention(parse_attention_attrs(q.info), NodeRef(q.info));
}

}  // namespace

KILN_GPU_COMPUTE_OPS(attention);
void register_attention_ops(OpTable& t) { t.add("Attention", attention_factory); }

}  // namespace kiln::gpu_compute
