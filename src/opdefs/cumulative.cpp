#include "opdefs/cumulative.h"

#include "opdefs/node_info.h"

namespace kiln {

CumulativeAttrs parse_cumulative_attrs(const NodeInfo& info) {
  CumulativeAttrs a;
  a.exclusive = info.attr_int("exclusive", 0) != 0;
  a.reverse = info.attr_int("reverse", 0) != 0;
  return a;
}

}  // namespace kiln
