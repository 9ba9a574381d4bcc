// The CPU worker's fusions of what follows a linear layer (passes/fuse_linear_epilogues.cpp):
// MatMul -> [bias] -> [residual] -> [activation] into kiln::MatMulBias, and Gemm -> [residual]
// -> [activation] into kiln::FusedGemm. Which graphs fuse, which must not, and that the fused
// worker gives the unfused worker's results.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "fusion_check.h"
#include "graph_builder.h"
#include "ir/domains.h"
#include "passes/graph_rewrite.h"

namespace kiln::testing {
namespace {

// An activation from value "in" to "y", as an exporter writes it.
struct Activation {
  const char* what;
  std::function<void(GraphBuilder&)> add;
};

std::vector<Activation> activations() {
  return {
      {"Relu", [](GraphBuilder& b) { b.node("Relu", {"in"}, {"y"}); }},
      {"Clip(-0.5, 0.5)",
       [](GraphBuilder& b) {
         b.initializer("lo", scalar(-0.5f));
         b.initializer("hi", scalar(0.5f));
         b.node("Clip", {"in", "lo", "hi"}, {"y"});
       }},
      {"Clip with only a max",
       [](GraphBuilder& b) {
         b.initializer("hi", scalar(0.25f));
         b.node("Clip", {"in", "", "hi"}, {"y"});
       }},
      {"HardSwish", [](GraphBuilder& b) { b.node("HardSwish", {"in"}, {"y"}); }},
      {"Sigmoid", [](GraphBuilder& b) { b.node("Sigmoid", {"in"}, {"y"}); }},
      {"SiLU",
       [](GraphBuilder& b) {
         b.node("Sigmoid", {"in"}, {"s"});
         b.node("Mul", {"s", "in"}, {"y"});
       }},
      {"Gelu", [](GraphBuilder& b) { b.node("Gelu", {"in"}, {"y"}); }},
      {"Gelu (tanh)",
       [](GraphBuilder& b) {
         b.node("Gelu", {"in"}, {"y"}).attributes = {
             passes::string_attribute("approximate", "tanh")};
       }},
      {"com.microsoft Gelu",
       [](GraphBuilder& b) { b.node("Gelu", {"in"}, {"y"}, ir::kMicrosoftDomain); }},
      {"GELU spelled op by op",
       [](GraphBuilder& b) {
         b.initializer("root", scalar(static_cast<float>(std::sqrt(2.0))));
         b.initializer("one", scalar(1.0f));
         b.initializer("half", scalar(0.5f));
         b.node("Div", {"in", "root"}, {"d"});
         b.node("Erf", {"d"}, {"e"});
         b.node("Add", {"e", "one"}, {"a"});
         b.node("Mul", {"in", "a"}, {"m"});
         b.node("Mul", {"m", "half"}, {"y"});
       }},
  };
}

// x [2, 5, 24] -> MatMul(w [24, 40]) -> p, then `tail`; z [2, 5, 40] is a second input.
// Opset 20: ai.onnx Gelu exists.
GraphBuilder matmul_model(const std::function<void(GraphBuilder&)>& tail) {
  GraphBuilder b(20);
  b.input("x", DataType::Float32, {2, 5, 24});
  b.input("z", DataType::Float32, {2, 5, 40});
  b.initializer("w", random({24, 40}, 1));
  b.initializer("bias", random({40}, 2));
  b.node("MatMul", {"x", "w"}, {"p"});
  tail(b);
  b.output("y");
  return b;
}

// The MatMul's chain up to "in", then the activation.
std::function<void(GraphBuilder&)> then(std::function<void(GraphBuilder&)> head,
                                        const Activation& act) {
  return [head, act](GraphBuilder& b) {
    head(b);
    act.add(b);
  };
}

TEST(FuseLinearEpilogues, ALinearLayerAndItsBiasAreOneNodeWithTheBiasOnEitherSide) {
  for (bool bias_first : {false, true}) {
    auto make = [&] {
      return matmul_model([&](GraphBuilder& b) {
        b.node("Add",
               bias_first ? std::vector<std::string>{"bias", "p"}
                          : std::vector<std::string>{"p", "bias"},
               {"y"});
      });
    };
    EXPECT_EQ(worker_ops(make().build()), std::vector<std::string>{"MatMulBias"});
    expect_fused_result(make, bias_first ? "bias + product" : "product + bias");
  }
}

TEST(FuseLinearEpilogues, EveryActivationAfterABiasAndAResidualIsOneNode) {
  const std::vector<std::pair<const char*, std::function<void(GraphBuilder&)>>> heads = {
      {"product", [](GraphBuilder& b) { b.node("Identity", {"p"}, {"in"}); }},
      {"bias",
       [](GraphBuilder& b) {
         b.node("Add", {"p", "bias"}, {"in"});
       }},
      {"residual",
       [](GraphBuilder& b) {
         b.node("Add", {"z", "p"}, {"in"});
       }},
      {"bias + residual",
       [](GraphBuilder& b) {
         b.node("Add", {"bias", "p"}, {"pb"});
         b.node("Add", {"pb", "z"}, {"in"});
       }},
  };
  for (const auto& head : heads) {
    for (const Activation& act : activations()) {
      const std::string what = std::string(head.first) + " + " + act.what;
      auto make = [&] { return matmul_model(then(head.second, act)); };
      EXPECT_EQ(worker_ops(make().build()), std::vector<std::string>{"MatMulBias"}) << what;
      expect_fused_result(make, what);
    }
  }
}

TEST(FuseLinearEpilogues, AResidualWithoutAnActivationFuses) {
  auto make = [] {
    return matmul_model([](GraphBuilder& b) { b.node("Add", {"p", "z"}, {"y"}); });
  };
  EXPECT_EQ(worker_ops(make().build()), std::vector<std::string>{"MatMulBias"});
  expect_fused_result(make, "product + residual");
}

TEST(FuseLinearEpilogues, OnlyAConstantWeightAndValuesReadNowhereElseFuse) {
  {  // B is an input.
    GraphBuilder b(20);
    b.input("x", DataType::Float32, {5, 24});
    b.input("w", DataType::Float32, {24, 40});
    b.initializer("bias", random({40}, 2));
    b.node("MatMul", {"x", "w"}, {"p"});
    b.node("Add", {"p", "bias"}, {"a"});
    b.node("Relu", {"a"}, {"y"});
    b.output("y");
    EXPECT_EQ(worker_ops(b.build()), (std::vector<std::string>{"MatMul", "Add", "Relu"}));
  }
  {  // The product is read elsewhere too.
    GraphBuilder b = matmul_model([](GraphBuilder& b) { b.node("Add", {"p", "bias"}, {"y"}); });
    b.node("Neg", {"p"}, {"n"});
    b.output("n");
    EXPECT_EQ(worker_ops(b.build()), (std::vector<std::string>{"MatMul", "Add", "Neg"}));
  }
  {  // The biased value is read elsewhere: the bias fuses, the activation stays.
    GraphBuilder b = matmul_model([](GraphBuilder& b) {
      b.node("Add", {"p", "bias"}, {"a"});
      b.node("Relu", {"a"}, {"y"});
    });
    b.output("a");
    EXPECT_EQ(worker_ops(b.build()), (std::vector<std::string>{"MatMulBias", "Relu"}));
  }
  {  // A broadcasting Add of an input is neither a bias nor a residual.
    GraphBuilder b(20);
    b.input("x", DataType::Float32, {2, 5, 24});
    b.input("r", DataType::Float32, {40});
    b.initializer("w", random({24, 40}, 1));
    b.node("MatMul", {"x", "w"}, {"p"});
    b.node("Add", {"p", "r"}, {"y"});
    b.output("y");
    EXPECT_EQ(worker_ops(b.build()), (std::vector<std::string>{"MatMul", "Add"}));
  }
  {  // Clip with a bound that is an input is not a known activation.
    GraphBuilder b = matmul_model([](GraphBuilder& b) {
      b.node("Add", {"p", "bias"}, {"a"});
      b.node("Clip", {"a", "lo"}, {"y"});
    });
    b.input("lo", DataType::Float32, {});
    EXPECT_EQ(worker_ops(b.build()), (std::vector<std::string>{"MatMulBias", "Clip"}));
  }
}

// x [6, 24] -> Gemm(w, [c]) -> g, then `tail`; z [6, 40] is a second input. `trans_b`: w is
// [40, 24].
GraphBuilder gemm_model(bool with_c, bool trans_b, const std::function<void(GraphBuilder&)>& tail) {
  GraphBuilder b(20);
  b.input("x", DataType::Float32, {6, 24});
  b.input("z", DataType::Float32, {6, 40});
  b.initializer("w", random(trans_b ? Shape{40, 24} : Shape{24, 40}, 1));
  b.initializer("c", random({40}, 2));
  ir::Node& gemm = b.node(
      "Gemm", with_c ? std::vector<std::string>{"x", "w", "c"} : std::vector<std::string>{"x", "w"},
      {"g"});
  gemm.attributes = {passes::float_attribute("alpha", 0.5f), passes::float_attribute("beta", 2.0f),
                     int_attr("transB", trans_b ? 1 : 0)};
  tail(b);
  b.output("y");
  return b;
}

TEST(FuseLinearEpilogues, AGemmTakesItsActivation) {
  for (bool with_c : {false, true}) {
    for (bool trans_b : {false, true}) {
      for (const Activation& act : activations()) {
        const std::string what = std::string(with_c ? "Gemm with C" : "Gemm") +
                                 (trans_b ? " (B transposed)" : "") + " + " + act.what;
        auto make = [&] {
          return gemm_model(with_c, trans_b,
                            then([](GraphBuilder& b) { b.node("Identity", {"g"}, {"in"}); }, act));
        };
        EXPECT_EQ(worker_ops(make().build()), std::vector<std::string>{"FusedGemm"}) << what;
        expect_fused_result(make, what);
      }
    }
  }
}

TEST(FuseLinearEpilogues, AGemmWithoutCTakesAResidualAsC) {
  for (bool act : {false, true}) {
    auto make = [&] {
      return gemm_model(false, true, [&](GraphBuilder& b) {
        b.node("Add", {"z", "g"}, {act ? "r" : "y"});
        if (act) b.node("Sigmoid", {"r"}, {"y"});
      });
    };
    EXPECT_EQ(worker_ops(make().build()), std::vector<std::string>{"FusedGemm"});
    expect_fused_result(make, act ? "Gemm + residual + Sigmoid" : "Gemm + residual");
  }
  // With a C of its own, the residual stays an Add.
  GraphBuilder b = gemm_model(true, true, [](GraphBuilder& b) {
    b.node("Add", {"g", "z"}, {"y"});
  });
  EXPECT_EQ(worker_ops(b.build()), (std::vector<std::string>{"Gemm", "Add"}));
}

TEST(FuseLinearEpilogues, BadFusedNodesFailWithTheNodesName) {
  {  // An activation kiln does not know.
    GraphBuilder b(20);
    b.input("x", DataType::Float32, {6, 24});
    b.initializer("w", random({24, 40}, 1));
    b.node("FusedGemm", {"x", "w"}, {"y"}, "kiln").attributes = {
        passes::string_attribute("activation", "Softplus")};
    b.output("y");
    try {
      Worker w(b.build(false), Backend::Cpu);
      ADD_FAILURE() << "an unknown activation loaded";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("Softplus"), std::string::npos) << e.what();
    }
  }
  {  // A residual of another shape than the product's.
    GraphBuilder b(20);
    b.input("x", DataType::Float32, {6, 24});
    b.input("z", DataType::Float32, {6, 41});
    b.initializer("w", random({24, 40}, 1));
    b.node("MatMulBias", {"x", "w", "", "z"}, {"y"}, "kiln");
    b.output("y");
    try {
      run_one(b.build(false), {{"x", random({6, 24}, 3)}, {"z", random({6, 41}, 4)}}, "y");
      ADD_FAILURE() << "a residual of the wrong shape ran";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("residual"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kiln::testing
