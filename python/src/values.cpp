#include "values.h"

#include <pybind11/stl.h>

#include <cstring>

#include "deferred_release.h"
#include "dtypes.h"
#include "kiln/interop.h"
#include "tensor_object.h"

namespace py = pybind11;
using kiln::DataType;
using kiln::Tensor;
using kiln::ValueInfo;

namespace kiln_python {
namespace {

std::string describe(const ValueInfo* declared) {
  return declared ? "input '" + declared->name + "'" : std::string("value");
}

kiln::Shape shape_of(const py::array& a) {
  kiln::Shape shape;
  shape.resize(static_cast<size_t>(a.ndim()));
  for (py::ssize_t i = 0; i < a.ndim(); ++i) shape[static_cast<size_t>(i)] = a.shape(i);
  return shape;
}

Tensor string_tensor(const py::array& a, const ValueInfo* declared) {
  Tensor t = Tensor::zeros(DataType::String, shape_of(a));
  std::string* out = t.mutable_data<std::string>();
  py::list items = a.attr("ravel")().attr("tolist")();
  size_t i = 0;
  for (py::handle item : items) {
    if (PyUnicode_Check(item.ptr())) {
      out[i++] = item.cast<std::string>();
    } else if (PyBytes_Check(item.ptr())) {
      out[i++] = std::string(PyBytes_AS_STRING(item.ptr()),
                             static_cast<size_t>(PyBytes_GET_SIZE(item.ptr())));
    } else {
      throw kiln::Error(describe(declared) + ": string elements must be str or bytes, got " +
                        std::string(py::str(py::type::of(item).attr("__name__"))));
    }
  }
  return t;
}

// Types numpy lacks: the array's values converted (float for the float types, int for the small
// integers) the way ONNX's Cast converts them.
template <class Storage, class Source>
Tensor converted(const py::array& a, DataType dtype) {
  auto source = py::array_t<Source, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!source) throw py::error_already_set();
  Tensor t = Tensor::zeros(dtype, shape_of(source));
  auto* out = t.mutable_data<Storage>();
  const Source* in = source.data();
  for (py::ssize_t i = 0; i < source.size(); ++i) out[i] = Storage(in[i]);
  return t;
}

Tensor converted_tensor(const py::array& a, DataType dtype) {
  switch (dtype) {
    case DataType::BFloat16:
      return converted<kiln::BFloat16, float>(a, dtype);
    case DataType::Float8E4M3FN:
      return converted<kiln::Float8E4M3FN, float>(a, dtype);
    case DataType::Float8E4M3FNUZ:
      return converted<kiln::Float8E4M3FNUZ, float>(a, dtype);
    case DataType::Float8E5M2:
      return converted<kiln::Float8E5M2, float>(a, dtype);
    case DataType::Float8E5M2FNUZ:
      return converted<kiln::Float8E5M2FNUZ, float>(a, dtype);
    case DataType::Float8E8M0:
      return converted<kiln::Float8E8M0, float>(a, dtype);
    case DataType::Float4E2M1:
      return converted<kiln::Float4E2M1, float>(a, dtype);
    case DataType::Int4:
      return converted<kiln::Int4, int>(a, dtype);
    case DataType::UInt4:
      return converted<kiln::UInt4, int>(a, dtype);
    case DataType::Int2:
      return converted<kiln::Int2, int>(a, dtype);
    default:
      return converted<kiln::UInt2, int>(a, dtype);
  }
}

Tensor tensor_from_python(py::handle value, const ValueInfo* declared) {
  if (py::isinstance<PyTensor>(value)) return value.cast<PyTensor&>().tensor;
  py::array a = py::array::ensure(value);
  if (!a) {
    PyErr_Clear();
    throw kiln::Error(describe(declared) + ": cannot make a numpy array of a " +
                      std::string(py::str(py::type::of(value).attr("__name__"))));
  }
  const DataType dtype = dtype_from_numpy(a.dtype());
  if (dtype == DataType::String) return string_tensor(a, declared);
  const DataType wanted = declared ? declared->dtype : DataType::Undefined;
  if (is_converted_type(wanted) && dtype != DataType::Undefined && dtype != DataType::Complex64 &&
      dtype != DataType::Complex128) {
    return converted_tensor(a, wanted);
  }
  if (dtype == DataType::Undefined) {
    throw kiln::Error(describe(declared) + ": numpy dtype " + std::string(py::str(a.dtype())) +
                      " has no ONNX element type");
  }
  // Borrow when kiln can read the array as it is; otherwise one contiguous, aligned,
  // native-order copy (numpy.require), which kiln then borrows in turn.
  constexpr int kAligned = py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  const char order = a.dtype().byteorder();
  const bool native = order == '=' || order == '|';
  if (!native || !(a.flags() & py::array::c_style) || !(a.flags() & kAligned)) {
    py::module_ np = py::module_::import("numpy");
    a = np.attr("require")(a, a.dtype().attr("newbyteorder")("="), "CA");
  }
  return kiln::borrow_tensor(dtype, shape_of(a), const_cast<void*>(a.data()), keep_alive(a));
}

Tensor sequence_from_python(py::handle value, const ValueInfo* declared) {
  if (py::isinstance<PyTensor>(value)) return value.cast<PyTensor&>().tensor;
  if (!py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value)) {
    throw kiln::Error(describe(declared) + " is a sequence: pass a list of arrays");
  }
  std::vector<Tensor> elements;
  for (py::handle item : value) elements.push_back(tensor_from_python(item, declared));
  return Tensor::sequence(elements, declared->dtype);
}

}  // namespace

Tensor value_from_python(py::handle value, const ValueInfo* declared) {
  if (!declared) return tensor_from_python(value, declared);
  switch (declared->kind) {
    case ValueInfo::Kind::Sequence:
      return sequence_from_python(value, declared);
    case ValueInfo::Kind::Optional: {
      if (py::isinstance<PyTensor>(value)) return value.cast<PyTensor&>().tensor;
      const bool of_sequence = declared->element_kind == ValueInfo::Kind::Sequence;
      if (value.is_none()) {
        return Tensor::empty_optional(
            declared->dtype, of_sequence ? kiln::ValueKind::Sequence : kiln::ValueKind::Tensor);
      }
      return Tensor::optional(of_sequence ? sequence_from_python(value, declared)
                                          : tensor_from_python(value, declared));
    }
    default:
      return tensor_from_python(value, declared);
  }
}

std::vector<kiln::NamedTensor> Feeds::named() const {
  std::vector<kiln::NamedTensor> out;
  out.reserve(names.size());
  for (size_t i = 0; i < names.size(); ++i) out.push_back({names[i], tensors[i]});
  return out;
}

Feeds feeds_from_python(const kiln::Model& model, py::handle feeds) {
  Feeds out;
  const auto& inputs = model.inputs();
  auto declared = [&](const std::string& name) -> const ValueInfo* {
    for (const ValueInfo& v : inputs)
      if (v.name == name) return &v;
    return nullptr;
  };
  if (PyDict_Check(feeds.ptr()) || py::hasattr(feeds, "items")) {
    py::object items = PyDict_Check(feeds.ptr()) ? py::reinterpret_borrow<py::object>(feeds)
                                                 : feeds.attr("items")();
    auto add = [&](py::handle key, py::handle value) {
      if (!PyUnicode_Check(key.ptr())) throw kiln::Error("input names must be str");
      out.names.push_back(key.cast<std::string>());
      out.tensors.push_back(value_from_python(value, declared(out.names.back())));
    };
    if (PyDict_Check(feeds.ptr())) {
      for (auto [key, value] : py::reinterpret_borrow<py::dict>(feeds)) add(key, value);
    } else {
      for (py::handle kv : items) add(kv[py::int_(0)], kv[py::int_(1)]);
    }
    return out;
  }
  if (inputs.size() != 1) {
    throw kiln::Error("the model has " + std::to_string(inputs.size()) +
                      " inputs: pass a dict of input names to values");
  }
  out.names.push_back(inputs[0].name);
  out.tensors.push_back(value_from_python(feeds, &inputs[0]));
  return out;
}

Tensor host_value(const Tensor& value) {
  if (!value.is_pending()) {
    kiln::wait_ready(value);  // does not block: rethrows the error of a failed layer
    if (!kiln::on_device(value)) return value;
  }
  WithoutGil unlocked;
  kiln::wait_ready(value);
  if (value.kind() == kiln::ValueKind::Tensor && kiln::on_device(value))
    return value.readback_and_clone();
  return value;
}

py::array array_view(const Tensor& host) {
  std::vector<py::ssize_t> shape(host.shape().begin(), host.shape().end());
  auto* keep = new Tensor(host);
  py::capsule base(keep, [](void* p) { delete static_cast<Tensor*>(p); });
  return py::array(numpy_dtype(host.dtype()), shape, const_cast<void*>(host.raw_data()), base);
}

namespace {

py::object string_array(const Tensor& host) {
  const std::string* in = host.data<std::string>();
  py::list items(static_cast<size_t>(host.element_count()));
  for (int64_t i = 0; i < host.element_count(); ++i) {
    PyObject* s =
        PyUnicode_DecodeUTF8(in[i].data(), static_cast<py::ssize_t>(in[i].size()), nullptr);
    if (s) {
      items[static_cast<size_t>(i)] = py::reinterpret_steal<py::object>(s);
    } else {  // not UTF-8: the bytes as they are
      PyErr_Clear();
      items[static_cast<size_t>(i)] = py::bytes(in[i]);
    }
  }
  py::module_ np = py::module_::import("numpy");
  std::vector<py::ssize_t> shape(host.shape().begin(), host.shape().end());
  py::object flat = np.attr("array")(items, py::arg("dtype") = "O");
  return flat.attr("reshape")(py::tuple(py::cast(shape)));
}

template <class Storage>
py::array float_array(const Tensor& host) {
  std::vector<py::ssize_t> shape(host.shape().begin(), host.shape().end());
  py::array_t<float> out(shape);
  const Storage* in = host.data<Storage>();
  float* o = out.mutable_data();
  for (int64_t i = 0; i < host.element_count(); ++i) o[i] = static_cast<float>(in[i]);
  return out;
}

}  // namespace

py::object python_from_host_value(const Tensor& host) {
  switch (host.kind()) {
    case kiln::ValueKind::Sequence: {
      py::list items;
      for (const Tensor& e : host.elements()) items.append(python_from_host_value(host_value(e)));
      return items;
    }
    case kiln::ValueKind::Optional:
      return host.has_value() ? python_from_host_value(host_value(host.value())) : py::none();
    default:
      break;
  }
  const DataType dtype = host.dtype();
  if (same_bytes_in_numpy(dtype)) return array_view(host);
  switch (dtype) {
    case DataType::String:
      return string_array(host);
    case DataType::BFloat16:
      return float_array<kiln::BFloat16>(host);
    case DataType::Float8E4M3FN:
      return float_array<kiln::Float8E4M3FN>(host);
    case DataType::Float8E4M3FNUZ:
      return float_array<kiln::Float8E4M3FNUZ>(host);
    case DataType::Float8E5M2:
      return float_array<kiln::Float8E5M2>(host);
    case DataType::Float8E5M2FNUZ:
      return float_array<kiln::Float8E5M2FNUZ>(host);
    case DataType::Float8E8M0:
      return float_array<kiln::Float8E8M0>(host);
    case DataType::Float4E2M1:
      return float_array<kiln::Float4E2M1>(host);
    default:
      throw kiln::Error("a value of type " + std::string(kiln::dtype_name(dtype)) +
                        " has no numpy form");
  }
}

}  // namespace kiln_python
