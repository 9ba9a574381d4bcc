#include "runtime/memory_plan.h"

#include <algorithm>
#include <cstdint>

namespace kiln {

namespace {

// ancestors[n] has bit m set when node m must finish before node n starts.
std::vector<std::vector<uint64_t>> compute_ancestors(const CompiledGraph& g) {
  const size_t n = g.nodes.size();
  const size_t words = (n + 63) / 64;
  std::vector<std::vector<uint64_t>> anc(n, std::vector<uint64_t>(words, 0));
  for (size_t i = 0; i < n; ++i) {  // topological order: producers come first
    for (int c : g.nodes[i].consumers) {
      auto& a = anc[static_cast<size_t>(c)];
      for (size_t w = 0; w < words; ++w) a[w] |= anc[i][w];
      a[i / 64] |= uint64_t{1} << (i % 64);
    }
  }
  return anc;
}

int root_of(const std::vector<int>& alias_of, int slot) {
  for (int guard = 0; alias_of[static_cast<size_t>(slot)] >= 0 && guard < 1 << 20; ++guard) {
    slot = alias_of[static_cast<size_t>(slot)];
  }
  return slot;
}

}  // namespace

MemoryPlan plan_memory(const CompiledGraph& g, const std::vector<size_t>& bytes,
                       const std::vector<int>& alias_of) {
  const size_t slots = g.slot_count();
  MemoryPlan plan;
  plan.offset.assign(slots, MemoryPlan::kNotPlanned);
  plan.bytes.assign(slots, 0);
  const auto anc = compute_ancestors(g);

  // Users of a planned slot: the nodes that read it or any view of it.
  std::vector<std::vector<int>> users(slots);
  for (size_t s = 0; s < slots; ++s) {
    if (g.producer[s] >= 0) users[s].push_back(g.producer[s]);  // written even if never read
  }
  for (size_t s = 0; s < slots; ++s) {
    const int root = root_of(alias_of, static_cast<int>(s));
    auto& u = users[static_cast<size_t>(root)];
    u.insert(u.end(), g.readers[s].begin(), g.readers[s].end());
  }
  auto is_ancestor = [&](int a, int b) {  // a finishes before b starts
    return (anc[static_cast<size_t>(b)][static_cast<size_t>(a) / 64] >> (a % 64)) & 1;
  };
  // Slot a is dead before slot b is born: every user of a precedes b's producer.
  auto dead_before = [&](size_t a, size_t b) {
    const int producer_b = g.producer[b];
    if (producer_b < 0) return false;
    for (int u : users[a]) {
      if (!is_ancestor(u, producer_b)) return false;
    }
    return true;
  };

  std::vector<size_t> order;
  for (size_t s = 0; s < slots; ++s) {
    if (bytes[s] > 0 && alias_of[s] < 0 && g.producer[s] >= 0) order.push_back(s);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return bytes[a] > bytes[b]; });
  std::vector<size_t> placed;
  for (size_t s : order) {
    const size_t size = (bytes[s] + 63) / 64 * 64;
    // Occupied ranges of values that may be alive together with s.
    std::vector<std::pair<size_t, size_t>> busy;
    for (size_t p : placed) {
      if (!dead_before(p, s) && !dead_before(s, p))
        busy.emplace_back(plan.offset[p], plan.offset[p] + plan.bytes[p]);
    }
    std::sort(busy.begin(), busy.end());
    size_t offset = 0;
    for (const auto& [begin, end] : busy) {
      if (begin >= offset + size) break;
      offset = std::max(offset, end);
    }
    plan.offset[s] = offset;
    plan.bytes[s] = size;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + size);
    placed.push_back(s);
  }
  return plan;
}

}  // namespace kiln
