// kiln/interop.h: borrow_tensor (runs read the caller's memory without a copy and keep its
// owner alive), wait_ready and on_device (a finished host output is readable in place).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "graph_builder.h"
#include "kiln/interop.h"

using namespace kiln;
using kiln::testing::GraphBuilder;

namespace {

Model relu_model() {
  GraphBuilder b;
  b.input("x", DataType::Float32, {4});
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  return b.build();
}

TEST(Interop, SeesTheCallersMemoryWithoutCopying) {
  std::vector<float> values = {1, -2, 3, -4};
  Tensor t = borrow_tensor(DataType::Float32, {2, 2}, values.data(), nullptr);
  EXPECT_EQ(t.raw_data(), values.data());
  EXPECT_EQ(t.shape(), (Shape{2, 2}));
  values[1] = 7;
  EXPECT_EQ(t.data<float>()[1], 7);
}

TEST(Interop, KeepsItsOwnerAliveUntilTheRunThatReadsItIsDone) {
  auto owner = std::make_shared<std::vector<float>>(std::vector<float>{1, -2, 3, -4});
  std::weak_ptr<std::vector<float>> watch = owner;
  Worker worker(relu_model());
  {
    Tensor x = borrow_tensor(DataType::Float32, {4}, owner->data(), owner);
    owner.reset();
    worker.schedule({{"x", x}});
  }
  EXPECT_EQ(worker.peek_output("y").readback_and_clone().to_vector<float>(),
            (std::vector<float>{1, 0, 3, 0}));
  worker.schedule({{"x", Tensor::from_data<float>({4}, {0, 0, 0, 0})}});
  wait_ready(worker.peek_output("y"));
  EXPECT_TRUE(watch.expired());  // the worker let go of the first run's input
}

TEST(Interop, RefusesStringsAndNegativeShapes) {
  int64_t v = 0;
  EXPECT_THROW(borrow_tensor(DataType::String, {1}, &v, nullptr), Error);
  EXPECT_THROW(borrow_tensor(DataType::Int64, {-1}, &v, nullptr), Error);
  EXPECT_THROW(borrow_tensor(DataType::Int64, {1}, nullptr, nullptr), Error);
}

TEST(Interop, MakesAFinishedOutputReadableInPlace) {
  Worker worker(relu_model());
  worker.schedule({{"x", Tensor::from_data<float>({4}, {-1, 2, -3, 4})}});
  const Tensor& y = worker.peek_output("y");
  wait_ready(y);
  EXPECT_FALSE(y.is_pending());
  EXPECT_FALSE(on_device(y));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{0, 2, 0, 4}));
}

TEST(Interop, RethrowsTheErrorOfAFailedLayer) {
  GraphBuilder b;
  b.input("data", DataType::Float32, {3});
  b.input("idx", DataType::Int64, {1});
  b.node("Gather", {"data", "idx"}, {"y"});
  b.output("y");
  Worker worker(b.build());
  worker.schedule({{"data", Tensor::from_data<float>({3}, {1, 2, 3})},
                   {"idx", Tensor::from_data<int64_t>({1}, {7})}});
  EXPECT_THROW(wait_ready(worker.peek_output("y")), Error);
}

}  // namespace
