// Zero-copy interop with other array libraries (numpy through the Python binding, ...): tensors
// over memory kiln does not own, and reading a finished output in place.
//
//   auto owner = std::make_shared<std::vector<float>>(values);
//   kiln::Tensor x = kiln::borrow_tensor(kiln::DataType::Float32, {2, 2}, owner->data(), owner);
//   worker.schedule({{"x", x}});                // the run reads owner's memory, no copy
//   const kiln::Tensor& y = worker.peek_output("y");
//   kiln::wait_ready(y);
//   if (!kiln::on_device(y)) use(y.raw_data());   // the output's own memory, no copy
//
// Kept out of kiln.h: only code that hands memory across a library boundary needs it.
#pragma once

#include <memory>

#include "kiln/tensor.h"

namespace kiln {

// A host tensor over memory the caller owns, without copying it. `data` holds the elements of
// `dtype` in row-major order, aligned for the element type. `owner` is kept alive as long as any
// handle or pending run refers to the data, and is released on whatever thread drops the last
// reference (a job thread, too). kiln never writes into borrowed memory; the caller must not
// write into it while a run that reads it is pending. Not for String tensors (their elements
// are constructed objects).
KILN_API Tensor borrow_tensor(DataType dtype, const Shape& shape, void* data,
                              std::shared_ptr<void> owner);

// Blocks until the layer producing `tensor` has finished; rethrows the kiln::Error of a failed
// layer. Afterwards a host tensor's data() is readable in place (see on_device).
KILN_API void wait_ready(const Tensor& tensor);

// True when the data of a finished tensor lives on a device: readback_and_clone() copies it to
// the host. False for host tensors, whose data() is then readable without a copy.
KILN_API bool on_device(const Tensor& tensor);

}  // namespace kiln
