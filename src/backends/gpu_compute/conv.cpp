#include "backends/gpu_compute/conv.h"

#include <span>
#include <string>

#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {

constexpr uint32_t kWorkgroupSize = 64;
// The register blocks of the shaders: output channels x pixels along x.
constexpr uint64_t kBlockChannels = 8, kBlockPixels = 8;  // conv.comp, conv_transpose.comp
constexpr uint64_t kDepthwisePixels = 8;                  // conv_depthwise.comp

uint32_t narrow(int64_t v, const std::string& what) {
  check(v >= 0 && v <= int64_t{UINT32_MAX},
        "conv on the GPU: " + what + " " + std::to_string(v) + " is out of range");
  return static_cast<uint32_t>(v);
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Pixel tiles of `blocked` pixels along x over spatial dims `dims` (padded to 3).
uint64_t pixel_tiles(const uint32_t dims[3], uint64_t blocked) {
  return uint64_t{dims[0]} * dims[1] * ceil_div(dims[2], blocked);
}

// 0 for the general depthwise kernel, else 1 + (kernel 5 wide ? 2 : 0) + (stride 2 ? 1 : 0) for
// the row-window variants, which need no dilation along x.
size_t depthwise_variant(const ConvPushConstants& pc) {
  const uint32_t kw = pc.kernel[2], s = pc.stride[2];
  if (pc.dilation[2] != 1 || (kw != 3 && kw != 5) || (s != 1 && s != 2)) return 0;
  return 1 + (kw == 5 ? 2 : 0) + (s == 2 ? 1 : 0);
}

// 0 for the general implicit GEMM, else the stride (1 or 2) for the row-window variants for
// kernels 3 wide with no dilation along x.
size_t general_variant(const ConvPushConstants& pc) {
  const uint32_t s = pc.stride[2];
  if (pc.dilation[2] != 1 || pc.kernel[2] != 3 || (s != 1 && s != 2)) return 0;
  return s;
}

bool is_pointwise(const WindowGeometry& g) {
  for (size_t d = 0; d < g.rank(); ++d) {
    if (g.kernel[d] != 1 || g.stride[d] != 1 || g.pad[d] != 0 || g.out[d] != g.in[d]) {
      return false;
    }
  }
  return true;
}

void check_buffers(const Device& device, const ConvProblem& p, bool transpose, const Buffer& x,
                   const Buffer& w, const Buffer* bias, const Buffer& y) {
  const WindowGeometry& g = p.geometry;
  const int64_t x_positions = transpose ? g.out_size() : g.in_size();
  const int64_t y_positions = transpose ? g.in_size() : g.out_size();
  const int64_t w_elements = transpose
                                 ? p.in_channels * (p.out_channels / p.group) * g.kernel_size()
                                 : p.out_channels * (p.in_channels / p.group) * g.kernel_size();
  const char* op = transpose ? "ConvTranspose on the GPU" : "Conv on the GPU";
  check_float_buffer(device, x, p.batch * p.in_channels * x_positions,
                     (std::string(op) + ": X").c_str());
  check_float_buffer(device, w, w_elements, (std::string(op) + ": W").c_str());
  if (bias) check_float_buffer(device, *bias, p.out_channels, (std::string(op) + ": B").c_str());
  check_float_buffer(device, y, p.batch * p.out_channels * y_positions,
                     (std::string(op) + ": Y").c_str());
}

// Binds x, w, bias, y and the residual for the Conv shaders (x stands in for a missing bias or
// residual: the shader does not read it).
VkDescriptorSet bind(DescriptorArena& arena, const ComputePipeline& pipeline, const Buffer& x,
                     const Buffer& w, const Buffer* bias, const Buffer& y, const Buffer* residual) {
  const Buffer* buffers[] = {&x, &w, bias ? bias : &x, &y, residual ? residual : &x};
  return arena.bind(pipeline, buffers);
}

}  // namespace

bool conv_supported(const ConvProblem& problem) {
  const size_t rank = problem.geometry.rank();
  return rank >= 1 && rank <= kConvMaxSpatialRank;
}

ConvPushConstants conv_push_constants(const ConvProblem& problem, bool has_bias,
                                      const ActivationParams& activation) {
  const WindowGeometry& g = problem.geometry;
  const size_t rank = g.rank();
  check(conv_supported(problem),
        "conv on the GPU: " + std::to_string(rank) + " spatial axes; 1 to 3 are supported");
  check(g.out.size() == rank && g.kernel.size() == rank && g.stride.size() == rank &&
            g.dilation.size() == rank && g.pad.size() == rank,
        "conv on the GPU: the geometry's per-axis values differ in length");
  check(problem.group >= 1 && problem.in_channels % problem.group == 0 &&
            problem.out_channels % problem.group == 0,
        "conv on the GPU: group " + std::to_string(problem.group) + " must divide the " +
            std::to_string(problem.in_channels) + " input and " +
            std::to_string(problem.out_channels) + " output channels");
  check(activation.kind <= Activation::kSilu, "conv on the GPU: unknown activation");
  ConvPushConstants pc;
  const size_t first = kConvMaxSpatialRank - rank;
  for (size_t d = 0; d < rank; ++d) {
    const std::string axis = " of axis " + std::to_string(d);
    check(g.kernel[d] >= 1 && g.stride[d] >= 1 && g.dilation[d] >= 1,
          "conv on the GPU: kernel, stride and dilation must be >= 1 (axis " + std::to_string(d) +
              ")");
    pc.in[first + d] = narrow(g.in[d], "size" + axis);
    pc.out[first + d] = narrow(g.out[d], "size" + axis);
    pc.kernel[first + d] = narrow(g.kernel[d], "kernel" + axis);
    pc.stride[first + d] = narrow(g.stride[d], "stride" + axis);
    pc.dilation[first + d] = narrow(g.dilation[d], "dilation" + axis);
    check(g.pad[d] >= INT32_MIN && g.pad[d] <= INT32_MAX,
          "conv on the GPU: pad" + axis + " is out of range");
    pc.pad[first + d] = static_cast<int32_t>(g.pad[d]);
  }
  pc.in_channels_per_group = narrow(problem.in_channels / problem.group, "channels per group");
  pc.out_channels_per_group = narrow(problem.out_channels / problem.group, "channels per group");
  pc.groups = narrow(problem.group, "group");
  pc.has_bias = has_bias ? 1 : 0;
  pc.activation = static_cast<uint32_t>(activation.kind);
  pc.act_min = activation.min;
  pc.act_max = activation.max;
  return pc;
}

Conv::Conv(Device& device) : device_(device), matmul_(device) {
  for (std::span<const uint32_t> spirv :
       {shaders::conv(), shaders::conv_k3s1(), shaders::conv_k3s2()}) {
    general_.push_back(std::make_unique<ComputePipeline>(
        device, PipelineDesc{spirv, 5, sizeof(ConvPushConstants), kWorkgroupSize}));
  }
  for (std::span<const uint32_t> spirv :
       {shaders::conv_depthwise(), shaders::conv_depthwise_k3s1(), shaders::conv_depthwise_k3s2(),
        shaders::conv_depthwise_k5s1(), shaders::conv_depthwise_k5s2()}) {
    depthwise_.push_back(std::make_unique<ComputePipeline>(
        device, PipelineDesc{spirv, 5, sizeof(ConvPushConstants), kWorkgroupSize}));
  }
}

void Conv::record(VkCommandBuffer cmd, DescriptorArena& arena, const ConvProblem& problem,
                  const Buffer& x, const Buffer& w, const Buffer* bias, const Buffer& y,
                  const ActivationParams& activation, const Buffer* residual) const {
  ConvPushConstants pc = conv_push_constants(problem, bias != nullptr, activation);
  pc.has_residual = residual ? 1 : 0;
  const WindowGeometry& g = problem.geometry;
  const int64_t y_elements = problem.batch * problem.out_channels * g.out_size();
  if (y_elements == 0) return;
  check_buffers(device_, problem, false, x, w, bias, y);
  if (residual) check_float_buffer(device_, *residual, y_elements, "Conv on the GPU: residual");
  const int64_t cg = problem.in_channels / problem.group;
  const int64_t mg = problem.out_channels / problem.group;
  const Buffer* written[] = {&y};

  if (is_pointwise(g)) {
    // Y[b, g] [mg, pixels] = W_g [mg, cg] x X[b, g] [cg, pixels], the bias along the rows.
    const int64_t pixels = g.in_size();
    MatMulProblem mm;
    mm.m = mg;
    mm.n = pixels;
    mm.k = cg;
    mm.batch = Shape{problem.batch, problem.group};
    mm.a_batch_strides = {0, mg * cg};
    mm.b_batch_strides = {problem.in_channels * pixels, cg * pixels};
    mm.a_row_stride = cg;
    mm.b_row_stride = pixels;
    mm.out_shape = Shape{problem.batch, problem.group, mg, pixels};
    mm.a_elements = problem.out_channels * cg;
    mm.b_elements = problem.batch * problem.in_channels * pixels;
    MatMulAddend addend;
    addend.batch_strides = {0, mg};
    addend.row_stride = 1;
    addend.elements = problem.out_channels;
    matmul_.record(cmd, arena, mm, w, x, y, {bias ? &addend : nullptr, bias, activation, residual});
    return;
  }

  const uint32_t batch = narrow(problem.batch, "batch");
  if (cg == 1) {
    const ComputePipeline& pipeline = *depthwise_[depthwise_variant(pc)];
    const uint64_t tiles = pixel_tiles(pc.out, kDepthwisePixels) * problem.out_channels;
    record_dispatch(cmd, pipeline, bind(arena, pipeline, x, w, bias, y, residual),
                    std::as_bytes(std::span(&pc, 1)),
                    batched_groups(device_, pipeline, tiles, batch), written);
    return;
  }
  const uint64_t tiles =
      pixel_tiles(pc.out, kBlockPixels) * ceil_div(static_cast<uint64_t>(mg), kBlockChannels);
  const ComputePipeline& pipeline = *general_[general_variant(pc)];
  record_dispatch(cmd, pipeline, bind(arena, pipeline, x, w, bias, y, residual),
                  std::as_bytes(std::span(&pc, 1)),
                  batched_groups(device_, pipeline, tiles,
                                 narrow(problem.batch * problem.group, "batch * group")),
                  written);
}

ConvTranspose::ConvTranspose(Device& device)
    : device_(device),
      pipeline_(device, PipelineDesc{shaders::conv_transpose(), 4, sizeof(ConvPushConstants),
                                     kWorkgroupSize}) {}

void ConvTranspose::record(VkCommandBuffer cmd, DescriptorArena& arena, const ConvProblem& problem,
                           const Buffer& x, const Buffer& w, const Buffer* bias, const Buffer& y,
                           const ActivationParams& activation) const {
  const ConvPushConstants pc = conv_push_constants(problem, bias != nullptr, activation);
  if (problem.batch * problem.out_channels * problem.geometry.in_size() == 0) return;
  check_buffers(device_, problem, true, x, w, bias, y);
  const uint64_t tiles =
      pixel_tiles(pc.in, kBlockPixels) *
      ceil_div(static_cast<uint64_t>(problem.out_channels / problem.group), kBlockChannels);
  const Buffer* written[] = {&y};
  // conv_transpose.comp has no residual binding.
  const Buffer* buffers[] = {&x, &w, bias ? bias : &x, &y};
  record_dispatch(cmd, pipeline_, arena.bind(pipeline_, buffers), std::as_bytes(std::span(&pc, 1)),
                  batched_groups(device_, pipeline_, tiles,
                                 narrow(problem.batch * problem.group, "batch * group")),
                  written);
}

}  // namespace kiln::gpu_compute
