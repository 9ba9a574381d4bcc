// MelWeightMatrix: the [dft_length / 2 + 1, num_mel_bins] matrix that maps the bins of a
// onesided spectrum to triangular filters equally spaced on the mel scale, whose edges its
// definition (opdefs/mel_weight_matrix.h) resolves.
#include <string>
#include <vector>

#include "kernels/op_registry.h"
#include "opdefs/mel_weight_matrix.h"
#include "ops/all_ops.h"
#include "ops/signal_util.h"

namespace kiln {
namespace {

CpuKernel make_mel_weight_matrix(const NodeInfo& info) {
  const DataType out_type = output_datatype_attr(info);
  return [=](OpContext& ctx) {
    const MelWeightMatrixPlan plan =
        resolve_mel_weight_matrix(NodeInputs{ctx.node(), ctx.inputs()});
    const int64_t mel_bins = plan.mel_bins, spectrum_bins = plan.spectrum_bins;
    const std::vector<int64_t>& edge = plan.edge;

    std::vector<double> weights(static_cast<size_t>(spectrum_bins * mel_bins), 0.0);
    auto weight = [&](int64_t bin, int64_t mel) -> double& {
      return weights[bin * mel_bins + mel];
    };
    for (int64_t m = 0; m < mel_bins; ++m) {
      const int64_t left = edge[m], center = edge[m + 1], right = edge[m + 2];
      // Rising side, including the peak at the center; a filter of zero width is a spike.
      if (center == left) {
        weight(center, m) = 1.0;
      } else {
        for (int64_t j = left; j <= center; ++j) {
          weight(j, m) = static_cast<double>(j - left) / static_cast<double>(center - left);
        }
      }
      // Falling side, from the center (overwriting its 1 with the same value) to the right.
      for (int64_t j = center; j < right; ++j) {
        weight(j, m) = static_cast<double>(right - j) / static_cast<double>(right - center);
      }
    }
    Tensor& y = ctx.allocate_output(0, out_type, Shape{spectrum_bins, mel_bins});
    store_values(y, weights);
  };
}

}  // namespace

KILN_CPU_OPS(mel_weight_matrix);
void register_mel_weight_matrix_ops(OpRegistry& registry) {
  registry.add("MelWeightMatrix", make_mel_weight_matrix);
}

}  // namespace kiln
