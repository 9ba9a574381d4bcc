#include "kiln/version.h"

namespace kiln {

// Compiled into the library, so it reports the library's version even when a program was built
// against other headers.
const char* version() { return KILN_VERSION_STRING; }

}  // namespace kiln
