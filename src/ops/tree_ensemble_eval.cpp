#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "ops/tree_ensemble.h"

namespace kiln::trees {

int64_t Ensemble::add_leaf(const std::vector<LeafTarget>& leaf_targets) {
  targets.insert(targets.end(), leaf_targets.begin(), leaf_targets.end());
  leaf_begin.push_back(static_cast<uint32_t>(targets.size()));
  return static_cast<int64_t>(leaf_begin.size()) - 2;
}

int64_t Ensemble::validate(const NodeInfo& info) const {
  const auto n_branches = static_cast<int64_t>(branches.size());
  const auto n_leaves = static_cast<int64_t>(leaf_begin.size()) - 1;
  const auto check_ref = [&](ChildRef ref) {
    if (ref >= 0 ? ref >= n_branches : ~static_cast<int64_t>(ref) >= n_leaves) {
      info.fail(ref >= 0 ? "a tree refers to node " + std::to_string(ref) + " of " +
                               std::to_string(n_branches)
                         : "a tree refers to leaf " + std::to_string(~ref) + " of " +
                               std::to_string(n_leaves));
    }
  };
  // The scores take n_targets doubles per row: past 2^31 a tiny model would ask for a huge
  // allocation (or overflow rows * n_targets).
  if (n_targets < 1 || n_targets > std::numeric_limits<int32_t>::max()) {
    info.fail("n_targets must be in [1, 2^31), got " + std::to_string(n_targets));
  }
  for (const LeafTarget& t : targets) {
    if (t.target < 0 || t.target >= n_targets) {
      info.fail("leaf target " + std::to_string(t.target) + " is outside [0, " +
                std::to_string(n_targets) + ")");
    }
  }
  int64_t features = 0;
  for (const Branch& b : branches) {
    check_ref(b.if_true);
    check_ref(b.if_false);
    // The top of the range would overflow b.feature + 1 and slip past the caller's check of
    // X's width.
    if (b.feature < 0 || b.feature == std::numeric_limits<int64_t>::max()) {
      info.fail("a node reads feature " + std::to_string(b.feature) + ", which is out of range");
    }
    features = std::max(features, b.feature + 1);
  }
  for (ChildRef root : roots) check_ref(root);
  // Depth-first search from every branch; meeting a branch still on the path is a cycle.
  enum : uint8_t { kNew, kOnPath, kDone };
  std::vector<uint8_t> state(branches.size(), kNew);
  std::vector<std::pair<int32_t, int>> path;  // (branch, children visited)
  for (int32_t start = 0; start < n_branches; ++start) {
    if (state[start] != kNew) continue;
    path.push_back({start, 0});
    state[start] = kOnPath;
    while (!path.empty()) {
      auto& [at, visited] = path.back();
      if (visited == 2) {
        state[at] = kDone;
        path.pop_back();
        continue;
      }
      const ChildRef child = visited++ == 0 ? branches[at].if_true : branches[at].if_false;
      if (child < 0) continue;
      if (state[child] == kOnPath)
        info.fail("the trees contain a cycle through node " + std::to_string(child));
      if (state[child] == kNew) {
        state[child] = kOnPath;
        path.push_back({child, 0});
      }
    }
  }
  return features;
}

namespace {

bool goes_true(const Branch& b, const Ensemble& e, double v) {
  if (std::isnan(v) && (b.missing_goes_true || e.nan_only_tracks_missing)) {
    return b.missing_goes_true;
  }
  switch (b.mode) {
    case NodeMode::kLeq:
      return v <= b.threshold;
    case NodeMode::kLt:
      return v < b.threshold;
    case NodeMode::kGte:
      return v >= b.threshold;
    case NodeMode::kGt:
      return v > b.threshold;
    case NodeMode::kEq:
      return v == b.threshold;
    case NodeMode::kNeq:
      return v != b.threshold;
    case NodeMode::kMember:
      return std::binary_search(e.members.begin() + b.members_begin,
                                e.members.begin() + b.members_end, v);
  }
  return false;
}

void evaluate_row(const Ensemble& e, const double* x, double* scores, bool* reached) {
  std::fill(scores, scores + e.n_targets, 0.0);
  std::fill(reached, reached + e.n_targets, false);
  for (ChildRef at : e.roots) {
    while (at >= 0) {
      const Branch& b = e.branches[at];
      at = goes_true(b, e, x[b.feature]) ? b.if_true : b.if_false;
    }
    const int64_t leaf = ~static_cast<int64_t>(at);
    for (uint32_t k = e.leaf_begin[leaf]; k < e.leaf_begin[leaf + 1]; ++k) {
      const LeafTarget& t = e.targets[k];
      double& s = scores[t.target];
      if (!reached[t.target]) {
        s = t.weight;
        reached[t.target] = true;
      } else if (e.aggregate == Aggregate::kMin) {
        s = std::min(s, t.weight);
      } else if (e.aggregate == Aggregate::kMax) {
        s = std::max(s, t.weight);
      } else {
        s += t.weight;
      }
    }
  }
  if (e.aggregate == Aggregate::kAverage && !e.roots.empty()) {
    for (int64_t t = 0; t < e.n_targets; ++t) scores[t] /= static_cast<double>(e.roots.size());
  }
}

}  // namespace

void evaluate(const Ensemble& ensemble, const double* x, int64_t rows, int64_t columns,
              double* scores, bool* reached) {
  // Rows are independent; give each worker enough tree walks to outweigh the hand-off.
  const auto trees = std::max<int64_t>(1, static_cast<int64_t>(ensemble.roots.size()));
  const int64_t grain = std::max<int64_t>(1, 4096 / trees);
  parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      evaluate_row(ensemble, x + r * columns, scores + r * ensemble.n_targets,
                   reached + r * ensemble.n_targets);
    }
  });
}

}  // namespace kiln::trees
