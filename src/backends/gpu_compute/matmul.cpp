#include "backends/gpu_compute/matmul.h"

#include <algorithm>
#include <span>
#include <string>

#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {

constexpr uint32_t kWorkgroupSize = 64;    // a multiple of 8: see matmul.comp
constexpr int64_t kTileM = 8, kTileN = 8;  // as TM, TN in matmul.comp

int64_t element_count(const Shape& s) {
  int64_t n = 1;
  for (size_t d = 0; d < s.size(); ++d) n *= s[d];
  return n;
}

// Row-major strides of the leading `count` dimensions of `shape`, aligned to the right of
// `rank` output batch dimensions, 0 where the dimension is missing or 1 (broadcast).
std::vector<int64_t> batch_strides(const Shape& shape, size_t count, size_t rank) {
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t d = count; d < shape.size(); ++d) stride *= shape[d];
  for (size_t i = 0; i < count; ++i) {
    const size_t d = count - 1 - i;
    if (shape[d] != 1) strides[rank - 1 - i] = stride;
    stride *= shape[d];
  }
  return strides;
}

uint32_t narrow(int64_t v, const char* what) {
  check(v >= 0 && v <= int64_t{UINT32_MAX}, std::string("matmul on the GPU: ") + what + " " +
                                                std::to_string(v) + " exceeds 32-bit indexing");
  return static_cast<uint32_t>(v);
}

}  // namespace

MatMulProblem matmul_problem(const Shape& a, const Shape& b) {
  check(a.size() >= 1 && b.size() >= 1,
        "MatMul: operands must have rank >= 1, got " + a.to_string() + " and " + b.to_string());
  const bool a_vector = a.size() == 1, b_vector = b.size() == 1;
  MatMulProblem p;
  p.m = a_vector ? 1 : a[a.size() - 2];
  p.k = a[a.size() - 1];
  const int64_t kb = b_vector ? b[0] : b[b.size() - 2];
  p.n = b_vector ? 1 : b[b.size() - 1];
  check(p.k == kb,
        "MatMul: inner dimensions of " + a.to_string() + " and " + b.to_string() + " differ");
  const size_t a_batch = a_vector ? 0 : a.size() - 2;
  const size_t b_batch = b_vector ? 0 : b.size() - 2;
  const size_t rank = std::max(a_batch, b_batch);
  std::vector<int64_t> batch(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < a_batch ? a[a_batch - 1 - i] : 1;
    const int64_t db = i < b_batch ? b[b_batch - 1 - i] : 1;
    check(da == db || da == 1 || db == 1, "MatMul: batch dimensions of " + a.to_string() + " and " +
                                              b.to_string() + " do not broadcast");
    batch[rank - 1 - i] = da == 1 ? db : da;
  }
  p.batch = Shape(batch);
  p.a_batch_strides = batch_strides(a, a_batch, rank);
  p.b_batch_strides = batch_strides(b, b_batch, rank);
  p.a_row_stride = p.k;
  p.a_col_stride = 1;
  p.b_row_stride = p.n;
  p.b_col_stride = 1;
  std::vector<int64_t> out = batch;
  if (!a_vector) out.push_back(p.m);
  if (!b_vector) out.push_back(p.n);
  p.out_shape = Shape(out);
  p.drops_m = a_vector;
  p.drops_n = b_vector;
  p.a_elements = element_count(a);
  p.b_elements = element_count(b);
  return p;
}

MatMulProblem gemm_problem(const Shape& a, const Shape& b, bool trans_a, bool trans_b,
                           float alpha) {
  check(a.size() == 2 && b.size() == 2,
        "Gemm: A and B must be 2-D, got " + a.to_string() + " and " + b.to_string());
  MatMulProblem p;
  p.m = trans_a ? a[1] : a[0];
  p.k = trans_a ? a[0] : a[1];
  const int64_t kb = trans_b ? b[1] : b[0];
  p.n = trans_b ? b[0] : b[1];
  check(p.k == kb, "Gemm: inner dimensions of A " + a.to_string() + " and B " + b.to_string() +
                       " differ (transA " + std::to_string(trans_a) + ", transB " +
                       std::to_string(trans_b) + ")");
  // A transposed is read down its columns: element (m, k) sits at k * M + m.
  p.a_row_stride = trans_a ? 1 : p.k;
  p.a_col_stride = trans_a ? p.m : 1;
  p.b_row_stride = trans_b ? 1 : p.n;
  p.b_col_stride = trans_b ? p.k : 1;
  p.alpha = alpha;
  p.out_shape = Shape{p.m, p.n};
  p.a_elements = element_count(a);
  p.b_elements = element_count(b);
  return p;
}

MatMulAddend matmul_addend(const MatMulProblem& problem, const Shape& c, float beta) {
  // c broadcasts against out_shape (what the graph sees); the dropped dimensions are 1.
  const Shape& out = problem.out_shape;
  check(c.size() <= out.size(), "matmul addend " + c.to_string() + " has a higher rank than the " +
                                    "output " + out.to_string());
  std::vector<int64_t> out_strides(out.size(), 0);
  int64_t stride = 1;
  for (size_t i = 0; i < c.size(); ++i) {
    const size_t dc = c.size() - 1 - i, d = out.size() - 1 - i;
    check(
        c[dc] == out[d] || c[dc] == 1,
        "matmul addend " + c.to_string() + " does not broadcast to the output " + out.to_string());
    if (c[dc] != 1) out_strides[d] = stride;
    stride *= c[dc];
  }
  MatMulAddend e;
  e.beta = beta;
  e.elements = element_count(c);
  e.batch_strides.assign(out_strides.begin(), out_strides.begin() + problem.batch.size());
  // out_shape is batch, then m unless A was 1-D, then n unless B was 1-D; a dropped dimension
  // is 1, so its stride stays 0.
  size_t d = problem.batch.size();
  if (!problem.drops_m) e.row_stride = out_strides[d++];
  if (!problem.drops_n) e.col_stride = out_strides[d];
  return e;
}

MatMulPushConstants matmul_push_constants(const MatMulProblem& problem,
                                          const MatMulEpilogue& epilogue, uint32_t* batches) {
  const MatMulAddend* addend = epilogue.addend;
  const size_t rank = problem.batch.size();
  check(problem.a_batch_strides.size() == rank && problem.b_batch_strides.size() == rank &&
            (!addend || addend->batch_strides.size() == rank),
        "matmul on the GPU: batch strides do not match the batch rank");
  MatMulPushConstants pc;
  pc.m = narrow(problem.m, "m");
  pc.n = narrow(problem.n, "n");
  pc.k = narrow(problem.k, "k");
  pc.a_row_stride = narrow(problem.a_row_stride, "a stride");
  pc.a_col_stride = narrow(problem.a_col_stride, "a stride");
  pc.b_row_stride = narrow(problem.b_row_stride, "b stride");
  pc.b_col_stride = narrow(problem.b_col_stride, "b stride");
  pc.alpha = problem.alpha;
  if (addend) {
    pc.has_addend = 1;
    pc.beta = addend->beta;
    pc.c_row_stride = narrow(addend->row_stride, "addend stride");
    pc.c_col_stride = narrow(addend->col_stride, "addend stride");
  }
  pc.activation = static_cast<uint32_t>(epilogue.activation.kind);
  check(epilogue.activation.kind <= Activation::kSilu, "matmul on the GPU: unknown activation");
  pc.act_min = epilogue.activation.min;
  pc.act_max = epilogue.activation.max;
  pc.has_residual = epilogue.residual ? 1 : 0;

  // Drop size-1 batch dimensions and merge neighbours that are contiguous in every operand (y
  // is contiguous), so that higher batch ranks often fit the shader's three.
  struct Dim {
    int64_t size, a, b, c;
  };
  std::vector<Dim> dims;
  uint64_t count = 1;
  for (size_t d = 0; d < rank; ++d) {
    count *= static_cast<uint64_t>(problem.batch[d]);
    if (problem.batch[d] == 1) continue;
    const Dim dim{problem.batch[d], problem.a_batch_strides[d], problem.b_batch_strides[d],
                  addend ? addend->batch_strides[d] : 0};
    if (!dims.empty()) {
      Dim& prev = dims.back();
      if (prev.a == dim.a * dim.size && prev.b == dim.b * dim.size && prev.c == dim.c * dim.size) {
        prev = Dim{prev.size * dim.size, dim.a, dim.b, dim.c};
        continue;
      }
    }
    dims.push_back(dim);
  }
  check(dims.size() <= kMatMulMaxBatchRank, "matmul on the GPU: batch " +
                                                problem.batch.to_string() +
                                                " needs more than 3 strided dimensions");
  const size_t first = kMatMulMaxBatchRank - dims.size();
  for (size_t i = 0; i < dims.size(); ++i) {
    pc.batch_shape[first + i] = narrow(dims[i].size, "batch");
    pc.a_batch_stride[first + i] = narrow(dims[i].a, "a batch stride");
    pc.b_batch_stride[first + i] = narrow(dims[i].b, "b batch stride");
    pc.c_batch_stride[first + i] = narrow(dims[i].c, "addend batch stride");
  }
  bool aligned = problem.k % 4 == 0 && problem.a_col_stride == 1 && problem.a_row_stride % 4 == 0;
  for (int d = 0; d < kMatMulMaxBatchRank; ++d) {
    aligned = aligned && pc.a_batch_stride[d] % 4 == 0 && pc.b_batch_stride[d] % 4 == 0;
  }
  if (aligned && problem.b_col_stride == 1 && problem.b_row_stride % 4 == 0 && problem.n % 4 == 0) {
    pc.mode = static_cast<uint32_t>(MatMulMode::Rows);
  } else if (aligned && problem.b_row_stride == 1 && problem.b_col_stride % 4 == 0) {
    pc.mode = static_cast<uint32_t>(MatMulMode::Columns);
  }
  narrow(static_cast<int64_t>(count * static_cast<uint64_t>(problem.m * problem.n)), "output size");
  *batches = narrow(static_cast<int64_t>(count), "batch count");
  return pc;
}

void check_float_buffer(const Device& device, const Buffer& buffer, int64_t elements,
                        const char* what) {
  const uint64_t bytes = static_cast<uint64_t>(elements) * sizeof(float);
  check(elements <= int64_t{UINT32_MAX},
        std::string(what) + ": " + std::to_string(elements) + " elements exceed 32-bit indexing");
  const uint64_t range = device.info().max_storage_buffer_range;
  check(bytes <= range && buffer.allocated_size() <= range,
        std::string(what) + ": " + std::to_string(bytes) + " bytes exceed the device's " +
            "storage-buffer range of " + std::to_string(range) + " bytes");
  check(buffer.size() >= bytes, std::string(what) + ": the buffer holds " +
                                    std::to_string(buffer.size()) + " bytes, the tensor needs " +
                                    std::to_string(bytes));
}

GroupCount batched_groups(const Device& device, const ComputePipeline& pipeline,
                          uint64_t invocations, uint32_t batches) {
  GroupCount g = groups_for(device, pipeline, invocations);
  check(batches <= device.limits().maxComputeWorkGroupCount[2],
        std::to_string(batches) + " batches exceed the device's workgroup count limit of " +
            std::to_string(device.limits().maxComputeWorkGroupCount[2]));
  g.z = batches;
  return g;
}

MatMul::MatMul(Device& device)
    : device_(device),
      pipeline_(device,
                PipelineDesc{shaders::matmul(), 5, sizeof(MatMulPushConstants), kWorkgroupSize}) {}

void MatMul::record(VkCommandBuffer cmd, DescriptorArena& arena, const MatMulProblem& problem,
                    const Buffer& a, const Buffer& b, const Buffer& y,
                    const MatMulEpilogue& epilogue) const {
  check(!epilogue.addend == !epilogue.addend_buffer,
        "matmul on the GPU: an addend needs both its description and its buffer");
  uint32_t batches = 0;
  const MatMulPushConstants pc = matmul_push_constants(problem, epilogue, &batches);
  const int64_t y_elements = int64_t{batches} * problem.m * problem.n;
  if (y_elements == 0) return;
  check_float_buffer(device_, a, problem.a_elements, "matmul on the GPU: A");
  check_float_buffer(device_, b, problem.b_elements, "matmul on the GPU: B");
  check_float_buffer(device_, y, y_elements, "matmul on the GPU: Y");
  if (epilogue.addend) {
    check_float_buffer(device_, *epilogue.addend_buffer, epilogue.addend->elements,
                       "matmul on the GPU: C");
  }
  if (epilogue.residual) {
    check_float_buffer(device_, *epilogue.residual, y_elements, "matmul on the GPU: residual");
  }
  // Without an addend (a residual) the shader never reads binding 3 (4); A stands in to keep
  // the set valid.
  const Buffer* buffers[] = {&a, &b, &y, epilogue.addend ? epilogue.addend_buffer : &a,
                             epilogue.residual ? epilogue.residual : &a};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&y};
  // Each workgroup covers a patch of (kWorkgroupSize / 8) x 8 tiles.
  constexpr int64_t kPatchM = kTileM * kWorkgroupSize / 8, kPatchN = kTileN * 8;
  const uint64_t invocations = static_cast<uint64_t>((problem.m + kPatchM - 1) / kPatchM) *
                               static_cast<uint64_t>((problem.n + kPatchN - 1) / kPatchN) *
                               kWorkgroupSize;
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  batched_groups(device_, pipeline_, invocations, batches), written);
}

}  // namespace kiln::gpu_compute
