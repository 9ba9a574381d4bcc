#include "ops/all_ops.h"

#include "kernels/op_registry.h"

namespace kiln {

// The registry is declared by the kernel interface (kernels/op_registry.h); the CPU backend fills
// it with every built-in op.
OpRegistry& OpRegistry::global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    register_all_ops(*r);
    return r;
  }();
  return *registry;
}

}  // namespace kiln
