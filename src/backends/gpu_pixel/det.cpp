// Det on the GPU-pixel backend: the determinants of float32 matrices of up to 8 x 8 (one per
// fragment element, held in the fragment's registers). Larger matrices and other dtypes stay on
// the CPU; the shape rule is the one definition's (opdefs/det.h).
//
// One draw: each output element eliminates its matrix by Gaussian elimination with partial
// pivoting, step for step as the CPU kernel (ops/linear_algebra.cpp) does in double, here with
// every value to about twice float's precision (wide_float.h), and rounds the determinant once.
//
// The family in one file: the kernel and, at the end, the adapter that places ONNX nodes on it.
#include <string>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/wide_float.h"
#include "opdefs/det.h"

namespace kiln::gpu_pixel {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr int64_t kMaxOrder = 8;

constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform int u_n;

// a * b, both wide.
Wide wide_times(Wide a, Wide b) {
  Wide p = wide_mul(a.hi, b.hi);
  return Wide(p.hi, p.lo + a.hi * b.lo + a.lo * b.hi);
}

// a / b: float's quotient, then the quotient of what it leaves.
Wide wide_divide(Wide a, Wide b) {
  float q1 = a.hi / b.hi;
  Wide rest = wide_add(a, wide_times(Wide(q1, 0.0), b), true);
  return wide_add(Wide(q1, 0.0), Wide(wide_value(rest) / b.hi, 0.0), false);
}

float element(int e) {
  Wide a[64];
  int n = u_n;
  int base = e * n * n;
  for (int i = 0; i < n * n; ++i) a[i] = Wide(fetch_element(x, x_width, base + i), 0.0);
  Wide det = Wide(1.0, 0.0);
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int r = col + 1; r < n; ++r) {
      if (abs(a[r * n + col].hi) > abs(a[pivot * n + col].hi)) pivot = r;
    }
    // Singular (NaN pivots carry on and give NaN).
    if (a[pivot * n + col].hi == 0.0) return 0.0;
    if (pivot != col) {
      for (int c = 0; c < n; ++c) {
        Wide t = a[pivot * n + c];
        a[pivot * n + c] = a[col * n + c];
        a[col * n + c] = t;
      }
      det = Wide(-det.hi, -det.lo);
    }
    Wide p = a[col * n + col];
    det = wide_times(det, p);
    for (int r = col + 1; r < n; ++r) {
      Wide factor = wide_divide(a[r * n + col], p);
      if (factor.hi == 0.0) continue;
      for (int c = col + 1; c < n; ++c) {
        a[r * n + c] = wide_add(a[r * n + c], wide_times(factor, a[col * n + c]), true);
      }
    }
  }
  // An overflow leaves no error term to add.
  return isinf(det.hi) ? det.hi : wide_value(det);
}
)";

class Det {
 public:
  explicit Det(Context& context) : context_(context) {}

  // y[m] = det of the m-th n x n matrix of x.
  void record(int64_t n, const TextureTensor& x, TextureTensor& y) const {
    const std::string where = "Det on OpenGL ES";
    expect_element_count(x, y.element_count() * n * n, where, "X");
    if (y.element_count() == 0) return;
    const Program& program = context_.programs().get(
        "det", "", "", std::string(kWideFloatGlsl) + kShader + kElementMain);
    const DrawInput inputs[] = {{"x", &x}};
    draw(
        context_, program, y, inputs,
        [&] {
          set_wide_float_uniforms(program);
          program.set("u_n", static_cast<int>(n));
        },
        // Per element: the load, then per column the pivot search, the swap and the updates.
        4 * (n * n + n * (2 * n + n * n)));
  }

 private:
  Context& context_;
};

// ---- The adapter -----------------------------------------------------------------------------

// Why the kernel does not take matrices of order `n` in X of `shape`, or empty when it does.
std::string beyond_kernel(int64_t n, const Shape& shape) {
  if (n > kMaxOrder) return "matrices larger than 8 x 8";
  if (shape.element_count() > kIndexLimit) return "the tensor exceeds 32-bit indexing";
  return {};
}

RecordFn det(const NodeInfo& info) {
  return [node = &info.node()](OpRecorder& r) {
    const Shape& shape = r.shape(0);
    const int64_t n = resolve_det_order(*node, shape);
    const std::string why = beyond_kernel(n, shape);
    if (!why.empty()) throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, why);
    const Shape out = det_output_shape(shape);
    // The determinant of a 0 x 0 matrix is 1 (the empty product): the CPU writes those.
    if (n == 0 && out.element_count() > 0)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "0 x 0 matrices");
    TextureTensor& y = r.output(0, out);
    if (out.element_count() == 0) return;
    r.kernel<Det>().record(n, r.texture(0), y);
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(det);
void register_det_ops(OpTable& t) {
  t.add("Det", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_inputs(q, reason)) return nullptr;
    // A shape that is not [*, M, M] is placed: the run reports it, naming the node.
    if (const Shape* x = static_input_shape(q, 0); x && !x->empty()) {
      reason = beyond_kernel(x->back(), *x);
      if (!reason.empty()) return nullptr;
    }
    return det(q.info);
  });
}

}  // namespace kiln::gpu_pixel
