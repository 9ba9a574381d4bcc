// A Worker on a GPU backend: the same asynchronous API as the CPU backend, nodes placed on the
// GPU or on the CPU with a reason, transfers inserted by the plan, results equal to the CPU
// worker's. Instantiated for each GPU backend by its own worker test file.
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <future>
#include <mutex>
#include <thread>

#include "device_worker_fixture.h"
#include "graph_builder.h"
#include "kernels/device_backend.h"
#include "kernels/op_registry.h"

namespace kiln::testing {
namespace {

std::shared_future<void> gate_opened;  // what kiln.test::Gate waits for

void register_gate_op() {
  static std::once_flag once;
  std::call_once(once, [] {
    // A CPU-only op that holds its job until the test opens the gate, then copies its input.
    OpRegistry::global().add("kiln.test", "Gate", [](const NodeInfo&) -> CpuKernel {
      return [](OpContext& ctx) {
        if (gate_opened.valid()) gate_opened.wait();
        ctx.set_output(0, ctx.input(0).clone());
      };
    });
  });
}

Tensor ramp(const Shape& shape, float scale = 0.01f) {
  std::vector<float> v(static_cast<size_t>(shape.element_count()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<float>(i) * scale) * 3.0f;
  return Tensor::from_data<float>(shape, v);
}

Tensor run(const Model& model, Backend backend, const Tensor& x, const WorkerOptions& o = {}) {
  Worker worker(model, backend, o);
  worker.schedule({{"x", x}});
  return worker.peek_output("y").readback_and_clone();
}

void expect_near(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.shape(), b.shape());
  const auto va = a.to_vector<float>(), vb = b.to_vector<float>();
  for (size_t i = 0; i < va.size(); ++i)
    ASSERT_NEAR(va[i], vb[i], 1e-5 + 1e-5 * std::abs(vb[i])) << "element " << i;
}

// x[2,3,4] -> Transpose -> Add(bias) -> Relu -> Reshape[4,6] -> Sigmoid -> y
Model gpu_only_model() {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2, 3, 4});
  b.initializer("bias", ramp({4, 1, 1}, 0.7f));
  b.initializer("shape", Tensor::from_data<int64_t>({2}, {4, -1}));
  ir::Attribute perm;
  perm.name = "perm";
  perm.type = ir::Attribute::Type::Ints;
  perm.ints = {2, 0, 1};
  b.node("Transpose", {"x"}, {"t"}).attributes.push_back(perm);
  b.node("Add", {"t", "bias"}, {"a"});
  b.node("Relu", {"a"}, {"r"});
  b.node("Reshape", {"r", "shape"}, {"s"});
  b.node("Sigmoid", {"s"}, {"y"});
  b.output("y");
  return b.build();
}

// x -> Relu (GPU) -> kiln.test::Gate (CPU) -> Sigmoid (GPU) -> y
Model model_with_fallback() {
  register_gate_op();
  GraphBuilder b;
  b.input("x", DataType::Float32, {64});
  b.node("Relu", {"x"}, {"r"});
  b.node("Gate", {"r"}, {"g"}, "kiln.test");
  b.node("Sigmoid", {"g"}, {"y"});
  b.output("y");
  return b.build();
}

TEST_P(DeviceWorker, MatchesTheCpuWorkerAndRunsEveryNodeOnTheGpu) {
  const Model model = gpu_only_model();
  const Tensor x = ramp({2, 3, 4});
  expect_near(run(model, backend(), x), run(model, Backend::Cpu, x));
  Worker worker(model, backend());
  for (const NodePlacement& p : worker.placements()) {
    EXPECT_EQ(p.backend, backend()) << p.op_type << ": " << p.fallback_reason;
  }
  const std::string description = worker.device_description();
  for (const std::string& mention : gpu().description_mentions()) {
    EXPECT_NE(description.find(mention), std::string::npos) << mention << " in " << description;
  }
}

// Shaders index in 32 bits: a pooling window whose coordinates go beyond them (a huge stride)
// runs on the CPU for that run, with the CPU's result, instead of failing or wrapping around.
TEST_P(DeviceWorker, AWindowBeyond32BitCoordinatesRunsOnTheCpu) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {1, 2, 4, 4});
  ir::Node& pool = b.node("MaxPool", {"x"}, {"y"});
  for (auto [name, values] : {std::pair<const char*, std::vector<int64_t>>{"kernel_shape", {2, 2}},
                              {"strides", {int64_t{1} << 33, 1}}}) {
    ir::Attribute a;
    a.name = name;
    a.type = ir::Attribute::Type::Ints;
    a.ints = values;
    pool.attributes.push_back(a);
  }
  b.output("y");
  const Model model = b.build();
  const Tensor x = ramp({1, 2, 4, 4}, 0.3f);
  const uint64_t fallbacks = run_time_fallbacks().count;
  expect_near(run(model, backend(), x), run(model, Backend::Cpu, x));
  EXPECT_GT(run_time_fallbacks().count, fallbacks);

  // The worker counts it per node, with its cause: a device limit, the one cause a node placed
  // with every shape known at load time may have.
  Worker worker(model, backend(), {.verify_shapes = true});
  for (int run = 1; run <= 2; ++run) {
    worker.schedule({{"x", x}});
    worker.peek_output("y").readback_and_clone();
    const std::vector<NodePlacement> placements = worker.placements();
    ASSERT_EQ(placements.size(), 1u);
    EXPECT_EQ(placements[0].backend, backend());
    EXPECT_TRUE(placements[0].decided_at_load);
    EXPECT_EQ(placements[0].run_time_fallbacks, static_cast<uint64_t>(run));
    EXPECT_EQ(placements[0].run_time_reason.rfind("device limit: ", 0), 0u)
        << placements[0].run_time_reason;
  }
}

// A wrong input on a GPU node is the op definition's kiln::Error, as on the CPU: the same words,
// not a silent rerun on the CPU.
TEST_P(DeviceWorker, AWrongInputFailsWithTheDefinitionsMessage) {
  GraphBuilder b;
  b.symbolic_input("x", DataType::Float32, {"n", "m"});
  ir::Attribute axis;
  axis.name = "axis";
  axis.type = ir::Attribute::Type::Int;
  axis.i = 2;
  b.node("Softmax", {"x"}, {"y"}).attributes.push_back(axis);
  b.output("y");
  const Model model = b.build();
  const Tensor x = ramp({2, 3});
  std::string cpu_message, gpu_message;
  try {
    run(model, Backend::Cpu, x);
  } catch (const Error& e) {
    cpu_message = e.what();
  }
  Worker worker(model, backend());
  ASSERT_EQ(worker.placements()[0].backend, backend());
  const uint64_t fallbacks = run_time_fallbacks().count;
  worker.schedule({{"x", x}});
  try {
    worker.peek_output("y").readback_and_clone();
  } catch (const Error& e) {
    gpu_message = e.what();
  }
  EXPECT_FALSE(cpu_message.empty());
  EXPECT_EQ(gpu_message, cpu_message);
  EXPECT_EQ(run_time_fallbacks().count, fallbacks);
}

TEST_P(DeviceWorker, RepeatedRunsAndNewShapesGiveFreshResults) {
  GraphBuilder b;
  b.symbolic_input("x", DataType::Float32, {"n"});
  b.node("Exp", {"x"}, {"e"});
  b.node("Mul", {"e", "x"}, {"y"});
  b.output("y");
  const Model model = b.build();
  Worker gpu(model, backend());
  Worker cpu(model, Backend::Cpu);
  for (int64_t n : {5, 1000, 5, 0, 77}) {
    const Tensor x = ramp({n}, 0.37f);
    gpu.schedule({{"x", x}});
    cpu.schedule({{"x", x}});
    expect_near(gpu.peek_output("y").readback_and_clone(),
                cpu.peek_output("y").readback_and_clone());
  }
}

TEST_P(DeviceWorker, FallsBackToTheCpuWithAReasonAndTransfersInBetween) {
  gate_opened = {};
  const Model model = model_with_fallback();
  const Tensor x = ramp({64});
  expect_near(run(model, backend(), x), run(model, Backend::Cpu, x));
  Worker worker(model, backend());
  const std::vector<NodePlacement> p = worker.placements();
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].backend, backend());
  EXPECT_EQ(p[1].backend, Backend::Cpu);
  EXPECT_NE(p[1].fallback_reason.find("kiln.test"), std::string::npos) << p[1].fallback_reason;
  EXPECT_EQ(p[2].backend, backend());
}

// A fallback is logged at info, once per op and reason however many workers meet it.
TEST_P(DeviceWorker, AFallbackIsLoggedOnceAtInfo) {
  std::vector<std::pair<LogLevel, std::string>> messages;
  set_log_level(LogLevel::Info);
  set_log_handler([&](LogLevel level, std::string_view m) { messages.emplace_back(level, m); });
  const Model model = model_with_fallback();
  { Worker first(model, backend()); }
  { Worker second(model, backend()); }
  set_log_handler({});
  set_log_level(LogLevel::Warn);
  int gate_messages = 0;
  for (const auto& [level, m] : messages) {
    if (m.find("Gate") == std::string::npos) continue;
    ++gate_messages;
    EXPECT_EQ(level, LogLevel::Info) << m;
    EXPECT_NE(m.find("run on the CPU"), std::string::npos) << m;
    EXPECT_NE(m.find(std::string(backend_name(backend()))), std::string::npos) << m;
  }
  EXPECT_EQ(gate_messages, 1);
}

// WorkerOptions::device picks a device by index or name; one that matches nothing is an error
// naming the selection. list_devices() lists the device a worker picks by default.
TEST_P(DeviceWorker, TheDeviceIsChosenInWorkerOptions) {
  if (std::getenv("KILN_GPU_COMPUTE_DEVICE") || std::getenv("KILN_GPU_PIXEL_DEVICE"))
    GTEST_SKIP() << "a device environment variable overrides WorkerOptions::device";
  const std::vector<DeviceInfo> devices = list_devices();
  const DeviceInfo* chosen = nullptr;
  for (const DeviceInfo& d : devices) {
    if (d.backend == backend() && d.usable && d.index >= 0 && !chosen) chosen = &d;
  }
  ASSERT_NE(chosen, nullptr) << "list_devices() has no usable " << backend_name(backend());
  EXPECT_FALSE(chosen->limits.empty());
  EXPECT_FALSE(chosen->precision.empty());
  const Model model = gpu_only_model();
  const Tensor x = ramp({2, 3, 4});
  const Tensor expected = run(model, Backend::Cpu, x);
  expect_near(run(model, backend(), x, {.device = std::to_string(chosen->index)}), expected);
  // A name substring, in other case.
  std::string upper = chosen->name.substr(0, 4);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  Worker by_name(model, backend(), {.device = upper});
  EXPECT_NE(by_name.device_description().find(chosen->name.substr(0, 4)), std::string::npos)
      << by_name.device_description();
  try {
    Worker worker(model, backend(), {.device = "no-such-device"});
    FAIL() << "a worker accepted a device that does not exist";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-device"), std::string::npos) << e.what();
  }
}

TEST_P(DeviceWorker, StrictRefusesToFallBack) {
  const Model model = model_with_fallback();
  try {
    Worker worker(model, backend(), WorkerOptions{.strict = true});
    FAIL() << "a strict worker accepted a CPU fallback";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Gate"), std::string::npos) << what;
    EXPECT_NE(what.find("strict"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(Worker(gpu_only_model(), backend(), WorkerOptions{.strict = true}));
}

// The CPU step in the middle holds its job until the gate opens: schedule and readback_request
// must both return while the GPU part after it has not even been recorded.
TEST_P(DeviceWorker, ScheduleAndReadbackRequestNeverWaitEvenWithAFallback) {
  std::promise<void> gate;
  gate_opened = gate.get_future().share();
  const Model model = model_with_fallback();
  Worker worker(model, backend());
  const Tensor x = ramp({64});
  worker.schedule({{"x", x}});
  const Tensor& y = worker.peek_output("y");
  y.readback_request();
  EXPECT_FALSE(y.is_readback_request_done());
  std::future<Tensor> later = y.readback_and_clone_async();
  EXPECT_EQ(later.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  gate.set_value();
  const Tensor expected = run(model, Backend::Cpu, x);
  expect_near(later.get(), expected);
  while (!y.is_readback_request_done()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  expect_near(y.readback_and_clone(), expected);
  gate_opened = {};
}

// Worker::device_counters tells what one run asked of the device: the input's bytes up, the
// output's bytes down, at least one dispatch or draw per computing node, and CPU time recording.
TEST_P(DeviceWorker, DeviceCountersCountOneRunsWork) {
  const Model model = gpu_only_model();
  Worker worker(model, backend());
  worker.schedule({{"x", ramp({2, 3, 4})}});
  worker.peek_output("y").readback_and_clone();  // the first run also uploads the constants
  const DeviceCounters before = worker.device_counters();
  worker.schedule({{"x", ramp({2, 3, 4}, 0.5f)}});
  worker.peek_output("y").readback_and_clone();
  const DeviceCounters after = worker.device_counters();
  const uint64_t tensor_bytes = 2 * 3 * 4 * sizeof(float);
  EXPECT_EQ(after.bytes_uploaded - before.bytes_uploaded, tensor_bytes);
  EXPECT_EQ(after.bytes_downloaded - before.bytes_downloaded, tensor_bytes);
  // Transpose, Add, Relu and Sigmoid compute; the Reshape may be a view.
  EXPECT_GE(after.dispatches - before.dispatches, 4u);
  EXPECT_GE(after.submissions - before.submissions, 1u);
  EXPECT_GT(after.recording_time, before.recording_time);
  EXPECT_GE(after.barriers, before.barriers);

  Worker cpu(model, Backend::Cpu);
  cpu.schedule({{"x", ramp({2, 3, 4})}});
  cpu.peek_output("y").readback_and_clone();
  const DeviceCounters none = cpu.device_counters();
  EXPECT_EQ(none.dispatches + none.barriers + none.submissions + none.bytes_uploaded +
                none.bytes_downloaded,
            0u);
  EXPECT_EQ(none.recording_time.count(), 0);
}

// The convolutions of conv_chain_model, one per GPU-compute shader family: a general 3x3 (the
// implicit GEMM), a pointwise 1x1 (a matrix product) and a depthwise 3x3.
struct ChainConv {
  const char* name;
  int64_t out_channels, kernel, group;
};
constexpr ChainConv kChainConvs[] = {{"3x3", 8, 3, 1}, {"1x1", 8, 1, 1}, {"depthwise", 4, 3, 4}};

// x[1,4,6,6] -> Conv(w, b, `conv`, same padding) -> c -> `activation` (Relu, HardSwish, Clip to
// [0, 0.5], or SiLU spelled Mul(c, Sigmoid(c)) as exporters write it) -> y, plus
// z -> Add(c, z) before the activation when `residual`. With `expose_conv`, c is a graph output
// too, which keeps the chain unfused.
Model conv_chain_model(const ChainConv& conv, const std::string& activation, bool residual,
                       bool expose_conv) {
  GraphBuilder b(17);
  const int64_t pad = conv.kernel / 2;
  b.input("x", DataType::Float32, {1, 4, 6, 6});
  b.input("z", DataType::Float32, {1, conv.out_channels, 6, 6});
  b.initializer("w", ramp({conv.out_channels, 4 / conv.group, conv.kernel, conv.kernel}, 0.37f));
  b.initializer("b", ramp({conv.out_channels}, 0.9f));
  b.initializer("lo", Tensor::from_data<float>({}, {0.0f}));
  b.initializer("hi", Tensor::from_data<float>({}, {0.5f}));
  b.node("Conv", {"x", "w", "b"}, {"c"}).attributes = {ints_attr("pads", {pad, pad, pad, pad}),
                                                       int_attr("group", conv.group)};
  std::string last = "c";
  if (residual) {
    b.node("Add", {"c", "z"}, {"s"});
    last = "s";
  }
  if (activation == "Clip") {
    b.node("Clip", {last, "lo", "hi"}, {"y"});
  } else if (activation == "SiLU") {
    b.node("Sigmoid", {last}, {"sg"});
    b.node("Mul", {last, "sg"}, {"y"});
  } else {
    b.node(activation, {last}, {"y"});
  }
  b.output("y");
  if (expose_conv) b.output("c");
  return b.build();
}

std::vector<std::string> op_types(const Worker& worker, Backend backend) {
  std::vector<std::string> ops;
  for (const NodePlacement& p : worker.placements()) {
    EXPECT_EQ(p.backend, backend) << p.op_type << ": " << p.fallback_reason;
    ops.push_back(p.op_type);
  }
  return ops;
}

// A Conv and the residual Add and activation after it run as one kiln::FusedConv on the device
// (one dispatch or draw series instead of two to four), with the unfused graph's result.
TEST_P(DeviceWorker, ConvActivationsFuseIntoOneDeviceNodeWithTheUnfusedResult) {
  const Tensor x = ramp({1, 4, 6, 6}, 0.21f);
  for (const ChainConv& conv : kChainConvs) {
    const Tensor z = ramp({1, conv.out_channels, 6, 6}, 0.05f);
    for (const std::string activation : {"Relu", "Clip", "HardSwish", "SiLU"}) {
      for (bool residual : {false, true}) {
        SCOPED_TRACE(std::string(conv.name) + " conv, " + activation +
                     (residual ? " after a residual Add" : ""));
        Worker fused(conv_chain_model(conv, activation, residual, false), backend());
        Worker plain(conv_chain_model(conv, activation, residual, true), backend());
        const std::vector<std::string> activation_ops =
            activation == "SiLU" ? std::vector<std::string>{"Sigmoid", "Mul"}
                                 : std::vector<std::string>{activation};
        EXPECT_EQ(op_types(fused, backend()), std::vector<std::string>{"FusedConv"});
        EXPECT_EQ(op_types(plain, backend()).size(), (residual ? 2 : 1) + activation_ops.size());
        fused.schedule({{"x", x}, {"z", z}});
        plain.schedule({{"x", x}, {"z", z}});
        expect_near(fused.peek_output("y").readback_and_clone(),
                    plain.peek_output("y").readback_and_clone());
      }
    }
  }
}

// Shape reads only its input's shape: a Shape of a GPU node's value downloads nothing (the GPU
// backends give its output as a host tensor).
TEST_P(DeviceWorker, AShapeOfADeviceValueDownloadsNothing) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2, 3, 4});
  b.node("Relu", {"x"}, {"r"});
  b.node("Shape", {"r"}, {"s"});
  b.output("s");
  Worker worker(b.build(), backend());
  worker.schedule({{"x", ramp({2, 3, 4})}});
  worker.peek_output("s").readback_and_clone();
  const DeviceCounters before = worker.device_counters();
  worker.schedule({{"x", ramp({2, 3, 4}, 0.5f)}});
  const Tensor s = worker.peek_output("s").readback_and_clone();
  EXPECT_EQ(s.to_vector<int64_t>(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(worker.device_counters().bytes_downloaded - before.bytes_downloaded, 0u);
}

TEST_P(DeviceWorker, TwoRequestsOnOneTensorShareOneTransfer) {
  const Model model = gpu_only_model();
  Worker worker(model, backend());
  worker.schedule({{"x", ramp({2, 3, 4})}});
  // Settles the run, so that only the requests below transfer anything.
  worker.peek_output("y").readback_and_clone();
  worker.schedule({{"x", ramp({2, 3, 4}, 0.5f)}});
  const Tensor& y2 = worker.peek_output("y");
  const uint64_t before = gpu().downloads_started();
  y2.readback_request();
  y2.readback_request();
  const Tensor a = y2.readback_and_clone();
  const Tensor b = y2.readback_and_clone();
  EXPECT_EQ(gpu().downloads_started() - before, 1u);
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());
}

TEST_P(DeviceWorker, LongChainPollsUntilDone) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {1 << 18});
  std::string last = "x";
  for (int i = 0; i < 40; ++i) {
    const std::string next = "v" + std::to_string(i);
    b.node(i % 2 ? "Sin" : "Tanh", {last}, {next});
    last = next;
  }
  b.node("Identity", {last}, {"y"});
  b.output("y");
  const Model model = b.build();
  const Tensor x = ramp({1 << 18}, 0.001f);
  Worker worker(model, backend());
  worker.schedule({{"x", x}});
  const Tensor& y = worker.peek_output("y");
  y.readback_request();
  while (!y.is_readback_request_done()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  expect_near(y.readback_and_clone(), run(model, Backend::Cpu, x));
}

TEST_P(DeviceWorker, ScheduleIterableRunsOneLayerPerStep) {
  const Model model = gpu_only_model();
  const Tensor x = ramp({2, 3, 4});
  Worker worker(model, backend());
  size_t steps = 0;
  for (LayerStep step : worker.schedule_iterable({{"x", x}})) {
    EXPECT_EQ(step.index, steps);
    ++steps;
  }
  EXPECT_EQ(steps, worker.placements().size());
  expect_near(worker.peek_output("y").readback_and_clone(), run(model, Backend::Cpu, x));
}

TEST_P(DeviceWorker, AnOutputTheUserTookOutlivesTheWorker) {
  const Model model = gpu_only_model();
  const Tensor x = ramp({2, 3, 4});
  Tensor taken;
  {
    Worker worker(model, backend());
    worker.schedule({{"x", x}});
    taken = worker.take_output("y");
  }
  expect_near(taken.readback_and_clone(), run(model, Backend::Cpu, x));
}

}  // namespace

// Builds without a GPU backend have no worker test file to instantiate the suite.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DeviceWorker);

}  // namespace kiln::testing
