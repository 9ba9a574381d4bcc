// kiln.Tensor: a handle on a kiln value that may still be pending or live on a device.
#pragma once

#include "kiln/kiln.h"

namespace kiln_python {

struct PyTensor {
  kiln::Tensor tensor;
  // The value on the host, set by the first read: `tensor` itself when its data is on the host,
  // else the one host copy read back from the device (so the buffer protocol and numpy() views
  // stay valid as long as this object).
  kiln::Tensor host;

  const kiln::Tensor& ensure_host();
};

}  // namespace kiln_python
