// Float Mod (fmod=1) as an OpenGL ES draw against kiln's CPU op, bit for bit (fmod_cases.h).
#include <gtest/gtest.h>

#include "backends/gpu_pixel/binary_elementwise.h"
#include "fmod_cases.h"
#include "gpu_pixel_fixture.h"

namespace kiln::gpu_pixel {
namespace {

class GpuPixelFmod : public GpuPixel {
 protected:
  Tensor fmod_on_gpu(const Tensor& a, const Tensor& b) {
    const BinaryElementwise kernel(context());
    const TextureTensor ga = to_gpu(a), gb = to_gpu(b);
    const BinaryIndexing ix = binary_indexing(a.shape(), b.shape());
    TextureTensor gc(context(), ix.count);
    kernel.record(BinaryOp::Mod, ga, a.shape(), gb, b.shape(), gc);
    return to_host(gc, a.element_count() >= b.element_count() ? a.shape() : b.shape());
  }
};

TEST_F(GpuPixelFmod, SpecialValuesMatchCpuBitForBit) {
  const auto [x, y] = testing::fmod_special_operands();
  EXPECT_TRUE(testing::same_bits(fmod_on_gpu(x, y), testing::fmod_on_cpu(x, y)));
}

TEST_F(GpuPixelFmod, RandomFloatsMatchCpuBitForBit) {
  const auto [x, y] = testing::fmod_random_operands();
  EXPECT_TRUE(testing::same_bits(fmod_on_gpu(x, y), testing::fmod_on_cpu(x, y)));
}

}  // namespace
}  // namespace kiln::gpu_pixel
