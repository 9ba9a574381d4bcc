// MaxPool with its Indices output (GPU-compute; gpu-pixel keeps it on the CPU): 1-D, 2-D and 3-D,
// storage_order 0 and 1, pads (windows wholly in the padding give -1), strides, dilations,
// ceil_mode and auto_pad; ties (the first maximum wins) and NaN from few distinct values; int8
// and uint8 inputs.
#include "backend_op_cases.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::testing {
namespace {

struct IndicesCase {
  std::string name;
  Shape x;
  std::vector<int64_t> kernel, strides, dilations, pads;
  int64_t ceil_mode = 0;
  const char* auto_pad = nullptr;
};

OpTest max_pool_with_indices(const IndicesCase& k, Tensor x, int64_t storage_order) {
  OpTest t("MaxPool", 12);
  t.input(std::move(x)).attr("kernel_shape", k.kernel).outputs(2);
  if (!k.strides.empty()) t.attr("strides", k.strides);
  if (!k.dilations.empty()) t.attr("dilations", k.dilations);
  if (!k.pads.empty()) t.attr("pads", k.pads);
  if (k.ceil_mode) t.attr("ceil_mode", k.ceil_mode);
  if (k.auto_pad) t.attr("auto_pad", k.auto_pad);
  if (storage_order) t.attr("storage_order", storage_order);
  return t;
}

void add_maxpool_indices_cases(std::vector<OpCase>& c) {
  const std::vector<IndicesCase> cases = {
      {"2d_pads_strides", {2, 3, 7, 6}, {3, 3}, {2, 2}, {}, {1, 1, 1, 1}},
      {"2d_dilations_ceil", {1, 2, 9, 8}, {2, 3}, {2, 1}, {2, 2}, {0, 1, 1, 0}, 1},
      {"2d_same_upper", {1, 2, 5, 6}, {2, 2}, {2, 2}, {}, {}, 0, "SAME_UPPER"},
      // The first windows lie wholly in the padding: -inf and index -1.
      {"2d_windows_in_padding", {1, 1, 4, 4}, {2, 2}, {1, 1}, {}, {3, 3, 0, 0}},
      {"1d", {2, 2, 11}, {3}, {2}, {}, {1, 2}},
      {"3d", {1, 2, 4, 5, 6}, {2, 3, 2}, {2, 1, 2}, {1, 1, 2}, {1, 0, 1, 0, 1, 1}},
  };
  unsigned seed = 700;
  for (const IndicesCase& k : cases) {
    for (int64_t order : {0, 1}) {
      const std::string suffix = k.name + (order ? "_column_major" : "");
      const unsigned s = seed++;
      c.push_back({"MaxPool_indices_" + suffix,
                   [k, order, s] { return max_pool_with_indices(k, random_f32(k.x, s), order); }});
      c.back().on_pixel = false;
      // Few distinct values: ties, where the first maximum in the window's walk wins, and a NaN.
      c.push_back({"MaxPool_indices_ties_" + suffix, [k, order, s] {
                     return max_pool_with_indices(k, few_values(DataType::Float32, k.x, s), order);
                   }});
      c.back().on_pixel = false;
    }
  }
  for (DataType dt : {DataType::Int8, DataType::UInt8}) {
    const std::string type(dtype_name(dt));
    c.push_back({"MaxPool_indices_" + type, [dt, k = cases[0]] {
                   return max_pool_with_indices(k, few_values(dt, k.x, 720), 1);
                 }});
    c.back().on_pixel = false;
  }
}

REGISTER_OP_CASES(add_maxpool_indices_cases);

}  // namespace
}  // namespace kiln::testing
