// The tree-ensemble evaluator that TreeEnsemble (ai.onnx.ml opset 5) and the older
// TreeEnsembleRegressor and TreeEnsembleClassifier share: each op turns its attributes into an
// Ensemble at load, and the evaluator walks every tree for every row.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/op_registry.h"

namespace kiln::trees {

enum class NodeMode : uint8_t { kLeq, kLt, kGte, kGt, kEq, kNeq, kMember };
enum class Aggregate { kAverage, kSum, kMin, kMax };

// A child reference: a branch index when >= 0, leaf index ~ref when negative.
using ChildRef = int32_t;
inline ChildRef leaf_ref(int64_t leaf) { return static_cast<ChildRef>(~leaf); }

struct Branch {
  NodeMode mode = NodeMode::kLeq;
  bool missing_goes_true = false;  // a NaN feature takes the true branch
  int64_t feature = 0;
  double threshold = 0;
  uint32_t members_begin = 0, members_end = 0;  // kMember: sorted slice of Ensemble::members
  ChildRef if_true = 0, if_false = 0;
};

struct LeafTarget {
  int64_t target = 0;
  double weight = 0;
};

struct Ensemble {
  std::vector<Branch> branches;
  std::vector<double> members;
  // Leaf i adds targets[leaf_begin[i] .. leaf_begin[i + 1]); leaf_begin has one extra entry.
  std::vector<uint32_t> leaf_begin{0};
  std::vector<LeafTarget> targets;
  std::vector<ChildRef> roots;
  int64_t n_targets = 1;
  Aggregate aggregate = Aggregate::kSum;
  // The legacy ops send a NaN feature down the true branch only when the node's
  // missing_value_tracks_true says so; opset 5 otherwise compares NaN like any value (so that
  // BRANCH_NEQ is true for it).
  bool nan_only_tracks_missing = false;

  int64_t add_leaf(const std::vector<LeafTarget>& leaf_targets);
  // Checks every reference, target and the absence of cycles (so that evaluation ends):
  // info.fail otherwise. Returns the number of features the trees read.
  int64_t validate(const NodeInfo& info) const;
};

// Evaluates the ensemble on `rows` rows of `columns` features (row-major doubles). For each row
// and target writes the aggregated score (before any base value or post-transform) to
// scores[row * n_targets + target] and whether any tree reached that target to reached[...].
// The caller checks columns against validate()'s feature count.
void evaluate(const Ensemble& ensemble, const double* x, int64_t rows, int64_t columns,
              double* scores, bool* reached);

}  // namespace kiln::trees
