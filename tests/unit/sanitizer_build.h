// KILN_UNDER_ADDRESS_SANITIZER: defined when this file is compiled with AddressSanitizer, which
// gcc announces with __SANITIZE_ADDRESS__ and clang through __has_feature.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define KILN_UNDER_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_UNDER_ADDRESS_SANITIZER 1
#endif
#endif
