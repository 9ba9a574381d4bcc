#include "backends/vulkan/shaders.h"

namespace kiln::vulkan::shaders {
namespace {
// glslc -mfmt=c writes a braced list of words; each include is the initializer of an array.
constexpr uint32_t kBinaryElementwise[] =
#include "vulkan_shaders/binary_elementwise.spv.inc"
    ;
constexpr uint32_t kUnaryElementwise[] =
#include "vulkan_shaders/unary_elementwise.spv.inc"
    ;
constexpr uint32_t kRegionCopy[] =
#include "vulkan_shaders/region_copy.spv.inc"
    ;
constexpr uint32_t kMatmul[] =
#include "vulkan_shaders/matmul.spv.inc"
    ;
constexpr uint32_t kConv[] =
#include "vulkan_shaders/conv.spv.inc"
    ;
constexpr uint32_t kConvK3s1[] =
#include "vulkan_shaders/conv_k3s1.spv.inc"
    ;
constexpr uint32_t kConvK3s2[] =
#include "vulkan_shaders/conv_k3s2.spv.inc"
    ;
constexpr uint32_t kConvDepthwise[] =
#include "vulkan_shaders/conv_depthwise.spv.inc"
    ;
constexpr uint32_t kConvDepthwiseK3s1[] =
#include "vulkan_shaders/conv_depthwise_k3s1.spv.inc"
    ;
constexpr uint32_t kConvDepthwiseK3s2[] =
#include "vulkan_shaders/conv_depthwise_k3s2.spv.inc"
    ;
constexpr uint32_t kConvDepthwiseK5s1[] =
#include "vulkan_shaders/conv_depthwise_k5s1.spv.inc"
    ;
constexpr uint32_t kConvDepthwiseK5s2[] =
#include "vulkan_shaders/conv_depthwise_k5s2.spv.inc"
    ;
constexpr uint32_t kConvTranspose[] =
#include "vulkan_shaders/conv_transpose.spv.inc"
    ;
constexpr uint32_t kReduce[] =
#include "vulkan_shaders/reduce.spv.inc"
    ;
constexpr uint32_t kLstmStep[] =
#include "vulkan_shaders/lstm_step.spv.inc"
    ;
constexpr uint32_t kSoftmax[] =
#include "vulkan_shaders/softmax.spv.inc"
    ;
constexpr uint32_t kPool[] =
#include "vulkan_shaders/pool.spv.inc"
    ;
constexpr uint32_t kNormalization[] =
#include "vulkan_shaders/normalization.spv.inc"
    ;
constexpr uint32_t kGather[] =
#include "vulkan_shaders/gather.spv.inc"
    ;
constexpr uint32_t kCast[] =
#include "vulkan_shaders/cast.spv.inc"
    ;
constexpr uint32_t kLogicalElementwise[] =
#include "vulkan_shaders/logical_elementwise.spv.inc"
    ;
constexpr uint32_t kIntegerElementwise[] =
#include "vulkan_shaders/integer_elementwise.spv.inc"
    ;
constexpr uint32_t kFill[] =
#include "vulkan_shaders/fill.spv.inc"
    ;
constexpr uint32_t kPadTile[] =
#include "vulkan_shaders/pad_tile.spv.inc"
    ;
constexpr uint32_t kResize[] =
#include "vulkan_shaders/resize.spv.inc"
    ;
}  // namespace

std::span<const uint32_t> binary_elementwise() { return kBinaryElementwise; }
std::span<const uint32_t> unary_elementwise() { return kUnaryElementwise; }
std::span<const uint32_t> region_copy() { return kRegionCopy; }
std::span<const uint32_t> matmul() { return kMatmul; }
std::span<const uint32_t> conv() { return kConv; }
std::span<const uint32_t> conv_k3s1() { return kConvK3s1; }
std::span<const uint32_t> conv_k3s2() { return kConvK3s2; }
std::span<const uint32_t> conv_depthwise() { return kConvDepthwise; }
std::span<const uint32_t> conv_depthwise_k3s1() { return kConvDepthwiseK3s1; }
std::span<const uint32_t> conv_depthwise_k3s2() { return kConvDepthwiseK3s2; }
std::span<const uint32_t> conv_depthwise_k5s1() { return kConvDepthwiseK5s1; }
std::span<const uint32_t> conv_depthwise_k5s2() { return kConvDepthwiseK5s2; }
std::span<const uint32_t> conv_transpose() { return kConvTranspose; }
std::span<const uint32_t> reduce() { return kReduce; }
std::span<const uint32_t> lstm_step() { return kLstmStep; }
std::span<const uint32_t> softmax() { return kSoftmax; }
std::span<const uint32_t> pool() { return kPool; }
std::span<const uint32_t> normalization() { return kNormalization; }
std::span<const uint32_t> gather() { return kGather; }
std::span<const uint32_t> cast() { return kCast; }
std::span<const uint32_t> logical_elementwise() { return kLogicalElementwise; }
std::span<const uint32_t> integer_elementwise() { return kIntegerElementwise; }
std::span<const uint32_t> fill() { return kFill; }
std::span<const uint32_t> pad_tile() { return kPadTile; }
std::span<const uint32_t> resize() { return kResize; }

}  // namespace kiln::vulkan::shaders
