// kiln::Tensor — a typed n-dimensional array with shared ownership, which may still be pending
// (its producing layer has not run yet) or live on a device.
//
//   kiln::Tensor x = kiln::Tensor::from_data<float>({2, 2}, {1, 2, 3, 4});
//   const float* p = x.data<float>();             // host data of a finished tensor
//   kiln::Tensor y = worker.peek_output("y");      // may be pending
//   kiln::Tensor h = y.readback_and_clone();       // waits if needed, returns a host copy
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kiln/dtype.h"
#include "kiln/error.h"
#include "kiln/export.h"
#include "kiln/shape.h"

namespace kiln {

struct TensorImpl;  // internal

// What a handle stands for. ONNX values are tensors, sequences of tensors, or optionals that
// hold one value or none; all three travel through kiln in a Tensor handle.
enum class ValueKind { Tensor, Sequence, Optional };

class KILN_API Tensor {
 public:
  // An empty handle: dtype Undefined, no data. Stands for an absent optional input.
  Tensor() = default;

  // A new host tensor with every element zero (empty strings for String).
  static Tensor zeros(DataType dtype, const Shape& shape);
  // A new host tensor holding a copy of `values` (row-major); its size must match the shape.
  template <class T>
  static Tensor from_data(const Shape& shape, std::span<const T> values);
  template <class T>
  static Tensor from_data(const Shape& shape, const std::vector<T>& values) {
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> has no contiguous data()
      std::unique_ptr<bool[]> copy(new bool[values.size()]);
      std::copy(values.begin(), values.end(), copy.get());
      return from_data<bool>(shape, std::span<const bool>(copy.get(), values.size()));
    } else {
      return from_data<T>(shape, std::span<const T>(values.data(), values.size()));
    }
  }
  template <class T>
  static Tensor from_data(const Shape& shape, std::initializer_list<T> values) {
    return from_data<T>(shape, std::span<const T>(values.begin(), values.size()));
  }
  template <class T>
  static Tensor scalar(T value) {
    return from_data<T>(Shape{}, std::span<const T>(&value, 1));
  }

  // A tensor over memory the caller owns, without copying it: a worker given it as an input
  // reads `data` in place (on the CPU; a GPU backend uploads it from there). `release` is called
  // once with `data` when the last handle lets go of it (the caller's, or a worker's that
  // still runs on it); leave it empty when the memory outlives every use. `data` must hold
  // shape.element_count() elements of `dtype`, aligned to the element size; String is not
  // wrappable (its elements are objects). Nothing kiln runs writes into an input tensor.
  //   std::vector<float> pixels = ...;
  //   worker.schedule({{"x", kiln::Tensor::wrap(pixels.data(), kiln::DataType::Float32,
  //                                              {1, 3, 224, 224})}});
  static Tensor wrap(void* data, DataType dtype, const Shape& shape,
                     std::function<void(void*)> release = {});

  // --- Sequences and optionals ----------------------------------------------------------
  // A sequence of tensors of one element type (given explicitly for an empty sequence). The
  // elements are copied, so later changes to them do not show through.
  static Tensor sequence(const std::vector<Tensor>& elements,
                         DataType element_type = DataType::Undefined);
  // An optional holding `value` (a tensor or a sequence, copied), or holding nothing.
  static Tensor optional(const Tensor& value);
  static Tensor empty_optional(DataType element_type = DataType::Undefined,
                               ValueKind element_kind = ValueKind::Tensor);

  ValueKind kind() const;
  bool is_sequence() const { return kind() == ValueKind::Sequence; }
  bool is_optional() const { return kind() == ValueKind::Optional; }
  // A sequence's tensors; an optional's value as a list of zero or one. Waits for nothing:
  // read them from a finished handle (readback_and_clone() returns one).
  const std::vector<Tensor>& elements() const;
  bool has_value() const;       // an optional that holds a value
  const Tensor& value() const;  // that value; kiln::Error for an empty optional
  // For an empty optional: what its value would be (tensor or sequence).
  ValueKind element_kind() const;

  bool defined() const { return impl_ != nullptr; }
  DataType dtype() const;      // for a sequence or optional: the type of its tensors
  const Shape& shape() const;  // empty for a sequence or optional
  size_t rank() const { return shape().size(); }
  int64_t element_count() const;
  size_t byte_size() const;  // element_count * dtype_size

  // Host element access. Throws kiln::Error when the tensor is pending, failed, on a device,
  // or when T does not match the dtype — use the readback calls for those.
  template <class T>
  const T* data() const;
  template <class T>
  T* mutable_data();
  template <class T>
  std::vector<T> to_vector() const {
    const T* p = data<T>();
    return std::vector<T>(p, p + element_count());
  }
  const void* raw_data() const;
  void* mutable_raw_data();

  // --- Asynchronous results -------------------------------------------------------------
  // True while the layer producing this tensor has not finished.
  bool is_pending() const;
  // Starts moving the data to the host without waiting. Requests on one tensor share one
  // transfer. A no-op for tensors already on the host.
  void readback_request() const;
  // True when readback_and_clone() would return without waiting.
  bool is_readback_request_done() const;
  // A host copy of the data; waits for the producing layer and the transfer if needed.
  // Rethrows the kiln::Error of a failed layer.
  Tensor readback_and_clone() const;
  std::future<Tensor> readback_and_clone_async() const;
  // Waits like readback_and_clone and writes the elements straight into `out` (its size must
  // match, T must be the dtype's element type): a host tensor is copied once, a device tensor
  // is read from the transfer buffer into `out` without an intermediate host tensor.
  template <class T>
  void download_to(std::span<T> out) const;
  // The same for raw bytes: `out` must hold exactly byte_size() bytes; with `expected` set,
  // the tensor must hold that dtype. Not for String tensors.
  void download_to_bytes(std::span<std::byte> out,
                         DataType expected = DataType::Undefined) const;

  // A deep host copy of a finished host tensor.
  Tensor clone() const;
  // The same data seen with another shape of equal element count (shares the storage).
  Tensor reshaped(const Shape& shape) const;

  std::string to_string(size_t max_elements = 16) const;  // "float32[2, 3] {1, 2, ...}"

  // Internal: kiln's own code builds tensors around an implementation object.
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  const std::shared_ptr<TensorImpl>& impl() const { return impl_; }

 private:
  void check_host_access(DataType requested) const;
  std::shared_ptr<TensorImpl> impl_;
};

// Reads an ONNX TensorProto (.pb) or a numpy .npy file; with kind Sequence or Optional, an ONNX
// SequenceProto or OptionalProto (.pb).
KILN_API Tensor load_tensor(const std::string& path, ValueKind kind = ValueKind::Tensor);
// Writes .npy when the path ends in ".npy", otherwise an ONNX TensorProto named `name`.
KILN_API void save_tensor(const Tensor& tensor, const std::string& path,
                          const std::string& name = "");
// numpy.allclose semantics: |a - e| <= atol + rtol * |e| for every element, same dtype and
// shape; NaN matches NaN. Non-float tensors must be equal.
KILN_API bool all_close(const Tensor& actual, const Tensor& expected, double rtol = 1e-3,
                        double atol = 1e-4);

}  // namespace kiln

// --- template definitions ---------------------------------------------------------------
namespace kiln {

template <class T>
const T* Tensor::data() const {
  check_host_access(dtype_of<T>);
  return static_cast<const T*>(raw_data());
}

template <class T>
T* Tensor::mutable_data() {
  check_host_access(dtype_of<T>);
  return static_cast<T*>(mutable_raw_data());
}

template <class T>
Tensor Tensor::from_data(const Shape& shape, std::span<const T> values) {
  Tensor t = zeros(dtype_of<T>, shape);
  check(static_cast<int64_t>(values.size()) == t.element_count(),
        "Tensor::from_data: " + std::to_string(values.size()) + " values given for shape " +
            shape.to_string() + " (" + std::to_string(t.element_count()) + " elements)");
  T* out = t.mutable_data<T>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return t;
}

template <class T>
void Tensor::download_to(std::span<T> out) const {
  if constexpr (std::is_same_v<T, std::string>) {
    Tensor host = readback_and_clone();  // string elements are objects: copied one by one
    check(static_cast<int64_t>(out.size()) == host.element_count(),
          "Tensor::download_to: destination holds " + std::to_string(out.size()) +
              " elements, tensor has " + std::to_string(host.element_count()));
    const T* p = host.data<T>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  } else {
    download_to_bytes(std::as_writable_bytes(out), dtype_of<T>);
  }
}

}  // namespace kiln
