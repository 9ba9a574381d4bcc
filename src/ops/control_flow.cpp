// If, Loop and Scan: nodes that run subgraphs. Each subgraph is compiled with its node at load
// time and runs to completion on the thread of the node's job (kernels inside still spread
// their work over the job system with parallel_for). The values a subgraph reads from enclosing
// scopes reach the kernel as extra inputs after the node's own (see compile_graph).
#include <algorithm>
#include <memory>
#include <optional>

#include "core/run_stop.h"
#include "kernels/op_registry.h"
#include "kernels/subgraph.h"
#include "opdefs/control_flow.h"
#include "ops/all_ops.h"
#include "ops/axis_slices.h"
#include "ops/op_utils.h"

namespace kiln {
namespace {

bool scalar_true(const Tensor& t, const OpContext& ctx, const char* what) {
  if (t.kind() != ValueKind::Tensor || t.dtype() != DataType::Bool || t.element_count() != 1)
    ctx.fail(std::string(what) + " must be a single bool, got " + t.to_string(0));
  return t.data<bool>()[0];
}

// The declared element shape of a subgraph output, for a scan output with no iterations.
Shape declared_shape(const ValueInfo& info) {
  Shape shape;
  for (const Dim& d : info.shape) shape.push_back(d.is_fixed() ? d.value : 0);
  return shape;
}

// ---------------------------------------------------------------------------------------------
// If

CpuKernel make_if(const NodeInfo& info) {
  auto then_branch = std::make_shared<Subgraph>(required_graph_attr(info, "then_branch"), info);
  auto else_branch = std::make_shared<Subgraph>(required_graph_attr(info, "else_branch"), info);
  if (then_branch->num_outputs() != info.num_outputs() ||
      else_branch->num_outputs() != info.num_outputs()) {
    info.fail("both branches must have as many outputs as the node (" +
              std::to_string(info.num_outputs()) + ")");
  }
  const size_t own_inputs = info.num_inputs();
  return [=](OpContext& ctx) {
    const Subgraph& branch =
        scalar_true(ctx.input(0), ctx, "the condition") ? *then_branch : *else_branch;
    Subgraph::Run run(branch, enclosing_values(ctx, own_inputs));
    std::vector<Tensor> outputs = run({});
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (ctx.wants_output(i)) ctx.set_output(i, outputs[i]);
    }
  };
}

// ---------------------------------------------------------------------------------------------
// Loop: inputs (M, cond, v_initial...), body (iteration_num, cond, v...) -> (cond, v..., scan...)

CpuKernel make_loop(const NodeInfo& info) {
  auto body = std::make_shared<Subgraph>(required_graph_attr(info, "body"), info);
  if (info.num_inputs() < 2) info.fail("needs the inputs M and cond (either may be empty)");
  const size_t carried = info.num_inputs() - 2;
  if (body->num_inputs() != carried + 2)
    info.fail("the body must take " + std::to_string(carried + 2) + " inputs");
  if (body->num_outputs() < carried + 1)
    info.fail("the body must return the condition and the " + std::to_string(carried) +
              " loop-carried values");
  const size_t scanned = body->num_outputs() - 1 - carried;
  if (info.num_outputs() > carried + scanned) info.fail("has more outputs than the body makes");
  const size_t own_inputs = info.num_inputs();
  return [=](OpContext& ctx) {
    std::optional<int64_t> trip_limit;
    if (ctx.has_input(0)) {
      const Tensor& m = ctx.input(0);
      if (m.dtype() != DataType::Int64 || m.element_count() != 1)
        ctx.fail("M must be a single int64, got " + m.to_string(0));
      trip_limit = m.data<int64_t>()[0];
    }
    bool keep_going = ctx.has_input(1) ? scalar_true(ctx.input(1), ctx, "cond") : true;

    std::vector<Tensor> step_inputs(carried + 2);
    for (size_t i = 0; i < carried; ++i) step_inputs[2 + i] = ctx.input(2 + i);
    std::vector<std::vector<Tensor>> scan_slices(scanned);
    Subgraph::Run run(*body, enclosing_values(ctx, own_inputs));
    for (int64_t iteration = 0; keep_going && (!trip_limit || iteration < *trip_limit);
         ++iteration) {
      RunStop::check_current();  // a trip count of 10^15 must still stop when asked
      step_inputs[0] = Tensor::scalar<int64_t>(iteration);
      step_inputs[1] = Tensor::scalar<bool>(keep_going);
      std::vector<Tensor> outputs = run(step_inputs);
      keep_going = scalar_true(outputs[0], ctx, "the body's condition output");
      for (size_t i = 0; i < carried; ++i) step_inputs[2 + i] = std::move(outputs[1 + i]);
      for (size_t k = 0; k < scanned; ++k)
        scan_slices[k].push_back(std::move(outputs[1 + carried + k]));
    }
    for (size_t i = 0; i < carried && i < ctx.num_outputs(); ++i) {
      if (ctx.wants_output(i)) ctx.set_output(i, step_inputs[2 + i]);
    }
    for (size_t k = 0; k < scanned && carried + k < ctx.num_outputs(); ++k) {
      if (!ctx.wants_output(carried + k)) continue;
      const ValueInfo& declared = body->graph().outputs[1 + carried + k];
      ctx.set_output(carried + k, stack_slices(scan_slices[k], 0, declared.dtype,
                                               declared_shape(declared), ctx.node().describe()));
    }
  };
}

// ---------------------------------------------------------------------------------------------
// Scan: inputs (state..., scan_input...), body (state..., slice...) -> (state..., slice...)

// One Scan over unbatched inputs; `values` holds the states then the scan inputs.
std::vector<Tensor> run_scan(const Subgraph& body, const ScanLayout& layout,
                             std::span<const Tensor> values, std::span<const Tensor> enclosing,
                             const OpContext& ctx) {
  const std::string where = ctx.node().describe();
  int64_t length = -1;
  std::vector<int64_t> axes(layout.scan_inputs);
  for (size_t j = 0; j < layout.scan_inputs; ++j) {
    const Tensor& x = values[layout.states + j];
    axes[j] = normalize_axis(layout.input_axes[j], static_cast<int64_t>(x.rank()), where);
    const int64_t n = x.shape()[static_cast<size_t>(axes[j])];
    if (length >= 0 && n != length)
      ctx.fail("scan inputs have different lengths (" + std::to_string(length) + " and " +
               std::to_string(n) + ")");
    length = n;
  }
  if (length < 0) ctx.fail("needs at least one scan input");

  std::vector<Tensor> step(layout.states + layout.scan_inputs);
  for (size_t i = 0; i < layout.states; ++i) step[i] = values[i];
  std::vector<std::vector<Tensor>> slices(layout.scan_outputs);
  Subgraph::Run run(body, enclosing);
  for (int64_t t = 0; t < length; ++t) {
    RunStop::check_current();
    for (size_t j = 0; j < layout.scan_inputs; ++j) {
      const int64_t at = layout.input_reversed[j] ? length - 1 - t : t;
      step[layout.states + j] = take_slice(values[layout.states + j], axes[j], at);
    }
    std::vector<Tensor> outputs = run(step);
    for (size_t i = 0; i < layout.states; ++i) step[i] = std::move(outputs[i]);
    for (size_t k = 0; k < layout.scan_outputs; ++k)
      slices[k].push_back(std::move(outputs[layout.states + k]));
  }
  std::vector<Tensor> results(step.begin(), step.begin() + static_cast<ptrdiff_t>(layout.states));
  for (size_t k = 0; k < layout.scan_outputs; ++k) {
    if (layout.output_reversed[k]) std::reverse(slices[k].begin(), slices[k].end());
    const ValueInfo& declared = body.graph().outputs[layout.states + k];
    results.push_back(stack_slices(slices[k], layout.output_axes[k], declared.dtype,
                                   declared_shape(declared), where));
  }
  return results;
}

CpuKernel make_scan(const NodeInfo& info) {
  auto body = std::make_shared<Subgraph>(required_graph_attr(info, "body"), info);
  const ScanLayout layout = parse_scan_layout(info, body->num_inputs(), body->num_outputs());
  const bool batched = layout.batched;
  const size_t first_value = layout.first_value;
  const size_t values = layout.states + layout.scan_inputs;
  const size_t own_inputs = info.num_inputs();
  return [=](OpContext& ctx) {
    auto enclosing = enclosing_values(ctx, own_inputs);
    std::vector<Tensor> inputs(values);
    for (size_t i = 0; i < values; ++i) inputs[i] = ctx.input(first_value + i);
    std::vector<Tensor> results;
    if (!batched) {
      results = run_scan(*body, layout, inputs, enclosing, ctx);
    } else {
      if (ctx.has_input(0))
        ctx.fail("sequence_lens is not supported; every sequence is scanned whole");
      // Scan-8 scans each batch entry separately and stacks the results along the batch axis.
      const int64_t batch = inputs.empty() || inputs[0].rank() == 0 ? 0 : inputs[0].shape()[0];
      std::vector<std::vector<Tensor>> per_output(layout.states + layout.scan_outputs);
      std::vector<Tensor> entry(values);
      for (int64_t b = 0; b < batch; ++b) {
        for (size_t i = 0; i < values; ++i) entry[i] = take_slice(inputs[i], 0, b);
        std::vector<Tensor> out = run_scan(*body, layout, entry, enclosing, ctx);
        for (size_t k = 0; k < out.size(); ++k) per_output[k].push_back(std::move(out[k]));
      }
      for (size_t k = 0; k < per_output.size(); ++k) {
        const DataType dtype =
            k < layout.states ? inputs[k].dtype() : body->graph().outputs[k].dtype;
        results.push_back(stack_slices(per_output[k], 0, dtype, Shape{}, ctx.node().describe()));
      }
    }
    for (size_t i = 0; i < results.size() && i < ctx.num_outputs(); ++i) {
      if (ctx.wants_output(i)) ctx.set_output(i, results[i]);
    }
  };
}

}  // namespace

KILN_CPU_OPS(control_flow);
void register_control_flow_ops(OpRegistry& registry) {
  registry.add("If", make_if);
  registry.add("Loop", make_loop);
  registry.add("Scan", make_scan);
}

}  // namespace kiln
