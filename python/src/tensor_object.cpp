#include "tensor_object.h"

#include "values.h"

namespace kiln_python {

const kiln::Tensor& PyTensor::ensure_host() {
  if (!host.defined()) host = host_value(tensor);
  return host;
}

}  // namespace kiln_python
