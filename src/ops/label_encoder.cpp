// LabelEncoder (ai.onnx.ml): maps each input element through a key -> value table, and
// elements without a key to a default.
//
// Opset 1 maps strings to their index in classes_strings or indices back to strings; opsets 2
// and up give keys and values as keys_{floats,int64s,strings} and values_*, and opset 4 also
// as tensors (keys_tensor, values_tensor, default_tensor) of more element types. NaN keys match
// NaN inputs; later duplicate keys replace earlier ones.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/dtype_dispatch.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/ml_ops.h"

namespace kiln {
namespace {

bool is_label_dtype(DataType t) {
  return t == DataType::String || t == DataType::Int64 || t == DataType::Int32 ||
         t == DataType::Int16 || t == DataType::Float32 || t == DataType::Float64;
}

// The keys, indexed by value. Integer keys of any width share one table, and so do float and
// double keys (a float widens to double exactly).
class KeyIndex {
 public:
  KeyIndex(const NodeInfo& info, const Tensor& keys) : dtype_(keys.dtype()) {
    if (!is_label_dtype(keys.dtype())) {
      info.fail("keys of type " + std::string(dtype_name(keys.dtype())) + " are not supported");
    }
    visit_dtype(keys.dtype(), [&]<class T>() {
      if constexpr (std::is_same_v<T, std::string> || is_plain_int_v<T> ||
                    std::is_floating_point_v<T>) {
        const T* k = keys.data<T>();
        for (int64_t i = 0; i < keys.element_count(); ++i) add(k[i], i);
      }
    });
  }

  DataType dtype() const { return dtype_; }

  // The position of `key` among the keys, -1 when it is not one of them.
  int64_t find(const std::string& key) const { return lookup(strings_, key); }
  int64_t find(int64_t key) const { return lookup(ints_, key); }
  int64_t find(double key) const {
    if (std::isnan(key)) return nan_index_;
    return lookup(floats_, key + 0.0);  // + 0.0 folds -0.0 into 0.0
  }

 private:
  void add(const std::string& key, int64_t i) { strings_[key] = i; }
  template <class T>
  void add(T key, int64_t i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(key)) {
        nan_index_ = i;
      } else {
        floats_[static_cast<double>(key) + 0.0] = i;
      }
    } else {
      ints_[static_cast<int64_t>(key)] = i;
    }
  }
  template <class Map, class K>
  static int64_t lookup(const Map& map, const K& key) {
    auto it = map.find(key);
    return it == map.end() ? -1 : it->second;
  }

  DataType dtype_;
  std::unordered_map<std::string, int64_t> strings_;
  std::unordered_map<int64_t, int64_t> ints_;
  std::unordered_map<double, int64_t> floats_;
  int64_t nan_index_ = -1;
};

// One key -> value table with its default.
struct Encoder {
  std::shared_ptr<const KeyIndex> keys;
  Tensor values;         // 1-D, the output element type
  Tensor default_value;  // one element of the output type
};

// Whether an input of type `input` can be looked up among keys of type `keys`.
bool same_key_family(DataType input, DataType keys) {
  const auto family = [](DataType t) {
    if (t == DataType::String) return 0;
    if (t == DataType::Float32 || t == DataType::Float64) return 1;
    return 2;
  };
  return is_label_dtype(input) && family(input) == family(keys);
}

void encode(const Encoder& e, OpContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (!same_key_family(x.dtype(), e.keys->dtype())) {
    ctx.fail("input of type " + std::string(dtype_name(x.dtype())) +
             " does not match keys of type " + std::string(dtype_name(e.keys->dtype())));
  }
  const int64_t n = x.element_count();
  std::vector<int64_t> positions(static_cast<size_t>(n));
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, std::string>) {
      const T* in = x.data<T>();
      for (int64_t i = 0; i < n; ++i) positions[i] = e.keys->find(in[i]);
    } else if constexpr (std::is_floating_point_v<T>) {
      const T* in = x.data<T>();
      for (int64_t i = 0; i < n; ++i) positions[i] = e.keys->find(static_cast<double>(in[i]));
    } else if constexpr (is_plain_int_v<T>) {
      const T* in = x.data<T>();
      for (int64_t i = 0; i < n; ++i) positions[i] = e.keys->find(static_cast<int64_t>(in[i]));
    }
  });
  Tensor& y = ctx.allocate_output(0, e.values.dtype(), x.shape());
  visit_dtype(e.values.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, std::string> || is_plain_int_v<T> ||
                  std::is_floating_point_v<T>) {
      const T* values = e.values.data<T>();
      const T& fallback = e.default_value.data<T>()[0];
      T* out = y.mutable_data<T>();
      for (int64_t i = 0; i < n; ++i) out[i] = positions[i] >= 0 ? values[positions[i]] : fallback;
    }
  });
}

template <class T>
Tensor vector_tensor(const std::vector<T>& v) {
  return Tensor::from_data<T>(Shape{static_cast<int64_t>(v.size())}, v);
}

// The keys_* or values_* list given (prefix "keys" or "values"): one of the typed lists or,
// from opset 4, the tensor attribute.
Tensor read_list(const NodeInfo& info, const std::string& prefix) {
  std::vector<Tensor> given;
  if (info.has_attr(prefix + "_strings"))
    given.push_back(vector_tensor(info.attr_strings(prefix + "_strings")));
  if (info.has_attr(prefix + "_int64s"))
    given.push_back(vector_tensor(info.attr_ints(prefix + "_int64s")));
  if (info.has_attr(prefix + "_floats"))
    given.push_back(vector_tensor(info.attr_floats(prefix + "_floats")));
  if (info.has_attr(prefix + "_tensor")) {
    if (info.opset() < 4) info.fail(prefix + "_tensor needs ai.onnx.ml opset 4 or later");
    Tensor t = *info.attr_tensor(prefix + "_tensor");
    given.push_back(t.reshaped(Shape{t.element_count()}));
  }
  if (given.size() != 1) {
    info.fail("exactly one of " + prefix + "_strings, " + prefix + "_int64s, " + prefix +
              "_floats" + (info.opset() >= 4 ? ", " + prefix + "_tensor" : std::string()) +
              " is needed, got " + std::to_string(given.size()));
  }
  if (!is_label_dtype(given[0].dtype())) {
    info.fail(prefix + " of type " + std::string(dtype_name(given[0].dtype())) +
              " are not supported");
  }
  return given[0];
}

// default_tensor when given, otherwise the default_* attribute matching the values' type.
Tensor read_default(const NodeInfo& info, DataType values_type) {
  if (info.has_attr("default_tensor")) {
    Tensor t = *info.attr_tensor("default_tensor");
    if (t.element_count() != 1) info.fail("default_tensor must hold exactly one element");
    if (t.dtype() != values_type) {
      info.fail("default_tensor has type " + std::string(dtype_name(t.dtype())) +
                " but the values have type " + std::string(dtype_name(values_type)));
    }
    return t.reshaped(Shape{});
  }
  switch (values_type) {
    case DataType::String:
      return Tensor::scalar<std::string>(info.attr_string("default_string", "_Unused"));
    case DataType::Int64:
      return Tensor::scalar<int64_t>(info.attr_int("default_int64", -1));
    case DataType::Int32:
      return Tensor::scalar<int32_t>(-1);
    case DataType::Int16:
      return Tensor::scalar<int16_t>(-1);
    case DataType::Float64:
      return Tensor::scalar<double>(-0.0);
    default:
      return Tensor::scalar<float>(info.attr_float("default_float", -0.0f));
  }
}

CpuKernel make_label_encoder(const NodeInfo& info) {
  if (info.opset() < 2) {
    // Opset 1: strings -> their index in classes_strings, or indices -> strings; the input type
    // picks the direction at run time.
    const std::vector<std::string> classes = info.attr_strings("classes_strings");
    std::vector<int64_t> indices(classes.size());
    for (size_t i = 0; i < classes.size(); ++i) indices[i] = static_cast<int64_t>(i);
    const Tensor class_tensor = vector_tensor(classes), index_tensor = vector_tensor(indices);
    const Encoder to_index{std::make_shared<const KeyIndex>(info, class_tensor), index_tensor,
                           Tensor::scalar<int64_t>(info.attr_int("default_int64", -1))};
    const Encoder to_string{
        std::make_shared<const KeyIndex>(info, index_tensor), class_tensor,
        Tensor::scalar<std::string>(info.attr_string("default_string", "_Unused"))};
    return [to_index, to_string](OpContext& ctx) {
      encode(ctx.input(0).dtype() == DataType::String ? to_index : to_string, ctx);
    };
  }
  const Tensor keys = read_list(info, "keys");
  Tensor values = read_list(info, "values");
  if (keys.element_count() != values.element_count()) {
    info.fail("there are " + std::to_string(keys.element_count()) + " keys but " +
              std::to_string(values.element_count()) + " values");
  }
  const Encoder encoder{std::make_shared<const KeyIndex>(info, keys), values,
                        read_default(info, values.dtype())};
  return [encoder](OpContext& ctx) { encode(encoder, ctx); };
}

}  // namespace

KILN_CPU_OPS(label_encoder);
void register_label_encoder_ops(OpRegistry& registry) {
  registry.add(kMlDomain, "LabelEncoder", make_label_encoder);
}

}  // namespace kiln
