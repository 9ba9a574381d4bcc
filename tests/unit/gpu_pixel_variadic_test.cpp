// OpenGL ES Sum/Max/Min/Mean chains: what the kernel rejects. Their results against the CPU ops
// are in the op harness (backend_ops_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "backends/gpu_pixel/variadic_elementwise.h"
#include "gpu_pixel_fixture.h"

namespace kiln::gpu_pixel {
namespace {

class GpuPixelVariadic : public GpuPixel {};

// The kernel's error message for `inputs` into `out`, or "" when it draws.
std::string error_of(VariadicElementwise& kernel, std::span<const VariadicInput> inputs,
                     TextureTensor& out) {
  try {
    kernel.record(VariadicOp::Mean, inputs, out);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(GpuPixelVariadic, RejectsBadInputsNamingTheOp) {
  VariadicElementwise kernel(context());
  TextureTensor six(context(), 6);
  TextureTensor three(context(), 3);
  TextureTensor four(context(), 4);
  TextureTensor out(context(), 6);

  const VariadicInput one[] = {{&six, {2, 3}}};
  EXPECT_NE(error_of(kernel, one, out).find("Mean on OpenGL ES: takes at least 2 inputs"),
            std::string::npos);

  // The third input does not broadcast with the first two.
  const VariadicInput mismatched[] = {{&six, {2, 3}}, {&three, {3}}, {&four, {4}}};
  EXPECT_NE(error_of(kernel, mismatched, out).find("cannot be broadcast together"),
            std::string::npos);

  TextureTensor wrong(context(), 3);
  const VariadicInput fine[] = {{&six, {2, 3}}, {&three, {3}}};
  EXPECT_NE(error_of(kernel, fine, wrong).find("the output holds 3 elements, not 6"),
            std::string::npos);
  EXPECT_EQ(error_of(kernel, fine, out), "");
}

}  // namespace
}  // namespace kiln::gpu_pixel
