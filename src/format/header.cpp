#include "format/header.h"

#include <xxhash.h>

namespace kiln::format {

uint64_t file_checksum(const Header& header, const void* data) {
  const uint64_t fields = XXH3_64bits(&header, offsetof(Header, checksum));
  return XXH3_64bits_withSeed(static_cast<const char*>(data) + header.header_size,
                              header.file_size - header.header_size, fields);
}

}  // namespace kiln::format
