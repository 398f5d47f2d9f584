#include "CCallgrind.h"

// Valgrind's client requests are a few no-op instructions outside Valgrind, so calling these in a
// release build costs nothing measurable. Without the headers (package `valgrind` on Debian ships
// them), they compile to nothing.
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAS_CALLGRIND 1
#endif
#endif

void benchmark_callgrind_start(void) {
#ifdef HAS_CALLGRIND
  CALLGRIND_START_INSTRUMENTATION;
#endif
}

void benchmark_callgrind_stop(void) {
#ifdef HAS_CALLGRIND
  CALLGRIND_STOP_INSTRUMENTATION;
#endif
}

int benchmark_running_on_valgrind(void) {
#ifdef HAS_CALLGRIND
  return RUNNING_ON_VALGRIND ? 1 : 0;
#else
  return 0;
#endif
}
