// The OpenGL ES foundation: context and limits, the float-render probe, texture layout, upload
// and download round trips (synchronous and polled), the texture pool, programs and the draw.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numeric>
#include <thread>
#include <vector>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/texture_pool.h"
#include "gpu_pixel_fixture.h"

namespace kiln::gpu_pixel {
namespace {

TEST_F(GpuPixel, ContextReportsDeviceAndLimits) {
  const ContextInfo& info = context().info();
  EXPECT_FALSE(info.renderer.empty());
  EXPECT_GE(info.gl_major, 3);
  EXPECT_GE(info.max_texture_size, 2048);  // the OpenGL ES 3.0 minimum
  EXPECT_GE(info.max_texture_units, 16);
  EXPECT_FALSE(info.platform.empty());
  std::cout << "[ info     ] " << info.renderer << " | " << info.version << " | " << info.platform
            << " | max texture " << info.max_texture_size << " | " << to_string(info.format)
            << " with " << info.mantissa_bits << " mantissa bits\n";
}

TEST_F(GpuPixel, PrecisionProbeFindsFloatRendering) {
  const ContextInfo& info = context().info();
  if (info.format == TextureFormat::Rgba32F) {
    EXPECT_EQ(info.mantissa_bits, 23);
  } else {
    EXPECT_GE(info.mantissa_bits, 10);
  }
}

TEST_F(GpuPixel, HalfFloatFallbackKeepsTenMantissaBits) {
  ContextOptions options;
  options.allow_rgba32f = false;
  std::unique_ptr<Context> half;
  try {
    half = std::make_unique<Context>(options);
  } catch (const Error& e) {
    GTEST_SKIP() << "no RGBA16F rendering here: " << e.what();
  }
  EXPECT_EQ(half->format(), TextureFormat::Rgba16F);
  EXPECT_EQ(half->info().mantissa_bits, 10);
  const std::vector<float> values = {1.0f, -2.5f, 1000.0f, 0.1f, 3.14159f};
  TextureTensor t(*half, 5);
  EXPECT_EQ(t.format(), TextureFormat::Rgba16F);
  upload(t, values);
  std::vector<float> back(5);
  download(t, back);
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_NEAR(back[i], values[i], std::fabs(values[i]) * 1e-3) << i;
  }
}

TEST_F(GpuPixel, ScopesNestAndMoveBetweenThreads) {
  {
    Context::Scope outer(context());
    Context::Scope inner(context());
    EXPECT_NE(eglGetCurrentContext(), EGL_NO_CONTEXT);
  }
  EXPECT_EQ(eglGetCurrentContext(), EGL_NO_CONTEXT);
  bool current_there = false;
  std::thread([&] {
    Context::Scope scope(context());
    current_there = eglGetCurrentContext() != EGL_NO_CONTEXT;
  }).join();
  EXPECT_TRUE(current_there);
}

TEST(GpuPixelLayout, TexturesStayRoughlySquareAndWithinLimits) {
  TextureLayout l = texture_layout(0, 16384);
  EXPECT_EQ(l.texels, 0);
  EXPECT_EQ(l.width, 0);
  l = texture_layout(5, 16384);  // 2 texels, the second half padding
  EXPECT_EQ(l.texels, 2);
  EXPECT_EQ(l.width, 8);
  EXPECT_EQ(l.height, 1);
  l = texture_layout(1'000'000, 16384);  // 250000 texels: 504 x 497, not square
  EXPECT_EQ(l.width, 504);
  EXPECT_EQ(l.height, 497);
  EXPECT_GE(int64_t{l.width} * l.height, l.texels);
  l = texture_layout(4 * 3500, 60);  // rounding up to 64 would pass the limit: capped at 60
  EXPECT_EQ(l.width, 60);
  EXPECT_EQ(l.height, 59);
  EXPECT_THROW(texture_layout(4 * 60 * 60 + 1, 60), Error);
  EXPECT_NO_THROW(texture_layout(4 * 60 * 60, 60));
  EXPECT_THROW(texture_layout(-1, 64), Error);
}

TEST_F(GpuPixel, RoundTripsKeepEveryValue) {
  for (int64_t n : {0, 1, 5, 10, 4 * 8 + 1, 1'000'000}) {
    std::vector<float> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) values[i] = static_cast<float>(i) * 0.37f - 1e5f;
    if (n > 2) values[1] = -0.0f;
    TextureTensor t(context(), n);
    upload(t, values);
    std::vector<float> back(static_cast<size_t>(n), 42.0f);
    download(t, back);
    EXPECT_EQ(back, values) << n << " elements";
    if (n > 2) EXPECT_TRUE(std::signbit(back[1]));
  }
}

TEST_F(GpuPixel, NonSquareTextureRoundTrips) {
  // 4 * 8 * 3 + 4 elements: a 8x4 texture where the last row holds a single texel.
  const int64_t n = 4 * 8 * 3 + 3;
  std::vector<float> values(n);
  std::iota(values.begin(), values.end(), 1.0f);
  TextureTensor t(context(), n);
  EXPECT_NE(t.width(), t.height());
  upload(t, values);
  std::vector<float> back(n);
  download(t, back);
  EXPECT_EQ(back, values);
}

TEST_F(GpuPixel, AsyncDownloadPollsThenDelivers) {
  const int64_t n = 300'001;
  std::vector<float> values(n);
  std::iota(values.begin(), values.end(), -5.0f);
  TextureTensor t(context(), n);
  upload(t, values);
  PendingDownload pending = download_async(t);
  EXPECT_EQ(pending.element_count(), n);
  int polls = 0;
  while (!pending.ready()) {
    ++polls;
    std::this_thread::yield();
    ASSERT_LT(polls, 100'000'000);
  }
  EXPECT_TRUE(pending.ready());
  EXPECT_EQ(pending.values(), values);

  // Polled from another thread while this one holds no scope.
  PendingDownload again = download_async(t);
  std::vector<float> back(n);
  std::thread([&] { again.copy_to(back); }).join();
  EXPECT_EQ(back, values);

  TextureTensor empty(context(), 0);
  PendingDownload nothing = download_async(empty);
  EXPECT_TRUE(nothing.ready());
  EXPECT_TRUE(nothing.values().empty());
}

TEST_F(GpuPixel, UploadAndDownloadCheckSizes) {
  TextureTensor t(context(), 6);
  std::vector<float> five(5);
  EXPECT_THROW(upload(t, five), Error);
  EXPECT_THROW(download(t, five), Error);
}

TEST_F(GpuPixel, TooLargeTensorIsAClearError) {
  const int max = context().info().max_texture_size;
  try {
    TextureTensor t(context(), int64_t{max} * max * 4 + 1);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("texels"), std::string::npos) << e.what();
  }
}

TEST_F(GpuPixel, TexturePoolReusesAndRespectsItsCap) {
  ContextOptions options;
  options.texture_pool_bytes = 3 * 8 * 1 * 16;  // three 8x1 RGBA32F textures
  Context small(options);
  TexturePool& pool = small.textures();
  {
    TextureTensor a(small, 20);  // 5 texels: an 8x1 texture
    TextureTensor b(small, 32);
  }
  EXPECT_EQ(pool.created_count(), 2u);
  EXPECT_EQ(pool.free_count(), 2u);
  {
    TextureTensor c(small, 17);  // same 8x1 size: reused
    EXPECT_EQ(pool.reused_count(), 1u);
    TextureTensor d(small, 4 * 200);  // 200 texels: 16x13, new
    EXPECT_EQ(pool.created_count(), 3u);
  }
  // Freed: 8x1, 8x1 and 16x13; the large one alone exceeds the cap and is evicted with the
  // oldest textures before it.
  EXPECT_LE(pool.free_bytes(), pool.byte_cap());
  TextureTensor e(small, 4 * 200);
  EXPECT_EQ(pool.created_count(), 4u);
  pool.trim();
  EXPECT_EQ(pool.free_count(), 0u);
  EXPECT_EQ(pool.free_bytes(), 0u);
}

constexpr const char* kScaleShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform float u_scale;
void main() {
  ivec4 i = output_elements();
  vec4 r = vec4(0.0);
  for (int k = 0; k < 4; ++k) {
    if (i[k] < u_out_count) r[k] = u_scale * fetch_element(x, x_width, i[k]);
  }
  out_texel = finish_texel(r);
}
)";

TEST_F(GpuPixel, ProgramsAreCachedAndDrawsFillTheOutput) {
  ProgramCache& programs = context().programs();
  const Program& p = programs.get("test_scale", "", "", kScaleShader);
  const size_t before = programs.size();
  EXPECT_EQ(&programs.get("test_scale", "", "", kScaleShader), &p);
  EXPECT_EQ(programs.size(), before);

  for (int64_t n : {1, 7, 33, 4099}) {
    std::vector<float> values(n);
    std::iota(values.begin(), values.end(), 0.5f);
    TextureTensor x(context(), n);
    upload(x, values);
    TextureTensor y(context(), n);
    const DrawInput inputs[] = {{"x", &x}};
    draw(context(), p, y, inputs, [&] { p.set("u_scale", 2.0f); });
    std::vector<float> back(n);
    download(y, back);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(back[i], 2.0f * values[i]) << i;
  }
}

TEST_F(GpuPixel, DrawRejectsFeedbackAndBadShaders) {
  const Program& p = context().programs().get("test_scale", "", "", kScaleShader);
  TextureTensor x(context(), 8);
  const DrawInput inputs[] = {{"x", &x}};
  EXPECT_THROW(draw(context(), p, x, inputs), Error);
  try {
    context().programs().get("test_broken", "", "", "void main() { out_texel = nonsense; }");
    FAIL() << "expected a compile error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("test_broken"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::gpu_pixel
