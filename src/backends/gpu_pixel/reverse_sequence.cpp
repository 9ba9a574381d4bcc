// ReverseSequence on the GPU-pixel backend: data of any float-texture dtype, the lengths its
// definition (opdefs/reverse_sequence.h) resolves for the CPU kernel too, read from the host
// (sequence_lens is an index tensor) into a uniform array. Batches beyond that array stay on the
// CPU.
//
// One draw: output element (b, t, rest) reads step len_b - 1 - t of its batch entry for t below
// len_b, and step t otherwise.
//
// The family in one file: the kernel and, at the end, the adapter that places ONNX nodes on it.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "opdefs/reverse_sequence.h"

namespace kiln::gpu_pixel {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

// The lengths travel as uniforms: a batch of up to this many entries.
constexpr int64_t kMaxBatch = 64;

constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform int u_dim1;   // the size of axis 1
uniform int u_inner;  // elements per (axis 0, axis 1) index
uniform int u_batch_axis;
uniform int u_lengths[64];

float element(int e) {
  int outer = e / u_inner;
  int rest = e - outer * u_inner;
  int i0 = outer / u_dim1;
  int i1 = outer - i0 * u_dim1;
  int b = u_batch_axis == 0 ? i0 : i1;
  int t = u_batch_axis == 0 ? i1 : i0;
  int len = u_lengths[b];
  int source = t < len ? len - 1 - t : t;
  int s0 = u_batch_axis == 0 ? i0 : source;
  int s1 = u_batch_axis == 0 ? source : i1;
  return fetch_element(x, x_width, (s0 * u_dim1 + s1) * u_inner + rest);
}
)";

class ReverseSequence {
 public:
  explicit ReverseSequence(Context& context) : context_(context) {}

  void record(const reverse_sequence::Axes& a, const Shape& shape,
              const std::vector<int64_t>& lengths, const TextureTensor& x, TextureTensor& y) const {
    const std::string where = "ReverseSequence on OpenGL ES";
    expect_element_count(x, shape.element_count(), where, "input");
    expect_element_count(y, shape.element_count(), where, "output");
    if (y.element_count() == 0) return;
    int64_t inner = 1;
    for (size_t d = 2; d < shape.size(); ++d) inner *= shape[d];
    std::array<int, kMaxBatch> uniform_lengths{};
    for (size_t b = 0; b < lengths.size(); ++b) uniform_lengths[b] = static_cast<int>(lengths[b]);
    const Program& program =
        context_.programs().get("reverse_sequence", "", "", std::string(kShader) + kElementMain);
    const DrawInput inputs[] = {{"x", &x}};
    draw(context_, program, y, inputs, [&] {
      program.set("u_dim1", static_cast<int>(shape[1]));
      program.set("u_inner", static_cast<int>(std::max<int64_t>(inner, 1)));
      program.set("u_batch_axis", static_cast<int>(a.batch));
      program.set("u_lengths", uniform_lengths);
    });
  }

 private:
  Context& context_;
};

// ---- The adapter -----------------------------------------------------------------------------

RecordFn reverse_sequence_op(const NodeInfo& info) {
  return [node = NodeRef(info), axes = reverse_sequence::parse_axes(info)](OpRecorder& r) {
    const std::vector<Tensor> inputs = r.rule_inputs({1});
    const std::vector<int64_t> lengths =
        reverse_sequence::resolve_lengths(NodeInputs{*node.node, inputs}, axes);
    if (static_cast<int64_t>(lengths.size()) > kMaxBatch)
      throw RunOnCpu(RunTimeCause::DeviceLimit,
                     "a batch of more than " + std::to_string(kMaxBatch) + " sequences");
    const Shape& shape = r.shape(0);
    if (shape.element_count() > kIndexLimit)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensor exceeds 32-bit indexing");
    TextureTensor& y = r.output(0, shape, r.input(0).dtype());
    if (shape.element_count() == 0) return;
    r.kernel<ReverseSequence>().record(axes, shape, lengths, r.texture(0), y);
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(reverse_sequence);
void register_reverse_sequence_ops(OpTable& t) {
  t.add("ReverseSequence", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!host_inputs(q, 1, reason)) return nullptr;
    // The draw samples the float textures; int32, uint32 and int64 live in integer ones.
    if (const std::optional<size_t> k = input_outside_dtypes(q, float_texel_dtypes(), 0, 1)) {
      reason = std::string(dtype_name(q.input_types[*k])) +
               " data lives in integer textures, which the ReverseSequence draw does not read";
      return nullptr;
    }
    const reverse_sequence::Axes axes = reverse_sequence::parse_axes(q.info);
    const Shape* x = static_input_shape(q, 0);
    if (x && x->size() >= 2 && (*x)[static_cast<size_t>(axes.batch)] > kMaxBatch) {
      reason = "a batch of more than " + std::to_string(kMaxBatch) + " sequences";
      return nullptr;
    }
    return reverse_sequence_op(q.info);
  });
}

}  // namespace kiln::gpu_pixel
