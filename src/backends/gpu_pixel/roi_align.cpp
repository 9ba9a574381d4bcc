// RoiAlign as a draw for float32 maps. The attributes, the checks and each region's bilinear
// samples are the definition's (opdefs/roi_align.h), planned on the host from the host-held rois
// and batch_indices (as the CPU kernel plans them); the samples travel as textures (positions and
// region records in an integer texture, weights in a float one) and each fragment pools its
// (region, channel, bin) elements in the CPU kernel's order. Regions a draw made are downloaded
// first, since their samples are planned from their values.
#include <algorithm>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/texture.h"
#include "opdefs/roi_align.h"

namespace kiln::gpu_pixel {
namespace {

// The average or (with MAX_MODE) the largest weighted corner of the bin's samples, as the
// reference defines max mode.
constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform highp isampler2D pos;     // 4 plane positions per sample
uniform int pos_width;
uniform highp sampler2D weight;   // 4 weights per sample
uniform int weight_width;
uniform highp isampler2D region;  // 3 per region: batch index, first sample, samples per bin
uniform int region_width;
uniform int u_channels;
uniform int u_bins;   // output_height * output_width
uniform int u_plane;  // H * W

float corner(int base, int s) {
  return fetch_element(weight, weight_width, s) *
         fetch_element(x, x_width, base + fetch_element(pos, pos_width, s));
}

float element(int e) {
  int bin = e % u_bins;
  int c = (e / u_bins) % u_channels;
  int r = e / (u_bins * u_channels);
  int base = (fetch_element(region, region_width, 3 * r) * u_channels + c) * u_plane;
  int per_bin = fetch_element(region, region_width, 3 * r + 2);
  int first = fetch_element(region, region_width, 3 * r + 1) + bin * per_bin;
  float acc = 0.0;
  for (int k = 0; k < per_bin; ++k) {
    int s = 4 * (first + k);
    float v0 = corner(base, s);
    float v1 = corner(base, s + 1);
    float v2 = corner(base, s + 2);
    float v3 = corner(base, s + 3);
#if defined(MAX_MODE)
    float m = max(max(v0, v1), max(v2, v3));
    acc = k == 0 ? m : max(acc, m);
#else
    acc += v0 + v1 + v2 + v3;
#endif
  }
#if defined(MAX_MODE)
  return acc;
#else
  return acc / float(max(per_bin, 1));
#endif
}
)";

// Every region's samples in one list: `pos` and `weights` 4 per sample, `regions` 3 per region.
struct RoiSamples {
  std::vector<int32_t> pos;
  std::vector<float> weights;
  std::vector<int32_t> regions;
  int64_t most_per_bin = 0;
};

RoiSamples flatten(const std::vector<RoiPlan>& plans, const std::vector<int64_t>& batch) {
  RoiSamples s;
  for (size_t k = 0; k < plans.size(); ++k) {
    const int64_t per_bin = plans[k].grid_h * plans[k].grid_w;
    s.most_per_bin = std::max(s.most_per_bin, per_bin);
    s.regions.push_back(static_cast<int32_t>(batch[k]));
    s.regions.push_back(static_cast<int32_t>(s.pos.size() / 4));
    s.regions.push_back(static_cast<int32_t>(per_bin));
    for (const RoiSample& sample : plans[k].samples) {
      for (int j = 0; j < 4; ++j) {
        s.pos.push_back(static_cast<int32_t>(sample.pos[j]));
        s.weights.push_back(static_cast<float>(sample.w[j]));
      }
    }
    if (s.pos.size() / 4 > INT32_MAX / 4)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the samples exceed 32-bit indexing");
  }
  // A zero-weight sample pads an empty list: textures cannot be empty.
  if (s.pos.empty()) {
    s.pos.assign(4, 0);
    s.weights.assign(4, 0.0f);
  }
  return s;
}

class RoiAlignDraw {
 public:
  explicit RoiAlignDraw(Context& context) : context_(context) {}

  void record(const TextureTensor& x, const Shape& x_shape, const RoiSamples& s,
              const RoiAlignAttrs& attrs, TextureTensor& y) const {
    if (y.element_count() == 0) return;
    TextureTensor pos(context_, static_cast<int64_t>(s.pos.size()), TextureFormat::Rgba32I);
    upload(pos, s.pos);
    TextureTensor weight(context_, static_cast<int64_t>(s.weights.size()));
    upload(weight, s.weights);
    TextureTensor region(context_, static_cast<int64_t>(s.regions.size()), TextureFormat::Rgba32I);
    upload(region, s.regions);
    ProgramVariant variant;
    variant.add(attrs.max_mode, "MAX_MODE");
    const Program& program = context_.programs().get("roi_align", variant.name, variant.defines,
                                                     std::string(kShader) + kElementMain);
    const DrawInput inputs[] = {{"x", &x}, {"pos", &pos}, {"weight", &weight}, {"region", &region}};
    draw(
        context_, program, y, inputs,
        [&] {
          program.set("u_channels", static_cast<int>(x_shape[1]));
          program.set("u_bins", static_cast<int>(attrs.out_h * attrs.out_w));
          program.set("u_plane", static_cast<int>(x_shape[2] * x_shape[3]));
        },
        4 * s.most_per_bin);
  }

 private:
  Context& context_;
};

OpFactory roi_align_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const RoiAlignAttrs attrs = parse_roi_align_attrs(q.info);
    if (!float_inputs(q, reason, 0, 2) || !host_inputs(q, 2, reason)) return nullptr;
    const Shape* x = static_input_shape(q, 0);
    if (x && x->size() != 4) {
      reason = "an input that is not (N, C, H, W) (the CPU kernel reports it)";
      return nullptr;
    }
    return [attrs, node = NodeRef(q.info)](OpRecorder& r) {
      // The samples are planned from the regions' values: rois or batch_indices a draw made are
      // downloaded first.
      std::vector<Tensor> inputs;
      for (size_t k = 0; k < r.num_inputs(); ++k)
        inputs.push_back(k == 0 || !r.has_input(k) ? r.input(k) : r.host(k));
      const NodeInputs in{*node.node, inputs};
      const RoiAlignRun run = resolve_roi_align(in, attrs);
      const Shape& xs = r.shape(0);
      if (run.out_shape.element_count() > INT32_MAX || xs.element_count() > INT32_MAX)
        throw RunOnCpu(RunTimeCause::DeviceLimit, "a tensor exceeds 32-bit indexing");
      TextureTensor& y = r.output(0, run.out_shape);
      if (run.out_shape.element_count() == 0) return;
      const RoiSamples samples = flatten(plan_roi_align(in, attrs, xs[2], xs[3]), run.batch);
      r.kernel<RoiAlignDraw>().record(r.texture(0), xs, samples, attrs, y);
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(roi_align);
void register_roi_align_ops(OpTable& t) { t.add("RoiAlign", roi_align_factory()); }

}  // namespace kiln::gpu_pixel
