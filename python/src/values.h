// Python values <-> kiln values: numpy arrays for tensors, lists for sequences, None or a value
// for optionals.
//
// Inputs: a C-contiguous, aligned array of a type numpy and kiln share is borrowed, not copied
// (kiln keeps the array alive until no run reads it); any other array is copied once into a
// contiguous one first. Outputs: a finished host tensor becomes an array over kiln's own memory
// (the array keeps the tensor alive); a device tensor is read back once, then viewed likewise.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "kiln/kiln.h"

namespace kiln_python {

// The kiln value for `value` fed to the model input `declared` (null when the model has no such
// input: converted as an array, and schedule names the error).
kiln::Tensor value_from_python(pybind11::handle value, const kiln::ValueInfo* declared);

// Feeds as the worker takes them: a mapping of input names to values, or one value for a
// single-input model. `names` owns the strings the NamedTensors point into.
struct Feeds {
  std::vector<std::string> names;
  std::vector<kiln::Tensor> tensors;
  std::vector<kiln::NamedTensor> named() const;
};
Feeds feeds_from_python(const kiln::Model& model, pybind11::handle feeds);

// Waits for `value` without the GIL and returns it on the host: the same handle when its data
// is already there, else a host copy.
kiln::Tensor host_value(const kiln::Tensor& value);
// An array, list or None for a value already on the host (see host_value).
pybind11::object python_from_host_value(const kiln::Tensor& host);
// A numpy array over a host tensor's memory (no copy); only for types numpy holds bit for bit.
pybind11::array array_view(const kiln::Tensor& host);

}  // namespace kiln_python
