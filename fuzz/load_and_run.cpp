#include "load_and_run.h"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kiln/error.h"
#include "kiln/model.h"
#include "kiln/worker.h"

namespace kiln::fuzz {

namespace {

// Inputs larger than this are not made: a model may declare any size, and a fuzzer that spends
// its time filling gigabytes finds nothing.
constexpr int64_t kMaxInputElements = int64_t{1} << 16;

// What a model may ask for, loading and running: past these it must stop with a kiln::Error
// (the memory budget, the deadline), well before libFuzzer's own limits (-rss_limit_mb,
// -timeout) would call it a finding.
constexpr uint64_t kMemoryLimit = uint64_t{512} << 20;
constexpr std::chrono::milliseconds kDeadline{250};

// The declared input with every unknown or symbolic dimension set to 1; nullopt for inputs that
// are not plain tensors or are too large to make.
std::optional<Tensor> make_input(const ValueInfo& info) {
  if (info.kind != ValueInfo::Kind::Tensor || info.dtype == DataType::Undefined) return {};
  std::vector<int64_t> dims;
  int64_t elements = 1;
  for (const Dim& dim : info.shape) {
    const int64_t size = dim.is_fixed() ? dim.value : 1;
    if (size > kMaxInputElements) return {};
    elements *= size;
    if (elements > kMaxInputElements) return {};
    dims.push_back(size);
  }
  return Tensor::zeros(info.dtype, Shape(dims));
}

std::optional<Model> load(const uint8_t* data, size_t size) {
  try {
    return load_model_from_bytes(data, size, no_external_data_dir(),
                                 {.memory_limit = kMemoryLimit});
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

const std::string& no_external_data_dir() {
  static const std::string dir = [] {
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / "kiln-fuzz-no-external-data";
    std::filesystem::create_directories(path);
    return path.string();
  }();
  return dir;
}

void load_model_only(const uint8_t* data, size_t size) { (void)load(data, size); }

void load_and_run_once(const uint8_t* data, size_t size) {
  const std::optional<Model> model = load(data, size);
  if (!model) return;
  std::vector<Tensor> tensors;
  std::vector<NamedTensor> inputs;
  tensors.reserve(model->inputs().size());
  for (const ValueInfo& info : model->inputs()) {
    std::optional<Tensor> input = make_input(info);
    if (!input) return;
    tensors.push_back(std::move(*input));
    inputs.push_back({info.name, tensors.back()});
  }
  try {
    Worker worker(*model, Backend::Cpu,
                  {.num_threads = 1, .memory_limit = kMemoryLimit, .deadline = kDeadline});
    worker.schedule(std::span<const NamedTensor>(inputs));
    for (const ValueInfo& output : model->outputs())
      (void)worker.peek_output(output.name).readback_and_clone();
  } catch (const Error&) {
  }
}

}  // namespace kiln::fuzz
