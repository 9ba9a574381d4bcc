// MelWeightMatrix on the GPU-pixel backend: a float32 matrix from the filter edges its
// definition (opdefs/mel_weight_matrix.h) resolves for the CPU kernel too, from the five host
// scalars; the edges reach the draw as a uniform array, so up to 126 filters. Other output
// types and more filters stay on the CPU.
//
// One draw: element (bin j, filter m) is the filter's rising or falling side at j, in float
// (the quotient of two small integers, rounded once as the CPU's double one rounded to float).
//
// The family in one file: the kernel and, at the end, the adapter that places ONNX nodes on it.
#include <array>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "opdefs/mel_weight_matrix.h"
#include "opdefs/signal.h"

namespace kiln::gpu_pixel {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr int64_t kMaxEdges = 128;

constexpr const char* kShader = R"(
uniform int u_mel_bins;
uniform int u_edges[128];

float element(int e) {
  int j = e / u_mel_bins;
  int m = e - j * u_mel_bins;
  int left = u_edges[m];
  int center = u_edges[m + 1];
  int right = u_edges[m + 2];
  float w = 0.0;
  if (j >= left && j <= center) {
    w = center == left ? 1.0 : float(j - left) / float(center - left);
  }
  if (j >= center && j < right) w = float(right - j) / float(right - center);
  return w;
}
)";

class MelWeightMatrix {
 public:
  explicit MelWeightMatrix(Context& context) : context_(context) {}

  void record(const MelFilters& plan, TextureTensor& y) const {
    expect_element_count(y, plan.spectrum_bins * plan.mel_bins, "MelWeightMatrix on OpenGL ES",
                         "output");
    if (y.element_count() == 0) return;
    std::array<int, kMaxEdges> edges{};
    for (size_t i = 0; i < plan.edges.size(); ++i) edges[i] = static_cast<int>(plan.edges[i]);
    const Program& program =
        context_.programs().get("mel_weight_matrix", "", "", std::string(kShader) + kElementMain);
    draw(context_, program, y, {}, [&] {
      program.set("u_mel_bins", static_cast<int>(plan.mel_bins));
      program.set("u_edges", edges);
    });
  }

 private:
  Context& context_;
};

// ---- The adapter -----------------------------------------------------------------------------

RecordFn mel_weight_matrix(const NodeInfo& info) {
  return [node = NodeRef(info)](OpRecorder& r) {
    const std::vector<Tensor> inputs = r.rule_inputs({0, 1, 2, 3, 4});
    const MelFilters plan = resolve_mel_filters(NodeInputs{*node.node, inputs});
    if (static_cast<int64_t>(plan.edges.size()) > kMaxEdges)
      throw RunOnCpu(RunTimeCause::InputValues,
                     "more than " + std::to_string(kMaxEdges - 2) + " mel filters");
    if (plan.spectrum_bins * plan.mel_bins > kIndexLimit)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the matrix exceeds 32-bit indexing");
    r.kernel<MelWeightMatrix>().record(plan, r.output(0, Shape{plan.spectrum_bins, plan.mel_bins}));
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(mel_weight_matrix);
void register_mel_weight_matrix_ops(OpTable& t) {
  t.add("MelWeightMatrix", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!host_inputs(q, 0, reason)) return nullptr;
    const DataType out = output_datatype_attr(q.info);
    if (out != DataType::Float32) {
      reason = std::string(dtype_name(out)) + " outputs stay on the CPU (the draw writes float32)";
      return nullptr;
    }
    return mel_weight_matrix(q.info);
  });
}

}  // namespace kiln::gpu_pixel
