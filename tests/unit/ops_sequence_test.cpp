// Sequence and optional values: the Tensor API, the sequence ops, the optional ops, and
// sequence/optional graph inputs and outputs through a Worker.
#include <gtest/gtest.h>

#include "graph_builder.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

Tensor seq(std::vector<Tensor> elements) { return Tensor::sequence(elements); }

// ---- Tensor API --------------------------------------------------------------------------------

TEST(SequenceValue, HoldsCopiesOfItsElements) {
  Tensor a = f32({2}, {1, 2});
  Tensor s = Tensor::sequence({a});
  a.mutable_data<float>()[0] = 9;  // later writes to the original do not show through
  ASSERT_TRUE(s.is_sequence());
  ASSERT_EQ(s.elements().size(), 1u);
  EXPECT_TRUE(all_close(s.elements()[0], f32({2}, {1, 2})));
  EXPECT_EQ(s.dtype(), DataType::Float32);
  EXPECT_THROW(s.data<float>(), Error);
}

TEST(SequenceValue, ElementsMustShareADtype) {
  EXPECT_THROW(Tensor::sequence({f32({1}, {1}), i64({1}, {1})}), Error);
}

TEST(OptionalValue, HoldsOneValueOrNone) {
  Tensor some = Tensor::optional(f32({1}, {3}));
  ASSERT_TRUE(some.is_optional());
  EXPECT_TRUE(some.has_value());
  EXPECT_TRUE(all_close(some.value(), f32({1}, {3})));
  Tensor none = Tensor::empty_optional(DataType::Float32);
  EXPECT_FALSE(none.has_value());
  EXPECT_THROW(none.value(), Error);
  EXPECT_FALSE(all_close(some, none));
}

// ---- Sequence ops ------------------------------------------------------------------------------

TEST(SequenceOps, ConstructAndAtWithNegativePositions) {
  auto out = OpTest("SequenceConstruct").input(f32({1}, {1})).input(f32({2}, {2, 3})).run();
  ASSERT_TRUE(out[0].is_sequence());
  ASSERT_EQ(out[0].elements().size(), 2u);
  auto last = OpTest("SequenceAt").input(out[0]).input(i64({}, {-1})).run();
  EXPECT_TRUE(all_close(last[0], f32({2}, {2, 3})));
  EXPECT_THROW(OpTest("SequenceAt").input(out[0]).input(i64({}, {2})).run(), Error);
  EXPECT_THROW(OpTest("SequenceAt").input(out[0]).input(i64({}, {-3})).run(), Error);
}

TEST(SequenceOps, InsertAndEraseLeaveTheInputSequenceAlone) {
  const Tensor s = seq({f32({1}, {1}), f32({1}, {2})});
  auto inserted = OpTest("SequenceInsert").input(s).input(f32({1}, {7})).input(i64({}, {1})).run();
  ASSERT_EQ(inserted[0].elements().size(), 3u);
  EXPECT_TRUE(all_close(inserted[0].elements()[1], f32({1}, {7})));
  auto erased = OpTest("SequenceErase").input(s).run();  // default: the last one
  ASSERT_EQ(erased[0].elements().size(), 1u);
  EXPECT_TRUE(all_close(erased[0].elements()[0], f32({1}, {1})));
  EXPECT_EQ(s.elements().size(), 2u);
  EXPECT_THROW(OpTest("SequenceInsert").input(s).input(i64({1}, {7})).run(), Error);
}

TEST(SequenceOps, EmptyAndLength) {
  auto empty = OpTest("SequenceEmpty").attr("dtype", int64_t{7}).run();
  ASSERT_TRUE(empty[0].is_sequence());
  EXPECT_EQ(empty[0].dtype(), DataType::Int64);
  auto length = OpTest("SequenceLength").input(empty[0]).run();
  EXPECT_EQ(length[0].data<int64_t>()[0], 0);
  EXPECT_THROW(OpTest("SequenceErase").input(empty[0]).run(), Error);
  auto three =
      OpTest("SequenceLength").input(seq({f32({}, {1}), f32({}, {2}), f32({}, {3})})).run();
  EXPECT_EQ(three[0].data<int64_t>()[0], 3);
}

TEST(SequenceOps, SplitToSequenceWithAScalarSplitKeepsAShorterLastChunk) {
  const Tensor x = f32({5, 1}, {1, 2, 3, 4, 5});
  auto out = OpTest("SplitToSequence").input(x).input(i64({}, {2})).run();
  const auto& parts = out[0].elements();
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_TRUE(all_close(parts[0], f32({2, 1}, {1, 2})));
  EXPECT_TRUE(all_close(parts[2], f32({1, 1}, {5})));
}

TEST(SequenceOps, SplitToSequenceWithoutSplitDropsTheAxisUnlessKeepdims) {
  const Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto dropped = OpTest("SplitToSequence")
                     .input(x)
                     .attr("axis", int64_t{1})
                     .attr("keepdims", int64_t{0})
                     .run();
  ASSERT_EQ(dropped[0].elements().size(), 3u);
  EXPECT_TRUE(all_close(dropped[0].elements()[1], f32({2}, {2, 5})));
  auto kept = OpTest("SplitToSequence").input(x).attr("axis", int64_t{1}).run();
  EXPECT_EQ(kept[0].elements()[1].shape(), (Shape{2, 1}));
  EXPECT_THROW(OpTest("SplitToSequence").input(x).input(i64({2}, {1, 2})).run(), Error);
}

TEST(SequenceOps, ConcatFromSequenceJoinsOrStacks) {
  const Tensor s = seq({f32({1, 2}, {1, 2}), f32({1, 2}, {3, 4})});
  auto joined = OpTest("ConcatFromSequence").input(s).attr("axis", int64_t{1}).run();
  EXPECT_TRUE(all_close(joined[0], f32({1, 4}, {1, 2, 3, 4})));
  auto stacked = OpTest("ConcatFromSequence")
                     .input(s)
                     .attr("axis", int64_t{-1})
                     .attr("new_axis", int64_t{1})
                     .run();
  EXPECT_TRUE(all_close(stacked[0], f32({1, 2, 2}, {1, 3, 2, 4})));
  const Tensor mismatched = seq({f32({1, 2}, {1, 2}), f32({2, 2}, {3, 4, 5, 6})});
  EXPECT_THROW(OpTest("ConcatFromSequence").input(mismatched).attr("axis", int64_t{1}).run(),
               Error);
}

TEST(SequenceOps, NonSequenceInputIsAnError) {
  EXPECT_THROW(OpTest("SequenceLength").input(f32({1}, {1})).run(), Error);
}

// ---- Optional ops ------------------------------------------------------------------------------

TEST(OptionalOps, WrapTestAndUnwrap) {
  auto wrapped = OpTest("Optional", 18).input(f32({2}, {1, 2})).run();
  ASSERT_TRUE(wrapped[0].is_optional());
  auto has = OpTest("OptionalHasElement", 18).input(wrapped[0]).run();
  EXPECT_TRUE(has[0].data<bool>()[0]);
  auto value = OpTest("OptionalGetElement", 18).input(wrapped[0]).run();
  EXPECT_TRUE(all_close(value[0], f32({2}, {1, 2})));

  const Tensor none = Tensor::empty_optional(DataType::Float32);
  EXPECT_FALSE(OpTest("OptionalHasElement", 18).input(none).run()[0].data<bool>()[0]);
  EXPECT_THROW(OpTest("OptionalGetElement", 18).input(none).run(), Error);
  // An absent input counts as an empty optional.
  EXPECT_FALSE(OpTest("OptionalHasElement", 18).input(Tensor()).run()[0].data<bool>()[0]);
}

// ---- Worker ------------------------------------------------------------------------------------

TEST(SequenceWorker, SequenceInAndOutOfAGraph) {
  GraphBuilder b(18);
  ValueInfo in;
  in.name = "s";
  in.kind = ValueInfo::Kind::Sequence;
  in.dtype = DataType::Float32;
  b.ir().graph.inputs.push_back(in);
  b.input("x", DataType::Float32, {1});
  b.node("SequenceInsert", {"s", "x"}, {"s2"});
  b.node("ConcatFromSequence", {"s2"}, {"joined"}).attributes.push_back(int_attr("axis", 0));
  b.output("s2").output("joined");
  Model model = b.build();
  Worker worker(model);
  worker.schedule({{"s", seq({f32({1}, {1}), f32({1}, {2})})}, {"x", f32({1}, {3})}});
  Tensor s2 = worker.peek_output("s2").readback_and_clone();
  ASSERT_TRUE(s2.is_sequence());
  EXPECT_EQ(s2.elements().size(), 3u);
  EXPECT_TRUE(all_close(worker.peek_output("joined").readback_and_clone(), f32({3}, {1, 2, 3})));
  // A tensor where the model declares a sequence is refused with the input's name.
  try {
    worker.schedule({{"s", f32({1}, {1})}, {"x", f32({1}, {3})}});
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'s'"), std::string::npos) << e.what();
  }
}

TEST(OptionalWorker, LeftOutOptionalInputIsEmpty) {
  GraphBuilder b(18);
  ValueInfo in;
  in.name = "maybe";
  in.kind = ValueInfo::Kind::Optional;
  in.dtype = DataType::Float32;
  b.ir().graph.inputs.push_back(in);
  b.node("OptionalHasElement", {"maybe"}, {"has"});
  b.output("has");
  Model model = b.build();
  Worker worker(model);
  worker.schedule(std::vector<NamedTensor>{});
  EXPECT_FALSE(worker.peek_output("has").readback_and_clone().data<bool>()[0]);
  worker.schedule({{"maybe", Tensor::optional(f32({1}, {1}))}});
  EXPECT_TRUE(worker.peek_output("has").readback_and_clone().data<bool>()[0]);
}

}  // namespace
}  // namespace kiln::testing
