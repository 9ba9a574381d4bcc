#include "opdefs/pool.h"

#include "opdefs/node_info.h"

namespace kiln {

PoolAttrs parse_pool_attrs(const NodeInfo& info, PoolOp kind) {
  PoolAttrs a;
  a.kind = kind;
  a.window = parse_window_attrs(info);
  if (a.window.kernel_shape.empty()) info.fail("required attribute 'kernel_shape' is missing");
  a.count_include_pad = info.attr_int("count_include_pad", 0) != 0;
  const int64_t storage_order = info.attr_int("storage_order", 0);
  if (storage_order != 0 && storage_order != 1) info.fail("storage_order must be 0 or 1");
  a.column_major = storage_order == 1;
  a.p = static_cast<float>(info.attr_int("p", 2));
  if (kind == PoolOp::Lp && a.p <= 0) info.fail("p must be positive");
  if (kind == PoolOp::Max && info.num_outputs() > 1 && info.opset() < 8) {
    info.fail("the Indices output needs opset 8 or later");
  }
  return a;
}

}  // namespace kiln
