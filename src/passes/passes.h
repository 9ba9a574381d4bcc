// Load-time passes, one file each. Each is a plain function over the IR with its own tests.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "opdefs/fused_conv.h"

namespace kiln::passes {

// Orders nodes so that producers come before consumers (exporters may write them unsorted).
// kiln::Error for a cycle or for an input that nothing produces. Recurses into subgraphs,
// where names from enclosing graphs are visible.
void topological_sort(ir::Graph& graph, const std::string& where,
                      const std::set<std::string>& outer_names = {});
// The passes run no kernel and know no backend; what they need from the kernels the runtime
// hands in. `NodeCheck` throws kiln::Error for a node no kernel takes (an unknown op, or
// attributes its kernel rejects); `NodeEvaluator` runs a node whose inputs are all initializers
// of `graph` and returns its outputs, or nothing when it cannot (the error surfaces at run time).
using NodeCheck = std::function<void(const ir::Node&, const ir::Model&)>;
using NodeEvaluator = std::function<std::optional<std::vector<Tensor>>(
    const ir::Node&, const ir::Model&, const ir::Graph&)>;

// Calls `check` on every node, subgraphs included.
void check_operators_supported(const ir::Model& model, const NodeCheck& check);
// Drops Identity and inference-mode Dropout nodes, rewiring their consumers.
void remove_noop_nodes(ir::Graph& graph);
// Evaluates nodes whose inputs are all constant and replaces their outputs by initializers.
void fold_constants(ir::Model& model, const NodeEvaluator& evaluate);
// Folds inference-mode BatchNormalization into the Conv before it (constant float32 weights).
void fold_batch_norm(ir::Graph& graph);
// Fuses float32 Conv -> [residual Add] -> [activation (passes/activation_match.h)] chains into
// kiln::FusedConv nodes (opdefs/fused_conv.h), as far as the backend's kernel covers them.
// `opset`: the graph's ai.onnx opset (Clip's bounds are attributes before 11).
void fuse_conv_activations(ir::Graph& graph, int opset, const FusedConvCoverage& coverage);
// Fuses MatMul(A, constant B) -> [Add(·, constant bias [N])] -> [residual Add] -> [activation]
// into kiln::MatMulBias, and Gemm -> [residual Add] -> [activation] into kiln::FusedGemm
// (opdefs/matmul_bias.h). `opset`: the graph's ai.onnx opset. The CPU worker's pass.
void fuse_linear_epilogues(ir::Graph& graph, int opset);
// Fuses the exact GELU spelled op by op (Div, Erf, Add, Mul, Mul) into com.microsoft Gelu. The
// CPU worker's pass.
void fuse_gelu(ir::Graph& graph);
// Fuses LayerNorm and RMSNorm spelled op by op (ReduceMean, Sub, Pow, Add, Sqrt, Div, ...) over
// the trailing axes into com.microsoft LayerNormalization and SimplifiedLayerNormalization.
// `opset`: the graph's ai.onnx opset (ReduceMean's axes are an input from 18). The CPU worker's
// pass.
void fuse_normalizations(ir::Graph& graph, int opset);
// Fuses Exp(x - ReduceMax(x)) / ReduceSum(·) over the last axis (also without the ReduceMax)
// into Softmax. `opset`: the graph's ai.onnx opset. The CPU worker's pass.
void fuse_softmax(ir::Graph& graph, int opset);
// Fuses scaled dot-product attention spelled op by op (MatMul, scale, mask Add, Softmax, MatMul,
// and the Transposes around them) into kiln::FusedAttention (opdefs/fused_attention.h). The CPU
// worker's pass. `opset`: the graph's ai.onnx opset (Softmax's default axis).
void fuse_attention(ir::Graph& graph, int opset);
// The CPU worker's fusions, all of the above in its order. `opset`: the graph's ai.onnx opset.
void fuse_for_cpu(ir::Graph& graph, int opset);
// Removes nodes whose outputs nobody uses, and initializers nobody reads.
void remove_dead_nodes(ir::Graph& graph);
// Fills graph.value_infos with the dtype and (possibly symbolic) shape of every value it can.
void infer_shapes(ir::Model& model);
// The values whose contents decide shapes or indices (Reshape's shape, Slice's bounds, ...),
// and the values those are computed from, stopping at Shape/Size, graph inputs and
// initializers: they must stay on the CPU.
std::set<std::string> cpu_resident_values(const ir::Model& model);

// Makes values of the graph extra graph outputs, after the existing ones: those named (any value
// a node produces, a graph input or an initializer), or with "*" every value a node produces,
// in graph order. kiln::Error naming a value the graph does not have.
void expose_values(ir::Model& model, const std::vector<std::string>& names);

using ir::implicit_inputs;

// The ONNX spec's function body for an op kiln has no kernel for, at the model's opset for
// the node's domain; nullptr when the spec defines none.
using SpecFunctionLookup = std::function<const ir::Function*(const ir::Node&, int opset)>;
// Replaces calls to the model's functions, and to ops without a kernel that `spec_function`
// knows a body for, with the bodies. Nested calls are expanded too.
void inline_functions(ir::Model& model, const SpecFunctionLookup& spec_function);

}  // namespace kiln::passes
