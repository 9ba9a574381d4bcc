// kiln._kiln: the compiled part of the `kiln` Python package (see python/README.md).
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "kiln/kiln.h"

namespace py = pybind11;

PYBIND11_MODULE(_kiln, m) {
  m.doc() = "kiln, an ONNX inference engine: the compiled binding.";
  py::register_exception<kiln::Error>(m, "Error", PyExc_RuntimeError);
  kiln_python::bind_model(m);
  kiln_python::bind_tensor(m);
  kiln_python::bind_worker(m);
  py::list backends;
  backends.append("cpu");
#ifdef KILN_GPU_COMPUTE
  backends.append("gpu-compute");
#endif
#ifdef KILN_GPU_PIXEL
  backends.append("gpu-pixel");
#endif
  m.attr("backends") = backends;
}
