// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss on the GPU-pixel backend: float32 input
// and weights, int32 or int64 targets (host values: textures never hold those dtypes), every
// reduction and ignore_index, and SoftmaxCrossEntropyLoss's optional log_prob output. Their
// attributes and the [N, C, D] view come from their definition (opdefs/softmax.h).
//
// The targets become a float texture of class indices (-1 for an ignored sample), exact because
// the host checks that every class fits the texture's significand. SoftmaxCrossEntropyLoss first
// draws LogSoftmax over the class axis with the Softmax kernel (softmax.h), as the CPU kernel
// runs LogSoftmax and then the negative log-likelihood. Then:
//   reduction "none": a draw of every sample's -log_prob[target] * weight[target];
//   "sum" and "mean": a draw of (loss, weight) sums over chunks of about sqrt(samples) samples,
//   then a one-element draw of their totals (divided for "mean"), so no fragment loops over
//   every sample.
//
// The family in one file: the kernel and, at the end, the adapter that places ONNX nodes on it.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/folded_lines.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/softmax.h"
#include "kiln/error.h"
#include "opdefs/softmax.h"

namespace kiln::gpu_pixel {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

// One sample's (loss, weight): an ignored sample (class -1) weighs 0 and its input is never read.
constexpr const char* kSampleLoss = R"(
uniform highp sampler2D log_prob;
uniform int log_prob_width;
uniform highp sampler2D classes;
uniform int classes_width;
#ifdef WEIGHT
uniform highp sampler2D weight;
uniform int weight_width;
#endif
uniform int u_classes;
uniform int u_spatial;

vec2 sample_loss(int s) {
  float c = fetch_element(classes, classes_width, s);
  if (c < 0.0) return vec2(0.0);
  int k = int(c);
  int n = s / u_spatial;
  int d = s - n * u_spatial;
#ifdef WEIGHT
  float w = fetch_element(weight, weight_width, k);
#else
  float w = 1.0;
#endif
  return vec2(-fetch_element(log_prob, log_prob_width, (n * u_classes + k) * u_spatial + d) * w, w);
}
)";

// Reduction "none": every sample's loss.
constexpr const char* kPerSample = R"(
float element(int s) { return sample_loss(s).x; }
)";

// The (loss, weight) sums of chunk `line`: samples [line * u_chunk, (line + 1) * u_chunk).
constexpr const char* kChunkSums = R"(
uniform int u_samples;
uniform int u_chunk;

vec2 line_stats(int line) {
  vec2 acc = vec2(0.0);
  int end = min(u_samples, (line + 1) * u_chunk);
  for (int s = line * u_chunk; s < end; ++s) acc += sample_loss(s);
  return acc;
}
)";

// The chunks' totals; "mean" divides the losses by the weights, 0 / 0 (no or only ignored
// samples) giving NaN as on the CPU. GLSL leaves a division by zero unspecified, so it is spelled
// out.
constexpr const char* kTotal = R"(
uniform highp sampler2D sums;
uniform int sums_width;
uniform int u_chunks;

float element(int e) {
  float loss = 0.0;
  float total = 0.0;
  for (int k = 0; k < u_chunks; ++k) {
    loss += fetch_element(sums, sums_width, 2 * k);
    total += fetch_element(sums, sums_width, 2 * k + 1);
  }
#ifdef MEAN
  if (total == 0.0) {
    if (isnan(loss) || loss == 0.0) return nan_value();
    return loss > 0.0 ? inf_value() : -inf_value();
  }
  return loss / total;
#else
  return loss;
#endif
}
)";

struct LossDraw {
  LossGeometry geometry;
  LossReduction reduction = LossReduction::Mean;
};

class Loss {
 public:
  explicit Loss(Context& context) : context_(context) {}

  // `log_prob` holds samples * classes log-probabilities, `classes` each sample's class (-1:
  // ignored), `weight` C weights or nullptr; `out` holds samples losses ("none") or one.
  void record(const LossDraw& d, const TextureTensor& log_prob, const TextureTensor& classes,
              const TextureTensor* weight, TextureTensor& out) const {
    const LossGeometry& g = d.geometry;
    const std::string where = "NegativeLogLikelihoodLoss on OpenGL ES";
    expect_element_count(log_prob, g.samples() * g.classes, where, "the log-probabilities");
    expect_element_count(classes, g.samples(), where, "the classes");
    if (weight) expect_element_count(*weight, g.classes, where, "the weights");
    const bool per_sample = d.reduction == LossReduction::None;
    expect_element_count(out, per_sample ? g.samples() : 1, where, "the output");
    check(g.samples() * g.classes <= kIndexLimit, where + ": sizes exceed 32-bit indexing");

    ProgramVariant variant;
    variant.add(weight != nullptr, "WEIGHT");
    std::vector<DrawInput> inputs = {{"log_prob", &log_prob}, {"classes", &classes}};
    if (weight) inputs.push_back({"weight", weight});
    auto set_geometry = [&](const Program& p) {
      p.set("u_classes", static_cast<int>(g.classes));
      p.set("u_spatial", static_cast<int>(g.spatial));
    };
    if (per_sample) {
      const Program& program =
          context_.programs().get("loss", variant.name, variant.defines,
                                  std::string(kSampleLoss) + kPerSample + kElementMain);
      draw(context_, program, out, inputs, [&] { set_geometry(program); });
      return;
    }

    const int64_t samples = g.samples();
    const auto chunk = std::max<int64_t>(
        1, static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(samples)))));
    const int64_t chunks = (samples + chunk - 1) / chunk;  // samples > 0: the adapter checks
    TextureTensor sums(context_, 2 * chunks);
    const Program& chunk_program =
        context_.programs().get("loss_chunks", variant.name, variant.defines,
                                std::string(kSampleLoss) + kChunkSums + kLineStatsMain);
    draw(
        context_, chunk_program, sums, inputs,
        [&] {
          set_geometry(chunk_program);
          chunk_program.set("u_samples", static_cast<int>(samples));
          chunk_program.set("u_chunk", static_cast<int>(chunk));
        },
        kStatsLinesPerFragment * chunk);

    ProgramVariant total_variant;
    total_variant.add(d.reduction == LossReduction::Mean, "MEAN");
    const Program& total_program =
        context_.programs().get("loss_total", total_variant.name, total_variant.defines,
                                std::string(kTotal) + kElementMain);
    const DrawInput total_inputs[] = {{"sums", &sums}};
    draw(
        context_, total_program, out, total_inputs,
        [&] { total_program.set("u_chunks", static_cast<int>(chunks)); }, chunks);
  }

 private:
  Context& context_;
};

// ---- The adapter -----------------------------------------------------------------------------

// The [N, C, D] view the kernel takes, or nullopt with `why`: shapes the definition rejects (the
// CPU kernel reports them), an empty input, or one beyond 32-bit indexing.
std::optional<LossGeometry> covered_geometry(const Shape& x, const Shape& target,
                                             const Shape* weight, std::string& why) {
  const std::optional<LossGeometry> g = loss_geometry(x, target, weight, why);
  if (!g) return std::nullopt;
  const int64_t count = g->samples() * g->classes;
  if (count == 0 || count > kIndexLimit) {
    why = "an empty input or one beyond 32-bit indexing";
    return std::nullopt;
  }
  return g;
}

// Each sample's class as a float, -1 for an ignored one. RunOnCpu for targets computed on the
// device, and for a target that is neither a class nor the ignore_index (the CPU kernel reports
// it).
template <class Index>
std::vector<float> sample_classes(const Tensor& target, int64_t classes, const LossAttrs& a) {
  if (target.impl()->device)
    throw RunOnCpu(RunTimeCause::InputKind, "targets computed on the device, not host values");
  const Index* t = target.data<Index>();
  std::vector<float> out(static_cast<size_t>(target.element_count()));
  for (size_t s = 0; s < out.size(); ++s) {
    const auto cls = static_cast<int64_t>(t[s]);
    if (a.has_ignore_index && cls == a.ignore_index) {
      out[s] = -1.0f;
    } else if (cls < 0 || cls >= classes) {
      throw RunOnCpu(RunTimeCause::InputValues,
                     "a target is out of range; the CPU kernel reports it");
    } else {
      out[s] = static_cast<float>(cls);
    }
  }
  return out;
}

RecordFn loss(LossAttrs attrs, bool softmax) {
  return [=](OpRecorder& r) {
    const bool has_weight = r.has_input(2);
    std::string why;
    const std::optional<LossGeometry> g =
        covered_geometry(r.shape(0), r.shape(1), has_weight ? &r.shape(2) : nullptr, why);
    if (!g) throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, why);
    const Tensor& target = r.host(1);
    if (target.dtype() != DataType::Int64 && target.dtype() != DataType::Int32)
      throw RunOnCpu(RunTimeCause::InputKind, "targets that are not int32 or int64");
    Context& context = *r.texture(0).context();
    // Class indices travel as floats: exact while they fit the texture's significand.
    if (g->classes > (int64_t{1} << (context.info().mantissa_bits + 1)))
      throw RunOnCpu(RunTimeCause::DeviceLimit, "more classes than a texture holds exactly");
    const std::vector<float> values = target.dtype() == DataType::Int64
                                          ? sample_classes<int64_t>(target, g->classes, attrs)
                                          : sample_classes<int32_t>(target, g->classes, attrs);
    TextureTensor classes = r.temporary(g->samples());
    upload(classes, values);

    const TextureTensor& x = r.texture(0);
    const TextureTensor* log_prob = &x;
    TextureTensor scratch;
    if (softmax) {
      // The log-probabilities: SoftmaxCrossEntropyLoss's second output when the node has one.
      TextureTensor* lp = nullptr;
      if (r.num_outputs() > 1) {
        lp = &r.output(1, r.shape(0));
      } else {
        scratch = r.temporary(g->samples() * g->classes);
        lp = &scratch;
      }
      r.kernel<Softmax>().record(SoftmaxOp::LogSoftmax,
                                 SoftmaxShape{g->batch, g->classes, g->spatial}, x, *lp);
      log_prob = lp;
    }
    const TextureTensor* weight = has_weight ? &r.texture(2) : nullptr;
    const bool per_sample = attrs.reduction == LossReduction::None;
    TextureTensor& out = r.output(0, per_sample ? r.shape(1) : Shape{});
    r.kernel<Loss>().record(LossDraw{*g, attrs.reduction}, *log_prob, classes, weight, out);
  };
}

OpFactory loss_factory(bool softmax) {
  return [softmax](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_inputs(q, reason, 0, 1) || !float_inputs(q, reason, 2, 1)) return nullptr;
    static constexpr DataType kTargets[] = {DataType::Int32, DataType::Int64};
    if (input_outside_dtypes(q, kTargets, 1, 1)) {
      reason = "targets that are not int32 or int64 stay on the CPU, which reports them";
      return nullptr;
    }
    // With the shapes fixed at load time, the placement tells now whether the kernel covers them.
    const Shape *x = static_input_shape(q, 0), *target = static_input_shape(q, 1),
                *weight = static_input_shape(q, 2);
    if (x && target && (weight || !q.info.has_input(2)) &&
        !covered_geometry(*x, *target, weight, reason))
      return nullptr;
    return loss(parse_loss_attrs(q.info), softmax);
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(loss);
void register_loss_ops(OpTable& t) {
  t.add("NegativeLogLikelihoodLoss", loss_factory(false));
  t.add("SoftmaxCrossEntropyLoss", loss_factory(true));
}

}  // namespace kiln::gpu_pixel
