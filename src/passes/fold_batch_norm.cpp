// An inference-mode BatchNormalization right after a Conv with constant weights is an affine
// map per output channel, so it folds into the Conv: W'[c] = W[c] * s[c] and
// B'[c] = (B[c] - mean[c]) * s[c] + bias[c], with s = scale / sqrt(var + epsilon). One pass over
// the weights at load time saves a pass over every activation on every run (and keeps the
// whole layer on a GPU backend). Only float32 constants fold; the Conv's output must feed the
// BatchNormalization alone.
#include <cmath>
#include <map>

#include "passes/graph_rewrite.h"
#include "passes/passes.h"

namespace kiln::passes {
namespace {

const Tensor* constant_f32(const ir::Graph& graph, const ir::Node& node, size_t input) {
  if (input >= node.inputs.size() || node.inputs[input].empty()) return nullptr;
  auto it = graph.initializers.find(node.inputs[input]);
  if (it == graph.initializers.end() || it->second.dtype() != DataType::Float32) return nullptr;
  return &it->second;
}

bool is_inference_batch_norm(const ir::Node& node) {
  if (!node.domain.empty() || node.op_type != "BatchNormalization" || node.inputs.size() < 5)
    return false;
  for (size_t k = 1; k < node.outputs.size(); ++k) {
    if (!node.outputs[k].empty()) return false;  // running statistics: training mode
  }
  const ir::Attribute* training = node.find_attribute("training_mode");
  return !training || training->i == 0;
}

// A fresh initializer name derived from `base`.
std::string fresh_name(const ir::Graph& graph, const std::string& base) {
  std::string name = base;
  for (int i = 0; graph.initializers.count(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

}  // namespace

void fold_batch_norm(ir::Graph& graph) {
  std::map<std::string, int> readers;
  for (const auto& node : graph.nodes) {
    for (const auto& in : node.inputs) ++readers[in];
    for (const auto& in : implicit_inputs(node)) readers[in] += 2;  // never fold those
  }
  std::map<std::string, size_t> producer;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const auto& out : graph.nodes[i].outputs) producer[out] = i;
  }
  std::vector<bool> removed(graph.nodes.size(), false);
  for (size_t b = 0; b < graph.nodes.size(); ++b) {
    ir::Node& bn = graph.nodes[b];
    if (!is_inference_batch_norm(bn)) continue;
    auto p = producer.find(bn.inputs[0]);
    if (p == producer.end()) continue;
    ir::Node& conv = graph.nodes[p->second];
    if (!conv.domain.empty() || conv.op_type != "Conv" || conv.outputs.size() != 1 ||
        readers[bn.inputs[0]] != 1 || is_graph_output(graph, bn.inputs[0]))
      continue;
    const Tensor* w = constant_f32(graph, conv, 1);
    const Tensor* scale = constant_f32(graph, bn, 1);
    const Tensor* bias = constant_f32(graph, bn, 2);
    const Tensor* mean = constant_f32(graph, bn, 3);
    const Tensor* var = constant_f32(graph, bn, 4);
    const bool conv_has_bias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
    const Tensor* conv_bias = conv_has_bias ? constant_f32(graph, conv, 2) : nullptr;
    if (!w || !scale || !bias || !mean || !var || (conv_has_bias && !conv_bias) || w->rank() < 3)
      continue;
    const int64_t channels = w->shape()[0];
    bool shapes_match = channels > 0;
    for (const Tensor* t : {scale, bias, mean, var, conv_bias}) {
      if (t && t->shape() != Shape{channels}) shapes_match = false;
    }
    if (!shapes_match) continue;
    const ir::Attribute* eps_attr = bn.find_attribute("epsilon");
    const double epsilon = eps_attr ? eps_attr->f : 1e-5;

    const int64_t per_channel = w->element_count() / channels;
    Tensor new_w = w->clone();
    Tensor new_b = Tensor::from_data<float>({channels}, std::vector<float>(channels, 0.0f));
    float* pw = new_w.mutable_data<float>();
    float* pb = new_b.mutable_data<float>();
    for (int64_t c = 0; c < channels; ++c) {
      const double s = scale->data<float>()[c] / std::sqrt(var->data<float>()[c] + epsilon);
      for (int64_t i = 0; i < per_channel; ++i) pw[c * per_channel + i] *= static_cast<float>(s);
      const double b0 = conv_bias ? conv_bias->data<float>()[c] : 0.0;
      pb[c] = static_cast<float>((b0 - mean->data<float>()[c]) * s + bias->data<float>()[c]);
    }
    const std::string w_name = fresh_name(graph, conv.inputs[1] + "_bn");
    const std::string b_name = fresh_name(graph, conv.outputs[0] + "_bn_bias");
    graph.initializers[w_name] = new_w;
    graph.initializers[b_name] = new_b;
    conv.inputs.resize(3);
    conv.inputs[1] = w_name;
    conv.inputs[2] = b_name;
    conv.outputs[0] = bn.outputs[0];
    removed[b] = true;
  }
  std::vector<ir::Node> kept;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (!removed[i]) kept.push_back(std::move(graph.nodes[i]));
  }
  graph.nodes = std::move(kept);
}

}  // namespace kiln::passes
