// A Worker on Backend::GpuCompute: the shared worker tests (device_worker_test.cpp) and what only
// this backend does, with the validation layer silent throughout.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_compute/device_tensor.h"
#include "device_worker_fixture.h"
#include "gpu_compute_fixture.h"
#include "graph_builder.h"
#include "kernels/device_backend.h"
#include "kernels/op_registry.h"

namespace kiln::gpu_compute {
namespace {

using kiln::testing::DeviceWorker;
using kiln::testing::GraphBuilder;
using kiln::testing::ints_attr;

class GpuComputeUnderTest : public testing::GpuBackendUnderTest {
 public:
  Backend backend() const override { return Backend::GpuCompute; }
  // Every worker's device runs under the validation layer, and each test fails on its messages.
  void set_up() override {
    validation_.emplace("KILN_VULKAN_VALIDATION", "1");
    if (!shared_device().device) GTEST_SKIP() << shared_device().skip_reason;
    clear_validation_messages_of_all_devices();
  }
  void tear_down() override {
    for (const std::string& m : validation_messages_of_all_devices()) ADD_FAILURE() << m;
    validation_.reset();
  }
  uint64_t downloads_started() const override { return downloads_recorded(); }
  std::vector<std::string> description_mentions() const override { return {"Vulkan"}; }

 private:
  std::optional<ScopedEnv> validation_;
};

GpuComputeUnderTest gpu_compute;

INSTANTIATE_TEST_SUITE_P(GpuComputeWorker, DeviceWorker, ::testing::Values(&gpu_compute),
                         testing::backend_test_name);

class GpuComputeWorker : public testing::GpuWorkerTest {
 protected:
  GpuComputeWorker() : GpuWorkerTest(gpu_compute) {}
};

// Above the device's storage-buffer range (128 MiB on lavapipe) a node runs on the CPU for that
// run instead of failing.
TEST_F(GpuComputeWorker, ATensorBeyondTheBindingRangeStillWorks) {
  const uint64_t range = shared_device().device->info().max_storage_buffer_range;
  if (range > (uint64_t{1} << 28)) GTEST_SKIP() << "this device binds " << range << " bytes";
  const int64_t n = static_cast<int64_t>(range / sizeof(float)) + 1024;
  GraphBuilder b;
  b.input("x", DataType::Float32, {n});
  b.node("Neg", {"x"}, {"y"});
  b.output("y");
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 1000);
  Worker worker(b.build(), Backend::GpuCompute);
  worker.schedule({{"x", Tensor::from_data<float>({n}, v)}});
  const Tensor y = worker.peek_output("y").readback_and_clone();
  const float* p = y.data<float>();
  for (int64_t i = 0; i < n; i += 9973) ASSERT_EQ(p[i], -static_cast<float>(i % 1000));
}

// Barriers only where data flows: four unary ops on one input are independent, and so are the
// two products of their results. Run one layer per step (graph order), a run needs a barrier
// after the upload, before the products, before the sum and before the download, plus one where
// the memory plan gives a product the memory of an input the other product has just read: five
// for seven dispatches, where a barrier after every dispatch would make eight. The result is the
// CPU's and the validation layer's synchronization checks stay silent.
TEST_F(GpuComputeWorker, IndependentDispatchesShareOneBarrier) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {4, 64});
  b.node("Relu", {"x"}, {"a"});
  b.node("Neg", {"x"}, {"b"});
  b.node("Abs", {"x"}, {"c"});
  b.node("Sigmoid", {"x"}, {"d"});
  b.node("Mul", {"a", "b"}, {"ab"});
  b.node("Mul", {"c", "d"}, {"cd"});
  b.node("Add", {"ab", "cd"}, {"y"});
  b.output("y");
  const Model model = b.build();
  std::vector<float> v(256);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 17) - 8.0f;
  const Tensor x = Tensor::from_data<float>({4, 64}, v);
  Worker worker(model, Backend::GpuCompute);
  auto run_in_order = [&] {
    for (LayerStep step : worker.schedule_iterable({{"x", x}})) (void)step;
    return worker.peek_output("y").readback_and_clone();
  };
  run_in_order();  // uploads nothing else the second run needs, but plans the memory
  const DeviceCounters before = worker.device_counters();
  const Tensor y = run_in_order();
  const DeviceCounters after = worker.device_counters();
  EXPECT_EQ(after.dispatches - before.dispatches, 7u);
  EXPECT_LE(after.barriers - before.barriers, 5u);
  Worker cpu(model, Backend::Cpu);
  cpu.schedule({{"x", x}});
  const Tensor expected = cpu.peek_output("y").readback_and_clone();
  const auto got = y.to_vector<float>(), want = expected.to_vector<float>();
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-6f) << i;
}

// --- Replaying a node's previous recording (node_replay.h) ---

Tensor wave(const Shape& shape, float phase) {
  std::vector<float> v(static_cast<size_t>(shape.element_count()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<float>(i) * 0.37f + phase) * 2;
  return Tensor::from_data<float>(shape, v);
}

using Feeds = std::map<std::string, Tensor>;

// What one run of `worker` recorded and replayed, and its output y.
struct CountedRun {
  Tensor y;
  uint64_t recorded = 0, replayed = 0, dispatches = 0;
};

CountedRun run_counted(Worker& worker, const Feeds& feeds) {
  const DeviceCounters before = worker.device_counters();
  worker.schedule(feeds);
  CountedRun r;
  r.y = worker.peek_output("y").readback_and_clone();
  const DeviceCounters after = worker.device_counters();
  r.recorded = after.nodes_recorded - before.nodes_recorded;
  r.replayed = after.nodes_replayed - before.nodes_replayed;
  r.dispatches = after.dispatches - before.dispatches;
  return r;
}

// A fresh worker's output: what a replay must give exactly (same kernels, same device).
Tensor fresh_output(const Model& model, const Feeds& feeds) {
  Worker worker(model, Backend::GpuCompute);
  worker.schedule(feeds);
  return worker.peek_output("y").readback_and_clone();
}

void expect_same_values(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape());
  EXPECT_EQ(got.to_vector<float>(), want.to_vector<float>());
}

size_t nodes_on_gpu(const Worker& worker) {
  size_t n = 0;
  for (const NodePlacement& p : worker.placements()) n += p.backend == Backend::GpuCompute;
  return n;
}

// x[1,4,6,6] -> Conv(w, b, pads 1) -> Relu -> Transpose -> Softmax -> y
Model conv_softmax_model() {
  GraphBuilder b(17);
  b.input("x", DataType::Float32, {1, 4, 6, 6});
  b.initializer("w", wave({8, 4, 3, 3}, 0.3f));
  b.initializer("b", wave({8}, 0.9f));
  b.node("Conv", {"x", "w", "b"}, {"c"}).attributes = {ints_attr("pads", {1, 1, 1, 1})};
  b.node("Relu", {"c"}, {"r"});
  b.node("Transpose", {"r"}, {"t"}).attributes = {ints_attr("perm", {0, 2, 3, 1})};
  b.node("Softmax", {"t"}, {"y"});
  b.output("y");
  return b.build();
}

// The second run with the same shapes and new values replays every node's recording: nothing is
// recorded afresh, the same dispatches go to the device, and the output is a fresh worker's for
// the new values (not the first run's).
TEST_F(GpuComputeWorker, ASecondRunWithTheSameShapesReplaysEveryNode) {
  const Model model = conv_softmax_model();
  Worker worker(model, Backend::GpuCompute);
  const size_t device_nodes = nodes_on_gpu(worker);
  ASSERT_EQ(device_nodes, worker.placements().size());
  const Feeds first{{"x", wave({1, 4, 6, 6}, 0.0f)}}, second{{"x", wave({1, 4, 6, 6}, 1.7f)}};
  const CountedRun a = run_counted(worker, first);
  EXPECT_EQ(a.recorded, device_nodes);
  EXPECT_EQ(a.replayed, 0u);
  const CountedRun b = run_counted(worker, second);
  EXPECT_EQ(b.recorded, 0u);
  EXPECT_EQ(b.replayed, device_nodes);
  EXPECT_EQ(b.dispatches, a.dispatches);
  expect_same_values(b.y, fresh_output(model, second));
  EXPECT_NE(b.y.to_vector<float>(), a.y.to_vector<float>());
}

// A run with new shapes records afresh (and gives the fresh result); a run with the shapes of
// the one before it replays again.
TEST_F(GpuComputeWorker, NewInputShapesRecordAfresh) {
  GraphBuilder b;
  b.symbolic_input("x", DataType::Float32, {"n", "k"});
  b.initializer("w", wave({16, 8}, 0.4f));
  b.node("MatMul", {"x", "w"}, {"m"});
  b.node("Relu", {"m"}, {"y"});
  b.output("y");
  const Model model = b.build();
  Worker worker(model, Backend::GpuCompute);
  const size_t device_nodes = nodes_on_gpu(worker);
  ASSERT_EQ(device_nodes, 2u);
  struct Step {
    int64_t n;
    float phase;
    bool replays;
  };
  for (const Step& step :
       {Step{2, 0.0f, false}, Step{3, 0.5f, false}, Step{3, 1.0f, true}, Step{2, 1.5f, false}}) {
    SCOPED_TRACE("n = " + std::to_string(step.n));
    const Feeds feeds{{"x", wave({step.n, 16}, step.phase)}};
    const CountedRun r = run_counted(worker, feeds);
    EXPECT_EQ(r.recorded, step.replays ? 0u : device_nodes);
    EXPECT_EQ(r.replayed, step.replays ? device_nodes : 0u);
    expect_same_values(r.y, fresh_output(model, feeds));
  }
}

void register_cpu_negation() {
  static std::once_flag once;
  std::call_once(once, [] {
    // An op no GPU backend has: a GPU worker runs it on the CPU, between device nodes.
    OpRegistry::global().add("kiln.test", "ReplayCpuNeg", [](const NodeInfo&) -> CpuKernel {
      return [](OpContext& ctx) {
        Tensor out = ctx.input(0).clone();
        float* p = out.mutable_data<float>();
        for (int64_t i = 0; i < out.element_count(); ++i) p[i] = -p[i];
        ctx.set_output(0, out);
      };
    });
  });
}

// A CPU node between device nodes: the device nodes before and after it replay (their inputs
// downloaded and uploaded as in every run), and the result is a fresh worker's.
TEST_F(GpuComputeWorker, DeviceNodesAroundACpuNodeReplay) {
  register_cpu_negation();
  GraphBuilder b;
  b.input("x", DataType::Float32, {3, 40});
  b.node("Sigmoid", {"x"}, {"s"});
  b.node("ReplayCpuNeg", {"s"}, {"n"}, "kiln.test");
  b.node("Exp", {"n"}, {"e"});
  b.node("Mul", {"e", "x"}, {"y"});
  b.output("y");
  const Model model = b.build();
  Worker worker(model, Backend::GpuCompute);
  ASSERT_EQ(nodes_on_gpu(worker), 3u);
  const Feeds first{{"x", wave({3, 40}, 0.2f)}}, second{{"x", wave({3, 40}, 2.2f)}};
  const CountedRun a = run_counted(worker, first);
  EXPECT_EQ(a.recorded, 3u);
  const CountedRun r = run_counted(worker, second);
  EXPECT_EQ(r.recorded, 0u);
  EXPECT_EQ(r.replayed, 3u);
  expect_same_values(r.y, fresh_output(model, second));
  EXPECT_NE(r.y.to_vector<float>(), a.y.to_vector<float>());
}

// Pad reads its pads on the host and writes them into push constants: new pad values with the
// same shapes record the Pad afresh (the Neg before it replays), and the same values replay it.
TEST_F(GpuComputeWorker, NewValuesOfAHostInputTheKernelReadsRecordAfresh) {
  GraphBuilder b(18);
  b.input("x", DataType::Float32, {1, 2, 3, 3});
  b.input("pads", DataType::Int64, {8});
  b.node("Neg", {"x"}, {"n"});
  b.node("Pad", {"n", "pads"}, {"y"});
  b.output("y");
  const Model model = b.build();
  Worker worker(model, Backend::GpuCompute);
  ASSERT_EQ(nodes_on_gpu(worker), 2u);
  const Tensor x = wave({1, 2, 3, 3}, 0.6f);
  // Both pad one row and one column, on opposite sides: the same output shape.
  const Tensor before = Tensor::from_data<int64_t>({8}, {0, 0, 1, 0, 0, 0, 0, 1});
  const Tensor after = Tensor::from_data<int64_t>({8}, {0, 0, 0, 1, 0, 0, 1, 0});
  struct Step {
    const Tensor* pads;
    uint64_t recorded;
  };
  for (const Step& step : {Step{&before, 2}, Step{&after, 1}, Step{&after, 0}}) {
    const Feeds feeds{{"x", x}, {"pads", *step.pads}};
    const CountedRun r = run_counted(worker, feeds);
    EXPECT_EQ(r.recorded, step.recorded);
    EXPECT_EQ(r.recorded + r.replayed, 2u);
    expect_same_values(r.y, fresh_output(model, feeds));
  }
}

// The decoder of examples/data/tokengen (ONNX Runtime's generative-AI export shape: a
// GatherBlockQuantized embedding, MatMulNBits projections, GroupQueryAttention with rotary
// caches, sequence lengths computed from the attention mask) runs with every node on the GPU
// and no run-time fallback, a prompt and then decode steps over the growing caches the previous
// step returned, and its logits and caches match the CPU's.
TEST_F(GpuComputeWorker, DecoderRunsNativelyAndMatchesTheCpu) {
  const Model model = load_model(KILN_SOURCE_DIR "/examples/data/tokengen/decoder.onnx");
  Worker gpu(model, Backend::GpuCompute, WorkerOptions{.strict = true});
  for (const NodePlacement& p : gpu.placements()) {
    EXPECT_EQ(p.backend, Backend::GpuCompute) << p.op_type << ": " << p.fallback_reason;
  }
  Worker cpu(model, Backend::Cpu);
  const std::vector<std::string> outputs = {"logits", "present.0.key", "present.0.value",
                                            "present.1.key", "present.1.value"};
  // (NamedTensor refers to its name: the names outlive every feed.)
  const std::vector<std::string> past_names = {"past_key_values.0.key", "past_key_values.0.value",
                                               "past_key_values.1.key", "past_key_values.1.value"};
  std::vector<Tensor> gpu_past(4), cpu_past(4);
  for (Tensor& t : cpu_past) t = Tensor::zeros(DataType::Float32, {1, 2, 0, 16});
  gpu_past = cpu_past;
  std::vector<int64_t> input = {17, 900, 3, 250, 41}, tokens = input;
  const RunTimeFallbacks before = run_time_fallbacks();
  for (int step = 0; step < 3; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const auto n = static_cast<int64_t>(input.size()), total = static_cast<int64_t>(tokens.size());
    auto feed = [&](const std::vector<Tensor>& past) {
      std::vector<NamedTensor> f{
          {"input_ids", Tensor::from_data<int64_t>({1, n}, input)},
          {"attention_mask",
           Tensor::from_data<int64_t>({1, total}, std::vector<int64_t>(total, 1))}};
      for (size_t i = 0; i < past.size(); ++i) f.push_back({past_names[i], past[i]});
      return f;
    };
    gpu.schedule(std::span<const NamedTensor>(feed(gpu_past)));
    cpu.schedule(std::span<const NamedTensor>(feed(cpu_past)));
    for (size_t k = 0; k < outputs.size(); ++k) {
      const Tensor got = gpu.peek_output(outputs[k]).readback_and_clone();
      const Tensor want = cpu.peek_output(outputs[k]).readback_and_clone();
      ASSERT_EQ(got.shape(), want.shape()) << outputs[k];
      const auto g = got.to_vector<float>(), w = want.to_vector<float>();
      for (size_t i = 0; i < w.size(); ++i)
        ASSERT_NEAR(g[i], w[i], 1e-4 + 1e-4 * std::abs(w[i])) << outputs[k] << " element " << i;
      if (k > 0) {
        gpu_past[k - 1] = gpu.take_output(outputs[k]);  // stays on the device
        cpu_past[k - 1] = cpu.take_output(outputs[k]);
      }
    }
    const Tensor logits = cpu.peek_output("logits").readback_and_clone();
    const int64_t vocab = logits.shape().back();
    const float* last = logits.data<float>() + (n - 1) * vocab;
    const int64_t next = std::max_element(last, last + vocab) - last;
    input = {next};
    tokens.push_back(next);
  }
  EXPECT_EQ(run_time_fallbacks().count, before.count) << run_time_fallbacks().last_reason;
}

}  // namespace
}  // namespace kiln::gpu_compute
