#include "opdefs/cast.h"

#include <cstdint>
#include <string>

#include "opdefs/node_info.h"

namespace kiln {

CastOptions parse_cast_options(const NodeInfo& info) {
  CastOptions opt;
  opt.saturate = info.attr_int("saturate", 1) != 0;
  const std::string mode = info.attr_string("round_mode", "up");
  if (mode == "up") {
    opt.rounding = E8M0Rounding::kUp;
  } else if (mode == "down") {
    opt.rounding = E8M0Rounding::kDown;
  } else if (mode == "nearest") {
    opt.rounding = E8M0Rounding::kNearest;
  } else {
    info.fail("round_mode must be \"up\", \"down\" or \"nearest\", got \"" + mode + "\"");
  }
  return opt;
}

DataType parse_cast_target(const NodeInfo& info) {
  const int64_t to_code = info.required_int("to");
  if (to_code > INT32_MAX || to_code < INT32_MIN ||
      !is_valid_dtype(static_cast<int32_t>(to_code)) ||
      to_code == static_cast<int64_t>(DataType::Undefined)) {
    info.fail("attribute 'to' is not a valid ONNX element type: " + std::to_string(to_code));
  }
  return static_cast<DataType>(to_code);
}

}  // namespace kiln
