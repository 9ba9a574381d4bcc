#include "backends/vulkan/conv.h"

#include <string>

#include "backends/vulkan/shaders.h"
#include "kiln/error.h"

namespace kiln::vulkan {
namespace {

uint32_t narrow(int64_t v, const char* what) {
  check(v >= 0 && v <= INT32_MAX, std::string("Conv on the GPU: ") + what +
                                      " exceeds 32-bit indexing");
  return static_cast<uint32_t>(v);
}

}  // namespace

ConvProblem conv_problem(const Shape& x, int64_t out_channels, const cpu::ConvGeometry& g,
                         int64_t group, bool has_bias, Activation act, float lo, float hi) {
  const size_t rank = g.rank();
  check(rank == 1 || rank == 2, "Conv on the GPU: " + std::to_string(rank) +
                                    " spatial axes (the kernels take 1 or 2)");
  // A 1-D convolution is a 2-D one over images of height 1.
  auto at = [&](const Shape& s, size_t axis, int64_t one) {
    return rank == 1 ? (axis == 0 ? one : s[0]) : s[axis];
  };
  ConvProblem p;
  ConvPushConstants& pc = p.pc;
  pc.groups = narrow(group, "group");
  pc.cin_g = narrow(x[1] / group, "channels");
  pc.cout_g = narrow(out_channels / group, "channels");
  pc.H = narrow(at(g.in, 0, 1), "height");
  pc.W = narrow(at(g.in, 1, 1), "width");
  pc.OH = narrow(at(g.out, 0, 1), "height");
  pc.OW = narrow(at(g.out, 1, 1), "width");
  pc.KH = narrow(at(g.kernel, 0, 1), "kernel");
  pc.KW = narrow(at(g.kernel, 1, 1), "kernel");
  pc.sh = narrow(at(g.stride, 0, 1), "stride");
  pc.sw = narrow(at(g.stride, 1, 1), "stride");
  pc.dh = narrow(at(g.dilation, 0, 1), "dilation");
  pc.dw = narrow(at(g.dilation, 1, 1), "dilation");
  pc.ph = static_cast<int32_t>(at(g.pad, 0, 0));
  pc.pw = static_cast<int32_t>(at(g.pad, 1, 0));
  pc.has_bias = has_bias ? 1 : 0;
  pc.act = static_cast<uint32_t>(act);
  pc.lo = lo;
  pc.hi = hi;
  p.batch = narrow(x[0], "batch");
  p.out_shape = Shape{x[0], out_channels};
  for (int64_t d : g.out) p.out_shape.push_back(d);
  narrow(p.out_shape.element_count(), "the output");
  narrow(x.element_count(), "the input");
  if (pc.cin_g == 1 && group > 1) {
    p.path = ConvPath::Depthwise;
  } else if (group == 1 && pc.KH == 1 && pc.KW == 1 && pc.sh == 1 && pc.sw == 1 && pc.ph == 0 &&
             pc.pw == 0 && pc.OH == pc.H && pc.OW == pc.W) {
    p.path = ConvPath::Pointwise;
  }
  return p;
}

Conv::Conv(Device& device)
    : device_(device),
      direct_(device, PipelineDesc{shaders::conv2d(), 4, sizeof(ConvPushConstants), 64}),
      depthwise_(device,
                 PipelineDesc{shaders::conv_depthwise(), 4, sizeof(ConvPushConstants), 256}),
      matmul_(device) {}

void Conv::record(VkCommandBuffer cmd, DescriptorArena& arena, const ConvProblem& p,
                  const Buffer& x, const Buffer& w, const Buffer* bias, const Buffer& y) const {
  const uint64_t count = p.out_shape.element_count();
  if (count == 0) return;
  check(y.size() >= count * sizeof(float), "Conv on the GPU: the output buffer is too small");
  const ConvPushConstants& pc = p.pc;
  const uint32_t pixels = pc.OH * pc.OW;
  if (p.path == ConvPath::Pointwise) {
    // Y[n] (Cout x HW) = W (Cout x Cin) * X[n] (Cin x HW), bias per row.
    MatMulProblem mm;
    mm.pc.M = pc.cout_g;
    mm.pc.N = pixels;
    mm.pc.K = pc.cin_g;
    mm.pc.batch_inner = p.batch;
    mm.pc.a_rs = pc.cin_g;
    mm.pc.a_cs = 1;
    mm.pc.b_s1 = pc.cin_g * pixels;
    mm.pc.b_rs = pixels;
    mm.pc.b_cs = 1;
    mm.pc.c_s1 = pc.cout_g * pixels;
    mm.pc.has_bias = pc.has_bias;
    mm.pc.bias_rs = 1;
    mm.pc.bias_cs = 0;
    mm.pc.act = pc.act;
    mm.pc.lo = pc.lo;
    mm.pc.hi = pc.hi;
    mm.batch = p.batch;
    mm.out_shape = p.out_shape;
    matmul_.record(cmd, arena, mm, w, x, bias, y);
    return;
  }
  check(p.batch <= device_.limits().maxComputeWorkGroupCount[2],
        "Conv on the GPU: a batch of " + std::to_string(p.batch) + " is too large");
  const ComputePipeline& pipeline = p.path == ConvPath::Depthwise ? depthwise_ : direct_;
  const Buffer* buffers[] = {&x, &w, bias ? bias : &w, &y};
  const VkDescriptorSet set = arena.bind(pipeline, buffers);
  uint64_t invocations = 0;
  GroupCount groups;
  if (p.path == ConvPath::Depthwise) {
    invocations = uint64_t{pc.groups} * pc.cout_g * pixels;
    groups = groups_for(device_, pipeline, invocations);
    groups.z = p.batch;
  } else {
    invocations = uint64_t{(pc.cout_g + 3) / 4} * ((pixels + 3) / 4);
    groups = groups_for(device_, pipeline, invocations);
    groups.z = p.batch * pc.groups;
    check(groups.z <= device_.limits().maxComputeWorkGroupCount[2],
          "Conv on the GPU: batch x group is too large");
  }
  const Buffer* written[] = {&y};
  record_dispatch(cmd, pipeline, set, std::as_bytes(std::span(&pc, 1)), groups, written);
}

}  // namespace kiln::vulkan
