// kiln's float32 GEMM against the machine's own FMA peak and a well-kept library.
//
//   gemm_bench [--target=NAME] [--size=N] [--rounds=R] [--runs=N] [--threads=1|2]
//              [--no-yardstick] [--shapes [benchmark flags]]
//
// First a summary: the single-core peak measured with a register-resident FMA loop on the
// dispatched SIMD target's vector width, then an N^3 product (N = 1024 by default) with B
// unpacked and pre-packed at 1 and 2 threads (kiln's own job system, a pool per thread count),
// each as GFLOP/s and as a percentage of the peak times the thread count, and the same product
// through oneDNN's dnnl_sgemm when the bench was built with it (KILN_BENCH_DNNL). Rounds
// alternate kiln and the yardstick so that a drift in the host's load hits both; the table
// gives the median and the best run. --target restricts Highway's dispatch (e.g. --target=AVX2
// on an AVX-512 machine measures the AVX2 kernels and the AVX2 peak, and holds oneDNN to AVX2).
//
// --shapes then runs Google Benchmark over the shapes kiln's ops produce (single-threaded with
// KILN_NUM_THREADS=1; rates per CPU second of the calling thread unless KILN_BENCH_REAL_TIME=1).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/gemm.h"
#include "backends/cpu/simd_target.h"
#include "bench/run_in_pool.h"
#include "core/thread_pool.h"

#ifdef KILN_BENCH_DNNL
#include <omp.h>

#include "oneapi/dnnl/dnnl.h"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "bench/gemm_bench.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln_bench::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

int64_t dispatched_target() { return HWY_TARGET; }

// FLOPs of `iterations` passes over independent FMA chains held in registers: enough chains
// to cover the FMA latency on every pipe (4 cycles x 2 pipes on current x86 cores), few enough
// to leave registers free on targets with 16 of them. Returns the FLOP count.
HWY_NOINLINE double fma_loop(int64_t iterations, float* sink) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  constexpr size_t kChains = HWY_MAX_BYTES >= 64 ? 16 : 12;
  V acc[kChains];
#pragma GCC unroll 16
  for (size_t i = 0; i < kChains; ++i) acc[i] = hn::Set(d, 1.0f + static_cast<float>(i));
  const V mul = hn::Set(d, *sink);  // unknown to the compiler: the loop cannot be folded
  const V add = hn::Set(d, 1e-7f);
  for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 16
    for (size_t i = 0; i < kChains; ++i) acc[i] = hn::MulAdd(acc[i], mul, add);
  }
  V sum = acc[0];
#pragma GCC unroll 16
  for (size_t i = 1; i < kChains; ++i) sum = hn::Add(sum, acc[i]);
  *sink = hn::GetLane(sum);
  return 2.0 * static_cast<double>(iterations) * kChains * static_cast<double>(hn::Lanes(d));
}

}  // namespace kiln_bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln_bench {

HWY_EXPORT(dispatched_target);
HWY_EXPORT(fma_loop);

namespace {

// Seconds on a clock: the calling thread's CPU time for single-threaded work, which the host
// descheduling the thread (it may be shared) does not inflate, or wall-clock time.
enum class Timer { kThreadCpu, kProcessCpu, kWall };

double now_seconds(Timer timer) {
  timespec ts{};
  clock_gettime(timer == Timer::kThreadCpu    ? CLOCK_THREAD_CPUTIME_ID
                : timer == Timer::kProcessCpu ? CLOCK_PROCESS_CPUTIME_ID
                                              : CLOCK_MONOTONIC,
                &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::vector<float> random_matrix(int64_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(size));
  for (float& x : v) x = dist(rng);
  return v;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

// Best of several timed FMA loops on the calling thread, in GFLOP/s.
double measure_peak() {
  float sink = 0.9999999f;
  HWY_DYNAMIC_DISPATCH(fma_loop)(1 << 20, &sink);  // warm up the clock and the vector units
  double best = 0.0;
  for (int rep = 0; rep < 30; ++rep) {
    const double start = now_seconds(Timer::kThreadCpu);
    const double flops = HWY_DYNAMIC_DISPATCH(fma_loop)(int64_t{1} << 20, &sink);
    best = std::max(best, flops / (now_seconds(Timer::kThreadCpu) - start) * 1e-9);
  }
  if (sink == 42.0f) std::puts("");  // keep the result alive
  return best;
}

// The timings of a series of runs: `seconds` on the chosen clock, and for each run the share
// of the wall-clock time that the process got a CPU for each thread (its CPU time over
// threads x wall time): well below 1 means the host was busy and the wall-clock rate says more
// about the host than about the code.
struct Series {
  std::vector<double> seconds;
  std::vector<double> host_share;
  std::vector<double> cpu_seconds;  // the process's, all threads
};

// Times `runs` calls of `fn`, after one untimed call.
void time_runs(int runs, Timer timer, int threads, const std::function<void()>& fn, Series& out) {
  fn();
  for (int r = 0; r < runs; ++r) {
    const double start = now_seconds(timer);
    const double wall_start = now_seconds(Timer::kWall);
    const double cpu_start = now_seconds(Timer::kProcessCpu);
    fn();
    out.seconds.push_back(now_seconds(timer) - start);
    const double wall = now_seconds(Timer::kWall) - wall_start;
    const double cpu = now_seconds(Timer::kProcessCpu) - cpu_start;
    out.cpu_seconds.push_back(cpu);
    out.host_share.push_back(cpu / (threads * wall));
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#ifdef KILN_BENCH_DNNL
constexpr bool kHaveYardstick = true;
const char* const kYardstickName = "oneDNN dnnl_sgemm";
void yardstick_sgemm(int threads, int64_t n, const float* a, const float* b, float* c) {
  omp_set_num_threads(threads);
  if (dnnl_sgemm('N', 'N', n, n, n, 1.0f, a, n, b, n, 0.0f, c, n) != dnnl_success) {
    std::fprintf(stderr, "dnnl_sgemm failed\n");
    std::exit(1);
  }
}
// Holds oneDNN to the instruction set of the target kiln was restricted to (--target), so that
// both sides of the comparison use the same vectors. Must run before oneDNN's first call.
void restrict_yardstick(const std::string& target) {
  const dnnl_cpu_isa_t isa = target == "AVX2"   ? dnnl_cpu_isa_avx2
                             : target == "SSE4" ? dnnl_cpu_isa_sse41
                                                : dnnl_cpu_isa_all;
  if (isa != dnnl_cpu_isa_all && dnnl_set_max_cpu_isa(isa) != dnnl_success) {
    std::fprintf(stderr, "gemm_bench: could not hold oneDNN to %s\n", target.c_str());
    std::exit(1);
  }
}
#else
constexpr bool kHaveYardstick = false;
const char* const kYardstickName = "";
void yardstick_sgemm(int, int64_t, const float*, const float*, float*) {}
void restrict_yardstick(const std::string&) {}
#endif

struct Options {
  int64_t size = 1024;
  int rounds = 3;
  int runs = 10;
  bool shapes = false;
  int only_threads = 0;   // 0: 1 and 2 threads
  bool yardstick = true;  // false: kiln only (for profiling)
};

void print_row(const char* threads, const char* variant, const Series& series, double flops,
               double peak) {
  const double med = flops / median(series.seconds) * 1e-9;
  const double best =
      flops / *std::min_element(series.seconds.begin(), series.seconds.end()) * 1e-9;
  std::printf("  %-7s %-26s %9.1f %9.1f %9.1f %% %9.0f %% %11.1f\n", threads, variant, med, best,
              100.0 * med / peak, 100.0 * median(series.host_share),
              flops / median(series.cpu_seconds) * 1e-9);
}

void summary(const Options& opt) {
  const int64_t n = opt.size;
  const double flops = 2.0 * static_cast<double>(n) * n * n;
  const std::vector<float> a = random_matrix(n * n, 1), b = random_matrix(n * n, 2);
  std::vector<float> c(static_cast<size_t>(n * n));
  const kiln::cpu::PackedB packed = kiln::cpu::pack_b(false, n, n, b.data(), n);

  const double peak = measure_peak();
  std::printf("CPU: %s\nSIMD target: %s\n", cpu_model().c_str(),
              hwy::TargetName(HWY_DYNAMIC_DISPATCH(dispatched_target)()));
  std::printf(
      "single-core peak (register-resident FMA loop on this target's vectors): %.1f "
      "GFLOP/s\n",
      peak);
  std::printf(
      "%lld^3 float32, %d rounds x %d runs (1 thread: CPU time of the thread; 2: wall "
      "clock); GFLOP/s, %% of peak = median / (peak x threads); host share: median CPU "
      "time / (threads x wall time), below ~95 %% the host was busy; per CPU-s: GFLOP per "
      "second of the process's CPU time (all threads; spinning counts, sleeping not)\n",
      static_cast<long long>(n), opt.rounds, opt.runs);
  std::printf("  %-7s %-26s %9s %9s %11s %11s %11s\n", "threads", "variant", "median", "best",
              "of peak", "host share", "per CPU-s");
  for (int threads : {1, 2}) {
    if (opt.only_threads != 0 && threads != opt.only_threads) continue;
    kiln::ThreadPool pool(threads);
    Series unpacked, prepacked, library;
    const Timer timer = threads == 1 ? Timer::kThreadCpu : Timer::kWall;
    for (int round = 0; round < opt.rounds; ++round) {
      run_in_pool(pool, [&] {
        time_runs(
            opt.runs, timer, threads,
            [&] {
              kiln::cpu::sgemm(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f,
                               c.data(), n);
            },
            unpacked);
        time_runs(
            opt.runs, timer, threads,
            [&] { kiln::cpu::sgemm_packed(false, n, a.data(), n, packed, c.data(), n); },
            prepacked);
      });
      if (kHaveYardstick && opt.yardstick) {
        time_runs(
            opt.runs, timer, threads,
            [&] { yardstick_sgemm(threads, n, a.data(), b.data(), c.data()); }, library);
      }
    }
    const std::string t = std::to_string(threads);
    print_row(t.c_str(), "kiln sgemm (B unpacked)", unpacked, flops, peak * threads);
    print_row(t.c_str(), "kiln sgemm_packed", prepacked, flops, peak * threads);
    if (kHaveYardstick && opt.yardstick)
      print_row(t.c_str(), kYardstickName, library, flops, peak * threads);
  }
  if (!kHaveYardstick) std::printf("  (no yardstick: built without oneDNN)\n");
}

// ---- per-shape Google Benchmark suite (--shapes) ----

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

// Args: M, N, K[, trans_a]; B packed once outside the loop, a bias + relu epilogue. trans_a = 1
// is how a convolution calls it: A is the K x M im2col buffer, B the packed weights.
void BM_sgemm_packed(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const bool trans_a = state.range(3) != 0;
  const std::vector<float> a = random_matrix(m * k, 1), b = random_matrix(k * n, 2);
  const std::vector<float> bias = random_matrix(n, 3);
  std::vector<float> c(static_cast<size_t>(m * n));
  const kiln::cpu::PackedB packed = kiln::cpu::pack_b(false, k, n, b.data(), n);
  const kiln::cpu::GemmEpilogue epilogue{.bias_kind = kiln::cpu::GemmBias::kPerColumn,
                                         .bias = bias.data(),
                                         .activation = kiln::cpu::GemmActivation::kRelu};
  for (auto _ : state) {
    kiln::cpu::sgemm_packed(trans_a, m, a.data(), trans_a ? m : k, packed, c.data(), n, epilogue);
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
      {784, 128, 1152},
      {196, 256, 2304},
      {196, 512, 4608},
      // ResNet-50's 1x1 convolutions as conv_f32 calls them in NCHW (weights as A, in place)
      {256, 3136, 64},
      {64, 3136, 256},
      {512, 784, 128},
      {1024, 196, 256},
      {2048, 49, 512},
  };
  for (const auto& s : list) {
    if (with_transposes) {
      b->Args({s[0], s[1], s[2], 0, 0});
    } else {
      b->Args({s[0], s[1], s[2], 0});
    }
  }
  if (!with_transposes) {  // convolutions: the four ResNet 3x3 shapes as conv_f32 calls them
    for (const auto& s : std::vector<std::vector<int64_t>>{
             {3136, 64, 576}, {784, 128, 1152}, {196, 256, 2304}, {49, 512, 4608}}) {
      b->Args({s[0], s[1], s[2], 1});
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

void configure(benchmark::internal::Benchmark* b, bool with_transposes) {
  shapes(b, with_transposes);
  if (std::getenv("KILN_BENCH_REAL_TIME")) b->UseRealTime();
}

BENCHMARK(BM_sgemm)->Apply([](auto* b) { configure(b, true); });
BENCHMARK(BM_sgemm_packed)->Apply([](auto* b) { configure(b, false); });

int usage(const char* arg) {
  std::fprintf(stderr,
               "gemm_bench: unknown argument '%s'\nusage: gemm_bench [--target=NAME] [--size=N] "
               "[--rounds=R] [--runs=N] [--threads=1|2] [--no-yardstick] [--shapes [benchmark "
               "flags]]\ntargets here: %s\n",
               arg, kiln::cpu::available_simd_targets().c_str());
  return 2;
}

bool parse_positive(const char* text, int64_t& out) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v <= 0 || v > 1 << 16) return false;
  out = v;
  return true;
}

}  // namespace
}  // namespace kiln_bench

int main(int argc, char** argv) {
  using namespace kiln_bench;
  Options opt;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    int64_t value = 0;
    const auto starts = [&](const char* prefix) { return arg.rfind(prefix, 0) == 0; };
    if (arg == "--shapes") {
      opt.shapes = true;
      ++i;
      break;
    } else if (starts("--target=")) {
      if (!kiln::cpu::limit_simd_target(arg.substr(9))) return usage(argv[i]);
      restrict_yardstick(arg.substr(9));
    } else if (starts("--threads=") && parse_positive(argv[i] + 10, value) && value <= 2) {
      opt.only_threads = static_cast<int>(value);
    } else if (arg == "--no-yardstick") {
      opt.yardstick = false;
    } else if (starts("--size=") && parse_positive(argv[i] + 7, value)) {
      opt.size = value;
    } else if (starts("--rounds=") && parse_positive(argv[i] + 9, value)) {
      opt.rounds = static_cast<int>(value);
    } else if (starts("--runs=") && parse_positive(argv[i] + 7, value)) {
      opt.runs = static_cast<int>(value);
    } else {
      return usage(argv[i]);
    }
  }
  summary(opt);
  if (!opt.shapes) return 0;
  // The rest of the command line is Google Benchmark's.
  std::vector<char*> bench_args = {argv[0]};
  for (; i < argc; ++i) bench_args.push_back(argv[i]);
  int bench_argc = static_cast<int>(bench_args.size());
  benchmark::Initialize(&bench_argc, bench_args.data());
  if (benchmark::ReportUnrecognizedArguments(bench_argc, bench_args.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
#endif  // HWY_ONCE
