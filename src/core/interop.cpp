#include "kiln/interop.h"

#include "core/element_count.h"
#include "core/tensor_impl.h"

namespace kiln {

Tensor borrow_tensor(DataType dtype, const Shape& shape, void* data, std::shared_ptr<void> owner) {
  check(dtype != DataType::Undefined, "borrow_tensor: undefined dtype");
  check(dtype != DataType::String, "borrow_tensor: string tensors cannot borrow memory");
  check_no_negative_dim(shape, "shape");
  const size_t bytes = static_cast<size_t>(shape.element_count()) * dtype_size(dtype);
  check(data != nullptr || bytes == 0, "borrow_tensor: null data for a non-empty tensor");
  return Tensor(
      std::make_shared<TensorImpl>(dtype, shape, Storage::borrow(data, bytes, std::move(owner))));
}

void wait_ready(const Tensor& tensor) {
  check(tensor.defined(), "wait_ready on an empty tensor handle");
  tensor.impl()->wait();
}

bool on_device(const Tensor& tensor) {
  return tensor.defined() && tensor.impl()->device != nullptr;
}

}  // namespace kiln
