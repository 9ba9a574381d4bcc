// The fixed 64-byte header at the start of a .kiln file (see kiln_file.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::format {

inline constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'M', 'D', 'L', '\x1a'};
inline constexpr size_t kAlignment = 64;  // of the model table, the weight block and each tensor

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t header_size;
  uint64_t file_size;
  uint64_t model_offset, model_size;
  uint64_t weights_offset, weights_size;
  uint64_t checksum;  // XXH3-64 of the fields above, then of bytes [header_size, file_size)
};
static_assert(sizeof(Header) == 64);

// The checksum a header with these fields has over `data` (the whole file).
uint64_t file_checksum(const Header& header, const void* data);

inline uint64_t align_up(uint64_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace kiln::format
