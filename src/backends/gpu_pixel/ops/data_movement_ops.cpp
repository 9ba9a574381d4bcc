// Data movement as draws. Views (Reshape, Flatten, Squeeze, Unsqueeze, Identity, inference
// Dropout) copy nothing: the output shares the input's texture. Transpose, Slice, Expand,
// DepthToSpace and SpaceToDepth are one strided gather; Concat, Pad, Tile, Gather and
// ConstantOfShape have draws of their own. Shape and index inputs are host values. All of them
// copy values without arithmetic, so they take every dtype textures hold (texel_dtype.h) and
// write their data input's: an int64 tensor is copied as its words, the op's shapes with a
// trailing axis of 2 (word_region, word_shape).
#include <algorithm>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/concat.h"
#include "backends/gpu_pixel/fill.h"
#include "backends/gpu_pixel/gather.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/pad_tile.h"
#include "backends/gpu_pixel/region_copy.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "core/element_storage.h"
#include "opdefs/broadcast.h"
#include "opdefs/concat.h"
#include "opdefs/dropout.h"

namespace kiln::gpu_pixel {
namespace {

Shape int_list(const Tensor& t, const char* what) {
  Shape out;
  read_int_list(t, out, what);
  return out;
}

// Builds the region for this run; bad attributes or inputs go to the CPU kernel's messages.
// The output has the region's shape unless `reshape` gives the op's own (DepthToSpace walks a
// 6-D region of a 4-D output).
template <class F>
RecordFn region_op(F region_of, std::function<Shape(const Shape& in)> reshape = {}) {
  return [region_of, reshape](OpRecorder& r) {
    const Region region = region_of(r);
    const TextureTensor& in = r.texture(0);
    const DataType dtype = r.dtype(0);
    TextureTensor& out = r.output(0, reshape ? reshape(r.shape(0)) : Shape(region.shape), dtype);
    r.kernel<RegionCopy>().record(word_region(region, dtype), in, out);
  };
}

OpFactory view_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!texel_inputs(q, reason, 0, 1)) return nullptr;
    return record_view<OpRecorder>(q.info);
  };
}

// Registers `op` with data of a texture dtype in input 0 and CPU-resident inputs after it.
void add_with_host_inputs(OpTable& t, const char* op,
                          std::function<RecordFn(const NodeInfo&)> make) {
  t.add(op, [make](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!texel_inputs(q, reason, 0, 1) || !host_inputs(q, 1, reason)) return nullptr;
    return make(q.info);
  });
}

RecordFn slice(const NodeInfo& info) {
  if (info.opset() < 10) {
    const std::vector<int64_t> starts = info.required_ints("starts");
    const std::vector<int64_t> ends = info.required_ints("ends");
    const std::vector<int64_t> axes = info.attr_ints("axes");
    return region_op(
        [=](OpRecorder& r) { return slice_region(r.shape(0), starts, ends, axes, {}); });
  }
  return region_op([](OpRecorder& r) {
    const Shape axes = r.has_input(3) ? int_list(r.host(3), "Slice axes") : Shape{};
    const Shape steps = r.has_input(4) ? int_list(r.host(4), "Slice steps") : Shape{};
    return slice_region(r.shape(0), int_list(r.host(1), "Slice starts"),
                        int_list(r.host(2), "Slice ends"), axes, steps);
  });
}

RecordFn concat(int64_t axis) {
  return [axis](OpRecorder& r) {
    std::vector<Shape> shapes;
    std::vector<const TextureTensor*> ins;
    for (size_t k = 0; k < r.num_inputs(); ++k) shapes.push_back(r.shape(k));
    const Shape out_shape = concat_output_shape(shapes, axis, "Concat");
    const DataType dtype = r.dtype(0);
    for (size_t k = 0; k < r.num_inputs(); ++k) {
      if (r.dtype(k) != dtype) throw RunOnCpu(RunTimeCause::InputKind, "inputs of two dtypes");
      ins.push_back(&r.texture(k));
    }
    TextureTensor& y = r.output(0, out_shape, dtype);
    // The axis counted from the front, so that an int64's trailing word axis leaves it be.
    const int64_t a = non_negative_axis(axis, static_cast<int64_t>(out_shape.size()));
    for (Shape& shape : shapes) shape = word_shape(shape, dtype);
    r.kernel<Concat>().record(ins, shapes, a, y);
  };
}

Shape shape_of(const PadIndexing& ix) {
  return Shape(std::vector<int64_t>(ix.out_shape.begin(), ix.out_shape.begin() + ix.rank));
}

// Pad's and Tile's output shapes; bad pads or repeats go to the CPU kernel's messages.
Shape pad_shape(OpRecorder& r, std::span<const int64_t> pads, PadMode mode) {
  return or_run_on_cpu(RunTimeCause::ShapeOutsideKernel,
                       [&] { return shape_of(pad_indexing(r.shape(0), pads, mode)); });
}

// Pads (all begins, then all ends) for `dtype`'s words: an int64's trailing word axis pads
// nothing.
std::vector<int64_t> word_pads(std::span<const int64_t> pads, DataType dtype) {
  std::vector<int64_t> words(pads.begin(), pads.end());
  if (words_per_element(dtype) == 1) return words;
  words.insert(words.begin() + static_cast<std::ptrdiff_t>(pads.size() / 2), 0);
  words.push_back(0);
  return words;
}

// Pad's pads, constant value and axes: attributes before opset 11, inputs after.
RecordFn pad(const NodeInfo& info) {
  const PadMode mode = pad_mode_from_string(info.attr_string("mode", "constant"));
  if (info.opset() < 11) {
    const std::vector<int64_t> pads = info.attr_ints(info.opset() < 2 ? "paddings" : "pads");
    const float value = info.attr_float("value", 0.0f);
    return [=](OpRecorder& r) {
      // The float `value` attribute is for float data (Pad-2's T).
      if (in_integer_texture(r.dtype(0)))
        throw RunOnCpu(RunTimeCause::InputKind, "integer data with Pad's float value attribute");
      const Shape y_shape = pad_shape(r, pads, mode);
      const TextureTensor& x = r.texture(0);
      r.kernel<PadTile>().pad(x, r.shape(0), pads, mode, value,
                              r.output(0, y_shape, r.input(0).dtype()));
    };
  }
  return [mode](OpRecorder& r) {
    const Shape& x_shape = r.shape(0);
    const auto rank = static_cast<int64_t>(x_shape.size());
    const Shape given = int_list(r.host(1), "Pad pads");
    std::vector<int64_t> pads(given.begin(), given.end());
    if (r.has_input(3)) {  // pads for the listed axes only
      const Shape axes = int_list(r.host(3), "Pad axes");
      if (given.size() != 2 * axes.size())
        throw RunOnCpu(RunTimeCause::InputValues, "pads and axes differ in length");
      pads.assign(static_cast<size_t>(2 * rank), 0);
      for (size_t i = 0; i < axes.size(); ++i) {
        const int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
        if (a < 0 || a >= rank) throw RunOnCpu(RunTimeCause::InputValues, "Pad axis out of range");
        pads[static_cast<size_t>(a)] = given[i];
        pads[static_cast<size_t>(a + rank)] = given[i + axes.size()];
      }
    }
    ConstantValue value;
    const DataType dtype = r.dtype(0);
    if (r.has_input(2)) {
      const Tensor& v = r.host(2);
      if (v.dtype() != dtype || v.element_count() != 1)
        throw RunOnCpu(RunTimeCause::InputValues, "Pad's constant value is not one value");
      value = ConstantValue::of(v);  // exact: a value of the data's dtype
    }
    const Shape y_shape = pad_shape(r, pads, mode);
    const TextureTensor& x = r.texture(0);
    r.kernel<PadTile>().pad(x, word_shape(x_shape, dtype), word_pads(pads, dtype), mode, value,
                            r.output(0, y_shape, dtype));
  };
}

RecordFn tile() {
  return [](OpRecorder& r) {
    const Shape repeats = int_list(r.host(1), "Tile repeats");
    const Shape y_shape = or_run_on_cpu(
        RunTimeCause::InputValues, [&] { return shape_of(tile_indexing(r.shape(0), repeats)); });
    const TextureTensor& x = r.texture(0);
    const DataType dtype = r.dtype(0);
    Shape word_repeats = repeats;
    if (words_per_element(dtype) > 1) word_repeats.push_back(1);  // the word axis repeats once
    r.kernel<PadTile>().tile(x, word_shape(r.shape(0), dtype), word_repeats,
                             r.output(0, y_shape, dtype));
  };
}

RecordFn gather(int64_t axis) {
  return [axis](OpRecorder& r) {
    const Tensor& indices = r.host(1);
    if (!gather_supported(indices.element_count()))
      throw RunOnCpu(RunTimeCause::DeviceLimit, "too many indices");
    const std::vector<int64_t> values = to_int64_vector(indices, "Gather indices");
    Shape y_shape;
    try {
      y_shape = gather_shape(r.shape(0), indices.shape(), axis);
      const int64_t rank = static_cast<int64_t>(r.shape(0).size());
      const int64_t dim = r.shape(0)[static_cast<size_t>(axis < 0 ? axis + rank : axis)];
      for (int64_t i : values) {
        if (i < -dim || i >= dim) throw Error("index out of range");
      }
    } catch (const Error& e) {
      throw RunOnCpu(RunTimeCause::InputValues, e.what());  // the CPU kernel names the bad index
    }
    const TextureTensor& x = r.texture(0);
    const DataType dtype = r.dtype(0);
    // The axis counted from the front, so that an int64's trailing word axis leaves it be.
    const int64_t a = non_negative_axis(axis, static_cast<int64_t>(r.shape(0).size()));
    r.kernel<Gather>().record(x, word_shape(r.shape(0), dtype), values, indices.shape(), a,
                              r.output(0, y_shape, dtype));
  };
}

// ConstantOfShape with a value of a texture dtype (float32 0 by default); the shape is a host
// value.
RecordFn constant_of_shape(ConstantValue value, DataType dtype) {
  return [value, dtype](OpRecorder& r) {
    const Shape shape = int_list(r.host(0), "ConstantOfShape shape");
    for (int64_t d : shape)
      if (d < 0)
        throw RunOnCpu(RunTimeCause::InputValues,
                       "a negative dimension; the CPU kernel reports it");
    r.kernel<Fill>().record(value, r.output(0, shape, dtype));
  };
}

// Dropout where it drops nothing (inference: opdefs/dropout.h): the output is the input (a view),
// and the mask, when wanted, all true (a fill of bool 1). training_mode and ratio are read on the
// host: constants at load time, where training mode (a random draw) and bad values stay on the
// CPU; graph or computed inputs per run, where training mode runs on the CPU for that run. Before
// opset 10 the mask has the input's type, which stays on the CPU.
OpFactory dropout_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const bool mask = q.info.has_output(1);
    if (mask && q.info.opset() < 10) {
      reason = "Dropout's mask before opset 10 has the input's type";
      return nullptr;
    }
    const int opset = q.info.opset();
    const Tensor* training = q.info.has_input(2) ? q.info.constant_input(2) : nullptr;
    const bool ratio_known = !q.info.has_input(1) || q.info.constant_input(1);
    if (opset >= 12 && training && ratio_known) {
      std::vector<Tensor> inputs(3);
      inputs[2] = *training;
      if (q.info.has_input(1)) inputs[1] = *q.info.constant_input(1);
      try {
        if (resolve_dropout_mode(NodeInputs{q.info.node(), inputs}, opset).drop) {
          reason = "Dropout in training mode (a random draw) stays on the CPU";
          return nullptr;
        }
      } catch (const Error&) {
        reason = "training_mode or ratio values the CPU kernel reports";
        return nullptr;
      }
    }
    RecordFn output = view_factory()(q, reason);
    if (!output) return nullptr;
    return [output, mask, opset, node = NodeRef(q.info)](OpRecorder& r) {
      if (resolve_dropout_mode(NodeInputs{*node.node, r.rule_inputs({1, 2})}, opset).drop)
        throw RunOnCpu(RunTimeCause::InputValues,
                       "Dropout in training mode draws random numbers; the CPU kernel draws them");
      output(r);
      if (mask)
        r.kernel<Fill>().record(ConstantValue(1.0f), r.output(1, r.shape(0), DataType::Bool));
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(data_movement);
void register_data_movement_ops(OpTable& t) {
  for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"})
    t.add(op, view_factory());
  t.add("Dropout", dropout_factory());
  t.add("Transpose", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!texel_inputs(q, reason)) return nullptr;
    return region_op([perm = q.info.attr_ints("perm")](OpRecorder& r) {
      return transpose_region(r.shape(0), perm);
    });
  });
  add_with_host_inputs(t, "Slice", slice);
  add_with_host_inputs(t, "Expand", [](const NodeInfo&) {
    return region_op([](OpRecorder& r) {
      return expand_region(r.shape(0), int_list(r.host(1), "Expand shape"));
    });
  });
  t.add("Concat", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!texel_inputs(q, reason)) return nullptr;
    return concat(parse_concat_axis(q.info));
  });
  t.add("DepthToSpace", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!texel_inputs(q, reason)) return nullptr;
    const int64_t block = q.info.required_int("blocksize");
    const std::string mode = q.info.attr_string("mode", "DCR");
    return region_op([=](OpRecorder& r) { return depth_to_space_region(r.shape(0), block, mode); },
                     [block](const Shape& x) {
                       return Shape{x[0], x[1] / (block * block), x[2] * block, x[3] * block};
                     });
  });
  t.add("SpaceToDepth", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!texel_inputs(q, reason)) return nullptr;
    const int64_t block = q.info.required_int("blocksize");
    return region_op([=](OpRecorder& r) { return space_to_depth_region(r.shape(0), block); },
                     [block](const Shape& x) {
                       return Shape{x[0], x[1] * block * block, x[2] / block, x[3] / block};
                     });
  });
  // Pad's pads and axes decide the shape (host values); its one constant value is read through
  // OpRecorder::host too, downloaded when a draw made it.
  t.add("Pad", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!texel_inputs(q, reason, 0, 1) || !host_inputs(q, 1, reason, 1) ||
        !host_inputs(q, 3, reason))
      return nullptr;
    return pad(q.info);
  });
  add_with_host_inputs(t, "Tile", [](const NodeInfo&) { return tile(); });
  t.add("ConstantOfShape", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!host_inputs(q, 0, reason)) return nullptr;
    const std::optional<Tensor> value = q.info.attr_tensor("value");
    if (!value) return constant_of_shape(0.0f, DataType::Float32);
    const std::span<const DataType> held = texel_dtypes();
    if (value->element_count() != 1 ||
        std::find(held.begin(), held.end(), value->dtype()) == held.end()) {
      reason = "ConstantOfShape's value is not one value of a texture dtype";
      return nullptr;
    }
    return constant_of_shape(ConstantValue::of(*value), value->dtype());
  });
  add_with_host_inputs(t, "Gather",
                       [](const NodeInfo& info) { return gather(info.attr_int("axis", 0)); });
}

}  // namespace kiln::gpu_pixel
