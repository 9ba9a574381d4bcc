// TreeEnsembleRegressor and TreeEnsembleClassifier (ai.onnx.ml opsets 1-3), evaluated by the
// shared tree-ensemble evaluator (tree_ensemble.h).
//
// Their nodes are named by (tree id, node id) pairs and children by node id within the tree;
// LEAF nodes get their weights from the target_* (regressor) or class_* (classifier) lists.
// Each tree's root is its first node in the lists, and trees run in increasing tree id.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

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

// A float list given either as `name` (floats) or `name`_as_tensor.
std::vector<double> float_list(const NodeInfo& info, const std::string& name) {
  std::vector<double> out;
  if (std::optional<Tensor> t = info.attr_tensor(name + "_as_tensor")) {
    if (t->dtype() == DataType::Float64) {
      const double* p = t->data<double>();
      out.assign(p, p + t->element_count());
    } else if (t->dtype() == DataType::Float32) {
      const float* p = t->data<float>();
      out.assign(p, p + t->element_count());
    } else {
      info.fail(name + "_as_tensor must be float or double");
    }
    return out;
  }
  for (float v : info.attr_floats(name)) out.push_back(v);
  return out;
}

NodeMode parse_mode(const NodeInfo& info, const std::string& mode) {
  if (mode == "BRANCH_LEQ") return NodeMode::kLeq;
  if (mode == "BRANCH_LT") return NodeMode::kLt;
  if (mode == "BRANCH_GTE") return NodeMode::kGte;
  if (mode == "BRANCH_GT") return NodeMode::kGt;
  if (mode == "BRANCH_EQ") return NodeMode::kEq;
  if (mode == "BRANCH_NEQ") return NodeMode::kNeq;
  info.fail("unknown node mode '" + mode + "'");
}

// Builds the ensemble from the nodes_* lists and the leaf weights `prefix`_treeids, _nodeids,
// _ids and _weights (prefix "target" or "class").
Ensemble read_legacy_trees(const NodeInfo& info, const std::string& prefix, int64_t n_targets) {
  const std::vector<int64_t> tree_ids = info.required_ints("nodes_treeids");
  const std::vector<int64_t> node_ids = info.required_ints("nodes_nodeids");
  const std::vector<int64_t> features = info.required_ints("nodes_featureids");
  const std::vector<std::string> modes = info.attr_strings("nodes_modes");
  const std::vector<double> values = float_list(info, "nodes_values");
  const std::vector<int64_t> true_ids = info.required_ints("nodes_truenodeids");
  const std::vector<int64_t> false_ids = info.required_ints("nodes_falsenodeids");
  std::vector<int64_t> missing = info.attr_ints("nodes_missing_value_tracks_true");
  const size_t n = tree_ids.size();
  if (missing.empty()) missing.assign(n, 0);
  for (const auto& [size, name] : {std::pair{node_ids.size(), "nodes_nodeids"},
                                   {features.size(), "nodes_featureids"},
                                   {modes.size(), "nodes_modes"},
                                   {values.size(), "nodes_values"},
                                   {true_ids.size(), "nodes_truenodeids"},
                                   {false_ids.size(), "nodes_falsenodeids"},
                                   {missing.size(), "nodes_missing_value_tracks_true"}}) {
    if (size != n) {
      info.fail(std::string(name) + " has " + std::to_string(size) + " entries for " +
                std::to_string(n) + " nodes");
    }
  }

  Ensemble e;
  e.n_targets = n_targets;
  e.nan_only_tracks_missing = true;
  // Every node becomes a branch or a leaf, in list order.
  std::map<std::pair<int64_t, int64_t>, size_t> index_of;
  std::vector<trees::ChildRef> ref(n);
  int64_t branches = 0, leaves = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!index_of.emplace(std::pair{tree_ids[i], node_ids[i]}, i).second) {
      info.fail("node " + std::to_string(node_ids[i]) + " of tree " + std::to_string(tree_ids[i]) +
                " appears twice");
    }
    ref[i] =
        modes[i] == "LEAF" ? trees::leaf_ref(leaves++) : static_cast<trees::ChildRef>(branches++);
  }
  const auto node_ref = [&](int64_t tree, int64_t node) {
    auto it = index_of.find({tree, node});
    if (it == index_of.end()) {
      info.fail("tree " + std::to_string(tree) + " has no node " + std::to_string(node));
    }
    return ref[it->second];
  };

  // Leaf weights.
  const std::vector<int64_t> w_trees = info.attr_ints(prefix + "_treeids");
  const std::vector<int64_t> w_nodes = info.attr_ints(prefix + "_nodeids");
  const std::vector<int64_t> w_ids = info.attr_ints(prefix + "_ids");
  const std::vector<double> weights = float_list(info, prefix + "_weights");
  if (w_nodes.size() != w_trees.size() || w_ids.size() != w_trees.size() ||
      weights.size() != w_trees.size()) {
    info.fail(prefix + "_treeids, _nodeids, _ids and _weights must have the same length");
  }
  std::vector<std::vector<trees::LeafTarget>> leaf_targets(static_cast<size_t>(leaves));
  for (size_t k = 0; k < w_trees.size(); ++k) {
    const trees::ChildRef r = node_ref(w_trees[k], w_nodes[k]);
    if (r >= 0) {
      info.fail(prefix + " weight " + std::to_string(k) + " belongs to a node that is not a LEAF");
    }
    leaf_targets[~static_cast<int64_t>(r)].push_back({w_ids[k], weights[k]});
  }
  for (const auto& targets : leaf_targets) e.add_leaf(targets);

  e.branches.reserve(static_cast<size_t>(branches));
  for (size_t i = 0; i < n; ++i) {
    if (ref[i] < 0) continue;
    trees::Branch b;
    b.mode = parse_mode(info, modes[i]);
    b.feature = features[i];
    b.threshold = values[i];
    b.missing_goes_true = missing[i] != 0;
    b.if_true = node_ref(tree_ids[i], true_ids[i]);
    b.if_false = node_ref(tree_ids[i], false_ids[i]);
    e.branches.push_back(b);
  }
  // Roots: each tree's first node, trees in increasing id.
  std::map<int64_t, size_t> first_node;
  for (size_t i = 0; i < n; ++i) first_node.emplace(tree_ids[i], i);
  for (const auto& [tree, i] : first_node) e.roots.push_back(ref[i]);
  return e;
}

Aggregate parse_aggregate(const NodeInfo& info) {
  const std::string name = info.attr_string("aggregate_function", "SUM");
  if (name == "SUM") return Aggregate::kSum;
  if (name == "AVERAGE") return Aggregate::kAverage;
  if (name == "MIN") return Aggregate::kMin;
  if (name == "MAX") return Aggregate::kMax;
  info.fail("aggregate_function must be SUM, AVERAGE, MIN or MAX, got '" + name + "'");
}

struct LegacySpec {
  Ensemble ensemble;
  int64_t features = 0;
  std::vector<double> base_values;  // empty, or one per target
  ml::PostTransform post_transform = ml::PostTransform::kNone;
  // Classifier only.
  std::vector<int64_t> int_labels;
  std::vector<std::string> string_labels;
  bool binary = false;       // every class weight goes to one class
  int64_t binary_class = 0;  // ... this one
};

// Runs the trees on X: scores [rows, n_targets] with base values added; unreached MIN/MAX
// targets hold float's extremes.
std::vector<double> legacy_scores(const LegacySpec& spec, OpContext& ctx, int64_t& rows) {
  const Tensor& x = ctx.input(0);
  const ml::RowView view = ml::as_rows(ctx, x);
  if (view.columns < spec.features) {
    ctx.fail("X has " + std::to_string(view.columns) + " features but the trees read " +
             std::to_string(spec.features));
  }
  const std::vector<double> values = ml::numeric_values(ctx, x, "X");
  const Ensemble& e = spec.ensemble;
  const auto count = static_cast<size_t>(view.rows * e.n_targets);
  std::vector<double> scores(count);
  std::unique_ptr<bool[]> reached(new bool[count]);
  trees::evaluate(e, values.data(), view.rows, view.columns, scores.data(), reached.get());
  const double largest = std::numeric_limits<float>::max();
  for (size_t i = 0; i < count; ++i) {
    if (!reached[i] && e.aggregate == Aggregate::kMin) scores[i] = largest;
    if (!reached[i] && e.aggregate == Aggregate::kMax) scores[i] = -largest;
    if (!spec.base_values.empty()) scores[i] += spec.base_values[i % e.n_targets];
  }
  rows = view.rows;
  return scores;
}

void check_base_values(const NodeInfo& info, const LegacySpec& spec) {
  if (!spec.base_values.empty() &&
      static_cast<int64_t>(spec.base_values.size()) != spec.ensemble.n_targets) {
    info.fail("base_values has " + std::to_string(spec.base_values.size()) + " values for " +
              std::to_string(spec.ensemble.n_targets) + " targets");
  }
}

CpuKernel make_tree_ensemble_regressor(const NodeInfo& info) {
  auto spec = std::make_shared<LegacySpec>();
  spec->ensemble = read_legacy_trees(info, "target", info.attr_int("n_targets", 1));
  spec->ensemble.aggregate = parse_aggregate(info);
  spec->base_values = float_list(info, "base_values");
  spec->post_transform = ml::parse_post_transform(info, info.attr_string("post_transform", "NONE"));
  check_base_values(info, *spec);
  spec->features = spec->ensemble.validate(info);
  return [spec = std::shared_ptr<const LegacySpec>(spec)](OpContext& ctx) {
    int64_t rows = 0;
    std::vector<double> scores = legacy_scores(*spec, ctx, rows);
    const int64_t targets = spec->ensemble.n_targets;
    float* out =
        ctx.allocate_output(0, DataType::Float32, Shape{rows, targets}).mutable_data<float>();
    for (int64_t r = 0; r < rows; ++r) {
      ml::apply_post_transform(spec->post_transform, scores.data() + r * targets, targets);
    }
    for (size_t i = 0; i < scores.size(); ++i) out[i] = static_cast<float>(scores[i]);
  };
}

CpuKernel make_tree_ensemble_classifier(const NodeInfo& info) {
  auto spec = std::make_shared<LegacySpec>();
  spec->int_labels = info.attr_ints("classlabels_int64s");
  spec->string_labels = info.attr_strings("classlabels_strings");
  if (spec->int_labels.empty() == spec->string_labels.empty()) {
    info.fail("exactly one of classlabels_int64s and classlabels_strings is needed");
  }
  const auto classes =
      static_cast<int64_t>(std::max(spec->int_labels.size(), spec->string_labels.size()));
  if (classes == 1 && !spec->string_labels.empty()) {
    info.fail("a single string class label is not supported");
  }
  spec->ensemble = read_legacy_trees(info, "class", classes);
  spec->base_values = float_list(info, "base_values");
  spec->post_transform = ml::parse_post_transform(info, info.attr_string("post_transform", "NONE"));
  check_base_values(info, *spec);
  spec->features = spec->ensemble.validate(info);
  const std::vector<int64_t> class_ids = info.attr_ints("class_ids");
  // One class label always scores as binary (its weights can only go to class 0).
  spec->binary = classes == 1 || (!class_ids.empty() &&
                                  std::all_of(class_ids.begin(), class_ids.end(),
                                              [&](int64_t id) { return id == class_ids[0]; }));
  if (spec->binary && !class_ids.empty()) spec->binary_class = class_ids[0];

  return [spec = std::shared_ptr<const LegacySpec>(spec)](OpContext& ctx) {
    int64_t rows = 0;
    const std::vector<double> scores = legacy_scores(*spec, ctx, rows);
    const int64_t classes = spec->ensemble.n_targets;
    // With one class label the scores still have two columns: not-the-class and the class.
    const int64_t width = classes == 1 ? 2 : classes;
    Tensor& z = ctx.allocate_output(1, DataType::Float32, Shape{rows, width});
    float* z_out = z.mutable_data<float>();
    const bool int_labels = !spec->int_labels.empty();
    Tensor& y =
        ctx.allocate_output(0, int_labels ? DataType::Int64 : DataType::String, Shape{rows});
    std::vector<double> row(static_cast<size_t>(width));
    for (int64_t r = 0; r < rows; ++r) {
      const double* s = scores.data() + r * classes;
      std::copy(s, s + classes, row.begin());
      if (spec->binary) {
        // All weight went to one class: its score s decides between the first two columns,
        // as (1 - s, s) for probabilities or (-s, s) for margins.
        const double positive = s[spec->binary_class];
        row[1] = positive;
        const bool probability = spec->post_transform == ml::PostTransform::kNone ||
                                 spec->post_transform == ml::PostTransform::kProbit;
        row[0] = probability ? 1.0 - positive : -positive;
      }
      ml::apply_post_transform(spec->post_transform, row.data(), width);
      const int64_t best = std::max_element(row.begin(), row.end()) - row.begin();
      for (int64_t c = 0; c < width; ++c) z_out[r * width + c] = static_cast<float>(row[c]);
      if (int_labels) {
        int64_t label = 0;
        if (classes == 1) {
          label = best == 1 ? spec->int_labels[0] : 0;
        } else {
          label = spec->int_labels[best];
        }
        y.mutable_data<int64_t>()[r] = label;
      } else {
        y.mutable_data<std::string>()[r] = spec->string_labels[best];
      }
    }
  };
}

}  // namespace

KILN_CPU_OPS(tree_ensemble_legacy);
void register_tree_ensemble_legacy_ops(OpRegistry& registry) {
  registry.add(kMlDomain, "TreeEnsembleRegressor", make_tree_ensemble_regressor);
  registry.add(kMlDomain, "TreeEnsembleClassifier", make_tree_ensemble_classifier);
}

}  // namespace kiln
