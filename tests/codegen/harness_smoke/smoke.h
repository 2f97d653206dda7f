/* Hand-written stand-in for a Loopscope-generated kernel header, used only by
 * tests/codegen/test_harness_files.cpp to check the export harness (Makefile, Cortex-M
 * start-up, linker scripts) on the host, the Cortex-M7 and the Cortex-M4. */
#ifndef SMOKE_H
#define SMOKE_H

#include <stdint.h>

#define SMOKE_M 16
#define SMOKE_K 32
#define SMOKE_N 24

/* out[m][n] = requantize(sum_k a[m][k] * b[k][n]): int8 x int8 -> int32 accumulators, then a
 * float scale per column, a leaky ReLU in float and rounding back to int8. Row-major. */
void smoke(const int8_t *a, const int8_t *b, const float *scale, int8_t *out);

#endif
