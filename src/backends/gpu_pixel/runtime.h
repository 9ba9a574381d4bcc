// What one GPU-pixel worker shares: the GL context and the kernels (their programs), created on
// first use. Owned through a shared_ptr by the worker and by every texture-backed tensor, so a
// tensor the user keeps outlives its worker safely.
#pragma once

#include <memory>
#include <mutex>
#include <typeindex>
#include <unordered_map>

#include "backends/gpu_pixel/context.h"

namespace kiln::gpu_pixel {

class Runtime {
 public:
  explicit Runtime(const ContextOptions& options = {}) : context_(options) {}

  Context& context() { return context_; }

  // Kernels hold no per-draw state, so one serves every node.
  template <class Kernel>
  Kernel& kernel() {
    std::lock_guard lock(kernels_mutex_);
    auto& slot = kernels_[std::type_index(typeid(Kernel))];
    if (!slot) slot = std::make_shared<Kernel>(context_);
    return *static_cast<Kernel*>(slot.get());
  }

  // Counts a recorded draw; every `kFlushEvery` draws the queued work is flushed so the GPU
  // starts on a long graph early. Call inside a Context::Scope.
  void drew();

 private:
  static constexpr int kFlushEvery = 32;
  Context context_;  // first member: destroyed last, after the kernels' programs
  std::mutex kernels_mutex_;
  std::unordered_map<std::type_index, std::shared_ptr<void>> kernels_;
  int draws_since_flush_ = 0;  // guarded by the context's scope
};

}  // namespace kiln::gpu_pixel
