// Shared by the Vulkan tests: one device per test process, validation on where installed, and a
// fixture that skips without a Vulkan device and fails on any validation message.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "backends/gpu_compute/device.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {

// Restores an environment variable when the test ends, so tests cannot leak settings.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() { old_.empty() ? unsetenv(name_) : setenv(name_, old_.c_str(), 1); }

 private:
  const char* name_;
  std::string old_;
};

inline bool is_no_device(const Error& e) {
  return std::string(e.what()).find("no Vulkan device") != std::string::npos;
}

// One device for the whole suite (creating one costs a little); validation is on wherever the
// layer is installed, and every test checks it reported nothing.
struct SharedDevice {
  std::unique_ptr<Device> device;
  std::string skip_reason;  // no Vulkan device on this machine
  std::string failure;      // any other error: a real failure
};

inline SharedDevice& shared_device() {
  static SharedDevice shared = [] {
    SharedDevice s;
    try {
      s.device = std::make_unique<Device>(DeviceOptions{.validation = true});
    } catch (const Error& e) {
      (is_no_device(e) ? s.skip_reason : s.failure) = e.what();
    }
    return s;
  }();
  return shared;
}

class GpuCompute : public ::testing::Test {
 protected:
  void SetUp() override {
    SharedDevice& s = shared_device();
    ASSERT_TRUE(s.failure.empty()) << s.failure;
    if (!s.device) GTEST_SKIP() << s.skip_reason;
    device_ = s.device.get();
    device_->clear_validation_messages();
  }
  void TearDown() override {
    if (!device_) return;
    for (const std::string& m : device_->validation_messages()) ADD_FAILURE() << m;
  }
  Device& device() { return *device_; }

 private:
  Device* device_ = nullptr;
};

}  // namespace kiln::gpu_compute
