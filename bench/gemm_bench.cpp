// GEMM throughput on the shapes kiln's ops produce. Reports FLOP/s ("GFLOPS" counter).
// Run single-threaded with KILN_NUM_THREADS=1; use --benchmark_repetitions and the median, as
// the host may be shared.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "backends/cpu/gemm.h"

namespace {

std::vector<float> random_matrix(int64_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(size));
  for (float& x : v) x = dist(rng);
  return v;
}

void set_flops(benchmark::State& state, int64_t m, int64_t n, int64_t k) {
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * m * n * k * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// Args: M, N, K, trans_a, trans_b.
void BM_sgemm(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const bool trans_a = state.range(3) != 0, trans_b = state.range(4) != 0;
  const std::vector<float> a = random_matrix(m * k, 1), b = random_matrix(k * n, 2);
  std::vector<float> c(static_cast<size_t>(m * n));
  for (auto _ : state) {
    kiln::cpu::sgemm(trans_a, trans_b, m, n, k, 1.0f, a.data(), trans_a ? m : k, b.data(),
                     trans_b ? k : n, 0.0f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  set_flops(state, m, n, k);
}

// Args: M, N, K; B packed once outside the loop, a bias + relu epilogue.
void BM_sgemm_packed(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const std::vector<float> a = random_matrix(m * k, 1), b = random_matrix(k * n, 2);
  const std::vector<float> bias = random_matrix(n, 3);
  std::vector<float> c(static_cast<size_t>(m * n));
  const kiln::cpu::PackedB packed = kiln::cpu::pack_b(false, k, n, b.data(), n);
  const kiln::cpu::GemmEpilogue epilogue{.bias_kind = kiln::cpu::GemmBias::kPerColumn,
                                         .bias = bias.data(),
                                         .activation = kiln::cpu::GemmActivation::kRelu};
  for (auto _ : state) {
    kiln::cpu::sgemm_packed(false, m, a.data(), k, packed, c.data(), n, epilogue);
    benchmark::DoNotOptimize(c.data());
  }
  set_flops(state, m, n, k);
}

void shapes(benchmark::internal::Benchmark* b, bool with_transposes) {
  const std::vector<std::vector<int64_t>> list = {
      {1024, 1024, 1024},  // the classic yardstick
      {64, 3136, 576},     // ResNet conv2_x 3x3 (NCHW: M = Cout, N = H*W, K = Cin*9)
      {128, 784, 1152},    // conv3_x 3x3
      {256, 196, 2304},    // conv4_x 3x3
      {512, 196, 4608},    // a wide 3x3 on 14x14
      {128, 768, 768},     // BERT-base attention projections, sequence 128
      {128, 3072, 768},    // BERT feed-forward up
      {128, 768, 3072},    // BERT feed-forward down
      {1, 768, 768},       // GEMV
      {8, 512, 512},       // few rows
      {256, 8, 1024},      // few columns
      {3136, 64, 576},     // the ResNet convs in NHWC: M = H*W, N = Cout, weights as B
      {784, 128, 1152},   {196, 256, 2304}, {196, 512, 4608},
  };
  for (const auto& s : list) {
    if (with_transposes) {
      b->Args({s[0], s[1], s[2], 0, 0});
    } else {
      b->Args({s[0], s[1], s[2]});
    }
  }
  if (with_transposes) {
    b->Args({1024, 1024, 1024, 1, 0});
    b->Args({1024, 1024, 1024, 0, 1});
    b->Args({1, 768, 768, 0, 1});
    b->Args({128, 768, 768, 0, 1});
    b->Args({128, 128, 64, 0, 1});  // attention scores Q K^T for one head
    b->Args({128, 64, 128, 0, 0});  // attention probabilities times V
  }
}

// Rates are per CPU second of the calling thread by default, which keeps single-threaded
// numbers steady on a busy host; set KILN_BENCH_REAL_TIME=1 for wall-clock rates (needed
// with more than one thread).
void configure(benchmark::internal::Benchmark* b, bool with_transposes) {
  shapes(b, with_transposes);
  if (std::getenv("KILN_BENCH_REAL_TIME")) b->UseRealTime();
}

BENCHMARK(BM_sgemm)->Apply([](auto* b) { configure(b, true); });
BENCHMARK(BM_sgemm_packed)->Apply([](auto* b) { configure(b, false); });

}  // namespace

BENCHMARK_MAIN();
