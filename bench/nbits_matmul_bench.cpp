// MatMulNBits' packed int4 GEMV (backends/cpu/nbits_matmul.h) against the memory bandwidth a
// streaming read reaches on this machine.
//
//   nbits_matmul_bench [--target=NAME] [--threads=N] [--rounds=R] [--block=B] [--hot]
//
// First the yardstick: a vectorised sum over a 512 MiB buffer (far beyond any cache, in 2 MiB
// pages where the system gives them: the fastest streaming read), in GB/s.
// Then, for the weight shapes of the decoder examples/tokengen/build_decoder.py writes (N x K:
// QKV, output, gate/up, down projections and the lm_head), one GEMV of a single row of A, in
// float32 and with int8 activations (accuracy_level 4): bytes of packed weights and scales read
// per second, and that as a share of the stream's: each round times a streaming read right
// before the GEMVs, and the share is the median over rounds of the two rates' ratio, so that a
// host whose load drifts (a shared machine) skews both alike. --hot keeps the weights in cache
// instead (two copies, read once more after each streaming read), which shows what the arithmetic
// alone allows. Each call reads another copy of the weight (copies totalling at least 512 MiB),
// so that no weight comes from a cache, as in token generation where all layers' weights are read
// once a step; each copy's bytes and scales are host blocks of their own, as a model's
// initializers are (core/host_memory.h: 4 KiB pages below 4 MiB). Last, the rows of A at which the
// GEMM path overtakes the GEMV (what kNBitsGemvMaxRows rests on), beside kiln's GEMM on a float32
// copy of the weight packed once (the GEMM path's price for dequantizing on every call). Figures
// are medians of R rounds of wall-clock time, run on a kiln ThreadPool of N threads (kiln's job
// system, as the op runs), timed by the thread's CPU time with one thread (the host may be shared)
// and by wall time with more; --target restricts Highway's dispatch (e.g. AVX2 on an AVX-512
// machine).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/gemm.h"
#include "backends/cpu/nbits_matmul.h"
#include "backends/cpu/simd_target.h"
#include "bench/run_in_pool.h"
#include "core/host_memory.h"
#include "core/thread_pool.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "bench/nbits_matmul_bench.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln_bench::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Sum of n floats, four vectors a step (enough loads in flight to stream).
HWY_NOINLINE float stream_sum(const float* HWY_RESTRICT p, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  auto a0 = hn::Zero(d), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    a0 = hn::Add(a0, hn::LoadU(d, p + i));
    a1 = hn::Add(a1, hn::LoadU(d, p + i + lanes));
    a2 = hn::Add(a2, hn::LoadU(d, p + i + 2 * lanes));
    a3 = hn::Add(a3, hn::LoadU(d, p + i + 3 * lanes));
  }
  float sum = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3))));
  for (; i < n; ++i) sum += p[i];
  return sum;
}

}  // namespace kiln_bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln_bench {

HWY_EXPORT(stream_sum);

namespace {

constexpr int64_t kColdBytes = int64_t{512} << 20;

// Seconds: with one thread, the CPU time of the thread that runs the work (the host may be
// shared, and time it spends descheduled says nothing about the code); with more, wall time.
bool g_thread_clock = true;

double now() {
  timespec ts{};
  clock_gettime(g_thread_clock ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

// A parallel streaming read of kColdBytes, the yardstick: seconds of one pass.
class StreamRead {
 public:
  StreamRead()
      : buffer_(kiln::allocate_host_array<float>(static_cast<size_t>(kColdBytes / 4))),
        partial_(static_cast<size_t>(kColdBytes / 4 / kChunk)) {
    std::fill_n(buffer_.get(), kColdBytes / 4, 1.0f);
    pass();  // touches the pages
  }
  double pass() {
    const auto sum = HWY_DYNAMIC_DISPATCH(stream_sum);
    const double start = now();
    kiln::parallel_for(static_cast<int64_t>(partial_.size()), 16, [&](int64_t b, int64_t e) {
      partial_[static_cast<size_t>(b)] = sum(buffer_.get() + b * kChunk, (e - b) * kChunk);
    });
    const double seconds = now() - start;
    if (partial_[0] == -1.0f) std::puts("");  // keeps the sums alive
    return seconds;
  }
  static double gbs(double seconds) { return static_cast<double>(kColdBytes) / seconds * 1e-9; }

 private:
  static constexpr int64_t kChunk = 16384;
  kiln::HostArray<float> buffer_;  // in 2 MiB pages, where the system gives them
  std::vector<float> partial_;
};

// `copies` int4 weights of one shape, with float scales and the default zero point, each array
// in its own host block as a model's initializers are (core/host_memory.h).
struct ColdWeights {
  kiln::cpu::NBitsWeight shape;
  int64_t data_bytes = 0, scale_count = 0;
  std::vector<kiln::HostArray<uint8_t>> data;
  std::vector<kiln::HostArray<float>> scales;
  bool hot = false;  // two copies, read again after each streaming read to bring them back
  int64_t bytes() const { return data_bytes + scale_count * static_cast<int64_t>(sizeof(float)); }
  size_t count() const { return data.size(); }
  kiln::cpu::NBitsWeight copy(size_t i) const {
    kiln::cpu::NBitsWeight w = shape;
    w.data = data[i].get();
    w.scales = scales[i].get();
    return w;
  }
};

ColdWeights make_weights(int64_t N, int64_t K, int64_t block, int64_t min_total_bytes) {
  ColdWeights c;
  c.shape.N = N;
  c.shape.K = K;
  c.shape.bits = 4;
  c.shape.block_size = block;
  c.data_bytes = N * c.shape.k_blocks() * c.shape.blob_size();
  c.scale_count = N * c.shape.k_blocks();
  c.hot = min_total_bytes == 0;
  const int64_t copies = std::max<int64_t>(2, min_total_bytes / c.bytes() + 1);
  std::mt19937 rng(1);
  std::vector<uint8_t> random(static_cast<size_t>(c.data_bytes));
  for (auto& b : random) b = static_cast<uint8_t>(rng());
  for (int64_t i = 0; i < copies; ++i) {
    c.data.push_back(kiln::allocate_host_array<uint8_t>(random.size()));
    std::copy(random.begin(), random.end(), c.data.back().get());
    c.scales.push_back(kiln::allocate_host_array<float>(static_cast<size_t>(c.scale_count)));
    std::fill_n(c.scales.back().get(), c.scale_count, 0.01f);
  }
  return c;
}

// Seconds of one call with M rows of A, each call on the next copy: the median of `rounds`.
// With `stream`, each round also times a streaming read right before the calls, and `ratio`
// gets the median over rounds of the calls' bytes per second over the stream's: the two
// measured under the same load of the host.
double time_calls(kiln::ThreadPool& pool, const ColdWeights& c, int64_t M, bool gemv, int rounds,
                  kiln::cpu::NBitsArithmetic arithmetic = kiln::cpu::NBitsArithmetic::kFloat32,
                  StreamRead* stream = nullptr, double* ratio = nullptr) {
  std::vector<float> a(static_cast<size_t>(M * c.shape.K), 0.5f);
  std::vector<float> y(static_cast<size_t>(M * c.shape.N));
  std::vector<double> seconds, ratios;
  run_in_pool(pool, [&] {
    for (size_t i = 0; i < c.count(); ++i) {  // warm-up: touches every copy once
      kiln::cpu::nbits_matmul_path(c.copy(i), M, a.data(), nullptr, y.data(), gemv, arithmetic);
    }
    for (int r = 0; r < rounds; ++r) {
      const double stream_seconds = stream ? stream->pass() : 0.0;
      for (size_t i = 0; c.hot && i < c.count(); ++i) {  // the stream evicted them
        kiln::cpu::nbits_matmul_path(c.copy(i), M, a.data(), nullptr, y.data(), gemv, arithmetic);
      }
      const double start = now();
      for (size_t i = 0; i < c.count(); ++i) {
        kiln::cpu::nbits_matmul_path(c.copy(i), M, a.data(), nullptr, y.data(), gemv, arithmetic);
      }
      seconds.push_back((now() - start) / static_cast<double>(c.count()));
      if (stream) {
        ratios.push_back(static_cast<double>(c.bytes()) / seconds.back() * 1e-9 /
                         StreamRead::gbs(stream_seconds));
      }
    }
  });
  if (ratio) *ratio = median(ratios);
  return median(seconds);
}

int usage(const char* arg) {
  std::fprintf(stderr,
               "unknown argument %s\nusage: nbits_matmul_bench [--target=NAME] [--threads=N] "
               "[--rounds=R] [--block=B] [--hot]\n",
               arg);
  return 2;
}

}  // namespace
}  // namespace kiln_bench

int main(int argc, char** argv) {
  using namespace kiln_bench;
  int threads = 1, rounds = 7;
  int64_t block = 32;
  bool hot = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--target=", 0) == 0) {
      if (!kiln::cpu::limit_simd_target(arg.substr(9))) return usage(argv[i]);
    } else if (arg.rfind("--threads=", 0) == 0) {
      threads = std::atoi(arg.c_str() + 10);
    } else if (arg.rfind("--rounds=", 0) == 0) {
      rounds = std::atoi(arg.c_str() + 9);
    } else if (arg == "--hot") {
      hot = true;
    } else if (arg.rfind("--block=", 0) == 0) {
      block = std::atoll(arg.c_str() + 8);
    } else {
      return usage(argv[i]);
    }
  }
  if (threads < 1 || rounds < 1 || block < 16 || (block & (block - 1)) != 0) {
    return usage("(a value out of range)");
  }
  kiln::ThreadPool pool(threads);
  g_thread_clock = threads == 1;
  std::printf("%s, SIMD target %s, %d thread(s), block %lld, medians of %d rounds of %s\n",
              cpu_model().c_str(), kiln::cpu::simd_target_name().c_str(), threads,
              static_cast<long long>(block), rounds,
              g_thread_clock ? "thread CPU time" : "wall time");
  StreamRead stream;
  std::vector<double> stream_seconds;
  run_in_pool(pool, [&] {
    for (int r = 0; r < rounds; ++r) stream_seconds.push_back(stream.pass());
  });
  std::printf(
      "streaming read: %.1f GB/s (each GEMV's share below is against a streaming read\n"
      "timed right before it in each round: the median of the rounds' ratios)\n\n",
      StreamRead::gbs(median(stream_seconds)));
  std::printf(
      "int4 GEMV, one row of A   weights+scales   float32 arithmetic          int8 activations "
      "(accuracy_level 4)\n"
      "                                             time      GB/s  of stream   time      GB/s  "
      "of stream\n");
  struct Shape {
    const char* name;
    int64_t N, K;
  };
  const Shape shapes[] = {{"qkv    1536 x 1024", 1536, 1024}, {"o      1024 x 1024", 1024, 1024},
                          {"gate   2816 x 1024", 2816, 1024}, {"down   1024 x 2816", 1024, 2816},
                          {"square 3072 x 1024", 3072, 1024}, {"lm    32000 x 1024", 32000, 1024}};
  for (const Shape& s : shapes) {
    const ColdWeights c = make_weights(s.N, s.K, block, hot ? 0 : kColdBytes);
    double share = 0.0, share8 = 0.0;
    const double t =
        time_calls(pool, c, 1, true, rounds, kiln::cpu::NBitsArithmetic::kFloat32, &stream, &share);
    const double t8 = time_calls(pool, c, 1, true, rounds,
                                 kiln::cpu::NBitsArithmetic::kInt8Activations, &stream, &share8);
    const double gbs = static_cast<double>(c.bytes()) / t * 1e-9;
    const double gbs8 = static_cast<double>(c.bytes()) / t8 * 1e-9;
    std::printf("  %-24s %8.2f MB  %7.1f us  %6.1f  %5.0f %%  %7.1f us  %6.1f  %5.0f %%\n", s.name,
                c.bytes() * 1e-6, t * 1e6, gbs, 100.0 * share, t8 * 1e6, gbs8, 100.0 * share8);
  }
  std::printf(
      "\nrows of A, gate 2816 x 1024, us per call: GEMV, GEMM path, and kiln's GEMM on a\n"
      "float32 copy packed once (what keeping a float copy would cost 8x the memory for)\n");
  const ColdWeights gate = make_weights(2816, 1024, block, kColdBytes / 8);  // still > L3
  std::vector<float> dense(static_cast<size_t>(2816 * 1024), 0.01f);
  const kiln::cpu::PackedB packed = kiln::cpu::pack_b(true, 1024, 2816, dense.data(), 1024);
  for (int64_t M : {1, 2, 4, 8, 12, 16, 128}) {
    std::vector<float> a(static_cast<size_t>(M * 1024), 0.5f), y(static_cast<size_t>(M * 2816));
    std::vector<double> seconds;
    run_in_pool(pool, [&] {
      for (int r = 0; r < rounds + 1; ++r) {
        const double start = now();
        kiln::cpu::sgemm_packed(false, M, a.data(), 1024, packed, y.data(), 2816);
        if (r > 0) seconds.push_back(now() - start);
      }
    });
    std::printf("  M %3lld  %9.1f  %9.1f  %9.1f\n", static_cast<long long>(M),
                time_calls(pool, gate, M, true, rounds) * 1e6,
                time_calls(pool, gate, M, false, rounds) * 1e6, median(seconds) * 1e6);
  }
  return 0;
}
#endif  // HWY_ONCE
