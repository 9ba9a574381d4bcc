// Integer textures on OpenGL ES: int32 words in RGBA32I and uint32 ones in RGBA32UI go up and come
// back unchanged (values past float32's 2^24, the extremes, sizes that end mid-texel and
// mid-row), int64 tensors as TextureData of two words each come back exactly through both
// readback paths, float and integer values do not mix, and the pool keeps formats apart.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "backends/gpu_pixel/runtime.h"
#include "backends/gpu_pixel/texture_data.h"
#include "backends/gpu_pixel/texture_pool.h"
#include "gpu_pixel_fixture.h"
#include "kernels/device_backend.h"
#include "test_util.h"

namespace kiln::gpu_pixel {
namespace {

// Counts that end on a texel, mid-texel, after whole rows and mid-row (the upload's tail path).
constexpr int64_t kCounts[] = {1, 3, 4, 5, 257, 1000, 4099};

std::vector<int32_t> int32_values(int64_t n) {
  const int32_t special[] = {0,
                             -1,
                             (1 << 24) + 1,
                             -((1 << 24) + 3),
                             std::numeric_limits<int32_t>::max(),
                             std::numeric_limits<int32_t>::min(),
                             123456789};
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = i < std::size(special) ? special[i] : static_cast<int32_t>(i * 2654435761u);
  }
  return v;
}

std::vector<int64_t> int64_values(int64_t n) {
  // Pairs that differ only above bit 32, negative values, and both extremes.
  const int64_t special[] = {int64_t{5} << 33,
                             (int64_t{5} << 33) + 1,
                             (int64_t{7} << 33) + 1,
                             -1,
                             -(int64_t{1} << 40) - 7,
                             std::numeric_limits<int64_t>::max(),
                             std::numeric_limits<int64_t>::min(),
                             0xffffffffLL};
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = i < std::size(special) ? special[i] : static_cast<int64_t>(i * 0x9e3779b97f4a7c15ull);
  }
  return v;
}

using GpuPixelIntegerTexture = GpuPixel;

TEST_F(GpuPixelIntegerTexture, Int32WordsRoundTripExactly) {
  for (int64_t n : kCounts) {
    const std::vector<int32_t> words = int32_values(n);
    TextureTensor t(context(), n, TextureFormat::Rgba32I);
    EXPECT_EQ(t.format(), TextureFormat::Rgba32I);
    upload(t, std::span<const int32_t>(words));
    std::vector<int32_t> back(words.size(), 7);
    download(t, std::span(back));
    EXPECT_EQ(back, words) << n << " words";
    // The asynchronous readback (what TextureData uses) gives the same bytes.
    PendingDownload pending = download_async(t);
    std::vector<int32_t> async(words.size(), 7);
    pending.copy_bytes_to(std::as_writable_bytes(std::span(async)));
    EXPECT_EQ(async, words) << n << " words, asynchronously";
  }
}

TEST_F(GpuPixelIntegerTexture, UInt32WordsRoundTripExactly) {
  for (int64_t n : kCounts) {
    std::vector<uint32_t> words(static_cast<size_t>(n));
    for (size_t i = 0; i < words.size(); ++i)
      words[i] = 0xffffffffu - static_cast<uint32_t>(i) * 977u;
    if (n > 1) words[1] = 0x80000000u;
    TextureTensor t(context(), n, TextureFormat::Rgba32UI);
    upload(t, std::span<const uint32_t>(words));
    std::vector<uint32_t> back(words.size());
    download(t, std::span(back));
    EXPECT_EQ(back, words) << n << " words";
  }
}

TEST_F(GpuPixelIntegerTexture, ValuesOfTheWrongKindAreRefused) {
  TextureTensor ints(context(), 4, TextureFormat::Rgba32I);
  const std::vector<float> floats(4, 1.0f);
  EXPECT_THROW(upload(ints, std::span<const float>(floats)), Error);
  TextureTensor f(context(), 4);
  const std::vector<int32_t> words(4, 1);
  EXPECT_THROW(upload(f, std::span<const int32_t>(words)), Error);
  std::vector<float> out(4);
  EXPECT_THROW(download(ints, std::span(out)), Error);
  EXPECT_THROW(download_async(ints).copy_to(std::span(out)), Error);
}

TEST_F(GpuPixelIntegerTexture, ThePoolKeysTexturesByFormat) {
  GLuint float_texture = 0;
  {
    TextureTensor f(context(), 64);
    float_texture = f.texture();
  }  // back to the pool, free for a float tensor of the same size
  TextureTensor i(context(), 64, TextureFormat::Rgba32I);
  EXPECT_NE(i.texture(), float_texture);
  const std::vector<int32_t> words = int32_values(64);
  upload(i, std::span<const int32_t>(words));
  std::vector<int32_t> back(64);
  download(i, std::span(back));
  EXPECT_EQ(back, words);
}

// A tensor whose data is `d`, as a draw's output would be.
Tensor device_tensor(std::shared_ptr<TextureData> d, DataType dtype, const Shape& shape) {
  auto impl = std::make_shared<TensorImpl>(dtype, shape, nullptr);
  impl->device = std::move(d);
  return Tensor(std::move(impl));
}

TEST(GpuPixelIntegerTextureData, Int64TensorsAreTwoWordsAndComeBackExactly) {
  std::shared_ptr<Runtime> runtime;
  try {
    runtime = std::make_shared<Runtime>();
  } catch (const Error& e) {
    if (!is_no_device(e)) throw;
    GTEST_SKIP() << e.what();
  }
  for (int64_t n : kCounts) {
    const std::vector<int64_t> values = int64_values(n);
    auto d = std::make_shared<TextureData>(runtime, n, DataType::Int64);
    EXPECT_EQ(d->texture().format(), TextureFormat::Rgba32I);
    ASSERT_EQ(d->texture().element_count(), 2 * n);
    // Low word first: the value's little-endian bytes.
    std::vector<int32_t> words(static_cast<size_t>(2 * n));
    std::memcpy(words.data(), values.data(), words.size() * sizeof(int32_t));
    EXPECT_EQ(words[0], 0);
    EXPECT_EQ(words[1], 10);  // 5 << 33 is 10 << 32
    upload(d->texture(), std::span<const int32_t>(words));
    const Tensor t = device_tensor(d, DataType::Int64, Shape{n});
    // Straight into the caller's buffer, then through the kept host copy.
    std::vector<int64_t> direct(values.size());
    d->download_into(*t.impl(), std::as_writable_bytes(std::span(direct)));
    EXPECT_EQ(direct, values) << n << " int64 values";
    EXPECT_EQ(download_to_host(t).to_vector<int64_t>(), values) << n << " int64 values";
  }
  for (DataType dtype : {DataType::Int32, DataType::UInt32}) {
    const std::vector<int32_t> words = int32_values(5);
    auto d = std::make_shared<TextureData>(runtime, 5, dtype);
    EXPECT_EQ(d->texture().format(),
              dtype == DataType::Int32 ? TextureFormat::Rgba32I : TextureFormat::Rgba32UI);
    if (dtype == DataType::Int32) {
      upload(d->texture(), std::span<const int32_t>(words));
    } else {
      upload(d->texture(), std::span(reinterpret_cast<const uint32_t*>(words.data()), 5));
    }
    const Tensor host = download_to_host(device_tensor(d, dtype, Shape{5}));
    EXPECT_EQ(std::memcmp(host.raw_data(), words.data(), 5 * sizeof(int32_t)), 0);
  }
}

// An int64 tensor is two words an element, so a rank-6 Transpose that keeps no axes together
// needs a seventh axis the draws lack: the node runs on the CPU at run time (one fallback), with
// the CPU's result, instead of failing.
TEST(GpuPixelIntegerTextures, ARank6Int64CopyPastTheDrawsRunsOnTheCpu) {
  std::vector<int64_t> values(2 * 3 * 2 * 3 * 2 * 3);
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = (static_cast<int64_t>(i) << 33) - static_cast<int64_t>(i);
  }
  const testing::OpTest test = testing::OpTest("Transpose")
                                   .input(Tensor::from_data<int64_t>({2, 3, 2, 3, 2, 3}, values))
                                   .attr("perm", std::vector<int64_t>{5, 4, 3, 2, 1, 0});
  std::optional<Worker> worker;
  try {
    worker.emplace(test.model(), Backend::GpuPixel);
  } catch (const Error& e) {
    if (!testing::is_no_device_error(e)) throw;
    GTEST_SKIP() << e.what();
  }
  const RunTimeFallbacks before = run_time_fallbacks();
  const std::vector<Tensor> got = test.run(*worker);
  EXPECT_EQ(run_time_fallbacks().count, before.count + 1);
  const std::vector<Tensor> want = test.run(Backend::Cpu);
  EXPECT_EQ(got[0].to_vector<int64_t>(), want[0].to_vector<int64_t>());
}

}  // namespace
}  // namespace kiln::gpu_pixel
