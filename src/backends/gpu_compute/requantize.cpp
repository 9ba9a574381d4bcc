#include "backends/gpu_compute/requantize.h"

#include <cmath>

#include "kernels/device_backend.h"

namespace kiln::gpu_compute {

void push_multiplier(std::vector<int32_t>& params, double multiplier, double acc_bound) {
  if (multiplier == 0.0) {
    params.insert(params.end(), {0, 0});
    return;
  }
  if (!std::isfinite(multiplier))
    throw RunOnCpu(RunTimeCause::InputValues, "a scale gives a multiplier that is not finite");
  int exponent = 0;
  const double fraction = std::frexp(multiplier, &exponent);  // multiplier = fraction * 2^exponent
  const auto mantissa = static_cast<int32_t>(std::ldexp(fraction, 24));
  const int shift = 24 - exponent;
  // |acc * mantissa| < 2^55 and |y_zero| < 2^8: both fit 64 bits shifted by at most 54.
  if (shift > 54 &&
      acc_bound * std::fabs(static_cast<double>(mantissa)) < std::ldexp(1.0, shift - 1)) {
    params.insert(params.end(), {0, 0});
    return;
  }
  if (shift < 0 || shift > 54)
    throw RunOnCpu(RunTimeCause::InputValues, "a multiplier beyond the GPU kernel's arithmetic");
  params.insert(params.end(), {mantissa, shift});
}

}  // namespace kiln::gpu_compute
