#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

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

Model load_model_from_bytes(const void* data, size_t size, const std::string& base_dir,
                            const LoadOptions& options) {
  auto model = onnx_import::import_model(data, size, "model", base_dir);
  prepare_model(*model, options);
  return Model(std::move(model));
}

Model load_model(const std::string& path, const LoadOptions& options) {
  std::ifstream file(path, std::ios::binary);
  check(file.good(), path + ": cannot open the model file");
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  auto model = onnx_import::import_model(bytes.data(), bytes.size(), path, base_dir);
  prepare_model(*model, options);
  return Model(std::move(model));
}

}  // namespace kiln
