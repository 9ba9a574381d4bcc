// The CPU worker's fusions of normalizations and Softmax spelled op by op
// (passes/fuse_normalization.cpp into com.microsoft LayerNormalization and
// SimplifiedLayerNormalization, passes/fuse_softmax.cpp into Softmax): each spelling exporters
// write fuses and gives the unfused worker's results; graphs that are not exactly these
// functions (other axes, keepdims 0, a value read elsewhere, a computed epsilon) stay as they
// are.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fusion_check.h"
#include "graph_builder.h"

namespace kiln::testing {
namespace {

// Writes a chain of nodes whose values are named t0, t1, ...; the last one is renamed y.
class Chain {
 public:
  explicit Chain(int opset) : b_(opset), opset_(opset) {}
  GraphBuilder& builder() { return b_; }
  std::string node(const std::string& op, std::vector<std::string> inputs) {
    const std::string out = "t" + std::to_string(count_++);
    b_.node(op, std::move(inputs), {out});
    return out;
  }
  // A Reduce node over `axes`, with them as an attribute or, from `input_opset`, an input; no
  // axes (every axis) when `axes` is empty.
  std::string reduce(const std::string& op, const std::string& in, std::vector<int64_t> axes,
                     int input_opset, int64_t keepdims = 1) {
    std::vector<std::string> inputs{in};
    const bool as_input = opset_ >= input_opset && !axes.empty();
    if (as_input) {
      const std::string name = "axes" + std::to_string(count_);
      b_.initializer(name, Tensor::from_data<int64_t>({static_cast<int64_t>(axes.size())}, axes));
      inputs.push_back(name);
    }
    const std::string out = node(op, inputs);
    ir::Node& n = b_.ir().graph.nodes.back();
    if (!as_input && !axes.empty()) n.attributes.push_back(ints_attr("axes", axes));
    n.attributes.push_back(int_attr("keepdims", keepdims));
    return out;
  }
  std::string reduce_mean(const std::string& in, std::vector<int64_t> axes, int64_t keepdims = 1) {
    return reduce("ReduceMean", in, std::move(axes), 18, keepdims);
  }
  // Renames the last node's output y and makes it the graph output.
  GraphBuilder finish() {
    b_.ir().graph.nodes.back().outputs[0] = "y";
    b_.output("y");
    return b_;
  }

 private:
  GraphBuilder b_;
  int opset_;
  int count_ = 0;
};

struct LayerNormSpelling {
  int opset = 13;
  std::vector<int64_t> shape{2, 5, 24};
  std::vector<int64_t> axes{-1};
  bool gamma = true, beta = true;
  bool reciprocal = false;  // Mul(Reciprocal(sqrt), d) instead of Div(d, sqrt)
  bool mul_square = false;  // Mul(d, d) instead of Pow(d, 2)
  int64_t keepdims = 1;
  bool var_read_elsewhere = false;
  bool eps_input = false;  // eps a graph input instead of a constant

  std::string describe() const {
    std::string s = "opset " + std::to_string(opset) + ", axes";
    for (int64_t a : axes) s += " " + std::to_string(a);
    if (axes.empty()) s += " (none: all)";
    return s + (gamma ? ", gamma" : "") + (beta ? ", beta" : "") +
           (reciprocal ? ", Reciprocal" : ", Div") + (mul_square ? ", Mul(d, d)" : ", Pow");
  }
};

// The normalized dims of `shape` over the trailing `count`.
std::vector<int64_t> trailing(const std::vector<int64_t>& shape, size_t count) {
  return std::vector<int64_t>(shape.end() - static_cast<std::ptrdiff_t>(count), shape.end());
}

GraphBuilder layer_norm(const LayerNormSpelling& s) {
  Chain c(s.opset);
  GraphBuilder& b = c.builder();
  b.input("x", DataType::Float32, s.shape);
  b.initializer("two", scalar(2.0f));
  if (s.eps_input) {
    b.input("eps", DataType::Float32, {});
  } else {
    b.initializer("eps", scalar(1e-5f));
  }
  const Shape norm_shape(trailing(s.shape, s.axes.empty() ? s.shape.size() : s.axes.size()));
  b.initializer("gamma", random(norm_shape, 1));
  b.initializer("beta", random(norm_shape, 2));
  const std::string m = c.reduce_mean("x", s.axes, s.keepdims);
  const std::string d = c.node("Sub", {"x", m});
  const std::string sq = s.mul_square ? c.node("Mul", {d, d}) : c.node("Pow", {d, "two"});
  const std::string v = c.reduce_mean(sq, s.axes, s.keepdims);
  if (s.var_read_elsewhere) b.output(v);
  const std::string sd = c.node("Sqrt", {c.node("Add", {"eps", v})});
  std::string y =
      s.reciprocal ? c.node("Mul", {c.node("Reciprocal", {sd}), d}) : c.node("Div", {d, sd});
  if (s.gamma) y = c.node("Mul", {"gamma", y});
  if (s.beta) y = c.node("Add", {y, "beta"});
  return c.finish();
}

TEST(FuseLayerNorm, EverySpellingBecomesOneLayerNormalization) {
  std::vector<LayerNormSpelling> spellings;
  for (int opset : {13, 18}) {
    for (bool gamma : {false, true}) {
      for (bool beta : {false, true}) {
        for (bool reciprocal : {false, true}) {
          for (bool mul_square : {false, true}) {
            LayerNormSpelling s;
            s.opset = opset;
            s.gamma = gamma;
            s.beta = beta;
            s.reciprocal = reciprocal;
            s.mul_square = mul_square;
            spellings.push_back(s);
          }
        }
      }
    }
  }
  // Over the trailing two axes, named negative, positive or in another order, and over every
  // axis (no axes given); PyTorch's exports before opset 13 as well.
  for (std::vector<int64_t> axes : {std::vector<int64_t>{-2, -1}, std::vector<int64_t>{1, 2},
                                    std::vector<int64_t>{-1, -2}, std::vector<int64_t>{}}) {
    for (int opset : {11, 13, 18}) {
      LayerNormSpelling s;
      s.opset = opset;
      s.axes = axes;
      spellings.push_back(s);
    }
  }
  for (const LayerNormSpelling& s : spellings) {
    EXPECT_EQ(worker_ops(layer_norm(s).build()), std::vector<std::string>{"LayerNormalization"})
        << s.describe();
    expect_fused_result([&] { return layer_norm(s); }, s.describe());
  }
}

TEST(FuseLayerNorm, AScaleThatWouldChangeTheShapeStaysAMul) {
  // gamma over every dim of x is not a per-row scale: the norm fuses, the Mul stays.
  auto make = [] {
    GraphBuilder b = layer_norm(LayerNormSpelling{.beta = false});
    b.ir().graph.initializers["gamma"] = random({2, 5, 24}, 3);
    return b;
  };
  EXPECT_EQ(worker_ops(make().build()), (std::vector<std::string>{"LayerNormalization", "Mul"}));
  expect_fused_result(make, "full-shape gamma");
}

TEST(FuseLayerNorm, OtherAxesKeepdimsZeroASharedValueOrAComputedEpsilonDoNotFuse) {
  struct Case {
    const char* what;
    LayerNormSpelling spelling;
  };
  const std::vector<Case> cases = {
      {"a leading axis", {.axes = {1}, .gamma = false, .beta = false}},
      {"a middle axis", {.axes = {-2}, .gamma = false, .beta = false}},
      {"opset 18, a leading axis", {.opset = 18, .axes = {0, 1}, .gamma = false, .beta = false}},
      // The means lose their axis and broadcast along x's rows: not a LayerNorm.
      {"keepdims 0", {.shape = {6, 6}, .gamma = false, .beta = false, .keepdims = 0}},
      {"the variance also an output", {.var_read_elsewhere = true}},
      {"eps an input", {.eps_input = true}},
  };
  for (const Case& c : cases) {
    const auto [fused, unfused] =
        compare_with_unfused([&] { return layer_norm(c.spelling); }, c.what,
                             {{"eps", Tensor::from_data<float>({}, {1e-3f})}});
    EXPECT_EQ(fused, unfused) << c.what;
  }
}

enum class RmsScaling { Div, Reciprocal, PowMinusHalf };

struct RmsSpelling {
  int opset = 13;
  std::vector<int64_t> axes{-1};
  bool gamma = true;
  bool mul_square = false;
  RmsScaling scaling = RmsScaling::Div;
  bool mean_read_elsewhere = false;

  std::string describe() const {
    const char* names[] = {"Div", "Reciprocal", "Pow -0.5"};
    return "opset " + std::to_string(opset) + (axes.size() > 1 ? ", two axes" : "") +
           (gamma ? ", gamma, " : ", ") + names[static_cast<int>(scaling)] +
           (mul_square ? ", Mul(x, x)" : ", Pow");
  }
};

// Llama's RMSNorm: x / sqrt(mean(x^2) + eps) * gamma.
GraphBuilder rms_norm(const RmsSpelling& s) {
  Chain c(s.opset);
  GraphBuilder& b = c.builder();
  const std::vector<int64_t> shape{2, 5, 24};
  b.input("x", DataType::Float32, shape);
  b.initializer("two", scalar(2.0f));
  b.initializer("minus_half", scalar(-0.5f));
  b.initializer("eps", scalar(1e-6f));
  b.initializer("gamma", random(Shape(trailing(shape, s.axes.size())), 1));
  const std::string sq = s.mul_square ? c.node("Mul", {"x", "x"}) : c.node("Pow", {"x", "two"});
  const std::string v = c.reduce_mean(sq, s.axes);
  if (s.mean_read_elsewhere) b.output(v);
  const std::string a = c.node("Add", {v, "eps"});
  std::string y;
  switch (s.scaling) {
    case RmsScaling::Div:
      y = c.node("Div", {"x", c.node("Sqrt", {a})});
      break;
    case RmsScaling::Reciprocal:
      y = c.node("Mul", {"x", c.node("Reciprocal", {c.node("Sqrt", {a})})});
      break;
    case RmsScaling::PowMinusHalf:
      y = c.node("Mul", {c.node("Pow", {a, "minus_half"}), "x"});
      break;
  }
  if (s.gamma) y = c.node("Mul", {y, "gamma"});
  return c.finish();
}

TEST(FuseRmsNorm, EverySpellingBecomesOneSimplifiedLayerNormalization) {
  std::vector<RmsSpelling> spellings;
  for (int opset : {13, 18}) {
    for (bool gamma : {false, true}) {
      for (bool mul_square : {false, true}) {
        for (RmsScaling scaling :
             {RmsScaling::Div, RmsScaling::Reciprocal, RmsScaling::PowMinusHalf}) {
          spellings.push_back(RmsSpelling{
              .opset = opset, .gamma = gamma, .mul_square = mul_square, .scaling = scaling});
        }
      }
    }
    spellings.push_back(RmsSpelling{.opset = opset, .axes = {-2, -1}});
  }
  for (const RmsSpelling& s : spellings) {
    EXPECT_EQ(worker_ops(rms_norm(s).build()),
              std::vector<std::string>{"SimplifiedLayerNormalization"})
        << s.describe();
    expect_fused_result([&] { return rms_norm(s); }, s.describe());
  }
}

TEST(FuseRmsNorm, ALeadingAxisOrASharedMeanDoNotFuse) {
  for (const RmsSpelling& s : {RmsSpelling{.axes = {1}}, RmsSpelling{.opset = 18, .axes = {0}},
                               RmsSpelling{.mean_read_elsewhere = true}}) {
    const auto [fused, unfused] = compare_with_unfused([&] { return rms_norm(s); }, s.describe());
    EXPECT_EQ(fused, unfused) << s.describe();
  }
}

struct SoftmaxSpelling {
  int opset = 13;
  bool stable = true;  // subtracts the row's max first
  int64_t axis = -1;
  bool exp_read_elsewhere = false;

  std::string describe() const {
    return "opset " + std::to_string(opset) + (stable ? ", stable" : ", unstable") + ", axis " +
           std::to_string(axis);
  }
};

GraphBuilder softmax(const SoftmaxSpelling& s) {
  Chain c(s.opset);
  GraphBuilder& b = c.builder();
  b.input("x", DataType::Float32, {2, 5, 24});
  std::string in = "x";
  if (s.stable) in = c.node("Sub", {"x", c.reduce("ReduceMax", "x", {s.axis}, 18)});
  const std::string e = c.node("Exp", {in});
  if (s.exp_read_elsewhere) b.output(e);
  c.node("Div", {e, c.reduce("ReduceSum", e, {s.axis}, 13)});
  return c.finish();
}

TEST(FuseSoftmax, BothSpellingsOverTheLastAxisBecomeOneSoftmax) {
  for (int opset : {11, 13, 18}) {
    for (bool stable : {false, true}) {
      for (int64_t axis : {-1, 2}) {
        const SoftmaxSpelling s{.opset = opset, .stable = stable, .axis = axis};
        EXPECT_EQ(worker_ops(softmax(s).build()), std::vector<std::string>{"Softmax"})
            << s.describe();
        expect_fused_result([&] { return softmax(s); }, s.describe());
      }
    }
  }
}

TEST(FuseSoftmax, AnotherAxisOrASharedExpDoNotFuse) {
  for (const SoftmaxSpelling& s :
       {SoftmaxSpelling{.axis = 1}, SoftmaxSpelling{.opset = 11, .stable = false, .axis = 0},
        SoftmaxSpelling{.exp_read_elsewhere = true}}) {
    const auto [fused, unfused] = compare_with_unfused([&] { return softmax(s); }, s.describe());
    EXPECT_EQ(fused, unfused) << s.describe();
  }
}

}  // namespace
}  // namespace kiln::testing
