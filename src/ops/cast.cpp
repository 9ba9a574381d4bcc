// Cast and CastLike: element type conversion between every pair of ONNX types but complex.
// BitCast: the same bits read as another type of the same bit width.
//
// Numeric rules live in backends/cpu/cast_convert.h. Strings follow the Cast spec:
//  - string -> number parses plain and scientific notation ("3.14", "1e-5", "1E8") and the
//    case-insensitive literals "INF", "+INF", "-INF" and "NaN" (also "inf"/"infinity").
//    Integer targets parse whole integers exactly (int64 beyond 2^53 included) and otherwise go
//    through double, truncating ("100.5" -> 100). Bool targets also accept "true"/"false".
//    Text that is not a number is an error (ONNX leaves it undefined).
//  - number -> string: integers in decimal, floats in the shortest form that reads back to the
//    same value ("0.1", "1e-05", "314.25"), "NaN", "INF", "-INF"; bool as "1"/"0" (C++'s
//    integer formatting of bool).
// Float8E8M0 targets honour `round_mode` ("up", the default, "down", "nearest") on the value
// as float32, as ONNX's reference does.
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

#include "backends/cpu/cast_convert.h"
#include "core/dtype_dispatch.h"
#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "opdefs/cast.h"
#include "ops/all_ops.h"

namespace kiln {
namespace {

constexpr int64_t kCastGrain = 32768;

// float32 -> float8e8m0 for the rounding modes the constructor does not implement.
Float8E8M0 to_e8m0(float f, bool saturate, E8M0Rounding rounding) {
  if (rounding == E8M0Rounding::kUp) return Float8E8M0(f, saturate);
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  uint32_t exponent = (bits >> 23) & 0xFF;
  if (exponent == 0xFF) {
    // Inf saturates like the "up" conversion does; NaN stays NaN.
    const bool is_inf = (bits & 0x7FFFFF) == 0;
    return Float8E8M0::from_bits(is_inf && saturate ? 0xFE : 0xFF);
  }
  if (rounding == E8M0Rounding::kNearest) {
    // Nearest power of two: round the mantissa at its top bit; ties go up for normal values.
    const bool guard = bits & 0x400000;
    const bool rest = bits & 0x3FFFFF;
    const bool round_up = guard && (rest || exponent > 0);
    if (round_up && !(saturate && exponent == 0xFE)) ++exponent;  // 0xFF: NaN, overflow
  }
  return Float8E8M0::from_bits(static_cast<uint8_t>(exponent));
}

template <class D, class S>
D convert_for_cast(const S& v, const CastOptions& opt) {
  if constexpr (std::is_same_v<D, Float8E8M0> && !std::is_same_v<S, Float8E8M0> &&
                !std::is_same_v<S, bool>) {
    if (opt.rounding != E8M0Rounding::kUp) {
      return to_e8m0(cpu::to_float_for_narrowing(v), opt.saturate, opt.rounding);
    }
  }
  return cpu::convert_element<D>(v, opt.saturate);
}

// --- strings -------------------------------------------------------------------------------

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::strchr(" \t\n\r\f\v", s.front())) s.remove_prefix(1);
  while (!s.empty() && std::strchr(" \t\n\r\f\v", s.back())) s.remove_suffix(1);
  return s;
}

// Parses a whole string with from_chars (locale independent); false when it is not a number.
template <class V>
bool parse_all(std::string_view s, V& value) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+') return false;  // no "++1"
  const char* end = s.data() + s.size();
  if constexpr (std::is_floating_point_v<V>) {
    // from_chars rejects "-" before inf/nan spellings only in some versions: handle sign here.
    const bool negative = s.front() == '-';
    std::string_view body = negative ? s.substr(1) : s;
    if (iequals(body, "inf") || iequals(body, "infinity")) {
      value = negative ? -std::numeric_limits<V>::infinity() : std::numeric_limits<V>::infinity();
      return true;
    }
    if (iequals(body, "nan")) {
      value = std::numeric_limits<V>::quiet_NaN();
      return true;
    }
    auto [ptr, ec] = std::from_chars(s.data(), end, value, std::chars_format::general);
    // Out of range: from_chars reports it without a value; strtod's answer is +-inf or +-0.
    if (ec == std::errc::result_out_of_range && ptr == end) {
      value = static_cast<V>(std::strtod(std::string(s).c_str(), nullptr));
      return true;
    }
    return ec == std::errc() && ptr == end;
  } else {
    auto [ptr, ec] = std::from_chars(s.data(), end, value);
    return ec == std::errc() && ptr == end;
  }
}

template <class D>
D parse_string(const std::string& text, const CastOptions& opt, const OpContext& ctx) {
  const std::string_view s = trim(text);
  if constexpr (std::is_same_v<D, float> || std::is_same_v<D, double>) {
    D v;
    if (parse_all(s, v)) return v;
  } else {
    if constexpr (std::is_same_v<D, bool>) {
      if (iequals(s, "true")) return true;
      if (iequals(s, "false")) return false;
    }
    if constexpr (is_plain_int_v<D> || is_small_int_v<D> || std::is_same_v<D, bool>) {
      // Exact integer parsing first, so that int64 values beyond 2^53 survive.
      int64_t i;
      if (parse_all(s, i)) return cpu::convert_element<D>(i, opt.saturate);
      uint64_t u;
      if (parse_all(s, u)) return cpu::convert_element<D>(u, opt.saturate);
    }
    double v;
    if (parse_all(s, v)) return convert_for_cast<D>(v, opt);
  }
  ctx.fail("Cast: cannot parse string \"" + text + "\" as " + std::string(dtype_name(dtype_of<D>)));
}

template <class F>
std::string format_float(F v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? "-INF" : "INF";
  char buffer[64];
  auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof(buffer), v);
  return std::string(buffer, ptr);
}

template <class S>
std::string format_element(const S& v) {
  if constexpr (std::is_same_v<S, bool>) {
    return v ? "1" : "0";
  } else if constexpr (std::is_same_v<S, float> || std::is_same_v<S, double>) {
    return format_float(v);
  } else if constexpr (is_small_float_v<S>) {
    return format_float(static_cast<float>(v));
  } else if constexpr (is_small_int_v<S>) {
    return std::to_string(static_cast<int>(v));
  } else {
    return std::to_string(v);
  }
}

// --- the kernel ----------------------------------------------------------------------------

void cast_tensor(OpContext& ctx, const Tensor& in, DataType to, const CastOptions& opt) {
  const DataType from = in.dtype();
  if (from == DataType::Complex64 || from == DataType::Complex128 || to == DataType::Complex64 ||
      to == DataType::Complex128) {
    ctx.fail("Cast: complex types are not supported (from " + std::string(dtype_name(from)) +
             " to " + std::string(dtype_name(to)) + ")");
  }
  if (from == to) {
    ctx.set_output(0, in);  // shares the data; the runtime never writes into it
    return;
  }
  Tensor& out = ctx.allocate_output(0, to, in.shape());
  const int64_t n = in.element_count();
  if (n == 0) return;

  if (from == DataType::String) {
    const std::string* src = in.data<std::string>();
    visit_dtype(to, [&]<class D>() {
      if constexpr (!is_complex_v<D> && !std::is_same_v<D, std::string>) {
        D* dst = out.mutable_data<D>();
        for (int64_t i = 0; i < n; ++i) dst[i] = parse_string<D>(src[i], opt, ctx);
      }
    });
    return;
  }
  if (to == DataType::String) {
    std::string* dst = out.mutable_data<std::string>();
    visit_dtype(from, [&]<class S>() {
      if constexpr (!is_complex_v<S> && !std::is_same_v<S, std::string>) {
        const S* src = in.data<S>();
        for (int64_t i = 0; i < n; ++i) dst[i] = format_element(src[i]);
      }
    });
    return;
  }
  visit_dtype(from, [&]<class S>() {
    if constexpr (!is_complex_v<S> && !std::is_same_v<S, std::string>) {
      const S* src = in.data<S>();
      visit_dtype(to, [&]<class D>() {
        if constexpr (!is_complex_v<D> && !std::is_same_v<D, std::string>) {
          D* dst = out.mutable_data<D>();
          auto body = [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) dst[i] = convert_for_cast<D>(src[i], opt);
          };
          if (n <= kCastGrain) {
            body(0, n);
          } else {
            parallel_for(n, kCastGrain, body);
          }
        }
      });
    }
  });
}

CpuKernel make_cast(const NodeInfo& info) {
  const DataType to = parse_cast_target(info);
  const CastOptions opt = parse_cast_options(info);
  return [to, opt](OpContext& ctx) { cast_tensor(ctx, ctx.input(0), to, opt); };
}

CpuKernel make_cast_like(const NodeInfo& info) {
  if (!info.has_input(1)) info.fail("CastLike needs a second input (target_type)");
  const CastOptions opt = parse_cast_options(info);
  return [opt](OpContext& ctx) { cast_tensor(ctx, ctx.input(0), ctx.input(1).dtype(), opt); };
}

// ---------------------------------------------------------------------------------------------
// BitCast

// Bits one element holds in ONNX's definition (not in kiln's memory, where the 4- and 2-bit
// types take a byte each); 0 for String, which has no bit pattern.
int bit_width(DataType t) {
  switch (t) {
    case DataType::String:
      return 0;
    case DataType::Int4:
    case DataType::UInt4:
    case DataType::Float4E2M1:
      return 4;
    case DataType::Int2:
    case DataType::UInt2:
      return 2;
    default:
      return static_cast<int>(dtype_size(t)) * 8;
  }
}

// The 4- or 2-bit pattern of a sub-byte element (each kept one per byte).
template <class T>
uint8_t sub_byte_bits(const T& v, int width) {
  const uint8_t mask = static_cast<uint8_t>((1 << width) - 1);
  if constexpr (std::is_same_v<T, Float4E2M1>) {
    return v.bits & mask;
  } else {
    return static_cast<uint8_t>(static_cast<int>(v)) & mask;
  }
}

template <class T>
T from_sub_byte_bits(uint8_t bits) {
  if constexpr (std::is_same_v<T, Float4E2M1>) {
    return Float4E2M1::from_bits(bits);
  } else {
    return T(static_cast<int>(bits));  // the constructors sign-extend the signed types
  }
}

void bit_cast_tensor(OpContext& ctx, const Tensor& in, DataType to) {
  const DataType from = in.dtype();
  const int width = bit_width(from);
  if (width == 0 || bit_width(to) == 0)
    ctx.fail("string tensors have no bit pattern to reinterpret");
  if (width != bit_width(to)) {
    ctx.fail("cannot reinterpret " + std::string(dtype_name(from)) + " (" + std::to_string(width) +
             " bits) as " + std::string(dtype_name(to)) + " (" + std::to_string(bit_width(to)) +
             " bits): the widths must match");
  }
  Tensor& out = ctx.allocate_output(0, to, in.shape());
  const int64_t n = in.element_count();
  if (width < 8) {
    visit_dtype(from, [&]<class S>() {
      if constexpr (is_small_int_v<S> || std::is_same_v<S, Float4E2M1>) {
        const S* src = in.data<S>();
        visit_dtype(to, [&]<class D>() {
          if constexpr (is_small_int_v<D> || std::is_same_v<D, Float4E2M1>) {
            D* dst = out.mutable_data<D>();
            for (int64_t i = 0; i < n; ++i)
              dst[i] = from_sub_byte_bits<D>(sub_byte_bits(src[i], width));
          }
        });
      }
    });
    return;
  }
  if (to == DataType::Bool) {
    // A C++ bool may only hold 0 or 1: any other byte reads as true.
    const uint8_t* src = static_cast<const uint8_t*>(in.raw_data());
    bool* dst = out.mutable_data<bool>();
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i] != 0;
    return;
  }
  if (n > 0) std::memcpy(out.mutable_raw_data(), in.raw_data(), in.byte_size());
}

CpuKernel make_bit_cast(const NodeInfo& info) {
  const DataType to = parse_cast_target(info);
  return [to](OpContext& ctx) { bit_cast_tensor(ctx, ctx.input(0), to); };
}

}  // namespace

KILN_CPU_OPS(cast);
void register_cast_ops(OpRegistry& registry) {
  registry.add("Cast", make_cast);
  registry.add("CastLike", make_cast_like);
  registry.add("BitCast", make_bit_cast);
}

}  // namespace kiln
