// kiln.Tensor: readback calls, numpy() and the buffer protocol (no copy for host data).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "deferred_release.h"
#include "dtypes.h"
#include "kiln/interop.h"
#include "tensor_object.h"
#include "values.h"

namespace py = pybind11;
using kiln::DataType;

namespace kiln_python {
namespace {

// PEP 3118 format characters; numpy's dtype.char differs for the complex types.
const char* buffer_format(DataType dtype) {
  switch (dtype) {
    case DataType::Float32:
      return "f";
    case DataType::Float64:
      return "d";
    case DataType::Float16:
      return "e";
    case DataType::Int8:
    case DataType::Int4:
    case DataType::Int2:
      return "b";
    case DataType::UInt8:
    case DataType::UInt4:
    case DataType::UInt2:
      return "B";
    case DataType::Int16:
      return "h";
    case DataType::UInt16:
      return "H";
    case DataType::Int32:
      return "i";
    case DataType::UInt32:
      return "I";
    case DataType::Int64:
      return "q";
    case DataType::UInt64:
      return "Q";
    case DataType::Bool:
      return "?";
    case DataType::Complex64:
      return "Zf";
    case DataType::Complex128:
      return "Zd";
    default:
      return nullptr;
  }
}

const char* kind_name(kiln::ValueKind kind) {
  switch (kind) {
    case kiln::ValueKind::Sequence:
      return "sequence";
    case kiln::ValueKind::Optional:
      return "optional";
    default:
      return "tensor";
  }
}

// dtype, shape and kind are written by the producing layer: read them once it has finished.
// A failed value raises its error.
const kiln::Tensor& finished(PyTensor& t) {
  if (t.tensor.is_pending()) {
    WithoutGil unlocked;
    kiln::wait_ready(t.tensor);
  }
  kiln::wait_ready(t.tensor);  // finished: returns at once, or rethrows
  return t.tensor;
}

}  // namespace

void bind_tensor(py::module_& m) {
  py::class_<PyTensor>(m, "Tensor", py::buffer_protocol(),
                       R"(A kiln value: a tensor, a sequence or an optional.

Outputs of Worker.peek_output/take_output may still be pending (their layer has not run) or
live on a GPU: readback_request() starts the download, is_readback_request_done() polls it,
numpy() waits and returns the data, and `await tensor` waits without blocking the event loop.
kiln.Tensor(array) wraps a numpy array without copying it (it can be fed to Worker.schedule).)")
      .def(py::init([](py::handle value) {
             return PyTensor{value_from_python(value, nullptr), {}};
           }),
           py::arg("array"))
      .def(
          "readback_request", [](const PyTensor& t) { t.tensor.readback_request(); },
          "Starts moving the data to the host without waiting.")
      .def(
          "is_readback_request_done",
          [](const PyTensor& t) { return t.tensor.is_readback_request_done(); },
          "True when numpy() would return without waiting.")
      .def(
          "wait",
          [](const PyTensor& t) {
            WithoutGil unlocked;
            kiln::wait_ready(t.tensor);
          },
          "Blocks (without the GIL) until the value is computed; raises kiln.Error if its layer "
          "failed.")
      .def(
          "numpy", [](PyTensor& t) { return python_from_host_value(t.ensure_host()); },
          "The value as a numpy array (a list for a sequence, None or a value for an optional). "
          "Waits without the GIL. Host data is not copied: the array views kiln's memory.")
      .def(
          "__array__",
          [](PyTensor& t, py::object dtype, py::object copy) {
            py::object a = python_from_host_value(t.ensure_host());
            if (!dtype.is_none()) a = py::module_::import("numpy").attr("asarray")(a, dtype);
            if (copy.is_none() || !copy.cast<bool>()) return a;
            return a.attr("copy")();
          },
          py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def_property_readonly("is_pending", [](const PyTensor& t) { return t.tensor.is_pending(); })
      .def_property_readonly(
          "dtype",
          [](PyTensor& t) -> py::object {
            const DataType d = finished(t).dtype();
            if (d == DataType::Undefined) return py::none();
            return numpy_dtype(d);
          },
          "The numpy dtype the data reads as (waits for a pending value).")
      .def_property_readonly(
          "elem_type",
          [](PyTensor& t) { return std::string(kiln::dtype_name(finished(t).dtype())); },
          "kiln's element type name: 'float32', 'bfloat16', ... (waits for a pending value).")
      .def_property_readonly(
          "shape",
          [](PyTensor& t) {
            const kiln::Shape& s = finished(t).shape();
            return py::tuple(py::cast(std::vector<int64_t>(s.begin(), s.end())));
          },
          "The dimensions (waits for a pending value).")
      .def_property_readonly("kind", [](PyTensor& t) { return kind_name(finished(t).kind()); })
      .def("__repr__",
           [](const PyTensor& t) { return "kiln.Tensor(" + t.tensor.to_string(8) + ")"; })
      .def_buffer([](PyTensor& t) -> py::buffer_info {
        const kiln::Tensor& h = t.ensure_host();
        const char* format =
            h.kind() == kiln::ValueKind::Tensor ? buffer_format(h.dtype()) : nullptr;
        if (!format) {
          throw py::buffer_error("a " + std::string(kind_name(h.kind())) + " of " +
                                 std::string(kiln::dtype_name(h.dtype())) +
                                 " has no buffer form: use numpy()");
        }
        const auto item = static_cast<py::ssize_t>(kiln::dtype_size(h.dtype()));
        std::vector<py::ssize_t> shape(h.shape().begin(), h.shape().end());
        std::vector<py::ssize_t> strides(shape.size(), item);
        for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
        return py::buffer_info(const_cast<void*>(h.raw_data()), item, format,
                               static_cast<py::ssize_t>(shape.size()), shape, strides);
      });
}

}  // namespace kiln_python
