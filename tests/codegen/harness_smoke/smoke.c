/* Hand-written stand-in for a Loopscope-generated kernel (see smoke.h): C99, no dynamic
 * allocation, only <stdint.h>/<stddef.h>/<string.h>, a static array as its SRAM buffer. */
#include "smoke.h"

#include <stddef.h>
#include <string.h>

static int32_t acc_sram[SMOKE_N];
static float row_f[SMOKE_N];

static int8_t to_int8(float x)
{
    float r = x >= 0.0f ? x + 0.5f : x - 0.5f;
    if (r > 127.0f)
        return 127;
    if (r < -128.0f)
        return -128;
    return (int8_t)(int32_t)r;
}

void smoke(const int8_t *a, const int8_t *b, const float *scale, int8_t *out)
{
    size_t m, k, n;
    for (m = 0; m < SMOKE_M; ++m) {
        memset(acc_sram, 0, sizeof acc_sram);
        for (k = 0; k < SMOKE_K; ++k)
            for (n = 0; n < SMOKE_N; ++n)
                acc_sram[n] += (int32_t)a[m * SMOKE_K + k] * (int32_t)b[k * SMOKE_N + n];
        for (n = 0; n < SMOKE_N; ++n) {
            row_f[n] = (float)acc_sram[n] * scale[n];
            if (row_f[n] < 0.0f)
                row_f[n] *= 0.125f;
            out[m * SMOKE_N + n] = to_int8(row_f[n]);
        }
    }
}
