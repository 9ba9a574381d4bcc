// LoadOptions::extra_outputs, dump_values and diff_value_dumps.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "device_worker_fixture.h"
#include "graph_builder.h"

using namespace kiln;
using kiln::testing::DeviceWorker;
using kiln::testing::GraphBuilder;

namespace {

namespace fs = std::filesystem;

// x -> Relu -> a; a -> Sigmoid -> b; Add(a, b) -> y
GraphBuilder chain() {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2, 3});
  b.node("Relu", {"x"}, {"a"});
  b.node("Sigmoid", {"a"}, {"b"});
  b.node("Add", {"a", "b"}, {"y"});
  b.output("y");
  return b;
}

Model load_chain(std::vector<std::string> extra) {
  GraphBuilder b = chain();
  prepare_model(b.ir(), LoadOptions{.extra_outputs = std::move(extra)});
  return Model(std::shared_ptr<const ir::Model>(std::make_shared<ir::Model>(b.ir())));
}

const Tensor kX = Tensor::from_data<float>({2, 3}, {-1, 0.5f, 2, -3, 4, 0.25f});

std::string temp_dir(const std::string& name) {
  const fs::path p = fs::temp_directory_path() /
                     ("kiln_dump_test_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  return p.string();
}

TEST(ExtraOutputs, ANamedValueBecomesAnOutput) {
  const Model m = load_chain({"b"});
  ASSERT_EQ(m.outputs().size(), 2u);
  EXPECT_EQ(m.outputs()[0].name, "y");
  EXPECT_EQ(m.outputs()[1].name, "b");
  EXPECT_EQ(m.outputs()[1].to_string(), "float32[2, 3]");  // the inferred type
  Worker w(m);
  w.schedule({{"x", kX}});
  const Tensor b = w.peek_output("b").readback_and_clone();
  const Tensor a = w.peek_output("y").readback_and_clone();
  for (int i = 0; i < 6; ++i) {
    const float relu = std::max(0.f, kX.data<float>()[i]);
    EXPECT_FLOAT_EQ(b.data<float>()[i], 1.f / (1.f + std::exp(-relu)));
    EXPECT_FLOAT_EQ(a.data<float>()[i], relu + b.data<float>()[i]);
  }
}

TEST(ExtraOutputs, StarExposesEveryValueInGraphOrder) {
  const Model m = load_chain({"*"});
  std::vector<std::string> names;
  for (const auto& o : m.outputs()) names.push_back(o.name);
  EXPECT_EQ(names, (std::vector<std::string>{"y", "a", "b"}));
}

TEST(ExtraOutputs, AnUnknownNameIsAnError) {
  try {
    load_chain({"nope"});
    FAIL() << "an unknown value was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'nope'"), std::string::npos) << e.what();
  }
}

TEST(ValueDump, WritesEveryValueBesideItsNode) {
  const Model m = load_chain({"*"});
  Worker w(m);
  w.schedule({{"x", kX}});
  const std::string dir = temp_dir("write");
  const auto dumped = dump_values(w, dir);
  ASSERT_EQ(dumped.size(), 3u);
  EXPECT_EQ(dumped[0].value_name, "a");
  EXPECT_EQ(dumped[0].op_type, "Relu");
  EXPECT_EQ(dumped[0].file, "0000-Relu-Relu_0.0.npy");
  EXPECT_EQ(dumped[1].file, "0001-Sigmoid-Sigmoid_1.0.npy");
  EXPECT_EQ(dumped[2].file, "0002-Add-Add_2.0.npy");
  const Tensor b = load_tensor(dir + "/" + dumped[1].file);
  EXPECT_TRUE(all_close(b, w.peek_output("b").readback_and_clone(), 0, 0));
  const auto index = read_value_dump_index(dir);
  ASSERT_EQ(index.size(), 3u);
  EXPECT_EQ(index[1].node_name, "Sigmoid_1");
  EXPECT_EQ(index[1].type, "float32[2, 3]");
  fs::remove_all(dir);
}

TEST(ValueDump, DiffNamesTheFirstDivergingNodeInGraphOrder) {
  const Model m = load_chain({"*"});
  Worker w(m);
  w.schedule({{"x", kX}});
  const std::string a = temp_dir("a"), b = temp_dir("b");
  const auto dumped = dump_values(w, a);
  dump_values(w, b);
  EXPECT_FALSE(diff_value_dumps(a, b).found);
  // Perturb Sigmoid's and Add's values in b: Sigmoid comes first.
  for (size_t k : {size_t{1}, size_t{2}}) {
    Tensor t = load_tensor(b + "/" + dumped[k].file);
    t.mutable_data<float>()[4] += 0.01f;
    save_tensor(t, b + "/" + dumped[k].file);
  }
  DumpDifference d = diff_value_dumps(a, b);
  ASSERT_TRUE(d.found);
  EXPECT_EQ(d.value.node_name, "Sigmoid_1");
  EXPECT_EQ(d.compared, 2u);
  EXPECT_NE(d.reason.find("flat index 4"), std::string::npos) << d.reason;
  // Within a wider tolerance they agree.
  EXPECT_FALSE(diff_value_dumps(a, b, 0, 0.02).found);
  EXPECT_THROW(diff_value_dumps(a, temp_dir("missing")), Error);
  fs::remove_all(a);
  fs::remove_all(b);
}

// A GPU worker's dump against the CPU's: the same files, every value close.
TEST_P(DeviceWorker, AGpuDumpMatchesTheCpuDump) {
  const Model m = load_chain({"*"});
  Worker gpu(m, backend()), cpu(m);
  gpu.schedule({{"x", kX}});
  cpu.schedule({{"x", kX}});
  const std::string g = temp_dir("gpu"), c = temp_dir("cpu");
  const auto dumped = dump_values(gpu, g);
  dump_values(cpu, c);
  ASSERT_EQ(dumped.size(), 3u);
  const DumpDifference d = diff_value_dumps(g, c);
  EXPECT_FALSE(d.found) << d.value.node_name << ": " << d.reason;
  EXPECT_EQ(d.compared, 3u);
  fs::remove_all(g);
  fs::remove_all(c);
}

}  // namespace
