// WorkerOptions::profile on every backend: per-layer timings, the op table and the Chrome trace.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <mutex>
#include <set>

#include "device_worker_fixture.h"
#include "graph_builder.h"
#include "kernels/op_registry.h"

using namespace kiln;
using kiln::testing::DeviceWorker;
using kiln::testing::GraphBuilder;

namespace {

void register_cpu_only_op() {
  static std::once_flag once;
  std::call_once(once, [] {
    // An op no GPU backend has: a GPU worker runs it on the CPU.
    OpRegistry::global().add("kiln.test", "CpuOnlyCopy", [](const NodeInfo&) -> CpuKernel {
      return [](OpContext& ctx) { ctx.set_output(0, ctx.input(0).clone()); };
    });
  });
}

// x -> Relu -> CpuOnlyCopy -> Sigmoid -> Relu -> y: on a GPU worker the copy falls back, with a
// download before it and an upload after it.
Model model_with_fallback() {
  register_cpu_only_op();
  GraphBuilder b;
  b.input("x", DataType::Float32, {256});
  b.node("Relu", {"x"}, {"r"});
  b.node("CpuOnlyCopy", {"r"}, {"c"}, "kiln.test");
  b.node("Sigmoid", {"c"}, {"s"});
  b.node("Relu", {"s"}, {"y"});
  b.output("y");
  return b.build();
}

Tensor input() {
  std::vector<float> v(256);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) - 128.f;
  return Tensor::from_data<float>({256}, v);
}

// The trace parses as JSON and names its tracks; returns the events by category.
std::map<std::string, std::vector<nlohmann::json>> parse_trace(const std::string& text,
                                                               std::set<std::string>& tracks) {
  const nlohmann::json trace = nlohmann::json::parse(text);  // throws on invalid JSON
  std::map<int, std::string> track_of;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "thread_name")
      track_of[e.at("tid").get<int>()] = e.at("args").at("name").get<std::string>();
  }
  std::map<std::string, std::vector<nlohmann::json>> by_category;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    EXPECT_GE(e.at("dur").get<double>(), 0.0);
    EXPECT_GE(e.at("ts").get<double>(), 0.0);
    EXPECT_TRUE(track_of.count(e.at("tid").get<int>())) << e.dump();
    tracks.insert(track_of[e.at("tid").get<int>()]);
    by_category[e.at("cat").get<std::string>()].push_back(e);
  }
  return by_category;
}

TEST(Profile, EveryCpuLayerIsTimedOnAWorkerThread) {
  const Model model = model_with_fallback();
  Worker worker(model, Backend::Cpu, {.profile = true});
  worker.schedule({{"x", input()}});
  const Profile p = worker.profile();
  EXPECT_TRUE(p.device_timing.empty());
  ASSERT_EQ(p.events.size(), 4u);
  for (const ProfileEvent& e : p.events) {
    EXPECT_EQ(e.kind, ProfileEvent::Kind::Layer);
    EXPECT_EQ(e.track.rfind("cpu worker ", 0), 0u) << e.track;
    EXPECT_GE(e.start_us, 0);
    EXPECT_GE(e.duration_us, 0);
    EXPECT_FALSE(e.fallback);
  }
  // Dependent layers: each starts after the one before it ended.
  for (size_t i = 1; i < p.events.size(); ++i)
    EXPECT_GE(p.events[i].start_us, p.events[i - 1].start_us + p.events[i - 1].duration_us - 1e-3);
  const auto ops = p.by_op();
  ASSERT_EQ(ops.size(), 3u);  // Relu (2), CpuOnlyCopy, Sigmoid
  double share = 0;
  int layers = 0;
  for (const OpTime& op : ops) {
    share += op.share;
    layers += op.count;
  }
  EXPECT_NEAR(share, 1.0, 1e-9);
  EXPECT_EQ(layers, 4);
  for (size_t i = 1; i < ops.size(); ++i) EXPECT_GE(ops[i - 1].total_us, ops[i].total_us);
}

TEST(Profile, TheTraceIsValidJsonWithATrackPerWorkerThread) {
  const Model model = model_with_fallback();
  Worker worker(model, Backend::Cpu, {.profile = true});
  worker.schedule({{"x", input()}});
  std::set<std::string> tracks;
  auto events = parse_trace(worker.profile().to_chrome_trace(), tracks);
  ASSERT_EQ(events["layer"].size(), 4u);
  std::multiset<std::string> ops;
  for (const auto& e : events["layer"]) ops.insert(e.at("args").at("op").get<std::string>());
  EXPECT_EQ(ops, (std::multiset<std::string>{"Relu", "Relu", "CpuOnlyCopy", "Sigmoid"}));
  for (const std::string& t : tracks) EXPECT_EQ(t.rfind("cpu worker ", 0), 0u) << t;
}

TEST(Profile, ScheduleIterableRunsOnTheCallersTrack) {
  const Model model = model_with_fallback();
  Worker worker(model, Backend::Cpu, {.profile = true});
  for (LayerStep step : worker.schedule_iterable({{"x", input()}})) (void)step;
  const Profile p = worker.profile();
  ASSERT_EQ(p.events.size(), 4u);
  for (const ProfileEvent& e : p.events) EXPECT_EQ(e.track, "caller thread");
}

TEST(Profile, IsAnErrorWhenOffOrBeforeARun) {
  const Model model = model_with_fallback();
  Worker off(model);
  off.schedule({{"x", input()}});
  EXPECT_THROW(off.profile(), Error);
  Worker on(model, Backend::Cpu, {.profile = true});
  EXPECT_THROW(on.profile(), Error);
}

TEST(Profile, ProfilingDoesNotChangeResults) {
  const Model model = model_with_fallback();
  Worker plain(model), profiled(model, Backend::Cpu, {.profile = true});
  plain.schedule({{"x", input()}});
  profiled.schedule({{"x", input()}});
  EXPECT_TRUE(all_close(profiled.peek_output("y").readback_and_clone(),
                        plain.peek_output("y").readback_and_clone(), 0, 0));
}

// A GPU worker: GPU layers are recorded on a CPU track and run on the device queue's track;
// the CPU-only layer is a fallback; the values crossing are transfers.
TEST_P(DeviceWorker, ProfileShowsDeviceWorkTransfersAndFallbacks) {
  const Model model = model_with_fallback();
  Worker worker(model, backend(), {.profile = true});
  for (int run = 0; run < 2; ++run) {  // the second run's profile is its own
    worker.schedule({{"x", input()}});
    const Profile p = worker.profile();
    EXPECT_FALSE(p.device_timing.empty());
    const std::string queue = std::string(backend_name(backend())) + " queue";
    int device = 0, record = 0, fallback = 0, uploads = 0, downloads = 0;
    for (const ProfileEvent& e : p.events) {
      switch (e.kind) {
        case ProfileEvent::Kind::Device:
          ++device;
          EXPECT_EQ(e.track, queue);
          EXPECT_NE(e.op_type, "CpuOnlyCopy");
          break;
        case ProfileEvent::Kind::Record:
          ++record;
          EXPECT_NE(e.track, queue);
          break;
        case ProfileEvent::Kind::Layer:
          EXPECT_TRUE(e.fallback);
          EXPECT_EQ(e.op_type, "CpuOnlyCopy");
          EXPECT_NE(e.detail.find("fallback"), std::string::npos) << e.detail;
          ++fallback;
          break;
        case ProfileEvent::Kind::Transfer:
          (e.name.rfind("upload ", 0) == 0 ? uploads : downloads) += 1;
          break;
      }
    }
    EXPECT_EQ(device, 3);
    EXPECT_EQ(record, 3);
    EXPECT_EQ(fallback, 1);
    EXPECT_GE(uploads, 2);  // x, and the copy's output
    EXPECT_GE(downloads, 1);  // Relu's output for the copy
    std::set<std::string> tracks;
    auto events = parse_trace(p.to_chrome_trace(), tracks);
    EXPECT_EQ(events["device"].size(), 3u);
    EXPECT_EQ(events["fallback"].size(), 1u);
    EXPECT_GE(events["transfer"].size(), 3u);
    EXPECT_TRUE(tracks.count(queue));
    // The op table counts the GPU layers' device time and the fallback's CPU time.
    int layers = 0;
    for (const OpTime& op : p.by_op()) layers += op.count;
    EXPECT_EQ(layers, 4);
  }
}

}  // namespace
