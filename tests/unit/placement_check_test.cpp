// The drift check between load-time placement and a GPU kernel (runtime/placement_check.h).
#include <gtest/gtest.h>

#include "runtime/placement_check.h"

namespace kiln {
namespace {

// A device kernel that sends every run to the CPU for one cause.
class RefusingKernel final : public DeviceKernel {
 public:
  explicit RefusingKernel(RunTimeCause cause) : cause_(cause) {}
  bool record(DeviceOpRun&) override {
    ++fallbacks_.runs;
    fallbacks_.last_cause = cause_;
    fallbacks_.last_reason = "a reason";
    return false;
  }
  RunTimeFallbackCount run_time_fallbacks() const override { return fallbacks_; }

 private:
  RunTimeCause cause_;
  RunTimeFallbackCount fallbacks_;
};

bool record_checked(RunTimeCause cause) {
  auto kernel = with_placement_check(std::make_unique<RefusingKernel>(cause), "Softmax node 'sm'",
                                     "gpu-compute");
  DeviceOpRun run{};
  return kernel->record(run);
}

TEST(PlacementCheck, ADeviceLimitOrInputValuesMayStillSendARunToTheCpu) {
  EXPECT_FALSE(record_checked(RunTimeCause::DeviceLimit));
  EXPECT_FALSE(record_checked(RunTimeCause::InputValues));
}

TEST(PlacementCheck, AShapeOrDtypeRefusedAtRunTimeAfterEveryOneWasKnownAtLoadIsDrift) {
  for (RunTimeCause cause : {RunTimeCause::ShapeOutsideKernel, RunTimeCause::InputKind}) {
    try {
      record_checked(cause);
      ADD_FAILURE() << "no error for " << to_string(cause);
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("Softmax node 'sm' was placed on gpu-compute"), std::string::npos)
          << message;
      EXPECT_NE(message.find(std::string(to_string(cause)) + ": a reason"), std::string::npos)
          << message;
    }
  }
}

}  // namespace
}  // namespace kiln
