#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>

#include "core/dtype_dispatch.h"
#include "core/element_count.h"
#include "core/host_memory.h"
#include "core/tensor_impl.h"

namespace kiln {

// ---- Storage ------------------------------------------------------------------------------

std::shared_ptr<Storage> Storage::allocate(DataType dtype, int64_t element_count) {
  check(element_count >= 0, "negative element count");
  const size_t elem = dtype_size(dtype);
  // Past this the byte count would not fit in a size_t; the budget below is the real limit.
  if (element_count != 0 && static_cast<uint64_t>(element_count) > (uint64_t{1} << 62) / elem)
    throw Error("tensor of " + std::to_string(element_count) + " " +
                std::string(dtype_name(dtype)) + " elements is too large to allocate");
  const size_t bytes = static_cast<size_t>(element_count) * elem;
  const size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
  // Charged before anything is allocated: a request past the limit is an error, not an
  // out-of-memory kill.
  std::shared_ptr<MemoryBudget> budget = charge_allocation(rounded);
  auto s = std::shared_ptr<Storage>(new Storage());
  s->bytes_ = bytes;
  s->data_ = allocate_host_block(rounded);
  if (!s->data_) {
    if (budget) budget->release(rounded);
    throw Error("out of memory allocating " + std::to_string(bytes) + " bytes");
  }
  s->owned_ = true;
  s->budget_ = std::move(budget);
  s->charged_ = rounded;
  if (dtype == DataType::String) {
    auto* p = static_cast<std::string*>(s->data_);
    for (int64_t i = 0; i < element_count; ++i) new (p + i) std::string();
    s->string_count_ = element_count;
  }
  return s;
}

std::shared_ptr<Storage> Storage::borrow(void* data, size_t bytes, std::shared_ptr<void> owner) {
  auto s = std::shared_ptr<Storage>(new Storage());
  s->data_ = data;
  s->bytes_ = bytes;
  s->owner_ = std::move(owner);
  return s;
}

Storage::~Storage() {
  auto* p = static_cast<std::string*>(data_);
  for (int64_t i = 0; i < string_count_; ++i) p[i].~basic_string();
  if (owned_) free_host_block(data_, charged_);
  if (budget_) budget_->release(charged_);
}

void DeviceData::download_into(TensorImpl& tensor, std::span<std::byte> out) {
  auto host = std::make_shared<TensorImpl>(tensor.dtype, tensor.shape, nullptr);
  wait_download(*host);
  if (!out.empty()) std::memcpy(out.data(), host->data(), out.size());
}

// ---- TensorImpl completion ----------------------------------------------------------------

void TensorImpl::mark_pending() {
  std::lock_guard lock(mutex_);
  error_ = nullptr;
  state_.store(TensorState::Pending, std::memory_order_release);
}

void TensorImpl::mark_ready() {
  std::vector<std::function<void()>> callbacks;
  {
    std::lock_guard lock(mutex_);
    state_.store(TensorState::Ready, std::memory_order_release);
    callbacks.swap(callbacks_);
  }
  done_.notify_all();
  for (auto& c : callbacks) c();
}

void TensorImpl::mark_failed(std::exception_ptr error) {
  std::vector<std::function<void()>> callbacks;
  {
    std::lock_guard lock(mutex_);
    error_ = std::move(error);
    state_.store(TensorState::Failed, std::memory_order_release);
    callbacks.swap(callbacks_);
  }
  done_.notify_all();
  for (auto& c : callbacks) c();
}

void TensorImpl::wait() const {
  if (state() == TensorState::Pending) {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return state() != TensorState::Pending; });
  }
  if (state() == TensorState::Failed) std::rethrow_exception(error());
}

void TensorImpl::on_complete(std::function<void()> callback) {
  {
    std::lock_guard lock(mutex_);
    if (state() == TensorState::Pending) {
      callbacks_.push_back(std::move(callback));
      return;
    }
  }
  callback();
}

std::exception_ptr TensorImpl::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

thread_local bool KernelScope::active_ = false;

Tensor make_host_tensor(DataType dtype, const Shape& shape) {
  check_no_negative_dim(shape, "shape");
  return Tensor(
      std::make_shared<TensorImpl>(dtype, shape, Storage::allocate(dtype, shape.element_count())));
}

// ---- Tensor -------------------------------------------------------------------------------

Tensor Tensor::zeros(DataType dtype, const Shape& shape) {
  check(dtype != DataType::Undefined, "Tensor::zeros: undefined dtype");
  Tensor t = make_host_tensor(dtype, shape);
  if (dtype != DataType::String) std::memset(t.impl_->data(), 0, t.byte_size());
  return t;
}

Tensor Tensor::wrap(void* data, DataType dtype, const Shape& shape,
                    std::function<void(void*)> release) {
  // Whatever happens below, memory handed over with a release callback is released once.
  std::shared_ptr<void> owner(data, [release = std::move(release)](void* p) {
    if (release) release(p);
  });
  check(dtype != DataType::Undefined, "Tensor::wrap: undefined dtype");
  check(dtype != DataType::String,
        "Tensor::wrap: String elements are objects kiln must construct; use from_data");
  for (int64_t d : shape)
    check(d >= 0, "Tensor::wrap: negative dimension in shape " + shape.to_string());
  const int64_t count = shape.element_count();
  check(data != nullptr || count == 0,
        "Tensor::wrap: null pointer for " + std::to_string(count) + " elements");
  const size_t elem = dtype_size(dtype);
  check(reinterpret_cast<uintptr_t>(data) % elem == 0,
        "Tensor::wrap: the pointer is not aligned to the " + std::to_string(elem) +
            "-byte elements of " + std::string(dtype_name(dtype)));
  auto storage = Storage::borrow(data, static_cast<size_t>(count) * elem, std::move(owner));
  return Tensor(std::make_shared<TensorImpl>(dtype, shape, std::move(storage)));
}

namespace {
const Shape kEmptyShape;
}

DataType Tensor::dtype() const { return impl_ ? impl_->dtype : DataType::Undefined; }
const Shape& Tensor::shape() const { return impl_ ? impl_->shape : kEmptyShape; }
int64_t Tensor::element_count() const {
  return impl_ && impl_->kind == ValueKind::Tensor ? impl_->shape.element_count() : 0;
}
size_t Tensor::byte_size() const {
  return impl_ ? static_cast<size_t>(element_count()) * dtype_size(impl_->dtype) : 0;
}

void Tensor::check_host_access(DataType requested) const {
  check(impl_ != nullptr, "access to the data of an empty tensor handle");
  if (impl_->kind != ValueKind::Tensor) {
    throw Error(std::string("element access to ") +
                (impl_->kind == ValueKind::Sequence ? "a sequence" : "an optional") +
                ", which holds tensors rather than elements; use elements()");
  }
  if (requested != DataType::Undefined && requested != impl_->dtype) {
    throw Error("tensor holds " + std::string(dtype_name(impl_->dtype)) + " elements, not " +
                std::string(dtype_name(requested)));
  }
  switch (impl_->state()) {
    case TensorState::Pending:
      if (KernelScope::active()) break;
      throw Error(
          "tensor data is not ready yet: its layer is still running; use readback_and_clone() "
          "or poll is_readback_request_done()");
    case TensorState::Failed:
      std::rethrow_exception(impl_->error());
    case TensorState::Ready:
      break;
  }
  check(impl_->device == nullptr,
        "tensor data lives on a device; use readback_and_clone() to get a host copy");
}

const void* Tensor::raw_data() const {
  check_host_access(DataType::Undefined);
  return impl_->data();
}

void* Tensor::mutable_raw_data() {
  check_host_access(DataType::Undefined);
  return impl_->data();
}

bool Tensor::is_pending() const { return impl_ && impl_->state() == TensorState::Pending; }

void Tensor::readback_request() const {
  if (!impl_ || impl_->state() == TensorState::Failed) return;
  if (impl_->state() == TensorState::Pending) {
    // The transfer starts when the producer finishes; device tensors request it then.
    auto impl = impl_;
    impl_->on_complete([impl] {
      if (impl->state() == TensorState::Ready && impl->device)
        impl->device->request_download(*impl);
    });
    return;
  }
  if (impl_->device) impl_->device->request_download(*impl_);
}

bool Tensor::is_readback_request_done() const {
  if (!impl_) return true;
  switch (impl_->state()) {
    case TensorState::Pending:
      return false;
    case TensorState::Failed:
      return true;
    case TensorState::Ready:
      return !impl_->device || impl_->device->download_done(*impl_);
  }
  return true;
}

Tensor Tensor::readback_and_clone() const {
  check(impl_ != nullptr, "readback_and_clone on an empty tensor handle");
  impl_->wait();
  if (impl_->kind != ValueKind::Tensor) return clone();
  if (impl_->device) {
    impl_->device->wait_download(*impl_);
    Tensor t = make_host_tensor(impl_->dtype, impl_->shape);
    std::memcpy(t.impl_->data(), impl_->data(), byte_size());
    return t;
  }
  return clone();
}

void Tensor::download_to_bytes(std::span<std::byte> out, DataType expected) const {
  check(impl_ != nullptr, "Tensor::download_to on an empty tensor handle");
  impl_->wait();
  check(impl_->kind == ValueKind::Tensor,
        "Tensor::download_to: a sequence or optional holds tensors, not elements");
  check(impl_->dtype != DataType::String,
        "Tensor::download_to: string elements are objects; use readback_and_clone()");
  if (expected != DataType::Undefined && expected != impl_->dtype) {
    throw Error("Tensor::download_to: tensor holds " + std::string(dtype_name(impl_->dtype)) +
                " elements, not " + std::string(dtype_name(expected)));
  }
  const size_t elem = dtype_size(impl_->dtype);
  if (out.size() != byte_size()) {
    throw Error("Tensor::download_to: destination holds " + std::to_string(out.size() / elem) +
                " elements, tensor has " + std::to_string(element_count()));
  }
  if (impl_->device) {
    impl_->device->download_into(*impl_, out);
  } else if (!out.empty()) {
    std::memcpy(out.data(), impl_->data(), out.size());
  }
}

std::future<Tensor> Tensor::readback_and_clone_async() const {
  auto promise = std::make_shared<std::promise<Tensor>>();
  std::future<Tensor> future = promise->get_future();
  if (!impl_) {
    promise->set_exception(std::make_exception_ptr(Error("readback of an empty tensor handle")));
    return future;
  }
  readback_request();
  Tensor self = *this;
  impl_->on_complete([self, promise] {
    try {
      promise->set_value(self.readback_and_clone());
    } catch (...) {
      promise->set_exception(std::current_exception());
    }
  });
  return future;
}

Tensor Tensor::clone() const {
  if (impl_ && impl_->kind != ValueKind::Tensor) {
    impl_->wait();
    auto copy = std::make_shared<TensorImpl>(impl_->dtype, Shape{}, nullptr);
    copy->kind = impl_->kind;
    copy->element_kind = impl_->element_kind;
    for (const Tensor& e : impl_->elements) copy->elements.push_back(e.readback_and_clone());
    return Tensor(std::move(copy));
  }
  check_host_access(DataType::Undefined);
  Tensor t = make_host_tensor(impl_->dtype, impl_->shape);
  if (impl_->dtype == DataType::String) {
    const auto* src = static_cast<const std::string*>(impl_->data());
    auto* dst = static_cast<std::string*>(t.impl_->data());
    std::copy(src, src + element_count(), dst);
  } else if (byte_size() > 0) {
    std::memcpy(t.impl_->data(), impl_->data(), byte_size());
  }
  return t;
}

Tensor Tensor::reshaped(const Shape& shape) const {
  check(impl_ != nullptr, "reshape of an empty tensor handle");
  check(impl_->kind == ValueKind::Tensor, "reshape of a sequence or optional");
  check(shape.element_count() == element_count(),
        "cannot view a tensor of shape " + this->shape().to_string() + " as " + shape.to_string());
  auto impl = std::make_shared<TensorImpl>(impl_->dtype, shape, impl_->storage, impl_->offset);
  impl->device = impl_->device;
  return Tensor(std::move(impl));
}

std::string Tensor::to_string(size_t max_elements) const {
  if (!impl_) return "<empty>";
  std::ostringstream out;
  if (impl_->kind != ValueKind::Tensor) {
    out << (impl_->kind == ValueKind::Sequence ? "sequence" : "optional") << "("
        << dtype_name(dtype()) << ")";
    if (is_pending() || impl_->state() == TensorState::Failed) return out.str();
    out << " [";
    for (size_t i = 0; i < impl_->elements.size(); ++i)
      out << (i ? ", " : "") << impl_->elements[i].to_string(max_elements);
    out << "]";
    return out.str();
  }
  out << dtype_name(dtype()) << shape().to_string();
  if (is_pending() || impl_->device || impl_->state() == TensorState::Failed) return out.str();
  out << " {";
  const size_t n = static_cast<size_t>(element_count());
  visit_dtype(dtype(), [&]<class T>() {
    const T* p = static_cast<const T*>(impl_->data());
    for (size_t i = 0; i < std::min(n, max_elements); ++i) {
      if (i) out << ", ";
      out << to_printable(p[i]);
    }
  });
  if (n > max_elements) out << ", ...";
  out << "}";
  return out.str();
}

// ---- comparison ---------------------------------------------------------------------------

bool all_close(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  if (actual.kind() != expected.kind()) return false;
  if (expected.kind() != ValueKind::Tensor) {
    const auto& a = actual.elements();
    const auto& e = expected.elements();
    if (a.size() != e.size()) return false;
    for (size_t i = 0; i < e.size(); ++i) {
      if (!all_close(a[i], e[i], rtol, atol)) return false;
    }
    return true;
  }
  if (actual.dtype() != expected.dtype() || actual.shape() != expected.shape()) return false;
  const int64_t n = expected.element_count();
  bool ok = true;
  visit_dtype(expected.dtype(), [&]<class T>() {
    const T* a = actual.data<T>();
    const T* e = expected.data<T>();
    for (int64_t i = 0; i < n && ok; ++i) {
      if constexpr (std::is_same_v<T, std::string> || std::is_integral_v<T>) {
        // Integers are exact: a tolerance relative to a large index or bit pattern would let a
        // wrong value pass.
        ok = a[i] == e[i];
      } else if constexpr (is_small_int_v<T>) {
        ok = to_double(a[i]) == to_double(e[i]);
      } else if constexpr (is_complex_v<T>) {
        ok = std::abs(a[i] - e[i]) <= atol + rtol * std::abs(e[i]);
      } else {
        const auto av = to_double(a[i]);
        const auto ev = to_double(e[i]);
        if (std::isnan(ev)) {
          ok = std::isnan(av);
        } else if (std::isinf(ev)) {
          ok = av == ev;
        } else {
          ok = std::abs(av - ev) <= atol + rtol * std::abs(ev);
        }
      }
    }
  });
  return ok;
}

}  // namespace kiln
