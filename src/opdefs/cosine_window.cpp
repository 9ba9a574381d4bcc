#include "opdefs/cosine_window.h"

#include "opdefs/node_info.h"
#include "opdefs/signal.h"

namespace kiln {

CosineWindowAttrs parse_cosine_window_attrs(const NodeInfo& info) {
  CosineWindowAttrs a;
  if (info.op_type() == "HannWindow") {
    a.coefficients = {0.5, 0.5, 0.0};
  } else if (info.op_type() == "HammingWindow") {
    a.coefficients = {25.0 / 46.0, 21.0 / 46.0, 0.0};
  } else if (info.op_type() == "BlackmanWindow") {
    a.coefficients = {0.42, 0.5, 0.08};
  } else {
    info.fail(info.op_type() + " is no cosine window");
  }
  a.periodic = info.attr_int("periodic", 1) != 0;
  a.out_type = output_datatype_attr(info);
  return a;
}

}  // namespace kiln
