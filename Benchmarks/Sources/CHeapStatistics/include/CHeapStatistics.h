#ifndef C_HEAP_STATISTICS_H
#define C_HEAP_STATISTICS_H

#include <stddef.h>

/// The bytes the C heap has handed out and not taken back, or 0 where the C library cannot say.
size_t benchmark_heap_bytes_in_use(void);

#endif
