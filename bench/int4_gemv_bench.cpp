// MatMulNBits' 4-bit GEMV (backends/cpu/int4_gemv.h) against the memory bandwidth a streaming
// read reaches on this machine.
//
//   int4_gemv_bench [--n=N] [--k=K] [--block=B] [--runs=R]
//
// At 1 and 2 threads (kiln's job system, a pool per thread count): the streaming read (a sum
// over a 512 MiB buffer, far beyond the caches) and one decode-step product y [1, N] = a [1, K]
// * W^T with W a 4-bit weight of N x K (11008 x 4096 by default: a 7B model's MLP projection,
// 21.5 MiB of packed weights and, at block 32, 10.8 MiB of scales and scaled zero points: beyond
// the last-level cache).
// The rates are bytes read per second (the GEMV's: packed weights, scales, scaled zero points),
// from the median and the best of R runs, and the GEMV's as a share of the streaming read's.
#include <algorithm>
#include <chrono>
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

#include "backends/cpu/int4_gemv.h"
#include "backends/cpu/simd_target.h"
#include "core/thread_pool.h"
#include "run_in_pool.h"

namespace {

// The calling thread's CPU time at one thread (a busy host delays the run but does not count),
// the wall clock at two.
double now(int threads) {
  if (threads == 1) {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

using kiln::bench::run_in_pool;

struct Timing {
  double median = 0, best = 0;  // seconds
};

// The median and best of `runs` calls of fn (after one warm-up call).
Timing time_runs(int runs, int threads, const std::function<void()>& fn) {
  fn();
  std::vector<double> s;
  for (int r = 0; r < runs; ++r) {
    const double start = now(threads);
    fn();
    s.push_back(now(threads) - start);
  }
  std::sort(s.begin(), s.end());
  return {s[s.size() / 2], s.front()};
}

// Sums the buffer's 64-bit words in parallel, four independent accumulators a range, so that the
// loads, not the adds, are the limit.
uint64_t stream_sum(const std::vector<uint64_t>& buffer) {
  std::vector<uint64_t> partial(256, 0);
  const auto n = static_cast<int64_t>(buffer.size());
  kiln::parallel_for(n / 4, int64_t{1} << 18, [&](int64_t begin, int64_t end) {
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    const uint64_t* p = buffer.data();
    for (int64_t i = begin * 4; i < end * 4; i += 4) {
      s0 += p[i];
      s1 += p[i + 1];
      s2 += p[i + 2];
      s3 += p[i + 3];
    }
    partial[static_cast<size_t>(begin / (int64_t{1} << 18)) % partial.size()] += s0 + s1 + s2 + s3;
  });
  uint64_t total = 0;
  for (uint64_t v : partial) total += v;
  return total;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

int64_t flag(int argc, char** argv, const char* name, int64_t fallback) {
  const std::string prefix = std::string("--") + name + "=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) {
      return std::atoll(argv[i] + prefix.size());
    }
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t N = flag(argc, argv, "n", 11008), K = flag(argc, argv, "k", 4096);
  const int64_t block = flag(argc, argv, "block", 32);
  const int runs = static_cast<int>(flag(argc, argv, "runs", 15));
  if (N <= 0 || K <= 0 || block < 16 || block % 2 != 0 || runs <= 0) {
    std::fprintf(stderr,
                 "usage: int4_gemv_bench [--n=N] [--k=K] [--block=B>=16, even] [--runs=R]\n");
    return 2;
  }
  kiln::cpu::Int4Weights w;
  w.N = N;
  w.K = K;
  w.block_size = block;
  w.blocks = (K + block - 1) / block;
  std::mt19937 rng(1);
  w.packed.resize(static_cast<size_t>(N * w.blocks * block / 2));
  for (auto& b : w.packed) b = static_cast<uint8_t>(rng());
  std::uniform_real_distribution<float> dist(0.001f, 0.02f);
  w.scales.resize(static_cast<size_t>(N * w.blocks));
  w.zero_scaled.resize(w.scales.size());
  for (size_t i = 0; i < w.scales.size(); ++i) {
    w.scales[i] = dist(rng);
    w.zero_scaled[i] = 8 * w.scales[i];
  }
  std::vector<float> a(static_cast<size_t>(K)), y(static_cast<size_t>(N));
  for (auto& v : a) v = dist(rng) - 0.01f;
  std::vector<uint64_t> buffer((size_t{512} << 20) / sizeof(uint64_t));
  for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = i;

  std::printf(
      "int4 GEMV, %s, SIMD target %s; N %lld, K %lld, block %lld: %.1f MiB read a "
      "product; GB/s from the median and the best of %d runs (thread CPU time at 1 thread, "
      "wall clock at 2)\n",
      cpu_model().c_str(), kiln::cpu::simd_target_name().c_str(), static_cast<long long>(N),
      static_cast<long long>(K), static_cast<long long>(block), w.bytes() / 1048576.0, runs);
  std::printf("  %-7s %12s %12s %12s %12s %13s %11s\n", "threads", "stream med", "stream best",
              "GEMV med", "GEMV best", "share (med)", "(best)");
  volatile uint64_t sink = 0;
  for (int threads : {1, 2}) {
    kiln::ThreadPool pool(threads);
    Timing stream, gemv;
    run_in_pool(pool, [&] {
      stream = time_runs(runs, threads, [&] { sink = sink + stream_sum(buffer); });
      gemv = time_runs(runs, threads,
                       [&] { kiln::cpu::int4_gemv(w, a.data(), 1, nullptr, y.data()); });
    });
    const double stream_bytes = static_cast<double>(buffer.size() * sizeof(uint64_t));
    const double s_med = stream_bytes / stream.median * 1e-9,
                 s_best = stream_bytes / stream.best * 1e-9;
    const double g_med = w.bytes() / gemv.median * 1e-9, g_best = w.bytes() / gemv.best * 1e-9;
    std::printf("  %-7d %12.2f %12.2f %12.2f %12.2f %12.0f %% %9.0f %%\n", threads, s_med, s_best,
                g_med, g_best, 100 * g_med / s_med, 100 * g_best / s_best);
  }
  return 0;
}
