// The parts of the kiln._kiln module, one function per Python class family.
#pragma once

#include <pybind11/pybind11.h>

namespace kiln_python {

void bind_model(pybind11::module_& m);   // load_model, Model, ValueInfo
void bind_tensor(pybind11::module_& m);  // Tensor
void bind_worker(pybind11::module_& m);  // Worker, LayerStep, NodePlacement

}  // namespace kiln_python
