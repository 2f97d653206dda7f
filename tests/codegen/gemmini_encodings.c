/* The encodings of the export harness's gemmini.h, macro by macro: with LOOPSCOPE_GEMMINI_TRACE
   defined, every instruction is recorded as (funct, rs1, rs2) instead of executed, and compared
   with the words the Gemmini README's ISA gives (rs2 of mvin: rows << 48 | cols << 32 | address;
   config_ex: acc_scale << 32 | A_stride << 16 | transposes << 8 | act << 3 | dataflow << 2;
   config_ld: scale << 32 | id << 3 | shrunk << 2 | 1, rs2 the stride; ...), written out here by
   hand. Prints "N instructions as expected" and exits 0, or names the first difference. */
#include <stdint.h>
#include <stdio.h>

struct ls_insn {
    unsigned funct;
    uint64_t rs1, rs2;
};
static struct ls_insn ls_seen[64];
static int ls_count;
#define LOOPSCOPE_GEMMINI_TRACE(f, a, b) (ls_seen[ls_count].funct = (f), ls_seen[ls_count].rs1 = (a), ls_seen[ls_count++].rs2 = (b))
#define LOOPSCOPE_GEMMINI_TRANSFER(t) ((void)(t))
#include "gemmini.h"

static const struct ls_insn ls_expected[] = {
    {2, 0x1000, 0x0008001000000020ull},                  /* gemmini_extended_mvin(0x1000, 0x20, 16, 8) */
    {1, 0x2000, 0x0010000c00000030ull},                  /* gemmini_extended_mvin2(0x2000, 0x30, 12, 16) */
    {14, 0x3000, 0x0004001080000040ull},                 /* gemmini_extended_mvin3(0x3000, acc row 0x40, 16, 4) */
    {3, 0x4000, 0x00100010a0000010ull},                  /* gemmini_extended_mvout(0x4000, acc raw row 0x10, 16, 16) */
    {6, 0x0010001000000050ull, 0x000c0008c0000000ull},   /* gemmini_extended_preload(0x50, acc accumulate row 0, 16, 16, 8, 12) */
    {6, 0x00100010ffffffffull, 0x00100010ffffffffull},   /* gemmini_extended_preload(GARBAGE_ADDR, GARBAGE_ADDR, 16, 16, 16, 16) */
    {4, 0x0010000300000010ull, 0x00100010ffffffffull},   /* gemmini_extended_compute_preloaded(0x10, GARBAGE_ADDR, 3, 16, 16, 16) */
    {5, 0x0008001000000020ull, 0x0010000c00000030ull},   /* gemmini_extended_compute_accumulated(0x20, 0x30, 16, 8, 12, 16) */
    {0, 0x3f80000000020004ull, 0},                       /* gemmini_extended_config_ex(WS, none, 0, 1.0, 0, 2, 0, 0) */
    {0, 0x3f00000000010000ull, 0x0000000700000000ull},   /* gemmini_extended_config_ex(OS, none, 0, 0.5, 7, 1, 0, 0) */
    {0, 0x3f80000000000009ull, 128},                     /* gemmini_extended3_config_ld(128, 1.0, false, 1) */
    {0, 0x3f80000000000015ull, 0},                       /* gemmini_extended3_config_ld(0, 1.0, true, 2) */
    {0, 0x3f80000000000001ull, 32},                      /* gemmini_config_ld(32) */
    {0, 2, 256},                                         /* gemmini_config_st(256) */
    {0, 0x0706050403000992ull, 64},                      /* gemmini_extended_config_st(64, 1, 2, 3, 4, 5, 6, 7, 1, 2) */
    {7, 0, 0},                                           /* gemmini_flush(0) */
    {2, 0x5000, 0x0010001000000060ull},                  /* gemmini_mvin(0x5000, 0x60) */
    {3, 0x6000, 0x0010001000000070ull},                  /* gemmini_mvout(0x6000, 0x70) */
    {4, 0x00100010000000a0ull, 0x00100010000000b0ull},   /* gemmini_compute_preloaded(0xa0, 0xb0) */
};

int main(void)
{
    const int n = (int)(sizeof ls_expected / sizeof ls_expected[0]);
    int i;
    gemmini_extended_mvin(0x1000, 0x20, 16, 8);
    gemmini_extended_mvin2(0x2000, 0x30, 12, 16);
    gemmini_extended_mvin3(0x3000, (1u << 31) | 0x40, 16, 4);
    gemmini_extended_mvout(0x4000, (1u << 31) | (1u << 29) | 0x10, 16, 16);
    gemmini_extended_preload(0x50, (1u << 31) | (1u << 30), 16, 16, 8, 12);
    gemmini_extended_preload(GARBAGE_ADDR, GARBAGE_ADDR, 16, 16, 16, 16);
    gemmini_extended_compute_preloaded(0x10, GARBAGE_ADDR, 3, 16, 16, 16);
    gemmini_extended_compute_accumulated(0x20, 0x30, 16, 8, 12, 16);
    gemmini_extended_config_ex(WEIGHT_STATIONARY, NO_ACTIVATION, 0, 1.0, 0, 2, 0, 0);
    gemmini_extended_config_ex(OUTPUT_STATIONARY, NO_ACTIVATION, 0, 0.5, 7, 1, 0, 0);
    gemmini_extended3_config_ld(128, 1.0, false, 1);
    gemmini_extended3_config_ld(0, 1.0, true, 2);
    gemmini_config_ld(32);
    gemmini_config_st(256);
    gemmini_extended_config_st(64, 1, 2, 3, 4, 5, 6, 7, 1, 2);
    gemmini_flush(0);
    gemmini_fence();
    gemmini_mvin(0x5000, 0x60);
    gemmini_mvout(0x6000, 0x70);
    gemmini_compute_preloaded(0xa0, 0xb0);
    if (ls_count != n) {
        printf("expected %d instructions, the macros issued %d\n", n, ls_count);
        return 1;
    }
    for (i = 0; i < n; ++i)
        if (ls_seen[i].funct != ls_expected[i].funct || ls_seen[i].rs1 != ls_expected[i].rs1 || ls_seen[i].rs2 != ls_expected[i].rs2) {
            printf("instruction %d: funct %u rs1 0x%016llx rs2 0x%016llx, expected funct %u rs1 0x%016llx rs2 0x%016llx\n", i, ls_seen[i].funct,
                   (unsigned long long)ls_seen[i].rs1, (unsigned long long)ls_seen[i].rs2, ls_expected[i].funct, (unsigned long long)ls_expected[i].rs1,
                   (unsigned long long)ls_expected[i].rs2);
            return 1;
        }
    printf("%d instructions as expected, gemmini_fence emits none\n", n);
    return 0;
}
