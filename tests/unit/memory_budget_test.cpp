// The memory budget: a layer, a weight or a tensor that would go past the limit is a kiln::Error
// naming it and the bytes asked, raised before the memory is allocated; memory_stats() reports
// what a worker holds; the plan cache stays within its bound.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "core/memory_budget.h"
#include "graph_builder.h"
#include "onnx/onnx.pb.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

// y = Tanh(Relu(x)) over x: float32[1, width].
Model relu_tanh_model() {
  GraphBuilder b;
  b.symbolic_input("x", DataType::Float32, {"", "width"});
  b.ir().graph.inputs[0].shape[0] = Dim{1, ""};
  b.node("Relu", {"x"}, {"r"}).name = "the_relu";
  b.node("Tanh", {"r"}, {"y"});
  b.output("y");
  return b.build();
}

std::string readback_error(const Tensor& t) {
  try {
    t.readback_and_clone();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(MemoryBudget, ALayerPastTheLimitFailsNamingItAndTheBytes) {
  Worker worker(relu_tanh_model(), Backend::Cpu, {.memory_limit = 1 << 20});
  worker.schedule({{"x", Tensor::zeros(DataType::Float32, {1, 1 << 20})}});  // 4 MiB values
  const std::string message = readback_error(worker.peek_output("y"));
  EXPECT_NE(message.find("the_relu"), std::string::npos) << message;
  EXPECT_NE(message.find("asks for 4194304 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("memory limit of 1048576 bytes"), std::string::npos) << message;
  // Smaller shapes still run on the same worker, within the limit.
  worker.schedule({{"x", Tensor::from_data<float>({1, 1000}, std::vector<float>(1000, 1.0f))}});
  EXPECT_NEAR(worker.peek_output("y").readback_and_clone().data<float>()[999], std::tanh(1.0f),
              1e-6);
  EXPECT_LE(worker.memory_stats().peak_bytes, uint64_t{1} << 20);
}

TEST(MemoryBudget, AnInitializerPastTheLoadLimitFailsNamingIt) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* w = g->add_initializer();
  w->set_name("big_weight");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(1 << 20);
  w->set_raw_data(std::string(size_t{4} << 20, '\0'));
  auto* n = g->add_node();
  n->set_op_type("Relu");
  n->add_input("big_weight");
  n->add_output("y");
  g->add_output()->set_name("y");
  const std::string bytes = m.SerializeAsString();
  try {
    load_model_from_bytes(bytes.data(), bytes.size(), ".", {.memory_limit = 1 << 20});
    ADD_FAILURE() << "loaded";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("initializer 'big_weight'"), std::string::npos) << message;
    EXPECT_NE(message.find("asks for 4194304 bytes"), std::string::npos) << message;
  }
  EXPECT_NO_THROW(
      load_model_from_bytes(bytes.data(), bytes.size(), ".", {.memory_limit = 64 << 20}));
}

TEST(MemoryBudget, ATensorPastTheDefaultLimitIsAnErrorNotAnOutOfMemoryKill) {
  const int64_t elements = static_cast<int64_t>(default_memory_limit() / 4 + 1024);
  try {
    Tensor::zeros(DataType::Float32, {elements});
    ADD_FAILURE() << "allocated";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("past the memory limit"), std::string::npos) << e.what();
  }
}

// A node whose attributes size its output (one column per n-gram index) and its scratch
// counts: the scratch is charged to the budget too. Here the output (40 MB) fits the limit and
// the counts (80 MB more) do not; a huge index would otherwise allocate gigabytes unseen.
TEST(MemoryBudget, AnOutputSizedByAttributesIsChargedWithItsScratch) {
  GraphBuilder b(9);
  b.input("x", DataType::Int64, {1, 4});
  auto& tfidf = b.node("TfIdfVectorizer", {"x"}, {"y"});
  tfidf.name = "the_vectorizer";
  tfidf.attributes.push_back(int_attr("min_gram_length", 1));
  tfidf.attributes.push_back(int_attr("max_gram_length", 1));
  tfidf.attributes.push_back(int_attr("max_skip_count", 0));
  tfidf.attributes.push_back(ints_attr("ngram_counts", {0}));
  tfidf.attributes.push_back(ints_attr("ngram_indexes", {10'000'000}));
  tfidf.attributes.push_back(ints_attr("pool_int64s", {7}));
  ir::Attribute mode;
  mode.name = "mode";
  mode.type = ir::Attribute::Type::String;
  mode.s = "TF";
  tfidf.attributes.push_back(mode);
  b.output("y");
  Worker worker(b.build(), Backend::Cpu, {.memory_limit = 64 << 20});
  worker.schedule({{"x", Tensor::from_data<int64_t>({1, 4}, {7, 1, 7, 2})}});
  const std::string message = readback_error(worker.peek_output("y"));
  EXPECT_NE(message.find("the_vectorizer"), std::string::npos) << message;
  EXPECT_NE(message.find("past the memory limit"), std::string::npos) << message;
}

TEST(MemoryStats, PlansAreCachedWithinTheirBoundAndShareOneArena) {
  Worker worker(relu_tanh_model(), Backend::Cpu, {.plan_cache_bytes = 4096});
  EXPECT_EQ(worker.memory_stats().cached_plans, 0u);
  for (int64_t width = 1000; width < 1100; ++width) {
    // Each run read back before the next: one execution serves them all (a schedule while a
    // run is still going gets an execution, and plans, of its own).
    worker.schedule({{"x", Tensor::zeros(DataType::Float32, {1, width})}});
    worker.peek_output("y").readback_and_clone();
    worker.schedule({{"x", Tensor::zeros(DataType::Float32, {1, width})}});  // planned
    worker.peek_output("y").readback_and_clone();
    const MemoryStats stats = worker.memory_stats();
    EXPECT_GE(stats.planned_bytes, static_cast<uint64_t>(width) * 4) << width;
    EXPECT_GE(stats.arena_bytes, stats.planned_bytes);
    // One value ("r") is planned: the arena never holds more than twice the largest plan kept.
    EXPECT_LE(stats.arena_bytes, 2 * (uint64_t{1100} * 4 + 64)) << width;
    EXPECT_LE(stats.plan_cache_bytes, uint64_t{4096});
    EXPECT_GE(stats.cached_plans, 1u);
    EXPECT_LT(stats.cached_plans, 20u);  // of the 100 signatures seen
    EXPECT_LE(stats.in_use_bytes, stats.peak_bytes);
    EXPECT_GT(stats.memory_limit, 0u);
  }
}

// x: float32[n, w] through 16 Relu and Tanh nodes, then Neg: y. At [1, 2^18], 1 MiB values in a
// chain.
Model chain_of_values() {
  GraphBuilder b;
  b.symbolic_input("x", DataType::Float32, {"n", "w"});
  std::string previous = "x";
  for (int i = 0; i < 16; ++i) {
    const std::string next = "v" + std::to_string(i);
    b.node(i % 2 ? "Tanh" : "Relu", {previous}, {next});
    previous = next;
  }
  b.node("Neg", {previous}, {"y"});
  b.output("y");
  return b.build();
}

const Shape kMiBValues{1, 1 << 18};

long minor_page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// The first run with new shapes records every value's size for the memory plan: it frees each
// value once its last reader has run, so it peaks at what the live values need, as the planned
// runs do, not at the sum of all the values of the graph.
TEST(MemoryStats, TheRecordingRunFreesEachValueAfterItsLastReader) {
  Worker worker(chain_of_values(), Backend::Cpu, {.num_threads = 1});
  worker.schedule({{"x", Tensor::zeros(DataType::Float32, kMiBValues)}});
  worker.peek_output("y").readback_and_clone();
  // The output and at most two intermediate values at a time, beside the input (the caller's):
  // not the 16 intermediate MiB.
  EXPECT_LE(worker.memory_stats().peak_bytes, uint64_t{4} << 20);
}

// Page faults of making `count` values of `shape` afresh and writing every element: what a run
// that takes fresh memory for each value pays, under whatever instrumentation this build has
// (a sanitizer's shadow memory faults beside each page).
long faults_of_fresh_values(int count, const Shape& shape) {
  const long before = minor_page_faults();
  std::vector<Tensor> values;
  for (int i = 0; i < count; ++i) {
    values.push_back(Tensor::zeros(DataType::Float32, shape));
    float* data = values.back().mutable_data<float>();
    std::fill(data, data + values.back().element_count(), 1.0f);
  }
  return minor_page_faults() - before;
}

// The recording run has no memory plan and allocates each value on its own: each value takes
// the pages of one that died (runtime/storage_recycler.h), which are resident already, so the
// chain touches the memory of about three values, not of sixteen (a fresh page costs a fault,
// microseconds on a virtual machine).
TEST(MemoryStats, TheRecordingRunReusesTheMemoryOfDeadValues) {
  Worker worker(chain_of_values(), Backend::Cpu, {.num_threads = 1});
  // A first run on small values starts what the worker starts once (its threads, their
  // buffers), so that the run measured below is a recording run and nothing else.
  worker.schedule({{"x", Tensor::zeros(DataType::Float32, {1, 256})}});
  worker.peek_output("y").readback_and_clone();
  const Tensor x = Tensor::zeros(DataType::Float32, kMiBValues);
  const long before = minor_page_faults();
  worker.schedule({{"x", x}});
  worker.peek_output("y").readback_and_clone();
  const long faults = minor_page_faults() - before;
  // Taking fresh memory for each of the 17 values and the copy read back would fault about as
  // often as making 18 fresh values; reusing it, the output, its copy and about three
  // intermediate values fault: well under half that.
  const long fresh = faults_of_fresh_values(18, kMiBValues);
  EXPECT_LT(faults, fresh / 2) << faults << " faults, against " << fresh << " for fresh values";
}

// memory_stats() may be called from any thread while the worker schedules (a monitoring thread
// of a service): the thread sanitizer build runs this test to check it reads nothing unguarded.
TEST(MemoryStats, CanBeReadFromAnotherThreadWhileRunsAreScheduled) {
  Worker worker(relu_tanh_model(), Backend::Cpu, {.plan_cache_bytes = 4096});
  std::atomic<bool> done{false};
  std::thread monitor([&] {
    while (!done.load()) {
      const MemoryStats stats = worker.memory_stats();
      EXPECT_LE(stats.in_use_bytes, stats.peak_bytes);
      EXPECT_LE(stats.peak_bytes, stats.memory_limit);
    }
  });
  for (int64_t width = 1; width <= 200; ++width) {
    worker.schedule({{"x", Tensor::zeros(DataType::Float32, {1, width})}});
    if (width % 3 == 0) worker.peek_output("y").readback_and_clone();
  }
  worker.peek_output("y").readback_and_clone();
  done.store(true);
  monitor.join();
  EXPECT_GE(worker.memory_stats().cached_plans, 1u);
}

}  // namespace
}  // namespace kiln::testing
