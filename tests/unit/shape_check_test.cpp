// The drift check between shape inference and the kernels (runtime/shape_check.h).
#include <gtest/gtest.h>

#include "graph_builder.h"
#include "opdefs/op_def.h"
#include "runtime/shape_check.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

class ZerosAllocator final : public OutputAllocator {
 public:
  Tensor allocate(size_t, DataType dtype, const Shape& shape) override {
    return Tensor::zeros(dtype, shape);
  }
  Tensor view(size_t, const Tensor& source, const Shape& shape) override {
    return source.reshaped(shape);
  }
};

ValueInfo predicted(DataType dtype, std::vector<Dim> dims) {
  return tensor_type(dtype, std::move(dims));
}

// Runs a kernel that writes a float32[2, 3] under the check, against `expected`.
void run_checked(const ValueInfo& expected) {
  ir::Node node;
  node.op_type = "Relu";
  node.name = "relu_0";
  node.outputs = {"y"};
  const CpuKernel produces_2x3 = [](OpContext& ctx) {
    ctx.allocate_output(0, DataType::Float32, {2, 3});
  };
  const CpuKernel checked = with_shape_check(produces_2x3, {expected});
  ZerosAllocator allocator;
  std::vector<Tensor> outputs(1);
  OpContext ctx(node, 14, {}, outputs, allocator);
  checked(ctx);
}

TEST(ShapeCheck, OutputsThatMatchInferencePass) {
  EXPECT_NO_THROW(run_checked(predicted(DataType::Float32, {Dim{2, ""}, Dim{3, ""}})));
  // Symbolic and unknown dims match any extent.
  EXPECT_NO_THROW(run_checked(predicted(DataType::Float32, {Dim{-1, "batch"}, Dim{}})));
}

TEST(ShapeCheck, ADifferentDimDtypeOrRankNamesTheNodeAndBothTypes) {
  try {
    run_checked(predicted(DataType::Float32, {Dim{2, ""}, Dim{4, ""}}));
    FAIL() << "a wrong dim passed";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("relu_0"), std::string::npos) << what;
    EXPECT_NE(what.find("float32[2, 3]"), std::string::npos) << what;
    EXPECT_NE(what.find("float32[2, 4]"), std::string::npos) << what;
  }
  EXPECT_THROW(run_checked(predicted(DataType::Float16, {Dim{2, ""}, Dim{3, ""}})), Error);
  EXPECT_THROW(run_checked(predicted(DataType::Float32, {Dim{6, ""}})), Error);
}

TEST(ShapeCheck, AWorkerWithVerifyShapesRunsAModelWhoseInferenceHolds) {
  GraphBuilder b;
  b.symbolic_input("x", DataType::Float32, {"batch", "", ""});
  b.ir().graph.inputs[0].shape[1] = Dim{4, ""};
  b.ir().graph.inputs[0].shape[2] = Dim{6, ""};
  b.node("Relu", {"x"}, {"r"});
  b.node("Flatten", {"r"}, {"y"});
  b.output("y");
  const Tensor y = run_one(b.build(), {{"x", Tensor::zeros(DataType::Float32, {3, 4, 6})}}, "y",
                           WorkerOptions{.verify_shapes = true});
  EXPECT_EQ(y.shape(), Shape({3, 24}));
}

}  // namespace
}  // namespace kiln::testing
