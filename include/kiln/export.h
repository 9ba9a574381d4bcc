// KILN_API marks the public API: the only symbols a shared libkiln exports. Everything else is
// built with hidden visibility (-fvisibility=hidden), so the engine's internals — kernels,
// backends, the IR, the libraries it links — stay private to the library and cannot clash with
// a program's own copies.
#pragma once

#if defined(_WIN32)
#if defined(KILN_BUILDING_SHARED)
#define KILN_API __declspec(dllexport)
#elif defined(KILN_SHARED)
#define KILN_API __declspec(dllimport)
#else
#define KILN_API
#endif
#else
#define KILN_API __attribute__((visibility("default")))
#endif
