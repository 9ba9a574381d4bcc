// Sequence ops: SequenceEmpty, SequenceConstruct, SequenceAt, SequenceInsert, SequenceErase,
// SequenceLength, SplitToSequence, ConcatFromSequence, SequenceMap.
//
// A sequence is an immutable Tensor handle holding finished host tensors. Ops that add tensors
// copy them (a node's inputs may live in memory the runtime reuses later); ops that rearrange
// an existing sequence share its elements.
#include <memory>

#include "core/tensor_impl.h"
#include "kernels/op_registry.h"
#include "kernels/subgraph.h"
#include "ops/all_ops.h"
#include "ops/axis_slices.h"
#include "ops/op_utils.h"

namespace kiln {
namespace {

const Tensor& sequence_input(const OpContext& ctx, size_t i) {
  const Tensor& t = ctx.input(i);
  if (t.kind() != ValueKind::Sequence)
    ctx.fail("input " + std::to_string(i) + " must be a sequence, got " + t.to_string(0));
  return t;
}

const Tensor& tensor_input(const OpContext& ctx, size_t i) {
  const Tensor& t = ctx.input(i);
  if (t.kind() != ValueKind::Tensor)
    ctx.fail("input " + std::to_string(i) + " must be a tensor, got " + t.to_string(0));
  return t;
}

// A position in [-size, size - 1] (or up to `size` when inserting), as an index.
int64_t position_input(const OpContext& ctx, size_t i, int64_t size, bool for_insert) {
  const std::vector<int64_t> v = to_int64_vector(tensor_input(ctx, i), ctx.node().describe());
  if (v.size() != 1) ctx.fail("position must be a single integer");
  const int64_t limit = for_insert ? size : size - 1;
  if (v[0] < -size || v[0] > limit) {
    ctx.fail("position " + std::to_string(v[0]) + " is out of range for a sequence of " +
             std::to_string(size) + " tensors");
  }
  return v[0] < 0 ? v[0] + size : v[0];
}

DataType dtype_attr(const NodeInfo& info) {
  const int64_t code = info.attr_int("dtype", static_cast<int64_t>(DataType::Float32));
  if (!is_valid_dtype(static_cast<int>(code)))
    info.fail("dtype " + std::to_string(code) + " is not a tensor type");
  return static_cast<DataType>(code);
}

CpuKernel make_sequence_empty(const NodeInfo& info) {
  const DataType dtype = dtype_attr(info);
  return [=](OpContext& ctx) { ctx.set_output(0, sequence_of({}, dtype)); };
}

CpuKernel make_sequence_construct(const NodeInfo& info) {
  if (info.num_inputs() == 0) info.fail("needs at least one input");
  return [](OpContext& ctx) {
    std::vector<Tensor> elements;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& t = tensor_input(ctx, i);
      if (t.dtype() != ctx.input(0).dtype()) ctx.fail("inputs must share one dtype");
      elements.push_back(t.clone());
    }
    ctx.set_output(0, sequence_of(std::move(elements), ctx.input(0).dtype()));
  };
}

CpuKernel make_sequence_at(const NodeInfo&) {
  return [](OpContext& ctx) {
    const auto& elements = sequence_input(ctx, 0).elements();
    const int64_t size = static_cast<int64_t>(elements.size());
    ctx.set_output(0, elements[static_cast<size_t>(position_input(ctx, 1, size, false))]);
  };
}

CpuKernel make_sequence_insert(const NodeInfo&) {
  return [](OpContext& ctx) {
    const Tensor& sequence = sequence_input(ctx, 0);
    const Tensor& t = tensor_input(ctx, 1);
    if (sequence.dtype() != DataType::Undefined && t.dtype() != sequence.dtype()) {
      ctx.fail("cannot insert a " + std::string(dtype_name(t.dtype())) +
               " tensor into a sequence of " + std::string(dtype_name(sequence.dtype())));
    }
    std::vector<Tensor> elements = sequence.elements();
    const int64_t size = static_cast<int64_t>(elements.size());
    const int64_t at = ctx.has_input(2) ? position_input(ctx, 2, size, true) : size;
    elements.insert(elements.begin() + at, t.clone());
    ctx.set_output(0, sequence_of(std::move(elements), t.dtype()));
  };
}

CpuKernel make_sequence_erase(const NodeInfo&) {
  return [](OpContext& ctx) {
    const Tensor& sequence = sequence_input(ctx, 0);
    std::vector<Tensor> elements = sequence.elements();
    const int64_t size = static_cast<int64_t>(elements.size());
    if (size == 0) ctx.fail("cannot erase from an empty sequence");
    const int64_t at = ctx.has_input(1) ? position_input(ctx, 1, size, false) : size - 1;
    elements.erase(elements.begin() + at);
    ctx.set_output(0, sequence_of(std::move(elements), sequence.dtype()));
  };
}

CpuKernel make_sequence_length(const NodeInfo&) {
  return [](OpContext& ctx) {
    const auto size = static_cast<int64_t>(sequence_input(ctx, 0).elements().size());
    ctx.allocate_output(0, DataType::Int64, Shape{}).mutable_data<int64_t>()[0] = size;
  };
}

CpuKernel make_split_to_sequence(const NodeInfo& info) {
  const int64_t axis_attr = info.attr_int("axis", 0);
  const bool keepdims = info.attr_int("keepdims", 1) != 0;
  return [=](OpContext& ctx) {
    const Tensor& input = tensor_input(ctx, 0);
    const std::string where = ctx.node().describe();
    const int64_t axis = normalize_axis(axis_attr, static_cast<int64_t>(input.rank()), where);
    const int64_t extent = input.shape()[static_cast<size_t>(axis)];
    std::vector<int64_t> lengths;
    if (!ctx.has_input(1)) {
      lengths.assign(static_cast<size_t>(extent), 1);
    } else {
      const Tensor& split = tensor_input(ctx, 1);
      const std::vector<int64_t> values = to_int64_vector(split, where);
      if (split.rank() == 0) {  // equal chunks of this length, the last one shorter
        if (values[0] <= 0) ctx.fail("split must be positive");
        for (int64_t at = 0; at < extent; at += values[0])
          lengths.push_back(std::min(values[0], extent - at));
      } else {
        lengths = values;
        int64_t total = 0;
        for (int64_t v : lengths) {
          if (v < 0) ctx.fail("split lengths must not be negative");
          total += v;
        }
        if (total != extent)
          ctx.fail("split lengths add up to " + std::to_string(total) + ", the axis has " +
                   std::to_string(extent));
      }
    }
    std::vector<Tensor> elements;
    int64_t begin = 0;
    for (int64_t length : lengths) {
      Tensor part = take_range(input, axis, begin, length);
      if (!ctx.has_input(1) && !keepdims) part = take_slice(part, axis, 0);
      elements.push_back(std::move(part));
      begin += length;
    }
    ctx.set_output(0, sequence_of(std::move(elements), input.dtype()));
  };
}

CpuKernel make_concat_from_sequence(const NodeInfo& info) {
  const int64_t axis = info.required_int("axis");
  const bool new_axis = info.attr_int("new_axis", 0) != 0;
  return [=](OpContext& ctx) {
    const auto& elements = sequence_input(ctx, 0).elements();
    const std::string where = ctx.node().describe();
    if (elements.empty()) ctx.fail("cannot concatenate an empty sequence");
    ctx.set_output(0, new_axis ? stack_slices(elements, axis, elements[0].dtype(), Shape{}, where)
                               : concat_tensors(elements, axis, where));
  };
}

// SequenceMap: runs the body once per position of the input sequences; tensor inputs are
// passed whole to every run. Each body output becomes a sequence.
CpuKernel make_sequence_map(const NodeInfo& info) {
  auto body = std::make_shared<Subgraph>(required_graph_attr(info, "body"), info);
  if (body->num_inputs() != info.num_inputs())
    info.fail("the body must take " + std::to_string(info.num_inputs()) + " inputs");
  if (body->num_outputs() != info.num_outputs())
    info.fail("the body must return " + std::to_string(info.num_outputs()) + " outputs");
  const size_t own_inputs = info.num_inputs();
  return [=](OpContext& ctx) {
    const size_t length = sequence_input(ctx, 0).elements().size();
    for (size_t i = 1; i < own_inputs; ++i) {
      const Tensor& in = ctx.input(i);
      if (in.kind() == ValueKind::Sequence && in.elements().size() != length)
        ctx.fail("input sequences have different lengths");
    }
    std::vector<std::vector<Tensor>> results(body->num_outputs());
    std::vector<Tensor> step(own_inputs);
    Subgraph::Run run(*body, enclosing_values(ctx, own_inputs));
    for (size_t position = 0; position < length; ++position) {
      for (size_t i = 0; i < own_inputs; ++i) {
        const Tensor& in = ctx.input(i);
        step[i] = in.kind() == ValueKind::Sequence ? in.elements()[position] : in;
      }
      std::vector<Tensor> outputs = run(step);
      for (size_t k = 0; k < outputs.size(); ++k) results[k].push_back(outputs[k].clone());
    }
    for (size_t k = 0; k < results.size(); ++k) {
      const DataType dtype =
          results[k].empty() ? body->graph().outputs[k].dtype : results[k].front().dtype();
      ctx.set_output(k, sequence_of(std::move(results[k]), dtype));
    }
  };
}

}  // namespace

KILN_CPU_OPS(sequence);
void register_sequence_ops(OpRegistry& registry) {
  registry.add("SequenceEmpty", make_sequence_empty);
  registry.add("SequenceConstruct", make_sequence_construct);
  registry.add("SequenceAt", make_sequence_at);
  registry.add("SequenceInsert", make_sequence_insert);
  registry.add("SequenceErase", make_sequence_erase);
  registry.add("SequenceLength", make_sequence_length);
  registry.add("SplitToSequence", make_split_to_sequence);
  registry.add("ConcatFromSequence", make_concat_from_sequence);
  registry.add("SequenceMap", make_sequence_map);
}

}  // namespace kiln
