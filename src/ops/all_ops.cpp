#include "ops/all_ops.h"

#include "backends/cpu/simd_target.h"
#include "kernels/op_registry.h"

namespace kiln {

// The registry is declared by the kernel interface (kernels/op_registry.h); the CPU backend fills
// it with every built-in op.
OpRegistry& OpRegistry::global() {
  // Before any kernel exists: kernels pack weights for the target dispatched when they are made.
  cpu::apply_simd_target_from_env();
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    register_all_ops(*r);
    return r;
  }();
  return *registry;
}

}  // namespace kiln
