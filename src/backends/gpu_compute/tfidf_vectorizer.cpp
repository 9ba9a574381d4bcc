// TfIdfVectorizer on the GPU (shaders/tfidf_vectorizer.comp) for int32 and int64 items and a pool
// of int64s, as its definition (opdefs/tfidf_vectorizer.h) reads the node: one invocation per
// output element counts its column's n-grams in its row. The n-grams, grouped by column, and the
// pool are a table built at load and uploaded with each run. Rows whose count would run more
// loop iterations than the shader's budget go to the CPU. A pool of strings stays on the CPU.
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/loop_budget.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "opdefs/tfidf_vectorizer.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

// Mirrors the shader's push-constant block.
struct TfIdfPushConstants {
  uint32_t count = 0, columns = 1, row_length = 0, wide = 0, mode = 0, has_weights = 0;
  uint32_t max_skip = 0, groups = 0;
  uint32_t first_at = 0, length_at = 0, offset_at = 0, pool_at = 0;
};
static_assert(sizeof(TfIdfPushConstants) <= kMaxPushConstantBytes);

class TfIdfVectorizer {
 public:
  explicit TfIdfVectorizer(Device& device)
      : device_(device),
        pipeline_(device,
                  PipelineDesc{shaders::tfidf_vectorizer(), 4, sizeof(TfIdfPushConstants), 64}) {}

  // y[count] from x, the table and the weights. Records nothing for an empty output.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const TfIdfPushConstants& pc,
              const Buffer& x, const Buffer& table, const Buffer& weights, const Buffer& y) const {
    const Buffer* buffers[] = {&x, &table, &weights, &y};
    record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

// The definition's n-grams as the shader's table (see the shader), with the constants that
// locate its sections.
struct NgramTable {
  std::vector<uint32_t> words;
  TfIdfPushConstants sections;  // groups and the section offsets
  // Per column group, its n-grams' lengths: what the loop budget is checked against per run.
  std::vector<std::vector<int64_t>> group_lengths;
};

NgramTable ngram_table(const TfIdfAttrs& a) {
  std::vector<size_t> order(a.ngrams.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&a](size_t i, size_t j) { return a.ngrams[i].column < a.ngrams[j].column; });
  NgramTable t;
  std::vector<uint32_t> columns, first, lengths, offsets;
  for (size_t k = 0; k < order.size(); ++k) {
    const TfIdfNgram& g = a.ngrams[order[k]];
    if (columns.empty() || columns.back() != static_cast<uint32_t>(g.column)) {
      columns.push_back(static_cast<uint32_t>(g.column));
      first.push_back(static_cast<uint32_t>(k));
      t.group_lengths.emplace_back();
    }
    lengths.push_back(static_cast<uint32_t>(g.length));
    offsets.push_back(static_cast<uint32_t>(g.offset));
    t.group_lengths.back().push_back(g.length);
  }
  first.push_back(static_cast<uint32_t>(order.size()));
  t.sections.groups = static_cast<uint32_t>(columns.size());
  t.words = columns;
  t.sections.first_at = static_cast<uint32_t>(t.words.size());
  t.words.insert(t.words.end(), first.begin(), first.end());
  t.sections.length_at = static_cast<uint32_t>(t.words.size());
  t.words.insert(t.words.end(), lengths.begin(), lengths.end());
  t.sections.offset_at = static_cast<uint32_t>(t.words.size());
  t.words.insert(t.words.end(), offsets.begin(), offsets.end());
  t.sections.pool_at = static_cast<uint32_t>(t.words.size());
  for (int64_t v : a.pool_ints) {
    const auto bits = static_cast<uint64_t>(v);
    t.words.push_back(static_cast<uint32_t>(bits));
    t.words.push_back(static_cast<uint32_t>(bits >> 32));
  }
  return t;
}

// Loop iterations of one invocation for rows of `length` items, its column's n-grams of
// `lengths`: the binary search, then per n-gram and skip distance a pass over the starts, each
// comparing up to n items. An upper bound, computed without overflow.
uint64_t loop_steps(const std::vector<int64_t>& lengths, int64_t length, int64_t max_skip) {
  uint64_t steps = 33 + lengths.size();  // the binary search over at most 2^32 columns, the loop
  if (length == 0) return steps;
  for (int64_t n : lengths) {
    const int64_t skips = n == 1 ? 1 : std::min(max_skip + 1, (length - 1) / (n - 1));
    steps += static_cast<uint64_t>(skips + 1) * (1 + static_cast<uint64_t>(length) * (n + 1));
    if (steps > kShaderLoopBudget) return steps;
  }
  return steps;
}

RecordFn tfidf_vectorizer(std::shared_ptr<const TfIdfAttrs> attrs,
                          std::shared_ptr<const NgramTable> table, NodeRef node) {
  return [attrs, table, node](OpRecorder& r) {
    const std::vector<Tensor> inputs = run_inputs(r);
    const TfIdfAttrs& a = *attrs;
    const TfIdfLayout l = resolve_tfidf(NodeInputs{*node.node, inputs}, a);
    const int64_t x_count = l.rows * l.length;
    const int64_t y_count = l.output.element_count();
    const bool wide = r.dtype(0) == DataType::Int64;
    if (y_count > INT32_MAX || x_count > INT32_MAX / 2)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "beyond 32-bit indexing");
    const int64_t max_skip = std::min(a.max_skip, l.length);
    for (const std::vector<int64_t>& lengths : table->group_lengths) {
      if (loop_steps(lengths, l.length, max_skip) > kShaderLoopBudget)
        throw RunOnCpu(RunTimeCause::DeviceLimit, "more comparisons than the shader's loop budget");
    }
    TfIdfPushConstants pc = table->sections;
    pc.count = static_cast<uint32_t>(y_count);
    pc.columns = static_cast<uint32_t>(std::max<int64_t>(a.columns, 1));
    pc.row_length = static_cast<uint32_t>(l.length);
    pc.wide = wide ? 1 : 0;
    pc.mode = static_cast<uint32_t>(a.weighting);
    pc.has_weights = a.weights.empty() ? 0 : 1;
    pc.max_skip = static_cast<uint32_t>(max_skip);
    const Buffer& y = r.output(0, DataType::Float32, l.output);
    r.add_work(static_cast<uint64_t>(y_count));
    if (y_count == 0) return;
    const Buffer& table_buffer = r.upload(std::as_bytes(std::span(table->words)));
    const float one = 1.0f;
    const Buffer& weights = a.weights.empty() ? r.upload(std::as_bytes(std::span(&one, 1)))
                                              : r.upload(std::as_bytes(std::span(a.weights)));
    // An empty X is never read (rows of no items count nothing): the table stands in for it.
    const Buffer& x = x_count == 0 ? table_buffer : r.buffer(0);
    r.kernel<TfIdfVectorizer>().record(r.cmd(), r.arena(), pc, x, table_buffer, weights, y);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(tfidf_vectorizer);
void register_tfidf_vectorizer_ops(OpTable& t) {
  t.add("TfIdfVectorizer", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    auto attrs = std::make_shared<TfIdfAttrs>();
    if (!attributes_accepted([&] { *attrs = parse_tfidf_attrs(q.info); }, reason)) return nullptr;
    if (attrs->string_pool) {
      reason = "a pool of strings stays on the CPU (the GPU kernel counts int32 and int64 items)";
      return nullptr;
    }
    if (!inputs_are(q, {DataType::Int32, DataType::Int64}, reason)) return nullptr;
    auto table = std::make_shared<const NgramTable>(ngram_table(*attrs));
    // The shader indexes the table in 32 bits.
    if (table->words.size() > INT32_MAX) {
      reason = "an n-gram pool beyond 32-bit indexing";
      return nullptr;
    }
    return tfidf_vectorizer(std::move(attrs), std::move(table), NodeRef(q.info));
  });
}

}  // namespace kiln::gpu_compute
