// An op belongs to one family: a name that two families register (in the op definitions, the
// CPU registry or a GPU op table) is an error naming both, not a silent override decided by the
// order the generated registration calls the families in.
#include <gtest/gtest.h>

#include <string>

#include "backends/gpu_common/device_op_table.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "kernels/op_registry.h"
#include "opdefs/op_def.h"
#if KILN_GPU_COMPUTE
#include "backends/gpu_compute/ops/op_table.h"
#endif

namespace kiln::testing {
namespace {

// The message of the kiln::Error that `f` throws; fails the test when it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no kiln::Error";
  return "";
}

CpuKernel no_kernel(const NodeInfo&) {
  return [](OpContext&) {};
}

TEST(OpFamilies, TwoCpuFamiliesRegisteringOneOpIsAnErrorNamingBoth) {
  OpRegistry registry;
  registry.begin_family("activations");
  registry.add("Relu", no_kernel);
  registry.begin_family("elementwise_unary");
  const std::string what = error_of([&] { registry.add("Relu", no_kernel); });
  EXPECT_NE(what.find("'Relu'"), std::string::npos) << what;
  EXPECT_NE(what.find("'activations'"), std::string::npos) << what;
  EXPECT_NE(what.find("'elementwise_unary'"), std::string::npos) << what;
  // The first registration stands; other names still register.
  EXPECT_NE(registry.find("", "Relu"), nullptr);
  EXPECT_NO_THROW(registry.add("Tanh", no_kernel));
  // A domain is part of the name: ai.onnx.ml's op is another op.
  EXPECT_NO_THROW(registry.add("ai.onnx.ml", "Relu", no_kernel));
}

TEST(OpFamilies, OneFamilyRegisteringAnOpTwiceIsAnError) {
  OpRegistry registry;
  registry.begin_family("pool");
  registry.add("MaxPool", no_kernel);
  const std::string what = error_of([&] { registry.add("MaxPool", no_kernel); });
  EXPECT_NE(what.find("twice"), std::string::npos) << what;
  EXPECT_NE(what.find("'pool'"), std::string::npos) << what;
}

TEST(OpFamilies, ADefinitionIsExtendedByItsFamilyOnly) {
  OpDefs defs;
  defs.begin_family("generator");
  defs.define("RandomNormal").nondeterministic = true;
  EXPECT_NO_THROW(defs.define("RandomNormal").infer = same_as_input0);
  defs.begin_family("random");
  const std::string what = error_of([&] { defs.define("RandomNormal"); });
  EXPECT_NE(what.find("'generator'"), std::string::npos) << what;
  EXPECT_NE(what.find("'random'"), std::string::npos) << what;
}

TEST(OpFamilies, TwoGpuFamiliesRegisteringOneOpIsAnError) {
  struct Recorder {};
  DeviceOpTable<Recorder> table;
  const DeviceOpTable<Recorder>::OpFactory none = [](const DevicePlacementQuery&, std::string&) {
    return nullptr;
  };
  table.begin_family("softmax");
  table.add("Softmax", none);
  table.begin_family("reduce");
  const std::string what = error_of([&] { table.add("Softmax", none); });
  EXPECT_NE(what.find("'softmax'"), std::string::npos) << what;
  EXPECT_NE(what.find("'reduce'"), std::string::npos) << what;
}

// The built-in tables, as the generated registration fills them, have no op in two families.
TEST(OpFamilies, TheBuiltInTablesHaveEachOpInOneFamily) {
  EXPECT_NO_THROW(OpDefs::global());
  EXPECT_NO_THROW(OpRegistry::global());
#if KILN_GPU_COMPUTE
  EXPECT_NO_THROW(gpu_compute::op_table());
#endif
  EXPECT_NO_THROW(gpu_pixel::op_table());
}

}  // namespace
}  // namespace kiln::testing
