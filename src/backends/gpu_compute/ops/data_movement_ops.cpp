// Data movement on the GPU. Views (Reshape, Flatten, Squeeze, Unsqueeze, Identity, inference
// Dropout, whose mask is a fill) copy nothing: the output shares the input's device buffer.
// Transpose, Slice, Concat, Expand, Tile, DepthToSpace and SpaceToDepth are strided region copies
// (shaders/region_copy.comp) for 16-, 32- and 64-bit elements. ConstantOfShape is a fill
// (shaders/fill.comp). Shape and Size read no element: their outputs are host values known when
// recording, which the CPU nodes reading them (shape arithmetic) take without a transfer.
#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/fill.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/region_copy.h"
#include "core/element_storage.h"
#include "opdefs/concat.h"
#include "opdefs/shape_slice.h"

namespace kiln::gpu_compute {
namespace {

const std::initializer_list<DataType> kMovable = {
    DataType::Float32, DataType::Int32, DataType::Int64, DataType::Float16, DataType::BFloat16};

// A view never reads its elements, so it takes every fixed-size element type: device buffers
// hold a tensor's bytes as the host does.
const std::initializer_list<DataType> kViewable = {
    DataType::Float32, DataType::Int32,  DataType::Int64, DataType::Float16, DataType::BFloat16,
    DataType::Float64, DataType::Bool,   DataType::Int8,  DataType::UInt8,   DataType::Int16,
    DataType::UInt16,  DataType::UInt32, DataType::UInt64};

// Views reuse the CPU kernel for their shape rules (Reshape's 0 and -1, Squeeze's axes...).
OpFactory view_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, kViewable, reason, 0, 1)) return nullptr;
    return record_view<OpRecorder>(q.info);
  };
}

// Shape and Size: any input type, even one without device buffers (their elements are never
// read).
OpFactory shape_factory() {
  return [](const DevicePlacementQuery& q, std::string&) -> RecordFn {
    return [attrs = parse_shape_slice_attrs(q.info)](OpRecorder& r) {
      const Shape& in = r.shape(0);
      const ShapeSlice slice = resolve_shape_slice(attrs, static_cast<int64_t>(in.size()));
      const std::vector<int64_t> dims(in.begin() + slice.begin, in.begin() + slice.end);
      r.host_output(0, Tensor::from_data(Shape{slice.end - slice.begin}, dims));
    };
  };
}

OpFactory size_factory() {
  return [](const DevicePlacementQuery&, std::string&) -> RecordFn {
    return [](OpRecorder& r) {
      r.host_output(0, Tensor::scalar<int64_t>(r.shape(0).element_count()));
    };
  };
}

// Dropout at inference: the output is the input (a view), and the mask, when wanted, all true
// (a fill). Before opset 10 the mask has the input's type; that stays on the CPU.
OpFactory dropout_factory() {
  OpFactory view = view_factory();
  return [view](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const bool mask = q.info.has_output(1);
    if (mask && q.info.opset() < 10) {
      reason = "Dropout's mask before opset 10 has the input's type";
      return nullptr;
    }
    if (q.info.opset() >= 12 && q.info.has_input(2)) {
      const Tensor* training = q.info.constant_input(2);
      if (!training || training->dtype() != DataType::Bool || training->data<bool>()[0]) {
        reason = "Dropout in training mode has no GPU kernel";
        return nullptr;
      }
    }
    RecordFn output = view(q, reason);
    if (!output || !mask) return output;
    return [output](OpRecorder& r) {
      output(r);
      const Buffer& all_true = r.output(1, DataType::Bool, r.shape(0));
      r.kernel<Fill>().record(r.cmd(), r.arena(), Tensor::scalar<bool>(true), all_true,
                              static_cast<uint64_t>(r.shape(0).element_count()));
    };
  };
}

Shape int_list(const Tensor& t, const char* what) {
  Shape out;
  read_int_list(t, out, what);
  return out;
}

RecordFn transpose(std::vector<int64_t> perm) {
  return [perm](OpRecorder& r) {
    const Region region = transpose_region(r.shape(0), perm);
    const Buffer& in = r.buffer(0);
    const Buffer& out = r.output(0, r.dtype(0), Shape(region.shape));
    r.kernel<RegionCopy>().record(r.cmd(), r.arena(), region, r.dtype(0), in, out);
  };
}

// Slice: starts/ends/axes/steps are attributes before opset 10 and CPU-resident inputs after.
RecordFn slice(const NodeInfo& info) {
  if (info.opset() < 10) {
    const std::vector<int64_t> starts = info.required_ints("starts");
    const std::vector<int64_t> ends = info.required_ints("ends");
    const std::vector<int64_t> axes = info.attr_ints("axes");
    return [=](OpRecorder& r) {
      const Region region = slice_region(r.shape(0), starts, ends, axes, {});
      const Buffer& in = r.buffer(0);
      const Buffer& out = r.output(0, r.dtype(0), Shape(region.shape));
      r.kernel<RegionCopy>().record(r.cmd(), r.arena(), region, r.dtype(0), in, out);
    };
  }
  return [](OpRecorder& r) {
    const Shape starts = int_list(r.input(1), "Slice starts");
    const Shape ends = int_list(r.input(2), "Slice ends");
    const Shape axes = r.has_input(3) ? int_list(r.input(3), "Slice axes") : Shape{};
    const Shape steps = r.has_input(4) ? int_list(r.input(4), "Slice steps") : Shape{};
    const Region region = slice_region(r.shape(0), starts, ends, axes, steps);
    const Buffer& in = r.buffer(0);
    const Buffer& out = r.output(0, r.dtype(0), Shape(region.shape));
    r.kernel<RegionCopy>().record(r.cmd(), r.arena(), region, r.dtype(0), in, out);
  };
}

RecordFn concat(int64_t axis) {
  return [axis](OpRecorder& r) {
    std::vector<Shape> shapes;
    std::vector<const Buffer*> ins;
    for (size_t k = 0; k < r.num_inputs(); ++k) {
      shapes.push_back(r.shape(k));
      ins.push_back(&r.buffer(k));
    }
    const Shape out_shape = concat_output_shape(shapes, axis, "Concat");
    const int64_t rank = static_cast<int64_t>(out_shape.size());
    const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    const Buffer& out = r.output(0, r.dtype(0), out_shape);
    r.kernel<RegionCopy>().concat(r.cmd(), r.arena(), r.dtype(0), ins, shapes,
                                  static_cast<int64_t>(a), out);
  };
}

RecordFn expand() {
  return [](OpRecorder& r) {
    const Shape target = int_list(r.input(1), "Expand shape");
    const Region region = expand_region(r.shape(0), target);
    const Buffer& in = r.buffer(0);
    const Buffer& out = r.output(0, r.dtype(0), Shape(region.shape));
    r.kernel<RegionCopy>().record(r.cmd(), r.arena(), region, r.dtype(0), in, out);
  };
}

// Tile: repeats a CPU-resident input, in one copy or (past the shader's dimensions) a few. Bad
// repeats, and tilings that would need more than kRegionMaxPieces copies, run on the CPU.
RecordFn tile() {
  return [](OpRecorder& r) {
    const Shape repeats = int_list(r.input(1), "Tile repeats");
    const Shape& in = r.shape(0);
    if (repeats.size() != in.size())
      throw RunOnCpu(RunTimeCause::InputValues, "repeats of the wrong length");
    Shape out_shape;
    for (size_t d = 0; d < in.size(); ++d) {
      if (repeats[d] < 0) throw RunOnCpu(RunTimeCause::InputValues, "a negative repeat");
      out_shape.push_back(in[d] * repeats[d]);
    }
    const Region region = tile_region(in, repeats);
    or_run_on_cpu(RunTimeCause::ShapeOutsideKernel, [&] { return regions_within_rank(region); });
    const Buffer& src = r.buffer(0);
    const Buffer& out = r.output(0, r.dtype(0), out_shape);
    r.kernel<RegionCopy>().record(r.cmd(), r.arena(), region, r.dtype(0), src, out);
  };
}

// ConstantOfShape: the shape is CPU-resident, the value an attribute (float32 0 by default).
RecordFn constant_of_shape(Tensor value) {
  return [value](OpRecorder& r) {
    const Shape shape = int_list(r.input(0), "ConstantOfShape shape");
    for (int64_t d : shape)
      if (d < 0)
        throw RunOnCpu(RunTimeCause::InputValues,
                       "a negative dimension; the CPU kernel reports it");
    const Buffer& out = r.output(0, value.dtype(), shape);
    r.kernel<Fill>().record(r.cmd(), r.arena(), value, out,
                            static_cast<uint64_t>(shape.element_count()));
  };
}

// DepthToSpace / SpaceToDepth: a transpose of the input seen as 6-D. Inputs the CPU kernel
// rejects (not 4-D, sizes not divisible by the block) go to it for its message.
RecordFn block_rearrangement(int64_t block, bool to_space, bool crd) {
  return [=](OpRecorder& r) {
    const Shape& in = r.shape(0);
    const bool valid =
        in.size() == 4 && block > 0 && block <= (int64_t{1} << 20) &&
        (to_space ? in[1] % (block * block) == 0 : in[2] % block == 0 && in[3] % block == 0);
    if (!valid) throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "input the CPU kernel rejects");
    const Region region =
        to_space ? depth_to_space_region(in, block, crd) : space_to_depth_region(in, block);
    const Shape out_shape =
        to_space ? Shape{in[0], in[1] / (block * block), in[2] * block, in[3] * block}
                 : Shape{in[0], in[1] * block * block, in[2] / block, in[3] / block};
    const Buffer& src = r.buffer(0);
    const Buffer& out = r.output(0, r.dtype(0), out_shape);
    r.kernel<RegionCopy>().record(r.cmd(), r.arena(), region, r.dtype(0), src, out);
  };
}

// The inputs after the data must be CPU-resident (the analysis puts shape inputs there).
bool index_inputs_on_cpu(const DevicePlacementQuery& q, size_t first, std::string& reason) {
  for (size_t k = first; k < q.input_on_cpu.size(); ++k) {
    if (q.info.has_input(k) && !q.input_on_cpu[k]) {
      reason = "input " + std::to_string(k) + " is not on the CPU";
      return false;
    }
  }
  return true;
}

}  // namespace

KILN_GPU_COMPUTE_OPS(data_movement);
void register_data_movement_ops(OpTable& t) {
  for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"})
    t.add(op, view_factory());
  t.add("Dropout", dropout_factory());
  t.add("Shape", shape_factory());
  t.add("Size", size_factory());
  t.add("Transpose", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, kMovable, reason)) return nullptr;
    return transpose(q.info.attr_ints("perm"));
  });
  t.add("Slice", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, kMovable, reason, 0, 1) || !index_inputs_on_cpu(q, 1, reason))
      return nullptr;
    return slice(q.info);
  });
  t.add("Concat", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, kMovable, reason)) return nullptr;
    return concat(parse_concat_axis(q.info));
  });
  t.add("ConstantOfShape", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!index_inputs_on_cpu(q, 0, reason)) return nullptr;
    Tensor value = Tensor::scalar<float>(0.0f);
    if (q.info.has_attr("value")) value = *q.info.attr_tensor("value");
    if (!fillable(value.dtype()) || value.element_count() != 1) {
      reason = "no GPU fill for this value";
      return nullptr;
    }
    return constant_of_shape(value);
  });
  t.add("Tile", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, kMovable, reason, 0, 1) || !index_inputs_on_cpu(q, 1, reason))
      return nullptr;
    return tile();
  });
  t.add("DepthToSpace", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, kMovable, reason)) return nullptr;
    const std::string mode = q.info.attr_string("mode", "DCR");
    if (mode != "DCR" && mode != "CRD") {
      reason = "DepthToSpace mode " + mode;
      return nullptr;
    }
    return block_rearrangement(q.info.required_int("blocksize"), true, mode == "CRD");
  });
  t.add("SpaceToDepth", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, kMovable, reason)) return nullptr;
    return block_rearrangement(q.info.required_int("blocksize"), false, false);
  });
  t.add("Expand", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, kMovable, reason, 0, 1) || !index_inputs_on_cpu(q, 1, reason))
      return nullptr;
    return expand();
  });
}

}  // namespace kiln::gpu_compute
