// Liveness planning: values whose lifetimes cannot overlap share memory; values on parallel
// branches never do.
#include <gtest/gtest.h>

#include "graph_builder.h"
#include "runtime/compiled_graph.h"
#include "runtime/memory_plan.h"

using namespace kiln;
using kiln::testing::GraphBuilder;

namespace {

bool overlap(const MemoryPlan& p, int a, int b) {
  const size_t a0 = p.offset[a], a1 = a0 + p.bytes[a], b0 = p.offset[b], b1 = b0 + p.bytes[b];
  return a0 < b1 && b0 < a1;
}

}  // namespace

TEST(MemoryPlan, AChainReusesMemory) {
  // x -> r1 -> r2 -> r3 -> r4 -> y: r1 is dead once r2 exists, so r3 can take its place.
  GraphBuilder b;
  b.input("x", DataType::Float32, {256});
  b.node("Relu", {"x"}, {"r1"});
  b.node("Relu", {"r1"}, {"r2"});
  b.node("Relu", {"r2"}, {"r3"});
  b.node("Relu", {"r3"}, {"r4"});
  b.node("Relu", {"r4"}, {"y"});
  b.output("y");
  Model m = b.build(/*optimize=*/false);
  CompiledGraph g = compile_graph(m.ir()->graph, m.ir()->opsets);
  std::vector<size_t> bytes(g.slot_count(), 0);
  for (const char* name : {"r1", "r2", "r3", "r4"}) bytes[g.slot_of.at(name)] = 1024;
  const MemoryPlan p = plan_memory(g, bytes, std::vector<int>(g.slot_count(), -1));
  EXPECT_EQ(p.arena_bytes, 2048u);  // two buffers ping-pong
  EXPECT_FALSE(overlap(p, g.slot_of.at("r1"), g.slot_of.at("r2")));
  EXPECT_FALSE(overlap(p, g.slot_of.at("r2"), g.slot_of.at("r3")));
  EXPECT_EQ(p.offset[g.slot_of.at("y")], MemoryPlan::kNotPlanned);  // outputs own their memory
}

TEST(MemoryPlan, ParallelBranchesNeverShare) {
  // x -> a1 -> a2 -> a3 and x -> b1 -> b2 -> b3 may run at the same time on two threads.
  GraphBuilder b;
  b.input("x", DataType::Float32, {16});
  for (const char* br : {"a", "b"}) {
    const std::string p = br;
    b.node("Relu", {"x"}, {p + "1"});
    b.node("Relu", {p + "1"}, {p + "2"});
    b.node("Relu", {p + "2"}, {p + "3"});
    b.output(p + "3");
  }
  Model m = b.build(false);
  CompiledGraph g = compile_graph(m.ir()->graph, m.ir()->opsets);
  std::vector<size_t> bytes(g.slot_count(), 0);
  for (const char* name : {"a1", "a2", "b1", "b2"}) bytes[g.slot_of.at(name)] = 64;
  const MemoryPlan p = plan_memory(g, bytes, std::vector<int>(g.slot_count(), -1));
  for (const char* a : {"a1", "a2"}) {
    for (const char* c : {"b1", "b2"})
      EXPECT_FALSE(overlap(p, g.slot_of.at(a), g.slot_of.at(c))) << a << " " << c;
  }
}

TEST(MemoryPlan, AViewKeepsItsSourceAlive) {
  // r1 -> view (alias of r1) -> r3: r1's memory must outlive the view's last reader.
  GraphBuilder b;
  b.input("x", DataType::Float32, {16});
  b.node("Relu", {"x"}, {"r1"});
  b.node("Relu", {"r1"}, {"view"});
  b.node("Relu", {"view"}, {"r3"});
  b.node("Relu", {"r3"}, {"y"});
  b.output("y");
  Model m = b.build(false);
  CompiledGraph g = compile_graph(m.ir()->graph, m.ir()->opsets);
  std::vector<size_t> bytes(g.slot_count(), 0);
  bytes[g.slot_of.at("r1")] = 64;
  bytes[g.slot_of.at("r3")] = 64;
  std::vector<int> alias(g.slot_count(), -1);
  alias[g.slot_of.at("view")] = g.slot_of.at("r1");
  const MemoryPlan p = plan_memory(g, bytes, alias);
  EXPECT_FALSE(overlap(p, g.slot_of.at("r1"), g.slot_of.at("r3")));
}

// The linear planner that large graphs get (forced here with a low exact_limit): values that
// may be alive together never share memory, and a long chain still ping-pongs.
TEST(MemoryPlan, TheLinearPlannerForLargeGraphsIsSafeAndReuses) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {16});
  // Two interleaved branches of 1500 Relu nodes each (longer than the planner's reachability
  // window) joined at the end, plus a chain after the join.
  std::string a = "x", c = "x";
  for (int i = 0; i < 1500; ++i) {
    b.node("Relu", {a}, {"a" + std::to_string(i)});
    a = "a" + std::to_string(i);
    b.node("Relu", {c}, {"c" + std::to_string(i)});
    c = "c" + std::to_string(i);
  }
  b.node("Add", {a, c}, {"j0"});
  std::string t = "j0";
  for (int i = 1; i < 2000; ++i) {
    b.node("Relu", {t}, {"j" + std::to_string(i)});
    t = "j" + std::to_string(i);
  }
  b.output(t);
  Model m = b.build(/*optimize=*/false);
  CompiledGraph g = compile_graph(m.ir()->graph, m.ir()->opsets);
  std::vector<size_t> bytes(g.slot_count(), 0);
  std::vector<int> planned_slots;
  for (size_t s = 0; s < g.slot_count(); ++s) {
    if (g.producer[s] >= 0 && static_cast<int>(s) != g.output_slots[0]) {
      bytes[s] = 64;
      planned_slots.push_back(static_cast<int>(s));
    }
  }
  const MemoryPlan p = plan_memory(g, bytes, std::vector<int>(g.slot_count(), -1), 100);
  // Branch a's values never share with branch c's (both branches may run at once).
  for (int i = 0; i < 1500; i += 7) {
    for (int k = 0; k < 1500; k += 11) {
      ASSERT_FALSE(
          overlap(p, g.slot_of.at("a" + std::to_string(i)), g.slot_of.at("c" + std::to_string(k))))
          << i << " " << k;
    }
  }
  // Neighbours in a chain never share; the chain after the join reuses memory.
  for (int i = 1; i < 2000; ++i)
    ASSERT_FALSE(overlap(p, g.slot_of.at("j" + std::to_string(i - 1)),
                         g.slot_of.at("j" + std::to_string(i))));
  EXPECT_LT(p.arena_bytes, size_t{64} * 3100);  // far less than one block per value (5000)
  for (int s : planned_slots) EXPECT_NE(p.offset[s], MemoryPlan::kNotPlanned);
}
