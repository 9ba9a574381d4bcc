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

// Reachability for large graphs in O(nodes * window / 64) memory and time: for node p, bit k
// of its window says whether node p - window + k must finish before p starts, and prefix[p]
// is the longest start of the order whose nodes all must. Anything outside both is reported
// as "not known to precede", which is safe for planning.
class WindowedAncestors {
 public:
  WindowedAncestors(const CompiledGraph& g, size_t window)
      : window_(window),
        words_(window / 64),
        bits_(g.nodes.size() * (window / 64), 0),
        prefix_(g.nodes.size(), 0) {
    const size_t n = g.nodes.size();
    std::vector<std::vector<int>> preds(n);
    for (size_t i = 0; i < n; ++i) {
      for (int c : g.nodes[i].consumers)
        preds[static_cast<size_t>(c)].push_back(static_cast<int>(i));
    }
    for (size_t p = 0; p < n; ++p) {
      uint64_t* mine = &bits_[p * words_];
      size_t prefix = 0;
      for (int qi : preds[p]) {
        const size_t q = static_cast<size_t>(qi);
        prefix = std::max(prefix, prefix_[q]);
        const size_t d = p - q;
        if (d > window_) continue;
        or_shifted(mine, &bits_[q * words_], d);
        set(mine, window_ - d);
      }
      // The window is exact from the prefix on (a predecessor's ancestors in p's window lie
      // in the predecessor's window or its prefix), so the prefix extends over set bits.
      while (prefix < p && prefix + window_ >= p && test(mine, prefix + window_ - p)) ++prefix;
      prefix_[p] = prefix;
    }
  }

  // a must finish before b starts (a, b: node indices, in topological order).
  bool precedes(size_t a, size_t b) const {
    if (a >= b) return false;
    if (a < prefix_[b]) return true;
    if (b - a > window_) return false;
    return test(&bits_[b * words_], a + window_ - b);
  }

 private:
  void set(uint64_t* w, size_t k) const { w[k / 64] |= uint64_t{1} << (k % 64); }
  bool test(const uint64_t* w, size_t k) const { return (w[k / 64] >> (k % 64)) & 1; }
  // out |= in >> d (as one window-bit number).
  void or_shifted(uint64_t* out, const uint64_t* in, size_t d) const {
    const size_t ws = d / 64, bs = d % 64;
    for (size_t i = 0; i + ws < words_; ++i) {
      uint64_t v = in[i + ws] >> bs;
      if (bs != 0 && i + ws + 1 < words_) v |= in[i + ws + 1] << (64 - bs);
      out[i] |= v;
    }
  }

  size_t window_, words_;
  std::vector<uint64_t> bits_;
  std::vector<size_t> prefix_;
};

int root_of(const std::vector<int>& alias_of, int slot) {
  for (int guard = 0; alias_of[static_cast<size_t>(slot)] >= 0 && guard < 1 << 20; ++guard) {
    slot = alias_of[static_cast<size_t>(slot)];
  }
  return slot;
}

}  // namespace

namespace {

// Users of a planned slot: the nodes that read it or any view of it.
std::vector<std::vector<int>> slot_users(const CompiledGraph& g, const std::vector<int>& alias_of) {
  const size_t slots = g.slot_count();
  std::vector<std::vector<int>> users(slots);
  for (size_t s = 0; s < slots; ++s) {
    if (g.producer[s] >= 0) users[s].push_back(g.producer[s]);  // written even if never read
  }
  for (size_t s = 0; s < slots; ++s) {
    const int root = root_of(alias_of, static_cast<int>(s));
    auto& u = users[static_cast<size_t>(root)];
    u.insert(u.end(), g.readers[s].begin(), g.readers[s].end());
  }
  return users;
}

bool planned(const CompiledGraph& g, const std::vector<size_t>& bytes,
             const std::vector<int>& alias_of, size_t s) {
  return bytes[s] > 0 && alias_of[s] < 0 && g.producer[s] >= 0;
}

// The linear planner: in execution order, each value takes the smallest block (among the
// most recently used ones) whose current value is provably dead before it is produced, or a
// new block at the end of the arena.
MemoryPlan plan_large(const CompiledGraph& g, const std::vector<size_t>& bytes,
                      const std::vector<int>& alias_of) {
  constexpr size_t kWindow = 1024;
  constexpr size_t kBlocksScanned = 256;
  const size_t slots = g.slot_count();
  MemoryPlan plan;
  plan.offset.assign(slots, MemoryPlan::kNotPlanned);
  plan.bytes.assign(slots, 0);
  const WindowedAncestors anc(g, kWindow);
  const auto users = slot_users(g, alias_of);
  struct Block {
    size_t offset, size;
    size_t holder;  // the slot in it now
  };
  std::vector<Block> blocks;
  for (size_t node = 0; node < g.nodes.size(); ++node) {
    for (int out : g.nodes[node].outputs) {
      if (out < 0 || !planned(g, bytes, alias_of, static_cast<size_t>(out))) continue;
      const size_t s = static_cast<size_t>(out);
      const size_t size = (bytes[s] + 63) / 64 * 64;
      Block* best = nullptr;
      const size_t first = blocks.size() > kBlocksScanned ? blocks.size() - kBlocksScanned : 0;
      for (size_t b = blocks.size(); b-- > first;) {
        Block& block = blocks[b];
        if (block.size < size || (best && best->size <= block.size)) continue;
        bool dead = true;
        for (int u : users[block.holder]) {
          if (!anc.precedes(static_cast<size_t>(u), node)) {
            dead = false;
            break;
          }
        }
        if (dead) best = &block;
      }
      if (!best) {
        blocks.push_back({plan.arena_bytes, size, s});
        plan.arena_bytes += size;
        best = &blocks.back();
      } else {
        best->holder = s;
        // Used last: scanned first and kept within the scanned tail.
        std::swap(*best, blocks.back());
        best = &blocks.back();
      }
      plan.offset[s] = best->offset;
      plan.bytes[s] = best->size;
    }
  }
  return plan;
}

}  // namespace

MemoryPlan plan_memory(const CompiledGraph& g, const std::vector<size_t>& bytes,
                       const std::vector<int>& alias_of, size_t exact_limit) {
  if (g.nodes.size() > exact_limit) return plan_large(g, bytes, alias_of);
  const size_t slots = g.slot_count();
  MemoryPlan plan;
  plan.offset.assign(slots, MemoryPlan::kNotPlanned);
  plan.bytes.assign(slots, 0);
  const auto anc = compute_ancestors(g);
  const auto users = slot_users(g, alias_of);
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
    if (planned(g, bytes, alias_of, s)) order.push_back(s);
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
