// .kiln files: a saved optimized model loads back to the same results, by its magic bytes,
// and a truncated or altered file is a clear kiln::Error.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "device_worker_fixture.h"
#include "graph_builder.h"
#include "subgraph_builder.h"

using namespace kiln;
using kiln::testing::Body;
using kiln::testing::DeviceWorker;
using kiln::testing::graph_attr;
using kiln::testing::GraphBuilder;

namespace {

namespace fs = std::filesystem;

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("kiln_format_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size());
}

Tensor ramp(const Shape& shape, float scale) {
  std::vector<float> v(static_cast<size_t>(shape.element_count()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<float>(i) * scale);
  return Tensor::from_data<float>(shape, v);
}

// Conv + BatchNorm (folded at load), Relu, a constant-folded Shape chain, Reshape, Gemm.
Model conv_model() {
  GraphBuilder b;
  b.input("x", DataType::Float32, {1, 2, 5, 5});
  b.initializer("w", ramp({3, 2, 3, 3}, 0.37f));
  b.initializer("scale", ramp({3}, 0.9f));
  b.initializer("bias", ramp({3}, 1.3f));
  b.initializer("mean", ramp({3}, 0.2f));
  b.initializer("var", Tensor::from_data<float>({3}, {1.f, 2.f, 0.5f}));
  b.initializer("fc", ramp({27, 4}, 0.11f));
  b.initializer("flat", Tensor::from_data<int64_t>({2}, {1, -1}));
  ir::Attribute pads;
  pads.name = "pads";
  pads.type = ir::Attribute::Type::Ints;
  pads.ints = {0, 0, 0, 0};
  b.node("Conv", {"x", "w"}, {"c"}).attributes.push_back(pads);
  b.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"n"});
  b.node("Relu", {"n"}, {"r"});
  b.node("Reshape", {"r", "flat"}, {"f"});
  b.node("Gemm", {"f", "fc"}, {"y"});
  b.output("y");
  return b.build();
}

// If with branches that read outer values, and strings in an attribute.
Model if_model() {
  GraphBuilder b;
  b.input("c", DataType::Bool, {});
  b.input("x", DataType::Float32, {2});
  b.initializer("k", Tensor::from_data<float>({2}, {0.5f, -3.f}));
  b.node("Relu", {"x"}, {"rx"});
  ir::Node& n = b.node("If", {"c"}, {"y"});
  n.attributes.push_back(
      graph_attr("then_branch", Body("then").node("Add", {"rx", "k"}, {"s"}).output("s")));
  n.attributes.push_back(graph_attr(
      "else_branch",
      Body("else").constant("two", Tensor::from_data<float>({1}, {2.f})).node("Mul", {"rx", "two"}, {"p"}).output("p")));
  b.output("y");
  return b.build();
}

Model reload(const Model& model, const std::string& name) {
  const std::string path = temp_path(name);
  save_model(model, path);
  Model back = load_model(path);
  fs::remove(path);  // the mapping stays valid after the name is gone
  return back;
}

std::vector<Tensor> run(const Model& model, const std::vector<NamedTensor>& inputs,
                        Backend backend = Backend::Cpu) {
  Worker worker(model, backend);
  worker.schedule(std::span<const NamedTensor>(inputs));
  std::vector<Tensor> out;
  for (const auto& name : worker.output_names())
    out.push_back(worker.peek_output(name).readback_and_clone());
  return out;
}

void expect_same(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(all_close(a[i], b[i], 0, 0)) << a[i].to_string() << " vs " << b[i].to_string();
}

TEST(KilnFormat, ASavedModelGivesTheSameResults) {
  const Model model = conv_model();
  const Model back = reload(model, "conv.kiln");
  EXPECT_EQ(back.node_count(), model.node_count());
  EXPECT_EQ(back.inputs().size(), 1u);
  EXPECT_EQ(back.inputs()[0].to_string(), model.inputs()[0].to_string());
  EXPECT_EQ(back.outputs()[0].to_string(), model.outputs()[0].to_string());
  EXPECT_EQ(back.opset(), model.opset());
  const Tensor x = ramp({1, 2, 5, 5}, 0.5f);
  expect_same(run(back, {{"x", x}}), run(model, {{"x", x}}));
}

TEST(KilnFormat, SubgraphsSurviveTheRoundTrip) {
  const Model model = if_model();
  const Model back = reload(model, "if.kiln");
  const Tensor x = Tensor::from_data<float>({2}, {-1.f, 4.f});
  for (bool c : {true, false}) {
    const std::vector<NamedTensor> in = {{"c", Tensor::scalar(c)}, {"x", x}};
    expect_same(run(back, in), run(model, in));
  }
}

TEST(KilnFormat, LoadGoesByMagicBytesNotByName) {
  const Model model = conv_model();
  const std::string path = temp_path("looks_like.onnx");
  save_model(model, path);
  const Tensor x = ramp({1, 2, 5, 5}, 0.5f);
  expect_same(run(load_model(path), {{"x", x}}), run(model, {{"x", x}}));
  // And from memory: the bytes may be freed once loaded.
  Model from_bytes = [&] {
    std::string bytes = read_file(path);
    return load_model_from_bytes(bytes.data(), bytes.size());
  }();
  expect_same(run(from_bytes, {{"x", x}}), run(model, {{"x", x}}));
  fs::remove(path);
}

TEST(KilnFormat, ExtraOutputsApplyToASavedModel) {
  const std::string path = temp_path("extra.kiln");
  save_model(conv_model(), path);
  const Model m = load_model(path, {.extra_outputs = {"r"}});
  ASSERT_EQ(m.outputs().size(), 2u);
  EXPECT_EQ(m.outputs()[1].name, "r");
  EXPECT_THROW(load_model(path, {.extra_outputs = {"no_such_value"}}), Error);
  fs::remove(path);
}

// Every truncation is refused with a message that says so, never a crash.
TEST(KilnFormat, ATruncatedFileIsAClearError) {
  const std::string path = temp_path("trunc.kiln");
  save_model(conv_model(), path);
  const std::string bytes = read_file(path);
  std::vector<size_t> lengths = {9, 16, 63, 64, 65, 128, bytes.size() / 2, bytes.size() - 64,
                                 bytes.size() - 1};
  for (size_t n = 100; n < bytes.size(); n += bytes.size() / 37) lengths.push_back(n);
  for (size_t n : lengths) {
    write_file(path, bytes.substr(0, n));
    try {
      load_model(path);
      ADD_FAILURE() << "a file cut to " << n << " of " << bytes.size() << " bytes loaded";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos)
          << n << " bytes: " << e.what();
    }
  }
  fs::remove(path);
}

// A flipped byte anywhere — header, model table, weights — is refused.
TEST(KilnFormat, AnAlteredByteIsAClearError) {
  const std::string path = temp_path("flip.kiln");
  save_model(conv_model(), path);
  const std::string bytes = read_file(path);
  std::mt19937 rng(7);
  std::vector<size_t> positions = {8, 12, 16, 24, 40, 56, 60, 64, 100, bytes.size() - 1};
  for (int i = 0; i < 60; ++i) positions.push_back(std::uniform_int_distribution<size_t>(8, bytes.size() - 1)(rng));
  for (size_t at : positions) {
    std::string altered = bytes;
    altered[at] = static_cast<char>(altered[at] ^ 0x20);
    write_file(path, altered);
    try {
      load_model(path);
      ADD_FAILURE() << "a file with byte " << at << " altered loaded";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_TRUE(what.find("damaged") != std::string::npos ||
                  what.find("truncated") != std::string::npos ||
                  what.find("version") != std::string::npos)
          << "byte " << at << ": " << what;
    }
  }
  // The magic altered: not a .kiln file, so read as ONNX, which refuses it too.
  std::string altered = bytes;
  altered[0] = 'X';
  write_file(path, altered);
  EXPECT_THROW(load_model(path), Error);
  fs::remove(path);
}

TEST(KilnFormat, AnotherFormatVersionIsNamed) {
  const std::string path = temp_path("version.kiln");
  save_model(conv_model(), path);
  std::string bytes = read_file(path);
  bytes[8] = 2;  // the version field follows the 8-byte magic
  write_file(path, bytes);
  try {
    load_model(path);
    ADD_FAILURE() << "a version-2 file loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("version 2"), std::string::npos) << e.what();
  }
  fs::remove(path);
}

// The public models in ../shared, when present beside the checkout: each gives the same
// outputs from its .kiln file as from its .onnx file (silero_vad has 25 If subgraphs).
TEST(KilnFormat, PublicModelsMatchTheirOnnxLoad) {
  const fs::path models = fs::path(KILN_SOURCE_DIR) / ".." / "shared" / "models";
  if (!fs::is_directory(models)) GTEST_SKIP() << "no " << models;
  int compared = 0;
  for (const char* name : {"mnist_cntk_opset8", "silero_vad_v5_op16", "super_resolution_op13"}) {
    const fs::path dir = models / name;
    if (!fs::exists(dir / "model.onnx")) continue;
    const Model onnx = load_model((dir / "model.onnx").string());
    const Model kiln = reload(onnx, std::string(name) + ".kiln");
    std::vector<Tensor> inputs;
    std::vector<NamedTensor> named;
    for (size_t i = 0; i < onnx.inputs().size(); ++i) {
      const fs::path file = dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb");
      inputs.push_back(load_tensor(file.string()));
    }
    for (size_t i = 0; i < inputs.size(); ++i) named.push_back({onnx.inputs()[i].name, inputs[i]});
    expect_same(run(kiln, named), run(onnx, named));
    ++compared;
  }
  EXPECT_GT(compared, 0);
}

TEST_P(DeviceWorker, ASavedModelGivesTheSameResultsOnTheGpu) {
  const Model model = conv_model();
  const Model back = reload(model, "gpu.kiln");
  const Tensor x = ramp({1, 2, 5, 5}, 0.5f);
  expect_same(run(back, {{"x", x}}, backend()), run(model, {{"x", x}}, backend()));
}

}  // namespace
