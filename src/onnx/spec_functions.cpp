#include "onnx/spec_functions.h"

#include <map>
#include <string_view>
#include <tuple>

#include "onnx/importer.h"

namespace kiln::onnx_import {

namespace {

struct SerializedFunction {
  std::string_view domain, op_type;
  int since_opset;
  std::string_view proto;
};

constexpr SerializedFunction kSerialized[] = {
#include "onnx/spec_functions.inc"
};

using Key = std::tuple<std::string, std::string, int>;  // domain, op type, since opset

const std::map<Key, ir::Function>& library() {
  static const std::map<Key, ir::Function> functions = [] {
    std::map<Key, ir::Function> all;
    for (const auto& f : kSerialized) {
      all.emplace(Key{std::string(f.domain), std::string(f.op_type), f.since_opset},
                  import_function(f.proto.data(), f.proto.size(),
                                  "ONNX function " + std::string(f.op_type)));
    }
    return all;
  }();
  return functions;
}

}  // namespace

const ir::Function* spec_function(const std::string& domain, const std::string& op_type,
                                  int opset) {
  const auto& all = library();
  const std::string d = ir::canonical_domain(domain);
  auto it = all.upper_bound(Key{d, op_type, opset});
  if (it == all.begin()) return nullptr;
  --it;
  const auto& [found_domain, found_op, since] = it->first;
  return found_domain == d && found_op == op_type ? &it->second : nullptr;
}

}  // namespace kiln::onnx_import
