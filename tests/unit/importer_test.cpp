// Loading ONNX files: good models load, bad ones give a kiln::Error that names what and where.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "kiln/kiln.h"
#include "onnx/onnx.pb.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

// x -> Relu -> y, with an initializer-free graph.
onnx::ModelProto relu_model(int opset = 13) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* in = g->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  auto* dim = in->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim();
  dim->set_dim_param("n");
  g->add_output()->set_name("y");
  auto* n = g->add_node();
  n->set_op_type("Relu");
  n->set_name("relu1");
  n->add_input("x");
  n->add_output("y");
  return m;
}

std::string message_of(const std::string& bytes, const std::string& base_dir = ".") {
  try {
    load_model_from_bytes(bytes.data(), bytes.size(), base_dir);
  } catch (const Error& e) {
    return e.what();
  }
  return "loaded";
}

std::string message_of(const onnx::ModelProto& m) { return message_of(m.SerializeAsString()); }

}  // namespace

TEST(Importer, LoadsAModelWithSymbolicDims) {
  const std::string bytes = relu_model().SerializeAsString();
  Model model = load_model_from_bytes(bytes.data(), bytes.size());
  ASSERT_EQ(model.inputs().size(), 1u);
  EXPECT_EQ(model.inputs()[0].name, "x");
  EXPECT_EQ(model.inputs()[0].to_string(), "float32[n]");
  EXPECT_EQ(model.opset(), 13);
  Worker worker(model);
  worker.schedule({{"x", Tensor::from_data<float>({3}, {-1, 0, 1})}});
  EXPECT_EQ(worker.peek_output().readback_and_clone().to_vector<float>(),
            (std::vector<float>{0, 0, 1}));
}

TEST(Importer, RandomBytesAreNotAModel) {
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i) {
    std::string bytes(static_cast<size_t>(rng() % 512), '\0');
    for (auto& c : bytes) c = static_cast<char>(rng());
    const std::string msg = message_of(bytes);
    EXPECT_NE(msg, "loaded");  // never a crash; usually "not a valid ONNX model"
  }
  EXPECT_NE(message_of("hello world").find("not a valid ONNX model"), std::string::npos);
}

TEST(Importer, EveryTruncationIsAnError) {
  const std::string bytes = relu_model().SerializeAsString();
  for (size_t len = 0; len < bytes.size(); ++len) {
    EXPECT_NE(message_of(bytes.substr(0, len)), "loaded") << "truncated at " << len;
  }
}

TEST(Importer, MissingOpsetImport) {
  auto m = relu_model();
  m.clear_opset_import();
  EXPECT_NE(message_of(m).find("no opset_import"), std::string::npos);
}

TEST(Importer, UnknownOpNamesNodeAndOp) {
  auto m = relu_model();
  m.mutable_graph()->mutable_node(0)->set_op_type("FrobnicateV2");
  const std::string msg = message_of(m);
  EXPECT_NE(msg.find("FrobnicateV2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("relu1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not supported"), std::string::npos) << msg;
}

TEST(Importer, CycleIsReported) {
  auto m = relu_model();
  auto* g = m.mutable_graph();
  g->mutable_node(0)->set_input(0, "z");  // relu1: z -> y
  auto* n = g->add_node();                // relu2: y -> z
  n->set_op_type("Relu");
  n->set_name("relu2");
  n->add_input("y");
  n->add_output("z");
  const std::string msg = message_of(m);
  EXPECT_NE(msg.find("cycle"), std::string::npos) << msg;
}

TEST(Importer, UnsortedGraphsAreSorted) {
  auto m = relu_model();
  auto* g = m.mutable_graph();
  g->mutable_node(0)->set_input(0, "mid");  // relu1: mid -> y, listed first
  auto* n = g->add_node();                  // relu0: x -> mid, listed second
  n->set_op_type("Relu");
  n->add_input("x");
  n->add_output("mid");
  const std::string bytes = m.SerializeAsString();
  Model model = load_model_from_bytes(bytes.data(), bytes.size());
  Worker worker(model);
  worker.schedule({{"x", Tensor::from_data<float>({2}, {-5, 5})}});
  EXPECT_EQ(worker.peek_output().readback_and_clone().to_vector<float>(),
            (std::vector<float>{0, 5}));
}

TEST(Importer, UndefinedInputIsReported) {
  auto m = relu_model();
  m.mutable_graph()->mutable_node(0)->set_input(0, "ghost");
  EXPECT_NE(message_of(m).find("'ghost'"), std::string::npos);
}

TEST(Importer, AttributeOfTheWrongTypeNamesTheAttribute) {
  auto m = relu_model();
  auto* n = m.mutable_graph()->mutable_node(0);
  n->set_op_type("LeakyRelu");
  auto* a = n->add_attribute();
  a->set_name("alpha");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s("big");
  const std::string msg = message_of(m);
  EXPECT_NE(msg.find("alpha"), std::string::npos) << msg;
  EXPECT_NE(msg.find("float"), std::string::npos) << msg;
}

TEST(Importer, UnsupportedIrVersionAndOpset) {
  auto m = relu_model();
  m.set_ir_version(99);
  EXPECT_NE(message_of(m).find("IR version 99"), std::string::npos);
  auto m2 = relu_model(99);
  EXPECT_NE(message_of(m2).find("opset 99"), std::string::npos);
}

TEST(Importer, ExternalDataIsReadRelativeToTheModel) {
  const fs::path dir = fs::temp_directory_path() / "kiln_external_data_test";
  fs::create_directories(dir);
  const std::vector<float> bias = {1, 2, 3};
  {
    std::ofstream f(dir / "weights.bin", std::ios::binary);
    f.write("PAD!", 4);
    f.write(reinterpret_cast<const char*>(bias.data()), 12);
  }
  auto m = relu_model();
  auto* g = m.mutable_graph();
  auto* init = g->add_initializer();
  init->set_name("b");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(3);
  init->set_data_location(onnx::TensorProto::EXTERNAL);
  auto add_entry = [&](const std::string& k, const std::string& v) {
    auto* e = init->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add_entry("location", "weights.bin");
  add_entry("offset", "4");
  add_entry("length", "12");
  g->mutable_node(0)->set_output(0, "r");
  auto* add = g->add_node();
  add->set_op_type("Relu");
  add->add_input("b");
  add->add_output("y");
  {
    std::ofstream f(dir / "model.onnx", std::ios::binary);
    f << m.SerializeAsString();
  }
  Model model = load_model((dir / "model.onnx").string());
  Worker worker(model);
  worker.schedule({{"x", Tensor::from_data<float>({1}, {0})}});
  EXPECT_EQ(worker.peek_output().readback_and_clone().to_vector<float>(), bias);

  fs::remove(dir / "weights.bin");
  try {
    load_model((dir / "model.onnx").string());
    FAIL() << "expected an error for the missing external data file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("weights.bin"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(Importer, ExternalDataMayNotLeaveTheModelFolder) {
  auto m = relu_model();
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("b");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* e = init->add_external_data();
  e->set_key("location");
  e->set_value("../../etc/passwd");
  EXPECT_NE(message_of(m).find("inside the model's folder"), std::string::npos);
}

TEST(Importer, MissingFileIsAClearError) {
  try {
    load_model("/nonexistent/model.onnx");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos);
  }
}

TEST(Importer, TensorDataOfTheWrongSizeIsReported) {
  auto m = relu_model();
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("b");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(4);
  init->add_float_data(1.f);
  EXPECT_NE(message_of(m).find("initializer 'b'"), std::string::npos);
}

// A few bytes may declare any shape: the data is checked against the shape before anything is
// allocated (a fuzzer found both: 92 GB asked for by a 44-byte tensor file, 48 GB by a tensor
// attribute).
TEST(Importer, ATensorWithLessDataThanItsShapeIsRefusedBeforeAllocating) {
  onnx::ModelProto m = relu_model();
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("big");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(int64_t{1} << 20);
  init->add_dims(int64_t{1} << 20);
  init->set_raw_data(std::string(8, '\0'));
  EXPECT_NE(
      message_of(m).find("tensor data holds 8 bytes, shape [1048576, 1048576] of float32 needs"),
      std::string::npos)
      << message_of(m);
  init->clear_raw_data();
  for (int i = 0; i < 3; ++i) init->add_float_data(1.0f);
  EXPECT_NE(message_of(m).find("tensor holds 3 values, its shape [1048576, 1048576] needs"),
            std::string::npos)
      << message_of(m);
}

// Shape inference does arithmetic on declared dims: a declared shape too large for any tensor
// is refused at load, naming the value, rather than overflowing a rule.
TEST(Importer, ADeclaredShapeLargerThanAnyTensorIsRefused) {
  onnx::ModelProto m = relu_model();
  auto* shape =
      m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->mutable_dim(0)->set_dim_value(int64_t{1} << 30);
  shape->add_dim()->set_dim_value(int64_t{1} << 30);
  EXPECT_NE(
      message_of(m).find("value 'x': declared shape has more elements than a tensor can hold"),
      std::string::npos)
      << message_of(m);
  shape->mutable_dim(1)->set_dim_value(0);  // an empty tensor is fine
  EXPECT_EQ(message_of(m), "loaded");
}

// A symbolic link inside the model's folder is followed only where it stays inside: a model may
// not read a file elsewhere through one.
TEST(Importer, ExternalDataMayNotLeaveTheModelFolderThroughASymbolicLink) {
  const fs::path root = fs::temp_directory_path() / "kiln_external_data_link_test";
  fs::remove_all(root);
  fs::create_directories(root / "model");
  const std::vector<float> secret = {1, 2, 3};
  {
    std::ofstream f(root / "secret.bin", std::ios::binary);
    f.write(reinterpret_cast<const char*>(secret.data()), 12);
  }
  fs::create_symlink(root / "secret.bin", root / "model" / "weights.bin");
  auto m = relu_model();
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("b");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(3);
  init->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* e = init->add_external_data();
  e->set_key("location");
  e->set_value("weights.bin");
  const std::string bytes = m.SerializeAsString();
  EXPECT_NE(message_of(bytes, (root / "model").string()).find("leads outside the model's folder"),
            std::string::npos)
      << message_of(bytes, (root / "model").string());
  // The same link to a file inside the folder is fine.
  fs::rename(root / "secret.bin", root / "model" / "inner.bin");
  fs::remove(root / "model" / "weights.bin");
  fs::create_symlink(root / "model" / "inner.bin", root / "model" / "weights.bin");
  EXPECT_EQ(message_of(bytes, (root / "model").string()), "loaded");
  fs::remove_all(root);
}
