// kiln test-onnx: runs ONNX backend test folders (model.onnx + test_data_set_*/input_N.pb,
// output_N.pb) and compares like the ONNX backend runner: same dtype and shape, values within
// |actual - expected| <= atol + rtol * |expected|, NaN where NaN is expected.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "command.h"
#include "core/dtype_dispatch.h"
#include "kiln/kiln.h"
#include "options.h"
#include "shape_coverage.h"

namespace fs = std::filesystem;

namespace kiln::cli {

namespace {

struct Outcome {
  enum Kind { Pass, Fail, Skip } kind = Fail;
  std::string message;
  std::optional<ShapeCoverage> coverage;  // with --verify-shapes, once the model loaded
};

ValueKind value_kind(const ValueInfo& info) {
  switch (info.kind) {
    case ValueInfo::Kind::Sequence:
      return ValueKind::Sequence;
    case ValueInfo::Kind::Optional:
      return ValueKind::Optional;
    default:
      return ValueKind::Tensor;
  }
}

std::string describe_mismatch(const Tensor& actual, const Tensor& expected, double rtol,
                              double atol) {
  if (actual.kind() != expected.kind() || expected.kind() != ValueKind::Tensor) {
    if (actual.kind() != expected.kind() || actual.elements().size() != expected.elements().size())
      return actual.to_string(4) + ", expected " + expected.to_string(4);
    for (size_t i = 0; i < expected.elements().size(); ++i) {
      const Tensor& a = actual.elements()[i];
      const Tensor& e = expected.elements()[i];
      if (!all_close(a, e, rtol, atol))
        return "element " + std::to_string(i) + ": " + describe_mismatch(a, e, rtol, atol);
    }
    return "values differ";
  }
  if (actual.dtype() != expected.dtype()) {
    return "dtype " + std::string(dtype_name(actual.dtype())) + ", expected " +
           std::string(dtype_name(expected.dtype()));
  }
  if (actual.shape() != expected.shape()) {
    return "shape " + actual.shape().to_string() + ", expected " + expected.shape().to_string();
  }
  std::ostringstream out;
  int64_t bad = 0;
  visit_dtype(expected.dtype(), [&]<class T>() {
    const T* a = actual.data<T>();
    const T* e = expected.data<T>();
    for (int64_t i = 0; i < expected.element_count(); ++i) {
      bool ok;
      if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool> || is_complex_v<T>) {
        ok = a[i] == e[i];
      } else {
        const double av = to_double(a[i]), ev = to_double(e[i]);
        ok = std::isnan(ev)
                 ? std::isnan(av)
                 : (std::isinf(ev) ? av == ev : std::abs(av - ev) <= atol + rtol * std::abs(ev));
      }
      if (!ok && bad++ == 0)
        out << "element " << i << " is " << to_printable(a[i]) << ", expected "
            << to_printable(e[i]);
    }
  });
  out << " (" << bad << " of " << expected.element_count() << " elements differ)";
  return out.str();
}

std::vector<fs::path> sorted_files(const fs::path& dir, const std::string& prefix) {
  std::vector<std::pair<int, fs::path>> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && entry.path().extension() == ".pb") {
      files.emplace_back(std::atoi(name.c_str() + prefix.size()), entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<fs::path> out;
  for (auto& f : files) out.push_back(f.second);
  return out;
}

struct Settings {
  Backend backend = Backend::Cpu;
  WorkerOptions worker;
  LoadOptions load;
  double rtol = 1e-3, atol = 1e-7;
  int timeout_s = 120;
};

Outcome run_data_sets(const Model& model, const fs::path& dir, const Settings& settings) {
  const double rtol = settings.rtol, atol = settings.atol;
  Worker worker(model, settings.backend, settings.worker);
  std::vector<fs::path> data_sets;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0)
      data_sets.push_back(entry.path());
  }
  std::sort(data_sets.begin(), data_sets.end());
  if (data_sets.empty()) return {Outcome::Skip, "no test_data_set folder"};
  for (const auto& set : data_sets) {
    const auto inputs = sorted_files(set, "input_");
    const auto outputs = sorted_files(set, "output_");
    const auto& declared = model.inputs();
    if (inputs.size() > declared.size()) {
      return {Outcome::Fail, set.filename().string() + " has " + std::to_string(inputs.size()) +
                                 " inputs, the model takes " + std::to_string(declared.size())};
    }
    std::vector<Tensor> input_tensors;
    std::vector<NamedTensor> named;
    for (size_t i = 0; i < inputs.size(); ++i)
      input_tensors.push_back(load_tensor(inputs[i].string(), value_kind(declared[i])));
    for (size_t i = 0; i < inputs.size(); ++i)
      named.push_back({declared[i].name, input_tensors[i]});
    worker.schedule(std::span<const NamedTensor>(named));
    const auto& outs = model.outputs();
    if (outputs.size() != outs.size()) {
      return {Outcome::Fail, "the test has " + std::to_string(outputs.size()) +
                                 " outputs, the model " + std::to_string(outs.size())};
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      Tensor expected = load_tensor(outputs[i].string(), value_kind(outs[i]));
      Tensor actual = worker.peek_output(outs[i].name).readback_and_clone();
      if (!all_close(actual, expected, rtol, atol)) {
        return {Outcome::Fail, "output '" + outs[i].name +
                                   "': " + describe_mismatch(actual, expected, rtol, atol)};
      }
    }
  }
  return {Outcome::Pass, ""};
}

Outcome run_test(const fs::path& dir, const Settings& settings) {
  Model model = load_model((dir / "model.onnx").string(), settings.load);
  std::optional<ShapeCoverage> coverage;
  if (settings.worker.verify_shapes) coverage = shape_coverage(*model.ir());
  Outcome o = run_data_sets(model, dir, settings);
  o.coverage = coverage;
  return o;
}

// The child's result on the pipe: "<kind><outputs>,<predicted>;<message>" (counts empty when
// not measured).
std::string encode(const Outcome& o) {
  std::string s = std::to_string(static_cast<int>(o.kind));
  if (o.coverage)
    s += std::to_string(o.coverage->outputs) + "," + std::to_string(o.coverage->predicted);
  return s + ";" + o.message;
}

Outcome decode(const std::string& msg) {
  Outcome o{static_cast<Outcome::Kind>(msg[0] - '0'), "", std::nullopt};
  const size_t semi = msg.find(';');
  const std::string counts = msg.substr(1, semi - 1);
  if (const size_t comma = counts.find(','); comma != std::string::npos) {
    o.coverage =
        ShapeCoverage{std::stoul(counts.substr(0, comma)), std::stoul(counts.substr(comma + 1))};
  }
  o.message = msg.substr(semi + 1);
  return o;
}

// Runs one test in a child process, so that a crash or a hang fails that test only.
Outcome run_isolated(const fs::path& dir, const Settings& settings) {
  const int timeout_s = settings.timeout_s;
  int fds[2];
  if (pipe(fds) != 0) return run_test(dir, settings);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(static_cast<unsigned>(timeout_s));
    Outcome o;
    try {
      o = run_test(dir, settings);
    } catch (const std::exception& e) {
      o = {Outcome::Fail, e.what(), std::nullopt};
    }
    const std::string msg = encode(o);
    (void)!write(fds[1], msg.data(), msg.size());
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string msg;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) msg.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (msg.empty()) {
    if (WIFSIGNALED(status)) {
      const int sig = WTERMSIG(status);
      return {Outcome::Fail, sig == SIGALRM ? "timed out after " + std::to_string(timeout_s) + " s"
                                            : "crashed with signal " + std::to_string(sig)};
    }
    return {Outcome::Fail, "the test process exited without a result"};
  }
  return decode(msg);
}

std::map<std::string, std::string> read_known_failures(const std::string& path) {
  std::map<std::string, std::string> known;
  if (path.empty()) return known;
  std::ifstream file(path);
  check(file.good(), path + ": cannot open the known-failures file");
  std::string line;
  while (std::getline(file, line)) {
    const size_t hash = line.find('#');
    std::string name = line.substr(0, hash);
    name.erase(std::remove_if(name.begin(), name.end(), ::isspace), name.end());
    if (!name.empty()) known[name] = hash == std::string::npos ? "" : line.substr(hash + 1);
  }
  return known;
}

struct TestOnnxOptions {
  std::vector<std::string> dirs;
  WorkerFlags worker;
  LoadFlags load;
  std::string filter = ".*";
  double rtol = 1e-3, atol = 1e-7;
  std::string known_failures;
  int timeout_s = 120;
  bool verbose = false;
};

int test_onnx(const TestOnnxOptions& o) {
  Settings settings;
  settings.backend = o.worker.backend_kind();
  settings.worker = o.worker.options();
  settings.load = o.load.options();
  settings.rtol = o.rtol;
  settings.atol = o.atol;
  settings.timeout_s = o.timeout_s;
  const std::regex filter(o.filter);
  const bool verbose = o.verbose;
  const std::string& known_path = o.known_failures;
  const auto known = read_known_failures(known_path);

  std::vector<fs::path> tests;
  for (const auto& arg : o.dirs) {
    const fs::path dir(arg);
    check(fs::is_directory(dir), arg + ": not a folder");
    if (fs::exists(dir / "model.onnx")) {
      tests.push_back(dir);
      continue;
    }
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (fs::exists(entry.path() / "model.onnx")) tests.push_back(entry.path());
    }
  }
  check(!tests.empty(), "no test folders given (see kiln test-onnx --help)");
  std::sort(tests.begin(), tests.end());

  int passed = 0, failed = 0, skipped = 0, unexpected_failures = 0, unexpected_passes = 0;
  ShapeCoverage coverage;
  int measured = 0, complete = 0;
  for (const auto& dir : tests) {
    const std::string name = dir.filename().string();
    if (!std::regex_search(name, filter)) continue;
    const Outcome o = run_isolated(dir, settings);
    const bool is_known = known.count(name) > 0;
    if (o.coverage) {
      ++measured;
      complete += o.coverage->complete() ? 1 : 0;
      coverage.outputs += o.coverage->outputs;
      coverage.predicted += o.coverage->predicted;
    }
    switch (o.kind) {
      case Outcome::Pass:
        ++passed;
        if (is_known) {
          ++unexpected_passes;
          std::cout << "PASS " << name
                    << "  (listed as a known failure: remove it from the list)\n";
        } else if (verbose) {
          std::cout << "PASS " << name << "\n";
        }
        break;
      case Outcome::Fail:
        ++failed;
        if (!is_known) ++unexpected_failures;
        std::cout << "FAIL " << name << (is_known ? " (known)" : "") << ": " << o.message << "\n";
        break;
      case Outcome::Skip:
        ++skipped;
        std::cout << "SKIP " << name << ": " << o.message << "\n";
        break;
    }
    std::cout.flush();
  }
  if (!known_path.empty()) {
    std::cout << "unexpected failures: " << unexpected_failures
              << ", known failures that passed: " << unexpected_passes << "\n";
  }
  if (measured > 0) {
    std::cout << "shape inference predicted " << coverage.predicted << " of " << coverage.outputs
              << " node outputs (dtype and rank); every output in " << complete << " of "
              << measured << " models\n";
  }
  std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped\n";
  if (!known_path.empty()) return unexpected_failures == 0 && unexpected_passes == 0 ? 0 : 1;
  return failed == 0 ? 0 : 1;
}

const Registration kCommand{
    "test-onnx", "run ONNX backend test folders and compare with their expected outputs",
    [](CLI::App& cmd) {
      cmd.footer(
          "DIR is a test folder (holding model.onnx and test_data_set_*) or a folder of them.\n"
          "Each test runs in a child process, so a crash or a hang fails that test only.\n"
          "Closes with the line \"N passed, N failed, N skipped\".");
      auto o = std::make_shared<TestOnnxOptions>();
      cmd.add_option("dirs", o->dirs, "test folders, or folders of them")
          ->required()
          ->type_name("DIR...");
      cmd.add_option("--filter", o->filter, "run only tests whose name matches REGEX")
          ->check(regex_validator())
          ->type_name("REGEX");
      cmd.add_option("--rtol", o->rtol, "relative tolerance (default 1e-3, as the ONNX runner)")
          ->check(non_negative_number())
          ->type_name("R");
      cmd.add_option("--atol", o->atol, "absolute tolerance (default 1e-7, as the ONNX runner)")
          ->check(non_negative_number())
          ->type_name("A");
      cmd.add_option("--known-failures", o->known_failures,
                     "tests expected to fail, one per line (\"name  # reason\"); the exit status "
                     "is then 0 unless a test not listed fails or a listed one passes")
          ->type_name("FILE");
      cmd.add_option("--timeout", o->timeout_s,
                     "seconds per test before it counts as failed (default 120)")
          ->check(integer_in(1, 86400))
          ->type_name("S");
      cmd.add_flag("--verbose,-v", o->verbose, "print passing tests too");
      add_worker_flags(cmd, o->worker, {.verify_shapes = true});
      add_load_flags(cmd, o->load);
      return [o] { return test_onnx(*o); };
    }};

}  // namespace

}  // namespace kiln::cli
