#include "backends/vulkan/matmul.h"

#include <string>
#include <vector>

#include "backends/vulkan/shaders.h"
#include "kiln/error.h"

namespace kiln::vulkan {
namespace {

uint32_t narrow(int64_t v, const char* what) {
  check(v >= 0 && v <= INT32_MAX,
        std::string("matrix product on the GPU: ") + what + " exceeds 32-bit indexing");
  return static_cast<uint32_t>(v);
}

}  // namespace

MatMulProblem matmul_problem(const Shape& a_in, const Shape& b_in) {
  check(a_in.size() >= 1 && b_in.size() >= 1, "MatMul: operands must have rank 1 or more");
  Shape a = a_in, b = b_in;
  if (a.size() == 1) a = Shape{1, a_in[0]};
  if (b.size() == 1) b = Shape{b_in[0], 1};
  const int64_t M = a[a.size() - 2], K = a[a.size() - 1], N = b[b.size() - 1];
  check(b[b.size() - 2] == K, "MatMul: shapes " + a_in.to_string() + " and " + b_in.to_string() +
                                  " do not multiply");
  // Broadcast batch dimensions, with each operand's batch strides (0 where it broadcasts).
  const size_t ra = a.size() - 2, rb = b.size() - 2, rank = std::max(ra, rb);
  std::vector<int64_t> dims(rank), sa(rank, 0), sb(rank, 0);
  int64_t stride_a = M * K, stride_b = K * N;
  for (size_t i = 0; i < rank; ++i) {
    const size_t d = rank - 1 - i;
    const int64_t da = i < ra ? a[ra - 1 - i] : 1, db = i < rb ? b[rb - 1 - i] : 1;
    check(da == db || da == 1 || db == 1, "MatMul: batch dimensions of " + a_in.to_string() +
                                              " and " + b_in.to_string() + " do not broadcast");
    dims[d] = std::max(da, db);
    if (da == 0 || db == 0) dims[d] = 0;
    sa[d] = da == 1 ? 0 : stride_a;
    sb[d] = db == 1 ? 0 : stride_b;
    stride_a *= da;
    stride_b *= db;
  }
  MatMulProblem p;
  Shape out;
  for (int64_t d : dims) out.push_back(d);
  if (a_in.size() > 1) out.push_back(M);
  if (b_in.size() > 1) out.push_back(N);
  p.out_shape = out;
  // Merge batch dimensions that step evenly in all three tensors, dropping size-1 ones, so that
  // at most two remain (what the shader indexes).
  struct Dim {
    int64_t n, a, b, c;
  };
  std::vector<Dim> merged;
  int64_t stride_c = M * N;
  std::vector<Dim> rev;
  for (size_t i = 0; i < rank; ++i) {
    const size_t d = rank - 1 - i;
    rev.push_back({dims[d], sa[d], sb[d], stride_c});
    stride_c *= dims[d];
  }
  for (auto it = rev.rbegin(); it != rev.rend(); ++it) {
    if (it->n == 1) continue;
    if (!merged.empty()) {
      Dim& last = merged.back();
      if (last.a == it->a * it->n && last.b == it->b * it->n && last.c == it->c * it->n) {
        last = {last.n * it->n, it->a, it->b, it->c};
        continue;
      }
    }
    merged.push_back(*it);
  }
  check(merged.size() <= 2, "MatMul on the GPU: more than two batch dimensions that cannot merge");
  while (merged.size() < 2) merged.insert(merged.begin(), Dim{1, 0, 0, 0});
  MatMulPushConstants& pc = p.pc;
  pc.M = narrow(M, "M");
  pc.N = narrow(N, "N");
  pc.K = narrow(K, "K");
  pc.batch_inner = narrow(merged[1].n, "a batch");
  pc.a_s0 = narrow(merged[0].a, "a stride");
  pc.a_s1 = narrow(merged[1].a, "a stride");
  pc.b_s0 = narrow(merged[0].b, "a stride");
  pc.b_s1 = narrow(merged[1].b, "a stride");
  pc.c_s0 = narrow(merged[0].c, "a stride");
  pc.c_s1 = narrow(merged[1].c, "a stride");
  pc.a_rs = pc.K;
  pc.a_cs = 1;
  pc.b_rs = pc.N;
  pc.b_cs = 1;
  p.batch = narrow(merged[0].n * merged[1].n, "the batch");
  narrow(out.element_count(), "the output");
  return p;
}

MatMulProblem gemm_problem(const Shape& a, const Shape& b, bool trans_a, bool trans_b, float alpha,
                           float beta, const Shape* c) {
  check(a.size() == 2 && b.size() == 2, "Gemm: A and B must be matrices");
  const int64_t M = trans_a ? a[1] : a[0], K = trans_a ? a[0] : a[1];
  const int64_t KB = trans_b ? b[1] : b[0], N = trans_b ? b[0] : b[1];
  check(K == KB, "Gemm: shapes " + a.to_string() + " and " + b.to_string() + " do not multiply");
  MatMulProblem p;
  p.out_shape = Shape{M, N};
  MatMulPushConstants& pc = p.pc;
  pc.M = narrow(M, "M");
  pc.N = narrow(N, "N");
  pc.K = narrow(K, "K");
  pc.a_rs = trans_a ? 1 : pc.K;
  pc.a_cs = trans_a ? pc.M : 1;
  pc.b_rs = trans_b ? 1 : pc.N;
  pc.b_cs = trans_b ? pc.K : 1;
  pc.alpha = alpha;
  pc.beta = beta;
  narrow(M * N, "the output");
  if (c) {
    check(c->size() <= 2, "Gemm: C must have rank 2 or less");
    const int64_t rows = c->size() == 2 ? (*c)[0] : 1;
    const int64_t cols = c->empty() ? 1 : (*c)[c->size() - 1];
    check((rows == 1 || rows == M) && (cols == 1 || cols == N),
          "Gemm: C of shape " + c->to_string() + " does not broadcast to [" + std::to_string(M) +
              ", " + std::to_string(N) + "]");
    pc.has_bias = 1;
    pc.bias_rs = rows == 1 ? 0 : narrow(cols, "C");
    pc.bias_cs = cols == 1 ? 0 : 1;
  }
  return p;
}

void set_activation(MatMulPushConstants& pc, Activation act, float lo, float hi) {
  pc.act = static_cast<uint32_t>(act);
  pc.lo = lo;
  pc.hi = hi;
}

MatMul::MatMul(Device& device, uint32_t workgroup_size)
    : device_(device),
      pipeline_(device, PipelineDesc{shaders::matmul(), 4, sizeof(MatMulPushConstants),
                                     workgroup_size}) {}

void MatMul::record(VkCommandBuffer cmd, DescriptorArena& arena, const MatMulProblem& p,
                    const Buffer& a, const Buffer& b, const Buffer* bias, const Buffer& c) const {
  const uint64_t count = p.out_shape.element_count();
  if (count == 0) return;
  check(c.size() >= count * sizeof(float), "MatMul on the GPU: the output buffer is too small");
  check(p.batch <= device_.limits().maxComputeWorkGroupCount[2],
        "MatMul on the GPU: a batch of " + std::to_string(p.batch) + " is too large");
  // Without a bias the shader never reads binding 2; any valid buffer stands in.
  const Buffer* buffers[] = {&a, &b, bias ? bias : &a, &c};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const uint64_t tiles = uint64_t{(p.pc.M + 3) / 4} * ((p.pc.N + 3) / 4);
  GroupCount groups = groups_for(device_, pipeline_, tiles);
  groups.z = p.batch;
  const Buffer* written[] = {&c};
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&p.pc, 1)), groups, written);
}

}  // namespace kiln::vulkan
