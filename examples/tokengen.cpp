// Greedy token generation with a decoder in ONNX Runtime's generative-AI export shape (see
// examples/tokengen/build_decoder.py): the prompt in one run, then one token a run. The key/value
// caches are allocated once, as long as the whole generation (the shared-buffer form ONNX
// Runtime's model builder uses), and donated to each run (InputUse::Donate):
// GroupQueryAttention appends the new token's keys and values where the cache lies, and the
// present output the next run takes as its past is that same memory. Nothing is copied.
//
//   tokengen MODEL.onnx [--prompt 128] [--steps 64] [--threads N] [--reference DIR]
//                       [--backend cpu|gpu-compute|gpu-pixel]
//
// On a GPU backend the caches stay on the device from step to step: each run's present outputs
// are device tensors, handed to the next run as its past (GroupQueryAttention on gpu-compute
// builds the present from them there; only the logits come back to the host).
//
// With --reference (a folder ort_generate.mjs wrote) the run replays ONNX Runtime's tokens and
// checks every step's last logits against ONNX Runtime's (|a - e| <= 1e-3 + 1e-3 |e|).
// Prints the prefill time and the median decode time per token.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace {

struct Reference {
  int64_t prompt = 0;
  std::vector<int64_t> tokens;
  std::vector<float> logits;  // one row of vocab values per step
};

// tokens.json ({"prompt":N,"tokens":[...]}) and logits.f32 as ort_generate.mjs writes them.
Reference read_reference(const std::string& dir) {
  Reference r;
  std::ifstream json(dir + "/tokens.json");
  std::stringstream text;
  text << json.rdbuf();
  std::string s = text.str();
  const size_t p = s.find("\"prompt\":"), t = s.find('[');
  if (!json || p == std::string::npos || t == std::string::npos) {
    throw kiln::Error(dir + "/tokens.json is not what ort_generate.mjs writes");
  }
  r.prompt = std::atoll(s.c_str() + p + 9);
  for (const char* c = s.c_str() + t + 1; *c != ']' && *c != '\0';) {
    char* end = nullptr;
    const long long v = std::strtoll(c, &end, 10);
    if (end == c) throw kiln::Error(dir + "/tokens.json has a token that is not a number");
    r.tokens.push_back(v);
    c = *end == ',' ? end + 1 : end;
  }
  std::ifstream bin(dir + "/logits.f32", std::ios::binary | std::ios::ate);
  if (!bin) throw kiln::Error("cannot read " + dir + "/logits.f32");
  r.logits.resize(static_cast<size_t>(bin.tellg()) / sizeof(float));
  bin.seekg(0);
  bin.read(reinterpret_cast<char*>(r.logits.data()),
           static_cast<std::streamsize>(r.logits.size() * sizeof(float)));
  return r;
}

int64_t argmax(const float* row, int64_t n) {
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i) best = row[i] > row[best] ? i : best;
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> opt{
      {"prompt", "128"}, {"steps", "64"}, {"threads", "0"}, {"backend", "cpu"}};
  std::string model_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--", 0) == 0 && i + 1 < argc) {
      opt[a.substr(2)] = argv[++i];
    } else if (model_path.empty()) {
      model_path = a;
    } else {
      std::fprintf(stderr,
                   "usage: tokengen MODEL.onnx [--prompt N] [--steps N] [--threads N] "
                   "[--reference DIR] [--backend NAME]\n");
      return 2;
    }
  }
  if (model_path.empty()) {
    std::fprintf(stderr,
                 "usage: tokengen MODEL.onnx [--prompt N] [--steps N] [--threads N] "
                 "[--reference DIR] [--backend NAME]\n");
    return 2;
  }
  try {
    const kiln::Backend backend = kiln::parse_backend(opt["backend"]);
    Reference ref;
    const bool check = opt.count("reference") != 0;
    int64_t prompt = std::stoll(opt["prompt"]), steps = std::stoll(opt["steps"]);
    if (check) {
      ref = read_reference(opt["reference"]);
      prompt = ref.prompt;
      steps = static_cast<int64_t>(ref.tokens.size()) - prompt;
    }
    kiln::Model model = kiln::load_model(model_path);
    kiln::WorkerOptions options;
    options.num_threads = std::stoi(opt["threads"]);
    kiln::Worker worker(model, backend, options);
    if (backend != kiln::Backend::Cpu) {
      const std::vector<kiln::NodePlacement> placements = worker.placements();
      const auto native = std::count_if(placements.begin(), placements.end(),
                                        [&](const auto& p) { return p.backend == backend; });
      std::printf("%lld of %zu nodes on %s\n", static_cast<long long>(native), placements.size(),
                  std::string(kiln::backend_name(backend)).c_str());
    }

    // The prompt: ONNX Runtime's, or the same fixed sequence ort_generate.mjs makes.
    std::vector<int64_t> tokens;
    int64_t seed = 1;
    for (int64_t i = 0; i < prompt; ++i) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      tokens.push_back(check ? ref.tokens[i] : seed % 1000);
    }
    // Caches [1, kv_heads, prompt + steps, head], filled as the generation goes.
    std::vector<std::string> past_names;
    std::map<std::string, kiln::Tensor> past;
    for (const auto& in : model.inputs()) {
      if (in.name.rfind("past_key_values.", 0) != 0) continue;
      past_names.push_back(in.name);
      past[in.name] = kiln::Tensor::zeros(
          kiln::DataType::Float32, {1, in.shape.at(1).value, prompt + steps, in.shape.at(3).value});
    }
    std::vector<double> times, cpu_times;
    // Where each cache lies: a step whose present output lies elsewhere copied it.
    // (On a GPU backend the caches are device tensors, whose memory the host cannot see.)
    const bool on_host = backend == kiln::Backend::Cpu;
    std::map<std::string, const void*> cache_memory;
    if (on_host) {
      for (const std::string& name : past_names) cache_memory[name] = past[name].raw_data();
    }
    int64_t copied_steps = 0;
    int64_t matched = 0;
    double worst = 0;
    std::vector<int64_t> input(tokens);
    // The logits come back into one buffer made (and its pages touched) once, for the prompt's
    // rows: a step copies them there, where a fresh host copy a step would first fault in its
    // pages (16 MB for a 128-token prompt).
    int64_t vocab = 0;
    for (const auto& out : model.outputs()) {
      if (out.name == "logits" && !out.shape.empty()) vocab = out.shape.back().value;
    }
    if (vocab <= 0) throw kiln::Error("the model's logits need a fixed vocabulary size");
    std::vector<float> logits(static_cast<size_t>(std::max<int64_t>(prompt, 1) * vocab));
    for (int64_t step = 0; step <= steps; ++step) {
      const int64_t total = static_cast<int64_t>(tokens.size());
      const int64_t n = static_cast<int64_t>(input.size());
      std::vector<kiln::NamedTensor> feed{
          {"input_ids", kiln::Tensor::from_data<int64_t>({1, n}, input)},
          {"attention_mask",
           kiln::Tensor::from_data<int64_t>({1, total}, std::vector<int64_t>(total, 1))}};
      for (const std::string& name : past_names) {
        feed.push_back({name, std::move(past[name]), kiln::InputUse::Donate});
      }
      const auto t0 = std::chrono::steady_clock::now();
      const std::clock_t cpu0 = std::clock();
      worker.schedule(std::span<const kiln::NamedTensor>(feed));
      feed.clear();  // the donated caches are the worker's now
      worker.take_output("logits").download_to(
          std::span<float>(logits.data(), static_cast<size_t>(n * vocab)));
      times.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      cpu_times.push_back(1e3 * static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC);
      bool copied = false;
      for (const std::string& name : past_names) {
        past[name] = worker.take_output("present." + name.substr(16));  // the same memory
        copied = copied || (on_host && past[name].raw_data() != cache_memory[name]);
      }
      copied_steps += copied ? 1 : 0;
      const float* last = logits.data() + (n - 1) * vocab;
      const int64_t next = argmax(last, vocab);
      if (check) {
        const float* expected = ref.logits.data() + step * vocab;
        bool ok = true;
        for (int64_t i = 0; i < vocab; ++i) {
          const double diff = std::abs(double(last[i]) - expected[i]);
          worst = std::max(worst, diff);
          ok = ok && diff <= 1e-3 + 1e-3 * std::abs(expected[i]);
        }
        matched += ok ? 1 : 0;
      }
      if (step < steps) {
        const int64_t chosen = check ? ref.tokens[prompt + step] : next;
        tokens.push_back(chosen);
        input = {chosen};
      }
    }
    std::vector<double> decode(times.begin() + 1, times.end());
    std::sort(decode.begin(), decode.end());
    std::vector<double> decode_cpu(cpu_times.begin() + 1, cpu_times.end());
    std::sort(decode_cpu.begin(), decode_cpu.end());
    const auto median = [](const std::vector<double>& v) {
      return v.empty() ? 0.0 : v[v.size() / 2];
    };
    // CPU time (all threads of the process) beside wall time: on a shared machine, with one
    // thread, it is the steadier measure of the work.
    std::printf(
        "prompt %lld tokens: %.1f ms (CPU %.1f ms); %lld generated: median %.2f ms/token (CPU "
        "%.2f ms) (%.1f tokens/s)\n",
        static_cast<long long>(prompt), times[0], cpu_times[0], static_cast<long long>(steps),
        median(decode), median(decode_cpu), decode.empty() ? 0.0 : 1e3 / median(decode));
    if (on_host) {
      std::printf("key/value caches: %s\n",
                  copied_steps == 0
                      ? "appended in place at every step"
                      : ("copied at " + std::to_string(copied_steps) + " steps").c_str());
    } else {
      std::printf("key/value caches: handed from step to step on %s\n",
                  std::string(kiln::backend_name(backend)).c_str());
    }
    if (check) {
      std::printf("%lld of %lld steps match ONNX Runtime's logits (largest |diff| %.3g)\n",
                  static_cast<long long>(matched), static_cast<long long>(steps + 1), worst);
      return matched == steps + 1 ? 0 : 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokengen: %s\n", e.what());
    return 1;
  }
}
