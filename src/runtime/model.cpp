#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>

#include "core/host_memory.h"
#include "core/memory_budget.h"
#include "format/kiln_file.h"
#include "ir/graph.h"
#include "onnx/importer.h"
#include "runtime/kernel_hooks.h"

namespace kiln {

std::string ValueInfo::to_string() const {
  std::string s;
  if (kind == Kind::Sequence) s += "seq(";
  if (kind == Kind::Optional) s += element_kind == Kind::Sequence ? "optional(seq(" : "optional(";
  s += dtype == DataType::Undefined ? "?" : std::string(dtype_name(dtype));
  if (has_shape) {
    s += "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + shape[i].to_string();
    s += "]";
  }
  if (kind == Kind::Sequence || kind == Kind::Optional) s += ")";
  if (kind == Kind::Optional && element_kind == Kind::Sequence) s += ")";
  return s;
}

const std::vector<ValueInfo>& Model::inputs() const { return ir_->inputs; }
const std::vector<ValueInfo>& Model::outputs() const { return ir_->outputs; }
int64_t Model::ir_version() const { return ir_->ir_version; }
int Model::opset(const std::string& domain) const { return ir_->opset_for(domain); }
const std::string& Model::producer() const { return ir_->producer; }
size_t Model::node_count() const { return ir_->graph.nodes.size(); }

namespace {

Model checked_saved_model(std::shared_ptr<ir::Model> model, const LoadOptions& options) {
  passes::run_saved_model_checks(*model, options, cpu_kernel_hooks());
  return Model(std::move(model));
}

}  // namespace

Model load_model_from_bytes(const void* data, size_t size, const std::string& base_dir,
                            const LoadOptions& options) {
  const auto budget = MemoryBudget::create(options.memory_limit);
  MemoryScope scope(budget.get());
  if (format::has_kiln_magic(data, size)) {
    // The model's tensors point into the image: a copy of its own, 64-byte aligned.
    void* copy = ::operator new (std::max<size_t>(size, 1), std::align_val_t{64});
    std::shared_ptr<void> image(copy, [](void* p) { ::operator delete (p, std::align_val_t{64}); });
    std::memcpy(copy, data, size);
    return checked_saved_model(format::read_model(copy, size, image, "model"), options);
  }
  auto model = onnx_import::import_model(data, size, "model", base_dir);
  prepare_model(*model, options);
  return Model(std::move(model));
}

Model load_model(const std::string& path, const LoadOptions& options) {
  const auto budget = MemoryBudget::create(options.memory_limit);
  MemoryScope scope(budget.get());
  std::ifstream file(path, std::ios::binary);
  check(file.good(), path + ": cannot open the model file");
  char magic[8] = {};
  file.read(magic, sizeof magic);
  if (format::has_kiln_magic(magic, static_cast<size_t>(file.gcount())))
    return checked_saved_model(format::read_model_file(path), options);
  // Read in one piece into a buffer of the file's size: growing a string as the bytes come in
  // leaves a trail of freed blocks as large as the model on the heap, which stays resident.
  file.clear();
  file.seekg(0, std::ios::end);
  const std::streamoff length = file.tellg();
  check(length >= 0, path + ": cannot read the model file");
  file.seekg(0);
  const size_t size = static_cast<size_t>(length);
  HostArray<char> bytes = allocate_host_array<char>(std::max<size_t>(size, 1));
  file.read(bytes.get(), length);
  check(file.gcount() == length, path + ": cannot read the model file");
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const std::string base_dir = parent.empty() ? std::string(".") : parent.string();
  auto model =
      onnx_import::import_model(bytes.get(), size, path, base_dir, [&bytes] { bytes.reset(); });
  prepare_model(*model, options);
  return Model(std::move(model));
}

void save_model(const Model& model, const std::string& path) {
  format::write_model_file(*model.ir(), path);
}

}  // namespace kiln
