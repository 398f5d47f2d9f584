#ifndef C_CALLGRIND_H
#define C_CALLGRIND_H

/// Turns callgrind's instrumentation on, so that a run started with `--instr-atstart=no` counts
/// from here; does nothing outside Valgrind (or where Valgrind's headers were missing at build
/// time).
void benchmark_callgrind_start(void);

/// Turns callgrind's instrumentation off again.
void benchmark_callgrind_stop(void);

/// Whether the process runs under Valgrind (always 0 where Valgrind's headers were missing).
int benchmark_running_on_valgrind(void);

#endif
