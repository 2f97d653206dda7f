/* Hand-written stand-in for a Loopscope-generated harness main.c (see smoke.h): fills the
 * inputs deterministically, runs the kernel and a naive reference, prints
 * "checksum 0x........ mismatches N" and returns 0 only when there are no mismatches. */
#include "smoke.h"

#include <stdint.h>
#include <stdio.h>

static int8_t a[SMOKE_M * SMOKE_K];
static int8_t b[SMOKE_K * SMOKE_N];
static float scale[SMOKE_N];
static int8_t out[SMOKE_M * SMOKE_N];
static int8_t expected[SMOKE_M * SMOKE_N];

static uint32_t rng_state = 0x12345678u;

static uint32_t next_random(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

static int8_t reference_to_int8(float x)
{
    float r = x >= 0.0f ? x + 0.5f : x - 0.5f;
    if (r > 127.0f)
        return 127;
    if (r < -128.0f)
        return -128;
    return (int8_t)(int32_t)r;
}

static void reference(void)
{
    int m, k, n;
    for (m = 0; m < SMOKE_M; ++m)
        for (n = 0; n < SMOKE_N; ++n) {
            int32_t acc = 0;
            float f;
            for (k = 0; k < SMOKE_K; ++k)
                acc += (int32_t)a[m * SMOKE_K + k] * (int32_t)b[k * SMOKE_N + n];
            f = (float)acc * scale[n];
            if (f < 0.0f)
                f *= 0.125f;
            expected[m * SMOKE_N + n] = reference_to_int8(f);
        }
}

int main(void)
{
    uint32_t checksum = 2166136261u; /* FNV-1a over the output bytes */
    int i;
    /* test_harness_files.cpp rewrites the next line to force a failing run */
    unsigned long mismatches = 0;

    for (i = 0; i < SMOKE_M * SMOKE_K; ++i)
        a[i] = (int8_t)((int32_t)(next_random() % 256u) - 128);
    for (i = 0; i < SMOKE_K * SMOKE_N; ++i)
        b[i] = (int8_t)((int32_t)(next_random() % 256u) - 128);
    for (i = 0; i < SMOKE_N; ++i)
        scale[i] = (float)(next_random() % 1000u + 1u) * 1.0e-5f;

    smoke(a, b, scale, out);
    reference();

    for (i = 0; i < SMOKE_M * SMOKE_N; ++i) {
        checksum = (checksum ^ (uint8_t)out[i]) * 16777619u;
        if (out[i] != expected[i])
            ++mismatches;
    }
    printf("checksum 0x%08lx mismatches %lu\n", (unsigned long)checksum, mismatches);
    return mismatches == 0 ? 0 : 1;
}
