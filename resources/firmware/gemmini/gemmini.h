/* gemmini.h: Loopscope's own implementation of the Gemmini instruction macros an exported kernel
   calls, with the names, arguments and encodings of gemmini-rocc-tests' include/gemmini.h
   (the ISA of the Gemmini README: custom-3 instructions, funct codes, 32-bit local addresses
   with bit 31 = accumulator, bit 30 = accumulate, bit 29 = raw int32 read). It is written for
   the export harness; in a Gemmini software project, use the project's own gemmini.h instead:
   the kernel compiles unchanged against it.

   Three builds of the same macros:
     - default on the host: every instruction runs the C functional model (gemmini_model.c);
     - on RISC-V (__riscv, unless LOOPSCOPE_GEMMINI_HOST): the real instruction,
       .insn r CUSTOM_3, 3, funct, x0, rs1, rs2; on a core without Gemmini it traps as an
       illegal instruction and the harness's trap handler runs the same model;
     - with LOOPSCOPE_GEMMINI_TRACE(funct, rs1, rs2) defined before this header: every
       instruction is handed to that macro instead (rs1 and rs2 as the 64-bit register values),
       and gemmini_fence emits nothing, so that encodings can be compared call by call.
   Configuration (gemmini_params.h of the default config): DIM 16, 4 banks x 4096 scratchpad
   rows, 1024 accumulator rows, 64-byte DMA rows. */
#ifndef LOOPSCOPE_GEMMINI_H
#define LOOPSCOPE_GEMMINI_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define DIM 16
#define ADDR_LEN 32
#define BANK_NUM 4
#define BANK_ROWS 4096
#define ACC_ROWS 1024
#define MAX_BYTES 64
#define MAX_BLOCK_LEN (MAX_BYTES / (DIM * 1))
#define MAX_BLOCK_LEN_ACC (MAX_BYTES / (DIM * 4))

typedef int8_t elem_t;
typedef int32_t acc_t;
typedef float scale_t;
typedef float acc_scale_t;

#define MVIN_SCALE_IDENTITY 1.0
#define ACC_SCALE_IDENTITY 1.0

/* funct of each instruction (the README's ISA). */
#define k_CONFIG 0
#define k_MVIN2 1
#define k_MVIN 2
#define k_MVOUT 3
#define k_COMPUTE_PRELOADED 4
#define k_COMPUTE_ACCUMULATE 5
#define k_PRELOAD 6
#define k_FLUSH 7
#define k_MVIN3 14

/* rs1[1:0] of a k_CONFIG instruction. */
#define CONFIG_EX 0
#define CONFIG_LD 1
#define CONFIG_ST 2

#define GARBAGE_ADDR ((uint32_t)(-1))
#define OUTPUT_STATIONARY 0
#define WEIGHT_STATIONARY 1
#define NO_ACTIVATION 0
#define RELU 1
#define RELU6 2

/* The bits of a float, as the configuration registers hold a scale. */
static inline uint32_t loopscope_gemmini_float_bits(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

/* Fields of rs1 / rs2: a local address with its columns and rows. */
#define LS_GEMMINI_ROWS_COLS_ADDR(rows, cols, addr) \
    (((uint64_t)(rows) << (ADDR_LEN + 16)) | ((uint64_t)(cols) << ADDR_LEN) | (uint64_t)(uint32_t)(addr))

/* The functional model (gemmini_model.c): one instruction, as rs1 and rs2 hold it. */
void loopscope_gemmini_execute(unsigned funct, uint64_t rs1, uint64_t rs2);

/* One instruction. */
#if defined(LOOPSCOPE_GEMMINI_TRACE)
#define LS_GEMMINI_INSN(funct, rs1, rs2) LOOPSCOPE_GEMMINI_TRACE((funct), (uint64_t)(rs1), (uint64_t)(rs2))
#define LS_GEMMINI_FENCE() ((void)0)
#elif defined(__riscv) && !defined(LOOPSCOPE_GEMMINI_HOST)
#define LS_GEMMINI_INSN(funct, rs1, rs2)                                                                             \
    do {                                                                                                              \
        const uint64_t ls_rs1_ = (uint64_t)(rs1), ls_rs2_ = (uint64_t)(rs2);                                          \
        __asm__ volatile(".insn r CUSTOM_3, 3, %2, x0, %0, %1" : : "r"(ls_rs1_), "r"(ls_rs2_), "i"(funct) : "memory"); \
    } while (0)
#define LS_GEMMINI_FENCE() __asm__ volatile("fence" : : : "memory")
#else
#define LS_GEMMINI_INSN(funct, rs1, rs2) loopscope_gemmini_execute((funct), (uint64_t)(rs1), (uint64_t)(rs2))
#define LS_GEMMINI_FENCE() ((void)0)
#endif

/* Data movement: rows of cols elements between main memory (a byte address) and a local
   address; the main-memory stride is that of config_ld / config_st. */
#define gemmini_extended_mvin(dram_addr, spad_addr, cols, rows) \
    LS_GEMMINI_INSN(k_MVIN, (uintptr_t)(dram_addr), LS_GEMMINI_ROWS_COLS_ADDR((rows), (cols), (spad_addr)))
#define gemmini_extended_mvin2(dram_addr, spad_addr, cols, rows) \
    LS_GEMMINI_INSN(k_MVIN2, (uintptr_t)(dram_addr), LS_GEMMINI_ROWS_COLS_ADDR((rows), (cols), (spad_addr)))
#define gemmini_extended_mvin3(dram_addr, spad_addr, cols, rows) \
    LS_GEMMINI_INSN(k_MVIN3, (uintptr_t)(dram_addr), LS_GEMMINI_ROWS_COLS_ADDR((rows), (cols), (spad_addr)))
#define gemmini_extended_mvout(dram_addr, spad_addr, cols, rows) \
    LS_GEMMINI_INSN(k_MVOUT, (uintptr_t)(dram_addr), LS_GEMMINI_ROWS_COLS_ADDR((rows), (cols), (spad_addr)))
#define gemmini_mvin(dram_addr, spad_addr) gemmini_extended_mvin((dram_addr), (spad_addr), DIM, DIM)
#define gemmini_mvout(dram_addr, spad_addr) gemmini_extended_mvout((dram_addr), (spad_addr), DIM, DIM)

/* Execute: a preload (B in WS, D in OS) and a compute (A, and D in WS or B in OS). */
#define gemmini_extended_preload(BD, C, BD_cols, BD_rows, C_cols, C_rows) \
    LS_GEMMINI_INSN(k_PRELOAD, LS_GEMMINI_ROWS_COLS_ADDR((BD_rows), (BD_cols), (BD)), LS_GEMMINI_ROWS_COLS_ADDR((C_rows), (C_cols), (C)))
#define gemmini_extended_compute_preloaded(A, BD, A_cols, A_rows, BD_cols, BD_rows) \
    LS_GEMMINI_INSN(k_COMPUTE_PRELOADED, LS_GEMMINI_ROWS_COLS_ADDR((A_rows), (A_cols), (A)), LS_GEMMINI_ROWS_COLS_ADDR((BD_rows), (BD_cols), (BD)))
#define gemmini_extended_compute_accumulated(A, BD, A_cols, A_rows, BD_cols, BD_rows) \
    LS_GEMMINI_INSN(k_COMPUTE_ACCUMULATE, LS_GEMMINI_ROWS_COLS_ADDR((A_rows), (A_cols), (A)), LS_GEMMINI_ROWS_COLS_ADDR((BD_rows), (BD_cols), (BD)))
#define gemmini_preload(BD, C) gemmini_extended_preload((BD), (C), DIM, DIM, DIM, DIM)
#define gemmini_preload_zeros(C) gemmini_preload(GARBAGE_ADDR, (C))
#define gemmini_compute_preloaded(A, BD) gemmini_extended_compute_preloaded((A), (BD), DIM, DIM, DIM, DIM)
#define gemmini_compute_accumulated(A, BD) gemmini_extended_compute_accumulated((A), (BD), DIM, DIM, DIM, DIM)

/* Configuration. config_ex: dataflow, activation, shifts, the accumulator's read scale, the
   scratchpad stride between the rows of A fed to the array, transposes. */
#define gemmini_extended_config_ex(dataflow, act, sys_shift, acc_scale, relu6_shift, A_stride, A_transpose, B_transpose)                       \
    LS_GEMMINI_INSN(k_CONFIG,                                                                                                                 \
                    ((uint64_t)loopscope_gemmini_float_bits((acc_scale_t)(acc_scale)) << 32) | ((uint64_t)(A_stride) << 16)                     \
                        | ((uint64_t)(B_transpose) << 9) | ((uint64_t)(A_transpose) << 8) | ((uint64_t)(act) << 3) | ((uint64_t)(dataflow) << 2) \
                        | CONFIG_EX,                                                                                                           \
                    ((uint64_t)(relu6_shift) << 32) | (uint64_t)(sys_shift))
#define gemmini_config_ex(dataflow, act, sys_shift, acc_scale, relu6_shift) \
    gemmini_extended_config_ex((dataflow), (act), (sys_shift), (acc_scale), (relu6_shift), 1, 0, 0)
/* config_ld: the main-memory stride (bytes) and scale of mvin (id 0), mvin2 (1) or mvin3 (2);
   shrunk: accumulator rows moved in as int8. */
#define gemmini_extended3_config_ld(stride, scale, shrunk, id)                                                                           \
    LS_GEMMINI_INSN(k_CONFIG,                                                                                                        \
                    ((uint64_t)loopscope_gemmini_float_bits((scale_t)(scale)) << 32) | ((uint64_t)(id) << 3) | ((uint64_t)(shrunk) << 2) \
                        | CONFIG_LD,                                                                                                  \
                    (uint64_t)(stride))
#define gemmini_extended2_config_ld(stride, scale, shrunk) gemmini_extended3_config_ld((stride), (scale), (shrunk), 0)
#define gemmini_extended_config_ld(stride, scale) gemmini_extended2_config_ld((stride), (scale), false)
#define gemmini_config_ld(stride) gemmini_extended_config_ld((stride), MVIN_SCALE_IDENTITY)
/* config_st: the main-memory stride (bytes) of mvout, and max-pooling (unused by Loopscope). */
#define gemmini_extended_config_st(stride, pool_stride, pool_size, pool_out_dim, porows, pocols, orows, ocols, upad, lpad)                      \
    LS_GEMMINI_INSN(k_CONFIG,                                                                                                                \
                    ((uint64_t)(ocols) << 56) | ((uint64_t)(orows) << 48) | ((uint64_t)(pocols) << 40) | ((uint64_t)(porows) << 32)             \
                        | ((uint64_t)(pool_out_dim) << 24) | ((uint64_t)(lpad) << 10) | ((uint64_t)(upad) << 8) | ((uint64_t)(pool_size) << 6) \
                        | ((uint64_t)(pool_stride) << 4) | CONFIG_ST,                                                                        \
                    (uint64_t)(stride))
#define gemmini_config_st(stride) gemmini_extended_config_st((stride), 0, 0, 0, 0, 0, 0, 0, 0, 0)

/* The TLB flush, and the fence the host waits on before it reads what mvout wrote. */
#define gemmini_flush(skip) LS_GEMMINI_INSN(k_FLUSH, (skip), 0)
#define gemmini_fence() LS_GEMMINI_FENCE()

/* The functional model (gemmini_model.c), for the harness: instructions executed per funct and
   bytes moved per transfer (LOOPSCOPE_GEMMINI_TRANSFER below names the next one). */
#define LOOPSCOPE_GEMMINI_TRANSFERS 64
extern int loopscope_gemmini_transfer;
extern unsigned long loopscope_gemmini_transfer_bytes[LOOPSCOPE_GEMMINI_TRANSFERS];
extern unsigned long loopscope_gemmini_instructions[16];
#ifndef LOOPSCOPE_GEMMINI_TRANSFER
#define LOOPSCOPE_GEMMINI_TRANSFER(t) (loopscope_gemmini_transfer = (t))
#endif

#endif
