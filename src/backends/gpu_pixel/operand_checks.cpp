#include "backends/gpu_pixel/operand_checks.h"

#include "kiln/error.h"

namespace kiln::gpu_pixel {

void expect_element_count(const TextureTensor& tensor, int64_t count, const std::string& where,
                          const char* name) {
  check(tensor.element_count() == count, where + ": " + name + " holds " +
                                             std::to_string(tensor.element_count()) +
                                             " elements, its shape needs " + std::to_string(count));
}

}  // namespace kiln::gpu_pixel
