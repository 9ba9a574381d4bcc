#include "backend_op_cases.h"

namespace kiln::testing {
namespace {

// Trilu: upper and lower, k inside and beyond the matrix, batches of
// non-square matrices, int64, int32 and float32.
void add_trilu_cases(std::vector<OpCase>& c) {
  for (int64_t upper : {0, 1}) {
    for (int64_t k : {int64_t{0}, int64_t{2}, int64_t{-1}, int64_t{9}, int64_t{-7}}) {
      c.push_back({"Trilu_" + std::string(upper ? "upper" : "lower") + "_k" +
                       (k < 0 ? "m" + std::to_string(-k) : std::to_string(k)),
                   [upper, k] {
                     return OpTest("Trilu")
                         .input(random_int<int64_t>({2, 4, 6}, 193, -100, 100))
                         .input(i64({}, {k}))
                         .constant_input(1)
                         .attr("upper", upper);
                   }});
    }
  }
  c.push_back({"Trilu_no_k_int32", [] {
                 return OpTest("Trilu").input(random_int<int32_t>({5, 3}, 194));
               }});
  c.push_back({"Trilu_lower_float32", [] {
                 return OpTest("Trilu")
                     .input(random_f32({3, 1, 7, 7}, 195))
                     .input(i64({}, {1}))
                     .constant_input(1)
                     .attr("upper", int64_t{0});
               }});
}

REGISTER_OP_CASES(add_trilu_cases);

}  // namespace
}  // namespace kiln::testing
