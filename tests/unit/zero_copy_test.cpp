// Tensor::wrap over the caller's memory and download_to into the caller's buffer.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "device_worker_fixture.h"
#include "graph_builder.h"

using namespace kiln;
using kiln::testing::DeviceWorker;
using kiln::testing::GraphBuilder;

namespace {

// r = Relu(x); y = Add(r, x): two layers read x.
Model relu_add_model() {
  GraphBuilder b;
  b.input("x", DataType::Float32, {4});
  b.node("Relu", {"x"}, {"r"});
  b.node("Add", {"r", "x"}, {"y"});
  b.output("y");
  return b.build();
}

TEST(ZeroCopy, WrapSharesTheCallersMemoryAndReleasesItOnce) {
  std::vector<float> buffer = {1, -2, 3, -4};
  int releases = 0;
  {
    Tensor t = Tensor::wrap(buffer.data(), DataType::Float32, {4},
                            [&](void* p) {
                              EXPECT_EQ(p, buffer.data());
                              ++releases;
                            });
    EXPECT_EQ(t.raw_data(), buffer.data());
    buffer[2] = 7;  // seen through the tensor: no copy was made
    EXPECT_EQ(t.data<float>()[2], 7.f);
    Tensor copy = t;
  }
  EXPECT_EQ(releases, 1);
}

// The worker reads a wrapped input in place: a write into the caller's memory between the two
// layers that read x shows in the second layer's result.
TEST(ZeroCopy, AWorkerReadsAWrappedInputInPlace) {
  const Model model = relu_add_model();
  std::vector<float> buffer = {1, -2, 3, -4};
  Worker worker(model);
  Tensor x = Tensor::wrap(buffer.data(), DataType::Float32, {4});
  auto steps = worker.schedule_iterable({{"x", x}});
  auto it = steps.begin();  // Relu ran, reading {1, -2, 3, -4}
  ASSERT_EQ((*it).op_type, "Relu");
  buffer = {10, 20, 30, 40};
  ++it;  // Add reads x now
  ASSERT_EQ((*it).op_type, "Add");
  const Tensor y = worker.peek_output("y").readback_and_clone();
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{11, 20, 33, 40}));
}

TEST(ZeroCopy, TheWorkerKeepsAWrappedInputAliveUntilItLetsGo) {
  const Model model = relu_add_model();
  std::vector<float> buffer = {1, -2, 3, -4};
  int releases = 0;
  {
    Worker worker(model);
    worker.schedule({{"x", Tensor::wrap(buffer.data(), DataType::Float32, {4},
                                        [&](void*) { ++releases; })}});
    // The caller's handle is gone; the run still holds the memory.
    EXPECT_EQ(worker.peek_output("y").readback_and_clone().to_vector<float>(),
              (std::vector<float>{2, -2, 6, -4}));
    EXPECT_EQ(releases, 0);
  }
  EXPECT_EQ(releases, 1);
}

TEST(ZeroCopy, WrapRejectsWhatItCannotShare) {
  alignas(8) char bytes[16] = {};
  EXPECT_THROW(Tensor::wrap(bytes + 1, DataType::Float32, {2}), Error);  // misaligned
  EXPECT_THROW(Tensor::wrap(nullptr, DataType::Float32, {2}), Error);
  EXPECT_THROW(Tensor::wrap(bytes, DataType::String, {1}), Error);
  EXPECT_THROW(Tensor::wrap(bytes, DataType::Float32, {-1}), Error);
  int releases = 0;
  EXPECT_THROW(Tensor::wrap(bytes + 1, DataType::Float32, {2}, [&](void*) { ++releases; }), Error);
  EXPECT_EQ(releases, 1);  // handed over even when refused
  EXPECT_NO_THROW(Tensor::wrap(nullptr, DataType::Float32, {0}));
}

TEST(ZeroCopy, DownloadToWritesIntoTheCallersBuffer) {
  const Model model = relu_add_model();
  Worker worker(model);
  worker.schedule({{"x", Tensor::from_data<float>({4}, {1, -2, 3, -4})}});
  std::vector<float> out(4, -1);
  worker.peek_output("y").download_to(std::span<float>(out));
  EXPECT_EQ(out, (std::vector<float>{2, -2, 6, -4}));
  std::vector<float> wrong_size(3);
  EXPECT_THROW(worker.peek_output("y").download_to(std::span<float>(wrong_size)), Error);
  std::vector<int32_t> wrong_type(4);
  EXPECT_THROW(worker.peek_output("y").download_to(std::span<int32_t>(wrong_type)), Error);
}

// On a GPU worker the output lives on the device: download_to reads it into the caller's
// buffer with one transfer, and a wrapped input is uploaded from the caller's memory.
TEST_P(DeviceWorker, DownloadToFillsTheCallersBufferFromTheDevice) {
  const Model model = relu_add_model();
  std::vector<float> in = {1, -2, 3, -4};
  Worker worker(model, backend());
  worker.schedule({{"x", Tensor::wrap(in.data(), DataType::Float32, {4})}});
  const uint64_t before = gpu().downloads_started();
  std::vector<float> out(4, -1);
  worker.peek_output("y").download_to(std::span<float>(out));
  EXPECT_EQ(out, (std::vector<float>{2, -2, 6, -4}));
  EXPECT_EQ(gpu().downloads_started() - before, 1u);
  // A later readback shares that transfer.
  EXPECT_EQ(worker.peek_output("y").readback_and_clone().to_vector<float>(), out);
  EXPECT_EQ(gpu().downloads_started() - before, 1u);
}

}  // namespace
