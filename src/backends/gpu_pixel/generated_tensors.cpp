// Tensors made from a few host parameters, one draw each: EyeLike (its input gives the shape
// only), the cosine windows HannWindow, HammingWindow and BlackmanWindow and Range (their
// parameters are host values; float16 and bfloat16 ranges are rounded by a Convert draw, as the
// CPU rounds its float32 values), OneHot (host indices, whose wrapped values travel as uniforms)
// and Constant (its value uploaded). Inputs the ops reject run on the CPU, whose kernels report
// them.
#include <algorithm>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_common/shader_sources.h"
#include "backends/gpu_pixel/convert.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/host_indices.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "core/tensor_impl.h"
#include "opdefs/broadcast.h"
#include "opdefs/constant.h"
#include "opdefs/cosine_window.h"
#include "opdefs/eye_like.h"
#include "opdefs/range.h"

namespace kiln::gpu_pixel {
namespace {

// ---- The kernels ---------------------------------------------------------------------------

constexpr const char* kDiagonalShader = R"(
uniform int u_cols;
uniform int u_k;  // the diagonal of ones: column - row == u_k

float element(int e) { return (e % u_cols) - (e / u_cols) == u_k ? 1.0 : 0.0; }
)";

// The phases are reduced exactly in integers and the cosines come from shader_math (the
// built-in cos is specified to 2^-11 only), as in the Vulkan kernel.
constexpr const char* kCosineWindowShader = R"(
uniform int u_n;  // N: size when periodic, size - 1 when symmetric (0: every element is 1)
uniform float u_a0;
uniform float u_a1;
uniform float u_a2;

// cos(2 pi m / N) for 0 <= m < N, by the nearer half of the period so the phase stays within pi.
float cos_fraction(int m) {
  int folded = min(m, u_n - m);
  return sin_cos(6.28318531 * (float(folded) / float(u_n)), true);
}

float element(int i) {
  if (u_n == 0) return 1.0;
  int m = i % u_n;
  int twice = m >= u_n - m ? m - (u_n - m) : 2 * m;  // 2m mod N
  return u_a0 - u_a1 * cos_fraction(m) + u_a2 * cos_fraction(twice);
}
)";

constexpr const char* kRangeShader = R"(
uniform float u_start;
uniform float u_delta;

float element(int i) { return u_start + float(i) * u_delta; }
)";

// Output viewed as [outer, depth, inner]; each [outer, inner] position's index wrapped into
// [0, depth), or -1 for a row that stays off: from u_index (integer indices, wrapped on the
// host), or under FLOAT_INDICES from the indices' texture, truncated and wrapped here as the
// CPU's cast to int64 does (the host keeps depth within 2^24, where the float sum is exact).
// values holds [off, on].
constexpr const char* kOneHotShader = R"(
uniform highp sampler2D values;
uniform int values_width;
uniform int u_depth;
uniform int u_inner;

#ifdef FLOAT_INDICES
uniform highp sampler2D indices;
uniform int indices_width;

int wrapped_index(int p) {
  float v = fetch_element(indices, indices_width, p);
  // NaN, and values whose int64 lands outside [-depth, depth) for every depth, match no row.
  if (isnan(v) || abs(v) >= 2147483648.0) return -1;
  float k = trunc(v);
  if (k < 0.0) k += float(u_depth);
  return k >= 0.0 && k < float(u_depth) ? int(k) : -1;
}
#else
int wrapped_index(int p) { return index_at(p); }
#endif

float element(int e) {
  int inner = e % u_inner;
  int t = e / u_inner;
  int d = t % u_depth;
  int outer = t / u_depth;
  return fetch_element(values, values_width, wrapped_index(outer * u_inner + inner) == d ? 1 : 0);
}
)";

class GeneratedTensors {
 public:
  explicit GeneratedTensors(Context& context) : context_(context) {}

  void diagonal(int64_t cols, int64_t k, TextureTensor& y) const {
    if (y.element_count() == 0) return;
    const Program& program =
        context_.programs().get("eye_like", "", "", std::string(kDiagonalShader) + kElementMain);
    // A diagonal outside the matrix matches no element; clamping keeps it in int range.
    const int64_t rows = y.element_count() / cols;
    const auto clamped = static_cast<int>(std::clamp<int64_t>(k, -rows - 1, cols + 1));
    draw(context_, program, y, {}, [&] {
      program.set("u_cols", static_cast<int>(cols));
      program.set("u_k", clamped);
    });
  }

  void cosine_window(const CosineWindow& c, int64_t n, TextureTensor& y) const {
    if (y.element_count() == 0) return;
    const Program& program = context_.programs().get(
        "cosine_window", "", "",
        std::string(shader_math_glsl()) + kCosineWindowShader + kElementMain);
    draw(context_, program, y, {}, [&] {
      program.set("u_n", static_cast<int>(n));
      program.set("u_a0", static_cast<float>(c.a0));
      program.set("u_a1", static_cast<float>(c.a1));
      program.set("u_a2", static_cast<float>(c.a2));
    });
  }

  void range(float start, float delta, TextureTensor& y) const {
    if (y.element_count() == 0) return;
    const Program& program =
        context_.programs().get("range", "", "", std::string(kRangeShader) + kElementMain);
    draw(context_, program, y, {}, [&] {
      program.set("u_start", start);
      program.set("u_delta", delta);
    });
  }

  // `float_indices` null: the wrapped indices in `wrapped`.
  void one_hot(const TextureTensor& values, const TextureTensor* float_indices,
               std::span<const int> wrapped, int64_t depth, int64_t inner, TextureTensor& y) const {
    if (y.element_count() == 0) return;
    ProgramVariant variant;
    variant.add(float_indices != nullptr, "FLOAT_INDICES");
    const Program& program =
        context_.programs().get("one_hot", variant.name, variant.defines,
                                std::string(kIndexUniformsGlsl) + kOneHotShader + kElementMain);
    std::vector<DrawInput> inputs = {{"values", &values}};
    if (float_indices) inputs.push_back({"indices", float_indices});
    draw(context_, program, y, inputs, [&] {
      program.set("u_depth", static_cast<int>(depth));
      program.set("u_inner", static_cast<int>(inner));
      if (!float_indices) set_index_uniforms(context_, program, wrapped);
    });
  }

 private:
  Context& context_;
};

// ---- The adapters --------------------------------------------------------------------------

bool is_texel_dtype(DataType t) {
  const std::span<const DataType> held = texel_dtypes();
  return std::find(held.begin(), held.end(), t) != held.end();
}

bool is_float_texel_dtype(DataType t) { return is_texel_dtype(t) && !in_integer_texture(t); }

[[noreturn]] void rejected_inputs() {
  throw RunOnCpu(RunTimeCause::InputValues, "inputs the op rejects; the CPU reports them");
}

// The elements of a host tensor of an integer or texture dtype, as doubles.
std::vector<double> host_values(const Tensor& t) {
  std::vector<double> out;
  if (t.dtype() == DataType::Int32 || t.dtype() == DataType::Int64) {
    for (int64_t v : to_int64_vector(t, "values")) out.push_back(static_cast<double>(v));
  } else if (is_texel_dtype(t.dtype())) {
    for (float v : to_texel_values(t)) out.push_back(v);
  } else {
    throw RunOnCpu(RunTimeCause::InputKind, "a dtype the draw does not read");
  }
  return out;
}

OpFactory eye_like_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const EyeLikeAttrs attrs = parse_eye_like_attrs(q.info);
    const DataType known =
        attrs.dtype.value_or(q.input_types.empty() ? DataType::Undefined : q.input_types[0]);
    // The diagonal draw writes floats: integer-texture dtypes stay on the CPU.
    if (known != DataType::Undefined && !is_float_texel_dtype(known)) {
      reason = std::string(dtype_name(known)) + " outputs of EyeLike stay on the CPU";
      return nullptr;
    }
    return [attrs](OpRecorder& r) {
      const Shape& x = r.shape(0);  // the input's elements are never read
      const DataType dtype = attrs.dtype.value_or(r.input(0).dtype());
      if (x.size() != 2)
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                       "an input that is not 2-D; the CPU kernel reports it");
      if (!is_float_texel_dtype(dtype))
        throw RunOnCpu(RunTimeCause::InputKind, "an output dtype the diagonal draw lacks");
      r.kernel<GeneratedTensors>().diagonal(x[1], attrs.k, r.output(0, x, dtype));
    };
  };
}

OpFactory cosine_window_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const CosineWindowAttrs attrs = parse_cosine_window_attrs(q.info);
    if (attrs.out_type != DataType::Float32) {
      reason = std::string(dtype_name(attrs.out_type)) + " windows stay on the CPU";
      return nullptr;
    }
    if (!host_inputs(q, 0, reason)) return nullptr;
    return [attrs](OpRecorder& r) {
      const std::vector<int64_t> size = to_int64_vector(r.input(0), "size");
      if (size.size() != 1 || size[0] < 0 || size[0] > INT32_MAX) rejected_inputs();
      const int64_t n = attrs.periodic ? size[0] : std::max<int64_t>(size[0] - 1, 0);
      r.kernel<GeneratedTensors>().cosine_window(attrs.coefficients, n,
                                                 r.output(0, Shape{size[0]}, DataType::Float32));
    };
  };
}

bool is_float_range_dtype(DataType t) {
  return t == DataType::Float32 || t == DataType::Float16 || t == DataType::BFloat16;
}

// float32 Range drawn directly; float16 and bfloat16 drawn in float32 (as the CPU computes
// them) and rounded by a Convert draw.
OpFactory range_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const DataType t = q.input_types.empty() ? DataType::Undefined : q.input_types[0];
    if (t != DataType::Undefined && !is_float_range_dtype(t)) {
      reason = std::string(dtype_name(t)) +
               " outputs stay on the CPU (textures hold only the dtypes exact in float32)";
      return nullptr;
    }
    if (!host_inputs(q, 0, reason)) return nullptr;
    const NodeRef node(q.info);
    return [node](OpRecorder& r) {
      const DataType dtype = r.input(0).dtype();
      if (!is_float_range_dtype(dtype))
        throw RunOnCpu(RunTimeCause::InputKind, "a Range of a dtype the draw lacks");
      // The definition checks the inputs and gives the length; bad ones get its kiln::Error.
      const int64_t length = resolve_range_length(*node.node, r.input(0), r.input(1), r.input(2));
      if (length > INT32_MAX)
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "a Range longer than the draws index");
      const auto start = static_cast<float>(to_texel_values(r.input(0))[0]);
      const auto delta = static_cast<float>(to_texel_values(r.input(2))[0]);
      GeneratedTensors& kernel = r.kernel<GeneratedTensors>();
      if (dtype == DataType::Float32) {
        kernel.range(start, delta, r.output(0, Shape{length}, dtype));
        return;
      }
      TextureTensor wide = r.temporary(length);
      kernel.range(start, delta, wide);
      if (length > 0)
        r.kernel<Convert>().record(*convert_to(dtype), wide, r.output(0, Shape{length}, dtype));
      else
        r.output(0, Shape{0}, dtype);
    };
  };
}

bool is_index_dtype(DataType t) { return t == DataType::Int32 || t == DataType::Int64; }
bool is_float_index_dtype(DataType t) {
  return t == DataType::Float32 || t == DataType::Float16 || t == DataType::BFloat16;
}

// OneHot with a host depth and values [off, on] of a texture dtype. Integer indices are host
// values, wrapped on the host (negative ones counted from the end, out-of-range ones leaving
// their row off) and carried as uniforms; float indices are read from their texture and
// truncated in the shader (NaN leaves its row off).
OpFactory one_hot_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const DataType index_type = q.input_types.empty() ? DataType::Undefined : q.input_types[0];
    if (!texel_inputs(q, reason, 2, 1) || !index_input_on_host(q, 1, reason)) return nullptr;
    if (index_type != DataType::Undefined && !is_index_dtype(index_type) &&
        !is_float_index_dtype(index_type)) {
      reason = "indices of " + std::string(dtype_name(index_type)) + " stay on the CPU";
      return nullptr;
    }
    const int64_t axis_attr = q.info.attr_int("axis", -1);
    if (const Shape* indices = static_input_shape(q, 0);
        indices && is_index_dtype(index_type) &&
        !index_uniforms_fit(static_cast<size_t>(indices->element_count()))) {
      reason = "more indices than " + std::to_string(kIndexUniforms) +
               " (the index uniforms hold that many)";
      return nullptr;
    }
    return [axis_attr](OpRecorder& r) {
      const std::vector<double> depth_value = host_values(r.input(1));
      if (depth_value.size() != 1 || !(depth_value[0] >= 1) || depth_value[0] > INT32_MAX)
        rejected_inputs();
      const auto depth = static_cast<int64_t>(depth_value[0]);
      const Tensor& values = r.input(2);
      if (values.element_count() != 2 || values.shape().size() > 1) rejected_inputs();
      const Shape& in_shape = r.shape(0);
      const auto out_rank = static_cast<int64_t>(in_shape.size()) + 1;
      if (axis_attr < -out_rank || axis_attr >= out_rank) rejected_inputs();
      const int64_t axis = axis_attr < 0 ? axis_attr + out_rank : axis_attr;
      Shape out_shape = in_shape;
      out_shape.insert(static_cast<size_t>(axis), depth);
      if (out_shape.element_count() > INT32_MAX)
        throw RunOnCpu(RunTimeCause::DeviceLimit, "an output beyond 32-bit indexing");
      int64_t inner = 1;
      for (size_t d = static_cast<size_t>(axis); d < in_shape.size(); ++d) inner *= in_shape[d];
      const TextureTensor& vals = r.texture(2);
      TextureTensor& y = r.output(0, out_shape, values.dtype());
      if (!is_index_dtype(r.input(0).dtype())) {
        if (!is_float_index_dtype(r.input(0).dtype()))
          throw RunOnCpu(RunTimeCause::InputKind, "indices of a dtype the draw does not read");
        if (depth > (int64_t{1} << 24))
          throw RunOnCpu(RunTimeCause::DeviceLimit, "a depth beyond exact float sums");
        const TextureTensor* indices = in_shape.element_count() > 0 ? &r.texture(0) : nullptr;
        if (indices) r.kernel<GeneratedTensors>().one_hot(vals, indices, {}, depth, inner, y);
        return;
      }
      if (!index_uniforms_fit(static_cast<size_t>(in_shape.element_count())))
        throw RunOnCpu(RunTimeCause::DeviceLimit, "more indices than the index uniforms hold");
      std::vector<int> wrapped;
      for (int64_t k : host_index_values(r.host(0))) {
        if (k < 0) k += depth;
        wrapped.push_back(k >= 0 && k < depth ? static_cast<int>(k) : -1);
      }
      r.kernel<GeneratedTensors>().one_hot(vals, nullptr, wrapped, depth, inner, y);
    };
  };
}

// Constant with a value of a texture dtype: uploaded into the output on each run.
OpFactory constant_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const Tensor value = parse_constant_value(q.info);
    if (!is_texel_dtype(value.dtype())) {
      reason = std::string(dtype_name(value.dtype())) +
               " outputs stay on the CPU (textures hold only the dtypes exact in float32)";
      return nullptr;
    }
    return [value](OpRecorder& r) { r.uploaded_output(0, value); };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(generated_tensors);
void register_generated_tensors_ops(OpTable& t) {
  t.add("EyeLike", eye_like_factory());
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"})
    t.add(op, cosine_window_factory());
  t.add("Range", range_factory());
  t.add("OneHot", one_hot_factory());
  t.add("Constant", constant_factory());
}

}  // namespace kiln::gpu_pixel
