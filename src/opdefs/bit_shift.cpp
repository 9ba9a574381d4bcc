#include "opdefs/bit_shift.h"

#include <string>

#include "opdefs/node_info.h"

namespace kiln {

bool parse_bit_shift_left(const NodeInfo& info) {
  const std::string direction = info.attr_string("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") {
    info.fail("BitShift: attribute 'direction' must be \"LEFT\" or \"RIGHT\", got \"" + direction +
              "\"");
  }
  return direction == "LEFT";
}

}  // namespace kiln
