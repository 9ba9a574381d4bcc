#include "opdefs/lrn.h"

#include <string>

#include "opdefs/node_info.h"

namespace kiln {

LrnAttrs parse_lrn_attrs(const NodeInfo& info) {
  LrnAttrs a;
  a.size = info.required_int("size");
  if (a.size <= 0) info.fail("size must be positive, got " + std::to_string(a.size));
  // The attributes are floats: their float values, widened, as ONNX Runtime reads them.
  a.alpha = info.attr_float("alpha", 1e-4f);
  a.beta = info.attr_float("beta", 0.75f);
  a.bias = info.attr_float("bias", 1.0f);
  a.before = (a.size - 1) / 2;
  a.after = a.size - 1 - a.before;
  return a;
}

}  // namespace kiln
