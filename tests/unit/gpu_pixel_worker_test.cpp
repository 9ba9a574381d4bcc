// A Worker on Backend::GpuPixel: the shared worker tests (device_worker_test.cpp) and what only
// this backend does. Skipped where no OpenGL ES device with float render targets exists.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/gpu_pixel/texture_data.h"
#include "device_worker_fixture.h"
#include "gpu_pixel_fixture.h"
#include "graph_builder.h"
#include "test_util.h"

namespace kiln::gpu_pixel {
namespace {

using kiln::testing::DeviceWorker;
using kiln::testing::GraphBuilder;

class GpuPixelUnderTest : public testing::GpuBackendUnderTest {
 public:
  Backend backend() const override { return Backend::GpuPixel; }
  // Skips where a worker on this backend reports that there is no OpenGL ES device.
  void set_up() override {
    try {
      Worker probe(relu_model(), Backend::GpuPixel);
    } catch (const Error& e) {
      if (is_no_device(e)) GTEST_SKIP() << e.what();
      throw;
    }
  }
  uint64_t downloads_started() const override { return texture_downloads_started(); }
  std::vector<std::string> description_mentions() const override {
    return {"OpenGL ES", "max texture", "mantissa"};  // the API, its limits and the precision
  }

 private:
  static Model relu_model() {
    GraphBuilder b;
    b.input("x", DataType::Float32, {4});
    b.node("Relu", {"x"}, {"y"});
    b.output("y");
    return b.build();
  }
};

GpuPixelUnderTest gpu_pixel;

INSTANTIATE_TEST_SUITE_P(GpuPixelWorker, DeviceWorker, ::testing::Values(&gpu_pixel),
                         testing::backend_test_name);

class GpuPixelWorker : public testing::GpuWorkerTest {
 protected:
  GpuPixelWorker() : GpuWorkerTest(gpu_pixel) {}
};

TEST_F(GpuPixelWorker, IntegerTensorsStayOnTheCpuWithAReason) {
  GraphBuilder b;
  b.input("x", DataType::Int64, {6});
  b.node("Neg", {"x"}, {"y"});
  b.output("y");
  Worker worker(b.build(), Backend::GpuPixel);
  const std::vector<NodePlacement> p = worker.placements();
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].backend, Backend::Cpu);
  EXPECT_NE(p[0].fallback_reason.find("float32"), std::string::npos) << p[0].fallback_reason;
}

// An embedding lookup whose indices another node computes: the Cast draws into an integer
// texture (int32 to int64), and the Gather, whose indices are uniforms, downloads them when it
// records; both draw, and the result is the CPU's.
TEST_F(GpuPixelWorker, GatherDrawsWithIndicesComputedByADraw) {
  GraphBuilder b;
  b.input("tokens", DataType::Int32, {2, 3});
  b.initializer("table", Tensor::from_data<float>({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31}));
  b.node("Cast", {"tokens"}, {"ids"})
      .attributes.push_back(testing::int_attr("to", static_cast<int64_t>(DataType::Int64)));
  b.node("Gather", {"table", "ids"}, {"y"});
  b.output("y");
  Worker worker(b.build(), Backend::GpuPixel);
  const std::vector<NodePlacement> p = worker.placements();
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].backend, Backend::GpuPixel) << p[0].fallback_reason;
  EXPECT_EQ(p[1].backend, Backend::GpuPixel) << p[1].fallback_reason;
  worker.schedule({{"tokens", Tensor::from_data<int32_t>({2, 3}, {3, 0, 2, 1, 1, -1})}});
  const Tensor y = worker.peek_output("y").readback_and_clone();
  EXPECT_TRUE(all_close(
      y, Tensor::from_data<float>({2, 3, 2}, {30, 31, 0, 1, 20, 21, 10, 11, 10, 11, 30, 31})))
      << y.to_string();
}

// llvmpipe cuts a fragment's loops short after 65535 iterations, silently: a reduction or a
// softmax over longer lines must still give the CPU's result (the layer then runs on the CPU).
TEST_F(GpuPixelWorker, LinesLongerThanTheLoopBudgetStillMatchTheCpu) {
  const int64_t line = 70000;
  GraphBuilder b;
  b.input("x", DataType::Float32, {2, line});
  b.initializer("axes", Tensor::from_data<int64_t>({1}, {1}));
  b.node("ReduceSum", {"x", "axes"}, {"sum"});
  b.node("Softmax", {"x"}, {"softmax"}).attributes.push_back(testing::int_attr("axis", 1));
  b.output("sum").output("softmax");
  const Model model = b.build();
  const Tensor x = random_tensor({2, line}, -1.0f, 1.0f, 5);
  Worker gpu(model, Backend::GpuPixel), cpu(model, Backend::Cpu);
  gpu.schedule({{"x", x}});
  cpu.schedule({{"x", x}});
  for (const char* name : {"sum", "softmax"}) {
    const Tensor expected = cpu.peek_output(name).readback_and_clone();
    const Tensor actual = gpu.peek_output(name).readback_and_clone();
    EXPECT_TRUE(all_close(actual, expected, 1e-3, 1e-6)) << name;
  }
}

// The LSTM draws take the common subset (either layout); every other node stays on the CPU,
// saying what it has.
TEST_F(GpuPixelWorker, LstmOutsideTheDrawnSubsetStaysOnTheCpuWithAReason) {
  auto lstm = [] {
    testing::OpTest t("LSTM", 14);
    t.input(Tensor::from_data<float>({1, 1, 2}, {0.5f, -1.0f}))
        .input(Tensor::from_data<float>({1, 4, 2}, std::vector<float>(8, 0.1f)))
        .input(Tensor::from_data<float>({1, 4, 1}, std::vector<float>(4, 0.2f)))
        .constant_input(1)
        .constant_input(2)
        .attr("hidden_size", int64_t{1});
    return t;
  };
  const std::vector<std::pair<testing::OpTest, std::string>> cases = {
      {lstm().attr("clip", 3.0f), "clip"},
      {lstm().attr("input_forget", int64_t{1}), "input_forget"},
      {lstm().attr("activations", std::vector<std::string>{"Sigmoid", "Relu", "Tanh"}),
       "activations"},
  };
  for (const auto& [test, what] : cases) {
    const std::vector<NodePlacement> p = Worker(test.model(), Backend::GpuPixel).placements();
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(p[0].backend, Backend::Cpu) << what;
    EXPECT_NE(p[0].fallback_reason.find(what), std::string::npos) << p[0].fallback_reason;
  }
  // Layout 1 is drawn too, between transposes.
  for (int64_t layout : {0, 1}) {
    const std::vector<NodePlacement> drawn =
        Worker(lstm().attr("layout", layout).model(), Backend::GpuPixel).placements();
    ASSERT_EQ(drawn.size(), 1u);
    EXPECT_EQ(drawn[0].backend, Backend::GpuPixel) << drawn[0].fallback_reason;
  }
}

}  // namespace
}  // namespace kiln::gpu_pixel
