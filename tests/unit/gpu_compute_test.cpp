// The first layer of the GPU-compute backend: device selection, buffers, pipelines and the binary
// elementwise shader against kiln's CPU ops. Runs on any Vulkan 1.2 device, lavapipe included;
// skips (with the reason) where the machine has no Vulkan device at all.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "backends/gpu_compute/binary_elementwise.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "backends/gpu_compute/binary_elementwise.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/command.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "gpu_compute_fixture.h"

namespace kiln::gpu_compute {
namespace {

std::vector<DeviceInfo> fake_devices() {
  auto make = [](std::string name, DeviceType type, uint32_t api) {
    DeviceInfo d;
    d.name = std::move(name);
    d.type = type;
    d.api_version = api;
    d.has_compute_queue = true;
    return d;
  };
  return {make("llvmpipe (LLVM 15)", DeviceType::Cpu, VK_API_VERSION_1_3),
          make("Old Discrete", DeviceType::Discrete, VK_API_VERSION_1_1),
          make("Some Integrated GPU", DeviceType::Integrated, VK_API_VERSION_1_2),
          make("Some Discrete GPU", DeviceType::Discrete, VK_API_VERSION_1_3)};
}

TEST(GpuComputeSelect, PrefersDiscreteThenIntegratedAndSkipsUnusable) {
  std::vector<DeviceInfo> devices = fake_devices();
  EXPECT_EQ(select_device(devices, ""), 3u);
  devices.pop_back();
  EXPECT_EQ(select_device(devices, ""), 2u);  // the 1.1 discrete device is unusable
  devices.pop_back();
  EXPECT_EQ(select_device(devices, ""), 0u);
}

TEST(GpuComputeSelect, ByIndexOrNameSubstring) {
  const std::vector<DeviceInfo> devices = fake_devices();
  EXPECT_EQ(select_device(devices, "0"), 0u);
  EXPECT_EQ(select_device(devices, "2"), 2u);
  EXPECT_EQ(select_device(devices, "LLVMPIPE"), 0u);
  EXPECT_EQ(select_device(devices, "integrated"), 2u);
}

TEST(GpuComputeSelect, BadSelectionIsAnError) {
  const std::vector<DeviceInfo> devices = fake_devices();
  EXPECT_THROW(select_device(devices, "4"), Error);
  EXPECT_THROW(select_device(devices, "99999999999999999999"), Error);
  EXPECT_THROW(select_device(devices, "radeon"), Error);
  EXPECT_THROW(select_device(devices, "old discrete"), Error);  // matches, but needs Vulkan 1.2
  try {
    select_device(devices, "radeon");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Some Discrete GPU"), std::string::npos) << e.what();
  }
  try {
    select_device({}, "");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(is_no_device(e)) << e.what();
  }
}

TEST_F(GpuCompute, DeviceReportsItsLimits) {
  const DeviceInfo& info = device().info();
  std::cout << "device: " << info.name << " (" << to_string(info.type) << "), Vulkan "
            << info.api_version_string() << ", maxStorageBufferRange "
            << info.max_storage_buffer_range << ", subgroup " << info.subgroup_size
            << ", validation " << (device().validation_enabled() ? "on" : "off") << "\n";
  EXPECT_FALSE(info.name.empty());
  EXPECT_TRUE(info.usable());
  EXPECT_GE(info.api_version, VK_API_VERSION_1_2);
  EXPECT_GE(info.max_storage_buffer_range, uint64_t{1} << 27);  // the spec's minimum
  EXPECT_GE(info.subgroup_size, 1u);
  EXPECT_EQ(info.subgroup_size & (info.subgroup_size - 1), 0u);  // a power of two
  EXPECT_GE(device().limits().maxPushConstantsSize, kMaxPushConstantBytes);
}

TEST_F(GpuCompute, BadDeviceSelectionIsAnError) {
  EXPECT_THROW(Device(DeviceOptions{.select = "99"}), Error);
  EXPECT_THROW(Device(DeviceOptions{.select = "no-such-vulkan-device"}), Error);
  {
    ScopedEnv env("KILN_GPU_COMPUTE_DEVICE", "no-such-vulkan-device");
    EXPECT_THROW(Device{}, Error);
    // The option wins over the environment.
    Device chosen(DeviceOptions{.select = device().info().name});
    EXPECT_EQ(chosen.info().name, device().info().name);
  }
  ScopedEnv env("KILN_GPU_COMPUTE_DEVICE", device().info().name.c_str());
  EXPECT_EQ(Device().info().name, device().info().name);
}

std::vector<std::byte> pattern(size_t n) {
  std::vector<std::byte> bytes(n);
  std::mt19937 rng(static_cast<unsigned>(n));
  for (std::byte& b : bytes) b = static_cast<std::byte>(rng());
  return bytes;
}

TEST_F(GpuCompute, UploadDownloadRoundTrip) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{10'000'000}}) {
    const std::vector<std::byte> in = pattern(n);
    Buffer buffer(device(), n, MemoryUse::DeviceLocal);
    EXPECT_EQ(buffer.size(), n);
    upload(device(), buffer, in);
    std::vector<std::byte> out(n, std::byte{0x5a});
    download(device(), buffer, out);
    EXPECT_TRUE(in == out) << n << " bytes";
  }
}

TEST_F(GpuCompute, PartialRangesAndBoundsChecks) {
  Buffer buffer(device(), 64, MemoryUse::DeviceLocal);
  const std::vector<std::byte> in = pattern(64);
  upload(device(), buffer, in);
  const std::vector<std::byte> part = pattern(8);
  upload(device(), buffer, part, 40);
  std::vector<std::byte> out(16);
  download(device(), buffer, out, 36);
  EXPECT_EQ(std::memcmp(out.data(), in.data() + 36, 4), 0);
  EXPECT_EQ(std::memcmp(out.data() + 4, part.data(), 8), 0);
  EXPECT_EQ(std::memcmp(out.data() + 12, in.data() + 48, 4), 0);
  EXPECT_THROW(upload(device(), buffer, in, 1), Error);
  EXPECT_THROW(download(device(), buffer, out, 60), Error);
}

TEST_F(GpuCompute, PipelineRejectsBadDescriptions) {
  PipelineDesc desc;  // no SPIR-V
  EXPECT_THROW(ComputePipeline(device(), desc), Error);
  const uint32_t words[] = {0x07230203};
  desc.spirv = words;
  desc.push_constant_bytes = 132;
  EXPECT_THROW(ComputePipeline(device(), desc), Error);
  desc.push_constant_bytes = 0;
  desc.workgroup_size_x = 1u << 20;
  EXPECT_THROW(ComputePipeline(device(), desc), Error);
}

}  // namespace
}  // namespace kiln::gpu_compute

namespace kiln::gpu_compute {
namespace {

// Compiled pipelines survive the device: the next device (the next process) loads them.
TEST_F(GpuCompute, PipelineCacheIsSavedToDiskAndLoadedAgain) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("kiln-pipeline-cache-test-" + std::to_string(::getpid()) + ".bin");
  std::filesystem::remove(file);
  {
    ScopedEnv env("KILN_VULKAN_PIPELINE_CACHE", file.c_str());
    {
      Device d;
      EXPECT_EQ(d.pipeline_cache() != VK_NULL_HANDLE, true);
      BinaryElementwise kernel(d);
    }
    // A cache with Vulkan's header for this device; what follows it is the driver's business
    // (lavapipe stores no pipeline data, real GPUs do).
    ASSERT_TRUE(std::filesystem::exists(file));
    std::ifstream in(file, std::ios::binary);
    uint32_t header[3] = {};
    in.read(reinterpret_cast<char*>(header), sizeof header);
    EXPECT_EQ(header[0], 32u);  // header length
    EXPECT_EQ(header[1], static_cast<uint32_t>(VK_PIPELINE_CACHE_HEADER_VERSION_ONE));
    VkPhysicalDeviceProperties props{};
    vkGetPhysicalDeviceProperties(device().physical_device(), &props);
    EXPECT_EQ(header[2], props.vendorID);
    Device again;  // loads it; a pipeline from it works as before
    BinaryElementwise kernel(again);
  }
  std::filesystem::remove(file);
  {
    ScopedEnv off("KILN_VULKAN_PIPELINE_CACHE", "off");
    Device d;
    BinaryElementwise kernel(d);
  }
  EXPECT_FALSE(std::filesystem::exists(file));
}

}  // namespace
}  // namespace kiln::gpu_compute
