// Sequence and optional values: Tensor handles whose TensorImpl holds other tensors instead of
// storage.
#include "core/tensor_impl.h"

namespace kiln {

namespace {

std::shared_ptr<TensorImpl> new_container(ValueKind kind, DataType element_type) {
  auto impl = std::make_shared<TensorImpl>(element_type, Shape{}, nullptr);
  impl->kind = kind;
  return impl;
}

// A finished copy that no later write to `value` can reach.
Tensor settled_copy(const Tensor& value) { return value.readback_and_clone(); }

}  // namespace

void TensorImpl::assign_contents(const TensorImpl& source) {
  dtype = source.dtype;
  shape = source.shape;
  storage = source.storage;
  offset = source.offset;
  device = source.device;
  kind = source.kind;
  element_kind = source.element_kind;
  elements = source.elements;
}

Tensor sequence_of(std::vector<Tensor> elements, DataType element_type) {
  auto impl = new_container(ValueKind::Sequence, element_type);
  impl->elements = std::move(elements);
  return Tensor(std::move(impl));
}

Tensor Tensor::sequence(const std::vector<Tensor>& elements, DataType element_type) {
  for (const Tensor& e : elements) {
    check(e.defined() && e.kind() == ValueKind::Tensor,
          "Tensor::sequence: every element must be a tensor");
    if (element_type == DataType::Undefined) element_type = e.dtype();
    if (e.dtype() != element_type) {
      throw Error("Tensor::sequence: elements must share one dtype, got " +
                  std::string(dtype_name(element_type)) + " and " +
                  std::string(dtype_name(e.dtype())));
    }
  }
  std::vector<Tensor> copies;
  copies.reserve(elements.size());
  for (const Tensor& e : elements) copies.push_back(settled_copy(e));
  return sequence_of(std::move(copies), element_type);
}

Tensor Tensor::optional(const Tensor& value) {
  check(value.defined(), "Tensor::optional: empty handle (use empty_optional for no value)");
  check(value.kind() != ValueKind::Optional, "Tensor::optional: an optional cannot hold another");
  auto impl = new_container(ValueKind::Optional, value.dtype());
  impl->element_kind = value.kind();
  impl->elements.push_back(settled_copy(value));
  return Tensor(std::move(impl));
}

Tensor Tensor::empty_optional(DataType element_type, ValueKind element_kind) {
  check(element_kind != ValueKind::Optional, "Tensor::empty_optional: nested optionals");
  auto impl = new_container(ValueKind::Optional, element_type);
  impl->element_kind = element_kind;
  return Tensor(std::move(impl));
}

ValueKind Tensor::kind() const { return impl_ ? impl_->kind : ValueKind::Tensor; }

ValueKind Tensor::element_kind() const {
  check(is_optional(), "element_kind() of a value that is not an optional");
  return impl_->element_kind;
}

const std::vector<Tensor>& Tensor::elements() const {
  check(impl_ != nullptr && impl_->kind != ValueKind::Tensor,
        "elements() of a value that is neither a sequence nor an optional");
  check(impl_->state() == TensorState::Ready || KernelScope::active(),
        "elements() of a value that is not ready; use readback_and_clone() first");
  return impl_->elements;
}

bool Tensor::has_value() const {
  check(is_optional(), "has_value() of a value that is not an optional");
  return !elements().empty();
}

const Tensor& Tensor::value() const {
  check(has_value(), "value() of an empty optional");
  return elements().front();
}

}  // namespace kiln
