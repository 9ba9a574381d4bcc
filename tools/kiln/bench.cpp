// kiln bench: load time and per-inference latency over many runs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <numeric>

#include <sys/resource.h>

#include "backends/cpu/simd_target.h"
#include "command.h"
#include "core/thread_pool.h"
#include "inputs.h"
#include "kiln/kiln.h"
#include "options.h"
#include "profile_table.h"

namespace kiln::cli {

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// "\rwarmup 3/10" on stderr, redrawn at most every 100 ms so that fast models do not spend
// their time printing.
class Progress {
 public:
  void update(const char* phase, int done, int total, bool force = false) {
    const auto now = Clock::now();
    if (!force && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    std::fprintf(stderr, "\r%s %d/%d   ", phase, done, total);
    std::fflush(stderr);
    shown_ = true;
  }
  void finish() {
    if (shown_) std::fputs("\n", stderr);
  }

 private:
  Clock::time_point last_{};
  bool shown_ = false;
};

// The process's peak resident memory so far (what the kernel counts as ru_maxrss), in MB.
double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// The value at fraction q of the sorted samples, interpolating between neighbours.
double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

// A GPU worker's device counters (Worker::device_counters) averaged over the timed runs.
struct DeviceWorkPerRun {
  double dispatches, barriers, submissions, uploaded_mb, downloaded_mb, recording_ms;
  double nodes_recorded, nodes_replayed;
};

DeviceWorkPerRun per_run(const DeviceCounters& before, const DeviceCounters& after, double runs) {
  auto each = [&](uint64_t a, uint64_t b) { return static_cast<double>(b - a) / runs; };
  return {each(before.dispatches, after.dispatches),
          each(before.barriers, after.barriers),
          each(before.submissions, after.submissions),
          each(before.bytes_uploaded, after.bytes_uploaded) / 1e6,
          each(before.bytes_downloaded, after.bytes_downloaded) / 1e6,
          std::chrono::duration<double, std::milli>(after.recording_time - before.recording_time)
                  .count() /
              runs,
          each(before.nodes_recorded, after.nodes_recorded),
          each(before.nodes_replayed, after.nodes_replayed)};
}

struct BenchOptions {
  std::string model;
  WorkerFlags worker;
  LoadFlags load;
  InputFlags inputs;
  int runs = 100;
  int warmup = 10;
  std::string trace;
};

int bench(const BenchOptions& o) {
  const std::string& path = o.model;
  const Backend backend = o.worker.backend_kind();
  const WorkerOptions options = o.worker.options();
  const int runs = o.runs, warmup = o.warmup;

  const auto load_start = Clock::now();
  Model model = load_model(path, o.load.options());
  const double load_model_ms = ms_between(load_start, Clock::now());
  Worker worker(model, backend, options);
  const double load_ms = ms_between(load_start, Clock::now());
  // The worker already built its pool, so this only reads the thread count it got.
  const int threads = ThreadPool::shared(options.num_threads).num_threads();

  const InputSet inputs = load_inputs(model, o.inputs, /*random_fallback=*/true);
  const auto named = inputs.named();
  const auto& outputs = model.outputs();
  auto run_once = [&] {
    worker.schedule(std::span<const NamedTensor>(named));
    for (const auto& out : outputs) (void)worker.peek_output(out.name).readback_and_clone();
  };

  std::cout << "model: " << path << " (" << model.node_count() << " nodes)\n";
  std::cout << "inputs:";
  const char* separator = " ";
  for (const auto& [name, tensor] : inputs.entries()) {
    std::cout << separator << *name << " " << dtype_name(tensor.dtype())
              << tensor.shape().to_string();
    separator = ", ";
  }
  std::cout << "\n" << std::flush;

  Progress progress;
  for (int i = 0; i < warmup; ++i) {
    progress.update("warmup", i, warmup, i == 0);
    run_once();
  }
  const DeviceCounters device_before = worker.device_counters();
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(runs));
  for (int i = 0; i < runs; ++i) {
    progress.update("run", i, runs, i == 0);
    const auto start = Clock::now();
    run_once();
    samples.push_back(ms_between(start, Clock::now()));
  }
  progress.update("run", runs, runs, true);
  progress.finish();
  const DeviceWorkPerRun device_work =
      per_run(device_before, worker.device_counters(), static_cast<double>(runs));

  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / sorted.size();
  const double median = quantile(sorted, 0.5), p90 = quantile(sorted, 0.9);
  const std::string backend_text(backend_name(backend));
  // Read after the timed runs, so the tracer below does not count.
  const double peak_mb = peak_rss_mb();
  // The CPU kernels' SIMD target, also on GPU backends: ops that stay on the CPU run there.
  const std::string simd = cpu::simd_target_name();

  char text[512];
  std::snprintf(text, sizeof text,
                "backend %s, threads %d, CPU SIMD target %s\n"
                "load: %.2f ms (load_model %.2f ms + Worker), peak resident memory %.1f MB\n"
                "latency over %d runs (%d warm-up): min %.3f ms, median %.3f ms, mean %.3f ms, "
                "p90 %.3f ms, max %.3f ms\n",
                backend_text.c_str(), threads, simd.c_str(), load_ms, load_model_ms, peak_mb, runs,
                warmup, sorted.front(), median, mean, p90, sorted.back());
  std::cout << text;
  const MemoryStats memory = worker.memory_stats();
  auto mib = [](uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); };
  std::snprintf(text, sizeof text,
                "memory: plan %.2f MiB, arena %.2f MiB, %llu plan(s) cached (%.1f KiB), "
                "in use %.2f MiB, peak %.2f MiB (limit %.0f MiB)\n",
                mib(memory.planned_bytes), mib(memory.arena_bytes),
                static_cast<unsigned long long>(memory.cached_plans),
                static_cast<double>(memory.plan_cache_bytes) / 1024, mib(memory.in_use_bytes),
                mib(memory.peak_bytes), mib(memory.memory_limit));
  std::cout << text;
  const bool on_gpu = backend != Backend::Cpu;
  if (on_gpu) {
    std::cout << "device: " << worker.device_description() << "\n";
    std::snprintf(text, sizeof text,
                  "device work per run: %.1f %s, %.1f barriers, %.1f submissions, %.3f MB "
                  "uploaded, %.3f MB downloaded, %.3f ms of CPU time recording (%.1f nodes "
                  "recorded, %.1f replayed)\n",
                  device_work.dispatches, backend == Backend::GpuPixel ? "draws" : "dispatches",
                  device_work.barriers, device_work.submissions, device_work.uploaded_mb,
                  device_work.downloaded_mb, device_work.recording_ms, device_work.nodes_recorded,
                  device_work.nodes_replayed);
    std::cout << text;
  }
  if (!o.trace.empty()) {
    // A worker of its own, so profiling never touches the timed runs; its first run builds
    // the memory plan, the second is the one traced.
    WorkerOptions profiled = options;
    profiled.profile = true;
    Worker tracer(model, backend, profiled);
    for (int i = 0; i < 2; ++i) {
      tracer.schedule(std::span<const NamedTensor>(named));
      for (const auto& out : outputs) (void)tracer.peek_output(out.name).readback_and_clone();
    }
    const Profile profile = tracer.profile();
    write_trace(profile, o.trace);
    std::cout << "trace: " << o.trace << ": " << describe_trace(profile) << "\n";
  }
  std::snprintf(text, sizeof text,
                " backend=%s threads=%d simd=%s load_model_ms=%.3f load_ms=%.3f min_ms=%.4f "
                "median_ms=%.4f mean_ms=%.4f p90_ms=%.4f max_ms=%.4f peak_rss_mb=%.1f "
                "arena_bytes=%llu peak_bytes=%llu",
                backend_text.c_str(), threads, simd.c_str(), load_model_ms, load_ms, sorted.front(),
                median, mean, p90, sorted.back(), peak_mb,
                static_cast<unsigned long long>(memory.arena_bytes),
                static_cast<unsigned long long>(memory.peak_bytes));
  std::cout << "bench: model=" << path << text;
  if (on_gpu) {
    std::snprintf(text, sizeof text,
                  " dispatches=%.1f barriers=%.1f submissions=%.1f upload_mb=%.4f "
                  "download_mb=%.4f record_ms=%.4f nodes_recorded=%.1f nodes_replayed=%.1f",
                  device_work.dispatches, device_work.barriers, device_work.submissions,
                  device_work.uploaded_mb, device_work.downloaded_mb, device_work.recording_ms,
                  device_work.nodes_recorded, device_work.nodes_replayed);
    std::cout << text;
  }
  std::cout << "\n";
  return 0;
}

const Registration kCommand{
    "bench", "measure load time and latency (min / median / mean over many runs)",
    [](CLI::App& cmd) {
      cmd.footer(
          "Measures the load time (load_model + Worker construction) and the latency of one\n"
          "inference (schedule + readback of every output) over many runs after a warm-up.\n"
          "Inputs given by neither --inputs-dir nor --input get random values of the declared\n"
          "dtype and shape. Progress goes to stderr; the last line of stdout is\n"
          "machine-readable:\n"
          "  bench: model=M backend=B threads=N simd=T load_model_ms=X load_ms=X min_ms=X\n"
          "         median_ms=X mean_ms=X p90_ms=X max_ms=X peak_rss_mb=X arena_bytes=N\n"
          "         peak_bytes=N [dispatches=X barriers=X submissions=X upload_mb=X\n"
          "         download_mb=X record_ms=X nodes_recorded=X nodes_replayed=X]\n"
          "(simd: the SIMD target the CPU kernels dispatched to; load_model_ms: load_model alone;\n"
          "load_ms: with the Worker; peak_rss_mb: the process's peak resident memory after the\n"
          "timed runs. The bracketed fields come on GPU backends: what one run asked of the\n"
          "device on average, and the CPU time it spent recording that work.)");
      auto o = std::make_shared<BenchOptions>();
      add_model_argument(cmd, o->model);
      cmd.add_option("--runs", o->runs, "timed runs (default 100)")
          ->check(integer_in(1, 1'000'000'000))
          ->type_name("N");
      cmd.add_option("--warmup", o->warmup, "untimed runs first (default 10)")
          ->check(integer_in(0, 1'000'000'000))
          ->type_name("N");
      cmd.add_option("--trace", o->trace,
                     "after the timed runs, run once more with per-layer profiling and write that "
                     "run as a Chrome trace (chrome://tracing, ui.perfetto.dev): a track per CPU "
                     "worker thread and per GPU queue, with transfers and fallbacks")
          ->type_name("FILE");
      add_input_flags(cmd, o->inputs, /*with_dims=*/true);
      add_worker_flags(cmd, o->worker);
      add_load_flags(cmd, o->load);
      return [o] { return bench(*o); };
    }};

}  // namespace

}  // namespace kiln::cli
