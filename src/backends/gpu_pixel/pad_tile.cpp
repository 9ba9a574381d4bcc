#include "backends/gpu_pixel/pad_tile.h"

#include <algorithm>
#include <string>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/fill.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

// MODE_* selects how a coordinate outside the input resolves.
constexpr const char* kShader = R"(
uniform highp VALUE_SAMPLER x;
uniform int x_width;
uniform int u_rank;
uniform int u_out_shape[6];
uniform int u_in_shape[6];
uniform int u_crop[6];       // elements cropped at the start (negative begin pads)
uniform int u_extent[6];     // what is left after cropping both ends
uniform int u_pad_begin[6];  // positive begin pads

// GLSL leaves % undefined for negative operands.
int positive_mod(int a, int n) { return a >= 0 ? a % n : (n - 1) - (-a - 1) % n; }

VALUE element(int i) {
  int rest = i, s = 0, stride = 1;
  for (int d = u_rank - 1; d >= 0; --d) {
    int n = u_extent[d];
    int c = rest % u_out_shape[d] - u_pad_begin[d];
    rest /= u_out_shape[d];
    if (c < 0 || c >= n) {
#if defined(MODE_CONSTANT)
      return constant_value(i);
#elif defined(MODE_EDGE)
      c = clamp(c, 0, n - 1);
#elif defined(MODE_WRAP)
      c = positive_mod(c, n);
#elif defined(MODE_REFLECT)
      // Reflection without repeating the edge has period 2 (n - 1); pads longer than the
      // dimension keep reflecting, as on the CPU.
      if (n == 1) {
        c = 0;
      } else {
        c = positive_mod(c, 2 * (n - 1));
        if (c >= n) c = 2 * (n - 1) - c;
      }
#endif
    }
    s += (c + u_crop[d]) * stride;
    stride *= u_in_shape[d];
  }
  return fetch_element(x, x_width, s);
}
)";

const char* define_of(PadMode mode) {
  switch (mode) {
    case PadMode::Constant:
      return "#define MODE_CONSTANT\n";
    case PadMode::Reflect:
      return "#define MODE_REFLECT\n";
    case PadMode::Edge:
      return "#define MODE_EDGE\n";
    case PadMode::Wrap:
      return "#define MODE_WRAP\n";
  }
  throw Error("Pad on OpenGL ES: unknown mode");
}

const char* name_of(PadMode mode) {
  switch (mode) {
    case PadMode::Constant:
      return "constant";
    case PadMode::Reflect:
      return "reflect";
    case PadMode::Edge:
      return "edge";
    case PadMode::Wrap:
      return "wrap";
  }
  return "unknown";
}

PadIndexing finish(PadIndexing ix, const std::vector<int64_t>& out, const char* op) {
  int64_t count = 1;
  for (int64_t n : out) count *= n;
  check(count <= INT32_MAX, std::string(op) + " on OpenGL ES: " + std::to_string(count) +
                                " elements exceed 32-bit indexing");
  ix.count = static_cast<int>(count);
  for (size_t d = 0; d < out.size(); ++d) ix.out_shape[d] = static_cast<int>(out[d]);
  return ix;
}

}  // namespace

PadMode pad_mode_from_string(const std::string& mode) {
  for (PadMode m : {PadMode::Constant, PadMode::Reflect, PadMode::Edge, PadMode::Wrap}) {
    if (mode == name_of(m)) return m;
  }
  throw Error("Pad: mode must be constant, reflect, edge or wrap, got \"" + mode + "\"");
}

PadIndexing pad_indexing(const Shape& in_shape, std::span<const int64_t> pads, PadMode mode) {
  const size_t rank = in_shape.size();
  check(pads.size() == 2 * rank, "Pad: " + std::to_string(pads.size()) + " pads for rank " +
                                     std::to_string(rank) + " (need 2 per dimension)");
  check(rank <= kPadMaxRank, "Pad on OpenGL ES: rank " + std::to_string(rank) + " exceeds 6");
  PadIndexing ix;
  ix.rank = static_cast<int>(rank);
  std::vector<int64_t> out(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t n = in_shape[d], begin = pads[d], end = pads[rank + d];
    out[d] = n + begin + end;
    const std::string where = "Pad: dimension " + std::to_string(d) + " of " +
                              in_shape.to_string() + " with pads " + std::to_string(begin) + ", " +
                              std::to_string(end);
    check(out[d] >= 0, where + " has a negative size");
    check(out[d] <= INT32_MAX && n <= INT32_MAX && begin >= INT32_MIN && begin <= INT32_MAX,
          where + ": sizes exceed 32-bit indexing");
    // Negative pads crop first; positive ones then pad what is left, as on the CPU.
    const int64_t left = n + std::min<int64_t>(0, begin) + std::min<int64_t>(0, end);
    const bool pads_outside = (begin > 0 || end > 0) && out[d] > 0;
    if (pads_outside && mode != PadMode::Constant) {
      check(left > 0, where + ": only constant mode can pad an empty dimension");
    }

    ix.in_shape[d] = static_cast<int>(n);
    ix.crop[d] = static_cast<int>(std::max<int64_t>(0, -begin));
    ix.extent[d] = static_cast<int>(
        std::max<int64_t>(0, n + std::min<int64_t>(0, begin) + std::min<int64_t>(0, end)));
    ix.pad_begin[d] = static_cast<int>(std::max<int64_t>(0, begin));
  }
  return finish(ix, out, "Pad");
}

PadIndexing tile_indexing(const Shape& in_shape, std::span<const int64_t> repeats) {
  const size_t rank = in_shape.size();
  check(repeats.size() == rank,
        "Tile: " + std::to_string(repeats.size()) + " repeats for rank " + std::to_string(rank));
  check(rank <= kPadMaxRank, "Tile on OpenGL ES: rank " + std::to_string(rank) + " exceeds 6");
  PadIndexing ix;
  ix.rank = static_cast<int>(rank);
  std::vector<int64_t> out(rank);
  for (size_t d = 0; d < rank; ++d) {
    check(repeats[d] >= 0, "Tile: negative repeat " + std::to_string(repeats[d]) +
                               " on dimension " + std::to_string(d));
    out[d] = in_shape[d] * repeats[d];
    check(out[d] <= INT32_MAX, "Tile on OpenGL ES: sizes exceed 32-bit indexing");
    ix.in_shape[d] = static_cast<int>(in_shape[d]);
    ix.extent[d] = ix.in_shape[d];
  }
  return finish(ix, out, "Tile");
}

void PadTile::pad(const TextureTensor& x, const Shape& x_shape, std::span<const int64_t> pads,
                  PadMode mode, const ConstantValue& value, TextureTensor& y) const {
  record(pad_indexing(x_shape, pads, mode), mode, value, x, y, "Pad");
}

void PadTile::tile(const TextureTensor& x, const Shape& x_shape, std::span<const int64_t> repeats,
                   TextureTensor& y) const {
  record(tile_indexing(x_shape, repeats), PadMode::Wrap, ConstantValue{}, x, y, "Tile");
}

void PadTile::record(const PadIndexing& ix, PadMode mode, const ConstantValue& value,
                     const TextureTensor& x, TextureTensor& y, const char* op) const {
  const std::string where = std::string(op) + " on OpenGL ES";
  check(y.element_count() == ix.count, where + ": the output holds " +
                                           std::to_string(y.element_count()) + " elements, not " +
                                           std::to_string(ix.count));
  if (ix.count == 0) return;
  int64_t in_count = 1;
  for (int d = 0; d < ix.rank; ++d) in_count *= ix.in_shape[d];
  check(x.element_count() >= in_count, where + ": the input holds fewer elements than its shape");
  // An empty input with a non-empty output is constant padding only: no texture to read.
  if (in_count == 0) {
    check(mode == PadMode::Constant, where + ": nothing to repeat in an empty input");
    TextureTensor one(context_, 1, y.format());
    Fill(context_).record(ConstantValue{}, one);  // zero in any format
    PadIndexing fill = ix;
    for (int d = 0; d < fill.rank; ++d) {
      fill.in_shape[d] = fill.extent[d] = 1;
      fill.crop[d] = 0;
      fill.pad_begin[d] = INT32_MAX / 2;  // every coordinate falls before the start
    }
    record(fill, PadMode::Constant, value, one, y, op);
    return;
  }
  check(x.format() == y.format(), where + ": input and output textures of two formats");
  ProgramVariant variant = values_variant(y.format());
  variant.name = std::string(name_of(mode)) + (variant.name.empty() ? "" : "+") + variant.name;
  variant.defines += define_of(mode);
  const Program& program =
      context_.programs().get("pad_tile", variant.name, variant.defines,
                              std::string(kConstantValueShader) + kShader + kElementMain);
  const DrawInput inputs[] = {{"x", &x}};
  draw(context_, program, y, inputs, [&] {
    program.set("u_rank", ix.rank);
    program.set("u_out_shape", std::span<const int>(ix.out_shape));
    program.set("u_in_shape", std::span<const int>(ix.in_shape));
    program.set("u_crop", std::span<const int>(ix.crop));
    program.set("u_extent", std::span<const int>(ix.extent));
    program.set("u_pad_begin", std::span<const int>(ix.pad_begin));
    set_constant_value(program, value);
  });
}

}  // namespace kiln::gpu_pixel
