// TreeEnsemble (ai.onnx.ml opset 5): nodes and leaves as parallel attribute arrays, a node's
// children indexing either nodes or leaves (nodes_trueleafs / nodes_falseleafs say which),
// BRANCH_MEMBER nodes testing set membership, and one output row of n_targets scores per input
// row in the input's float type.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype_dispatch.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/ml_common.h"
#include "ops/ml_ops.h"
#include "ops/tree_ensemble.h"

namespace kiln {
namespace {

using trees::Aggregate;
using trees::Ensemble;
using trees::NodeMode;

// A tensor attribute's values as doubles (empty when absent).
std::vector<double> tensor_attr_values(const NodeInfo& info, const std::string& name) {
  std::vector<double> out;
  const std::optional<Tensor> t = info.attr_tensor(name);
  if (!t) return out;
  out.resize(static_cast<size_t>(t->element_count()));
  visit_dtype(t->dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T> || is_plain_int_v<T>) {
      const T* p = t->data<T>();
      for (size_t i = 0; i < out.size(); ++i) out[i] = to_double(p[i]);
    } else {
      info.fail("attribute '" + name + "' must hold numbers, not " +
                std::string(dtype_name(t->dtype())));
    }
  });
  return out;
}

struct TreeEnsembleSpec {
  Ensemble ensemble;
  int64_t features = 0;
  ml::PostTransform post_transform = ml::PostTransform::kNone;
};

// Reads the node arrays into branches; node i becomes branch i.
void read_nodes(const NodeInfo& info, Ensemble& e) {
  const std::vector<int64_t> features = info.required_ints("nodes_featureids");
  const size_t n = features.size();
  const std::vector<double> splits = tensor_attr_values(info, "nodes_splits");
  const std::vector<double> modes = tensor_attr_values(info, "nodes_modes");
  const std::vector<int64_t> true_ids = info.required_ints("nodes_truenodeids");
  const std::vector<int64_t> false_ids = info.required_ints("nodes_falsenodeids");
  const std::vector<int64_t> true_leafs = info.required_ints("nodes_trueleafs");
  const std::vector<int64_t> false_leafs = info.required_ints("nodes_falseleafs");
  std::vector<int64_t> missing = info.attr_ints("nodes_missing_value_tracks_true");
  if (missing.empty()) missing.assign(n, 0);
  const auto sized = [&](size_t size, const char* name) {
    if (size != n) {
      info.fail(std::string(name) + " has " + std::to_string(size) + " entries for " +
                std::to_string(n) + " nodes");
    }
  };
  sized(splits.size(), "nodes_splits");
  sized(modes.size(), "nodes_modes");
  sized(true_ids.size(), "nodes_truenodeids");
  sized(false_ids.size(), "nodes_falsenodeids");
  sized(true_leafs.size(), "nodes_trueleafs");
  sized(false_leafs.size(), "nodes_falseleafs");
  sized(missing.size(), "nodes_missing_value_tracks_true");

  // membership_values: the sets of the BRANCH_MEMBER nodes in node order, each ended by NaN.
  const std::vector<double> membership = tensor_attr_values(info, "membership_values");
  size_t next_member = 0;
  const auto child = [&](int64_t id, int64_t is_leaf) {
    if (id < 0 || id > std::numeric_limits<int32_t>::max()) {
      info.fail("node child index " + std::to_string(id) + " is out of range");
    }
    return is_leaf ? trees::leaf_ref(id) : static_cast<trees::ChildRef>(id);
  };
  e.branches.resize(n);
  for (size_t i = 0; i < n; ++i) {
    trees::Branch& b = e.branches[i];
    if (!(modes[i] >= 0 && modes[i] <= 6)) {
      info.fail("nodes_modes[" + std::to_string(i) + "] must be 0 to 6");
    }
    b.mode = static_cast<NodeMode>(static_cast<int>(modes[i]));
    b.feature = features[i];
    b.threshold = splits[i];
    b.missing_goes_true = missing[i] != 0;
    b.if_true = child(true_ids[i], true_leafs[i]);
    b.if_false = child(false_ids[i], false_leafs[i]);
    if (b.mode == NodeMode::kMember) {
      if (membership.empty()) info.fail("a BRANCH_MEMBER node needs membership_values");
      b.members_begin = static_cast<uint32_t>(e.members.size());
      while (next_member < membership.size() && !std::isnan(membership[next_member])) {
        e.members.push_back(membership[next_member++]);
      }
      ++next_member;  // the NaN that ends this set
      b.members_end = static_cast<uint32_t>(e.members.size());
      std::sort(e.members.begin() + b.members_begin, e.members.end());
    }
  }
}

CpuKernel make_tree_ensemble(const NodeInfo& info) {
  auto spec = std::make_shared<TreeEnsembleSpec>();
  Ensemble& e = spec->ensemble;
  read_nodes(info, e);

  const std::vector<int64_t> leaf_targets = info.required_ints("leaf_targetids");
  const std::vector<double> leaf_weights = tensor_attr_values(info, "leaf_weights");
  if (leaf_weights.size() != leaf_targets.size()) {
    info.fail("leaf_weights has " + std::to_string(leaf_weights.size()) + " entries for " +
              std::to_string(leaf_targets.size()) + " leaves");
  }
  for (size_t i = 0; i < leaf_targets.size(); ++i) {
    e.add_leaf({{leaf_targets[i], leaf_weights[i]}});
  }
  for (int64_t root : info.required_ints("tree_roots")) {
    if (root < 0 || root >= static_cast<int64_t>(e.branches.size())) {
      info.fail("tree root " + std::to_string(root) + " is not a node");
    }
    e.roots.push_back(static_cast<trees::ChildRef>(root));
  }
  e.n_targets = info.required_int("n_targets");
  const int64_t aggregate = info.attr_int("aggregate_function", 1);
  if (aggregate < 0 || aggregate > 3) {
    info.fail("aggregate_function must be 0 (AVERAGE) to 3 (MAX), got " +
              std::to_string(aggregate));
  }
  e.aggregate = static_cast<Aggregate>(aggregate);
  spec->post_transform = ml::post_transform_from_int(info, info.attr_int("post_transform", 0));
  spec->features = e.validate(info);

  return [spec = std::shared_ptr<const TreeEnsembleSpec>(spec)](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::Float32 && x.dtype() != DataType::Float64 &&
        x.dtype() != DataType::Float16) {
      ctx.fail("X must be a float32, float64 or float16 tensor, got " +
               std::string(dtype_name(x.dtype())));
    }
    const ml::RowView view = ml::as_rows(ctx, x);
    if (view.columns < spec->features) {
      ctx.fail("X has " + std::to_string(view.columns) + " features but the trees read " +
               std::to_string(spec->features));
    }
    const std::vector<double> values = ml::numeric_values(ctx, x, "X");
    const Ensemble& e = spec->ensemble;
    const auto count = static_cast<size_t>(view.rows * e.n_targets);
    std::vector<double> scores(count);
    std::unique_ptr<bool[]> reached(new bool[count]);
    trees::evaluate(e, values.data(), view.rows, view.columns, scores.data(), reached.get());
    Tensor& y = ctx.allocate_output(0, x.dtype(), Shape{view.rows, e.n_targets});
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Float16>) {
        // A target no tree reached: 0 for sums and averages, the type's extreme for MIN/MAX
        // (as if aggregated from an empty set).
        double largest = 65504.0;  // float16's
        if constexpr (std::is_floating_point_v<T>) largest = std::numeric_limits<T>::max();
        double unreached = 0;
        if (e.aggregate == Aggregate::kMin) unreached = largest;
        if (e.aggregate == Aggregate::kMax) unreached = -largest;
        T* out = y.mutable_data<T>();
        for (int64_t r = 0; r < view.rows; ++r) {
          double* row = scores.data() + r * e.n_targets;
          for (int64_t t = 0; t < e.n_targets; ++t) {
            if (!reached[r * e.n_targets + t]) row[t] = unreached;
          }
          ml::apply_post_transform(spec->post_transform, row, e.n_targets);
          for (int64_t t = 0; t < e.n_targets; ++t)
            out[r * e.n_targets + t] = static_cast<T>(row[t]);
        }
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(tree_ensemble);
void register_tree_ensemble_ops(OpRegistry& registry) {
  registry.add(kMlDomain, "TreeEnsemble", make_tree_ensemble);
}

}  // namespace kiln
