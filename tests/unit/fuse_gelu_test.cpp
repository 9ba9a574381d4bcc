// The CPU worker's fusion of the exact GELU spelled op by op (passes/fuse_gelu.cpp, com.microsoft
// Gelu): which graphs fuse, which must not, and that the fused worker gives the unfused worker's
// results. The linear layers' fusions are in fuse_linear_epilogues_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "fusion_check.h"
#include "graph_builder.h"

namespace kiln::testing {
namespace {

// x -> GELU -> y as exporters write it: `bert` multiplies x by 0.5 first (variant B), else
// the product with x comes first and 0.5 last (variant A); `multiply` scales by 1/sqrt(2)
// instead of dividing by sqrt(2).
GraphBuilder gelu(bool bert, bool multiply) {
  GraphBuilder b(17);
  b.input("x", DataType::Float32, {3, 50});
  b.initializer("root", scalar(multiply ? static_cast<float>(std::sqrt(0.5))
                                        : static_cast<float>(std::sqrt(2.0))));
  b.initializer("one", scalar(1.0f));
  b.initializer("half", scalar(0.5f));
  b.node(multiply ? "Mul" : "Div", {"x", "root"}, {"d"});
  b.node("Erf", {"d"}, {"e"});
  b.node("Add", {"one", "e"}, {"a"});
  if (bert) {
    b.node("Mul", {"x", "half"}, {"h"});
    b.node("Mul", {"h", "a"}, {"y"});
  } else {
    b.node("Mul", {"a", "x"}, {"m"});
    b.node("Mul", {"m", "half"}, {"y"});
  }
  b.output("y");
  return b;
}

TEST(FuseGelu, BothSpellingsBecomeOneGelu) {
  for (bool bert : {false, true}) {
    for (bool multiply : {false, true}) {
      const std::string what = std::string(bert ? "BERT" : "PyTorch") + (multiply ? ", Mul" : "");
      EXPECT_EQ(worker_ops(gelu(bert, multiply).build()), std::vector<std::string>{"Gelu"}) << what;
      expect_fused_result([&] { return gelu(bert, multiply); }, what);
    }
  }
}

TEST(FuseGelu, OtherConstantsOrASharedValueDoNotFuse) {
  {  // Not the GELU: erf(x / 2).
    GraphBuilder b = gelu(false, false);
    b.ir().graph.initializers["root"] = scalar(2.0f);
    EXPECT_EQ(worker_ops(b.build()).size(), 5u);
  }
  {  // erf's value is read elsewhere.
    GraphBuilder b = gelu(false, false);
    b.output("e");
    EXPECT_EQ(worker_ops(b.build()).size(), 5u);
  }
}

}  // namespace
}  // namespace kiln::testing
