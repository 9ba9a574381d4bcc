// The CPU worker's attention fusion (passes/fuse_attention.cpp, kiln::FusedAttention): the
// spellings exporters write fuse into one node, Transposes included, with the unfused graph's
// results; chains it cannot take stay as they are.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "expect_error.h"
#include "fusion_check.h"
#include "graph_builder.h"

namespace kiln::testing {
namespace {

constexpr int64_t kBatch = 2, kHeads = 3, kQueries = 5, kKeys = 7, kSize = 8, kValueSize = 6;

enum class Scale { kDivQ, kMulScores, kDivScores, kMulQAndK };

struct Spelling {
  bool four_d = false;      // [batch, heads, seq, size]; else PyTorch's [batch * heads, seq, size]
  bool transposes = false;  // Q, K, V come through Transposes, and Y goes back through one
  Scale scale = Scale::kDivQ;
  bool mask = false;  // an additive mask between the scale and the Softmax
  std::string describe() const {
    const char* scales[] = {"Div on Q", "Mul on scores", "Div on scores", "Mul on Q and K"};
    return std::string(four_d ? "4-D" : "3-D") + (transposes ? ", transposes" : "") + ", " +
           scales[static_cast<int>(scale)] + (mask ? ", mask" : "");
  }
};

// Attention as exporters spell it, op by op, into "y". With transposes, the 3-D inputs are
// PyTorch's [seq, batch * heads, size] (perms [1, 0, 2] and [1, 2, 0] for K^T) and the 4-D ones
// [batch, seq, heads, size] (perms [0, 2, 1, 3] and [0, 2, 3, 1]); without, Q, K^T and V come
// as the MatMuls take them.
GraphBuilder attention(const Spelling& s) {
  GraphBuilder b(17);
  const std::vector<int64_t> batch =
      s.four_d ? std::vector<int64_t>{kBatch, kHeads} : std::vector<int64_t>{kBatch * kHeads};
  auto dims = [&](std::vector<int64_t> tail) {
    std::vector<int64_t> d = batch;
    d.insert(d.end(), tail.begin(), tail.end());
    return d;
  };
  if (s.transposes) {
    auto seq_first = [&](int64_t seq, int64_t size) {
      return s.four_d ? std::vector<int64_t>{kBatch, seq, kHeads, size}
                      : std::vector<int64_t>{seq, kBatch * kHeads, size};
    };
    const std::vector<int64_t> to_heads =
        s.four_d ? std::vector<int64_t>{0, 2, 1, 3} : std::vector<int64_t>{1, 0, 2};
    const std::vector<int64_t> to_keys_t =
        s.four_d ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{1, 2, 0};
    b.input("q_in", DataType::Float32, seq_first(kQueries, kSize));
    b.input("k_in", DataType::Float32, seq_first(kKeys, kSize));
    b.input("v_in", DataType::Float32, seq_first(kKeys, kValueSize));
    b.node("Transpose", {"q_in"}, {"q"}).attributes = {ints_attr("perm", to_heads)};
    b.node("Transpose", {"k_in"}, {"kt"}).attributes = {ints_attr("perm", to_keys_t)};
    b.node("Transpose", {"v_in"}, {"v"}).attributes = {ints_attr("perm", to_heads)};
  } else {
    b.input("q", DataType::Float32, dims({kQueries, kSize}));
    b.input("kt", DataType::Float32, dims({kSize, kKeys}));
    b.input("v", DataType::Float32, dims({kKeys, kValueSize}));
  }
  const float root = std::sqrt(static_cast<float>(kSize));
  std::string q = "q", kt = "kt", scores = "s";
  switch (s.scale) {
    case Scale::kDivQ:
      b.initializer("c", scalar(root));
      b.node("Div", {"q", "c"}, {"qs"});
      q = "qs";
      break;
    case Scale::kMulQAndK:
      b.initializer("c", scalar(1.0f / std::sqrt(root)));
      b.node("Mul", {"c", "q"}, {"qs"});
      b.node("Mul", {"kt", "c"}, {"kts"});
      q = "qs";
      kt = "kts";
      break;
    case Scale::kMulScores:
    case Scale::kDivScores:
      scores = "raw";
      break;
  }
  b.node("MatMul", {q, kt}, {scores});
  if (s.scale == Scale::kMulScores) {
    b.initializer("c", scalar(1.0f / root));
    b.node("Mul", {"raw", "c"}, {"s"});
  } else if (s.scale == Scale::kDivScores) {
    b.initializer("c", scalar(root));
    b.node("Div", {"raw", "c"}, {"s"});
  }
  std::string logits = "s";
  if (s.mask) {
    // 4-D: one mask per batch, broadcast over heads; 3-D: one for every head.
    b.input("mask", DataType::Float32,
            s.four_d ? std::vector<int64_t>{kBatch, 1, kQueries, kKeys}
                     : std::vector<int64_t>{kQueries, kKeys});
    b.node("Add", {"mask", "s"}, {"masked"});
    logits = "masked";
  }
  b.node("Softmax", {logits}, {"p"}).attributes = {int_attr("axis", -1)};
  if (s.transposes) {
    b.node("MatMul", {"p", "v"}, {"o"});
    b.node("Transpose", {"o"}, {"y"}).attributes = {ints_attr(
        "perm", s.four_d ? std::vector<int64_t>{0, 2, 1, 3} : std::vector<int64_t>{1, 0, 2})};
  } else {
    b.node("MatMul", {"p", "v"}, {"y"});
  }
  b.output("y");
  return b;
}

TEST(FuseAttention, EverySpellingIsOneNodeWithTheUnfusedResults) {
  for (bool four_d : {false, true}) {
    for (bool transposes : {false, true}) {
      for (Scale scale : {Scale::kDivQ, Scale::kMulScores, Scale::kDivScores, Scale::kMulQAndK}) {
        for (bool mask : {false, true}) {
          const Spelling s{four_d, transposes, scale, mask};
          EXPECT_EQ(worker_ops(attention(s).build()), std::vector<std::string>{"FusedAttention"})
              << s.describe();
          expect_fused_result([&] { return attention(s); }, s.describe());
        }
      }
    }
  }
}

std::vector<std::string> sorted(std::vector<std::string> ops) {
  std::sort(ops.begin(), ops.end());
  return ops;
}

// The op types of the graph's nodes, sorted.
std::vector<std::string> ops_of(GraphBuilder b) {
  std::vector<std::string> ops;
  for (const auto& n : b.ir().graph.nodes) ops.push_back(n.op_type);
  return sorted(ops);
}

// Not fused: the worker runs every node of the graph, with the same results.
void expect_not_fused(const std::function<GraphBuilder()>& make, const std::string& what) {
  EXPECT_EQ(sorted(worker_ops(make().build())), ops_of(make())) << what;
  expect_fused_result(make, what, /*fuses=*/false);
}

TEST(FuseAttention, AConstantMaskAndAKeyPaddingMaskOfOneAxisFuse) {
  for (bool constant : {false, true}) {
    auto make = [&] {
      GraphBuilder b = attention({false, true, Scale::kDivQ, true});
      // The mask: one row [keys] for every query and head.
      b.ir().graph.inputs.back().shape = {Dim{kKeys, ""}};
      if (constant) {
        b.ir().graph.inputs.pop_back();
        b.initializer("mask", random({kKeys}, 7));
      }
      return b;
    };
    const std::string what = constant ? "constant mask [keys]" : "mask [keys]";
    EXPECT_EQ(worker_ops(make().build()), std::vector<std::string>{"FusedAttention"}) << what;
    expect_fused_result(make, what);
  }
}

// q [6, 5, 8] attending to keys and values shared by every head: K^T [8, 7], V [7, 6], as
// MatMul broadcasts them. `opset` 11 and no Softmax axis: the default axis 1 is not the last.
GraphBuilder shared_keys(int opset, bool axis_given) {
  GraphBuilder b(opset);
  b.input("q", DataType::Float32, {kBatch * kHeads, kQueries, kSize});
  b.input("kt", DataType::Float32, {kSize, kKeys});
  b.input("v", DataType::Float32, {kKeys, kValueSize});
  b.node("MatMul", {"q", "kt"}, {"s"});
  ir::Node& softmax = b.node("Softmax", {"s"}, {"p"});
  if (axis_given) softmax.attributes = {int_attr("axis", 2)};
  b.node("MatMul", {"p", "v"}, {"y"});
  b.output("y");
  return b;
}

TEST(FuseAttention, KeysAndValuesBroadcastOverHeadsAsMatMulDoes) {
  for (int opset : {11, 17}) {
    auto make = [&] { return shared_keys(opset, true); };
    EXPECT_EQ(worker_ops(make().build()), std::vector<std::string>{"FusedAttention"}) << opset;
    expect_fused_result(make, "shared keys, opset " + std::to_string(opset));
  }
  // Before opset 13 Softmax's default axis is 1.
  expect_not_fused([] { return shared_keys(11, false); }, "opset 11, default axis");
}

TEST(FuseAttention, ASoftmaxAlongAnotherAxisDoesNotFuse) {
  expect_not_fused(
      [] {
        GraphBuilder b = attention({true, true, Scale::kDivScores, true});
        for (auto& n : b.ir().graph.nodes) {
          if (n.op_type == "Softmax") n.attributes = {int_attr("axis", 2)};
        }
        return b;
      },
      "Softmax along the queries");
}

TEST(FuseAttention, ScoresOrProbabilitiesReadElsewhereDoNotFuse) {
  for (const char* shared : {"raw", "s", "p"}) {
    expect_not_fused(
        [&] {
          GraphBuilder b = attention({false, true, Scale::kMulScores, false});
          b.node("Neg", {shared}, {"n"});
          b.output("n");
          return b;
        },
        std::string("'") + shared + "' read by a Neg");
  }
}

TEST(FuseAttention, ATransposeWhoseResultIsReadElsewhereStays) {
  // K^T, or the product before its Transpose back, read by a Neg: that Transpose stays and the
  // rest fuses.
  for (const char* shared : {"kt", "o"}) {
    auto make = [&] {
      GraphBuilder b = attention({true, true, Scale::kDivQ, true});
      b.node("Neg", {shared}, {"n"});
      b.output("n");
      return b;
    };
    EXPECT_EQ(sorted(worker_ops(make().build())),
              (std::vector<std::string>{"FusedAttention", "Neg", "Transpose"}))
        << shared;
    expect_fused_result(make, std::string("'") + shared + "' read by a Neg");
  }
}

TEST(FuseAttention, AScaleThatIsNotAConstantDoesNotFuse) {
  expect_not_fused(
      [] {
        GraphBuilder b = attention({true, false, Scale::kMulScores, false});
        b.ir().graph.initializers.erase("c");
        b.input("c", DataType::Float32, {});
        return b;
      },
      "scale from an input");
}

TEST(FuseAttention, AMaskThatWidensTheScoresDoesNotFuse) {
  // scores [6, 5, 7] + mask [2, 6, 5, 7] is 4-D: more than the scores.
  expect_not_fused(
      [] {
        GraphBuilder b = attention({false, false, Scale::kDivScores, true});
        b.ir().graph.inputs.back().shape = {Dim{2, ""}, Dim{kBatch * kHeads, ""}, Dim{kQueries, ""},
                                            Dim{kKeys, ""}};
        return b;
      },
      "mask with an extra axis");
}

TEST(FuseAttention, ShapesThatDoNotMultiplyAreAnErrorNamingTheNode) {
  GraphBuilder b(17);
  b.input("q", DataType::Float32, {2, 5, 8});
  b.input("k", DataType::Float32, {2, 7, 4});  // head size 4, not 8
  b.input("v", DataType::Float32, {2, 7, 6});
  ir::Node& n = b.node("FusedAttention", {"q", "k", "v"}, {"y"});
  n.domain = "kiln";
  n.name = "attn";
  b.output("y");
  const Model m = b.build();
  expect_error(
      [&] {
        run_one(
            m,
            {{"q", random({2, 5, 8}, 1)}, {"k", random({2, 7, 4}, 2)}, {"v", random({2, 7, 6}, 3)}},
            "y");
      },
      {"attn", "do not multiply"});
}

}  // namespace
}  // namespace kiln::testing
