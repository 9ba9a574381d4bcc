// kiln.load_model, kiln.Model and the declared types of its inputs and outputs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "deferred_release.h"
#include "dtypes.h"
#include "kiln/kiln.h"
#include "values.h"

namespace py = pybind11;
using kiln::ValueInfo;

namespace kiln_python {
namespace {

const char* kind_name(ValueInfo::Kind kind) {
  switch (kind) {
    case ValueInfo::Kind::Tensor:
      return "tensor";
    case ValueInfo::Kind::Sequence:
      return "sequence";
    case ValueInfo::Kind::Optional:
      return "optional";
    case ValueInfo::Kind::Map:
      return "map";
    default:
      return "unknown";
  }
}

kiln::Model load(py::handle source, bool optimize) {
  const kiln::LoadOptions options{.optimize = optimize};
  if (PyBytes_Check(source.ptr()) || PyByteArray_Check(source.ptr()) ||
      PyMemoryView_Check(source.ptr())) {
    py::buffer_info bytes = py::reinterpret_borrow<py::buffer>(source).request();
    WithoutGil unlocked;  // `source` (held by the caller) keeps the bytes alive meanwhile
    return kiln::load_model_from_bytes(bytes.ptr, static_cast<size_t>(bytes.size * bytes.itemsize),
                                       ".", options);
  }
  const std::string path = py::str(py::module_::import("os").attr("fspath")(source));
  WithoutGil unlocked;
  return kiln::load_model(path, options);
}

}  // namespace

void bind_model(py::module_& m) {
  py::class_<ValueInfo>(m, "ValueInfo", "The declared type of a model input or output.")
      .def_readonly("name", &ValueInfo::name)
      .def_property_readonly(
          "dtype",
          [](const ValueInfo& v) -> py::object {
            if (v.dtype == kiln::DataType::Undefined) return py::none();
            return numpy_dtype(v.dtype);
          },
          "The numpy dtype of the elements (of the tensors inside, for a sequence or optional); "
          "None when the model does not say.")
      .def_property_readonly(
          "elem_type", [](const ValueInfo& v) { return std::string(kiln::dtype_name(v.dtype)); },
          "kiln's name of the element type: 'float32', 'bfloat16', 'string', ...")
      .def_property_readonly(
          "shape",
          [](const ValueInfo& v) -> py::object {
            if (!v.has_shape) return py::none();
            py::list dims;
            for (const kiln::Dim& d : v.shape) {
              if (d.is_fixed()) {
                dims.append(d.value);
              } else if (!d.symbol.empty()) {
                dims.append(d.symbol);
              } else {
                dims.append(py::none());
              }
            }
            return dims;
          },
          "Dimensions: ints, names (str) for symbolic ones, None where unknown; None when the "
          "rank is unknown.")
      .def_property_readonly(
          "kind", [](const ValueInfo& v) { return kind_name(v.kind); },
          "'tensor', 'sequence', 'optional' or 'map'.")
      .def_property_readonly(
          "element_kind", [](const ValueInfo& v) { return kind_name(v.element_kind); },
          "For an optional: 'tensor' or 'sequence'.")
      .def("__repr__",
           [](const ValueInfo& v) { return "<" + v.name + ": " + v.to_string() + ">"; });

  py::class_<kiln::Model>(m, "Model",
                          "A loaded, optimized ONNX model; any number of workers share it.")
      .def_property_readonly("inputs", &kiln::Model::inputs)
      .def_property_readonly("outputs", &kiln::Model::outputs)
      .def_property_readonly(
          "opset", [](const kiln::Model& mo) { return mo.opset(""); },
          "The opset of the default ONNX domain.")
      .def("opset_of", &kiln::Model::opset, py::arg("domain"),
           "The opset imported for `domain` (0 when not imported).")
      .def_property_readonly("producer", &kiln::Model::producer)
      .def_property_readonly("ir_version", &kiln::Model::ir_version)
      .def_property_readonly("node_count", &kiln::Model::node_count)
      .def("__repr__", [](const kiln::Model& mo) {
        return "<kiln.Model " + std::to_string(mo.inputs().size()) + " inputs, " +
               std::to_string(mo.outputs().size()) + " outputs, " +
               std::to_string(mo.node_count()) + " nodes>";
      });

  m.def(
      "load_tensor",
      [](py::handle path) {
        const std::string p = py::str(py::module_::import("os").attr("fspath")(path));
        return python_from_host_value(kiln::load_tensor(p));
      },
      py::arg("path"), "Reads an ONNX TensorProto (.pb) or .npy file as a numpy array.");

  m.def("load_model", &load, py::arg("path_or_bytes"), py::arg("optimize") = true,
        R"(Loads an ONNX model from a file path or from bytes and optimizes it once.
Raises kiln.Error naming the file, node and op for anything it cannot load.)");
}

}  // namespace kiln_python
