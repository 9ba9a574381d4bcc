// SPIR-V of the shaders in shaders/*.comp, compiled by glslc at build time and embedded, so the
// library needs no shader files at run time.
#pragma once

#include <cstdint>
#include <span>

namespace kiln::vulkan::shaders {

std::span<const uint32_t> binary_elementwise();
std::span<const uint32_t> unary_elementwise();
std::span<const uint32_t> region_copy();
std::span<const uint32_t> matmul();
std::span<const uint32_t> conv();
std::span<const uint32_t> conv_k3s1();
std::span<const uint32_t> conv_k3s2();
std::span<const uint32_t> conv_depthwise();
std::span<const uint32_t> conv_depthwise_k3s1();
std::span<const uint32_t> conv_depthwise_k3s2();
std::span<const uint32_t> conv_depthwise_k5s1();
std::span<const uint32_t> conv_depthwise_k5s2();
std::span<const uint32_t> conv_transpose();
std::span<const uint32_t> reduce();
std::span<const uint32_t> lstm_step();
std::span<const uint32_t> softmax();
std::span<const uint32_t> pool();
std::span<const uint32_t> normalization();
std::span<const uint32_t> gather();
std::span<const uint32_t> cast();
std::span<const uint32_t> logical_elementwise();
std::span<const uint32_t> integer_elementwise();
std::span<const uint32_t> fill();
std::span<const uint32_t> pad_tile();
std::span<const uint32_t> resize();

}  // namespace kiln::vulkan::shaders
