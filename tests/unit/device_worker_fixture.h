// The worker tests shared by the GPU backends (device_worker_test.cpp) see a backend through
// GpuBackendUnderTest. Each backend's worker test file defines its own and instantiates the
// DeviceWorker suite with it, so a build without that backend simply has no instantiation.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "kiln/kiln.h"

namespace kiln::testing {

class GpuBackendUnderTest {
 public:
  virtual ~GpuBackendUnderTest() = default;
  virtual Backend backend() const = 0;
  // Run as the fixture's SetUp and TearDown: set_up skips the test (GTEST_SKIP with the reason)
  // where this machine has no device for the backend, and may turn on checks that tear_down
  // reports, such as the Vulkan validation layer's messages.
  virtual void set_up() = 0;
  virtual void tear_down() {}
  // Device-to-host transfers this process has started, to count the ones a readback causes.
  virtual uint64_t downloads_started() const = 0;
  // What Worker::device_description() must mention on this backend.
  virtual std::vector<std::string> description_mentions() const = 0;
};

// A worker test on one GPU backend.
class GpuWorkerTest : public ::testing::Test {
 protected:
  explicit GpuWorkerTest(GpuBackendUnderTest& gpu) : gpu_(gpu) {}
  void SetUp() override { gpu_.set_up(); }
  void TearDown() override { gpu_.tear_down(); }
  GpuBackendUnderTest& gpu() { return gpu_; }
  Backend backend() const { return gpu_.backend(); }

 private:
  GpuBackendUnderTest& gpu_;
};

// The behaviours every GPU backend's Worker shares; gtest sets the parameter before it
// constructs the fixture.
class DeviceWorker : public GpuWorkerTest,
                     public ::testing::WithParamInterface<GpuBackendUnderTest*> {
 protected:
  DeviceWorker() : GpuWorkerTest(*GetParam()) {}
};

// Test names end in the backend: .../GpuCompute, .../GpuPixel.
inline std::string backend_test_name(const ::testing::TestParamInfo<GpuBackendUnderTest*>& info) {
  return info.param->backend() == Backend::GpuCompute ? "GpuCompute" : "GpuPixel";
}

// So that a failure message names the backend rather than a pointer.
inline void PrintTo(GpuBackendUnderTest* gpu, std::ostream* os) {
  *os << backend_name(gpu->backend());
}

}  // namespace kiln::testing
