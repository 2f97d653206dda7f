/* gemmini_model.c: a functional model of the Gemmini instructions Loopscope exports use (the ISA
   of the Gemmini README): the scratchpad (BANK_NUM x BANK_ROWS rows of DIM int8), the
   accumulator (ACC_ROWS rows of DIM int32), the PEs' state (weights in WS, partial sums in OS),
   the three load configurations, the store configuration, and the results' saturation. It
   executes one instruction per call with the 64-bit rs1 and rs2 a RISC-V register would hold;
   the host build calls it from the macros of gemmini.h, the RISC-V build from the trap handler
   of the custom-3 instruction. Anything out of range (more than DIM rows, a row over MAX_BYTES,
   an address past the scratchpad or the accumulator, a preload from the accumulator, an
   unsupported option) stops the program with a message naming the instruction. */
#include "gemmini.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int loopscope_gemmini_transfer = -1;
unsigned long loopscope_gemmini_transfer_bytes[LOOPSCOPE_GEMMINI_TRANSFERS];
unsigned long loopscope_gemmini_instructions[16];

#define LS_SP_ROWS (BANK_NUM * BANK_ROWS)
#define LS_ACC_BIT (1u << 31)
#define LS_ACCUMULATE_BIT (1u << 30)
#define LS_FULL_BIT (1u << 29)
#define LS_ROW_MASK (LS_FULL_BIT - 1u)

static elem_t ls_spad[LS_SP_ROWS][DIM];
static acc_t ls_acc[ACC_ROWS][DIM];
static acc_t ls_pe[DIM][DIM];            /* WS: the weights; OS: the partial sums */

static struct {
    int weight_stationary;
    uint32_t a_stride;
    float acc_scale;
    uint64_t load_stride[3];
    float load_scale[3];
    int load_shrunk[3];
    uint64_t store_stride;
    uint32_t preload_addr, preload_rows, preload_cols;
    uint32_t out_addr, out_rows, out_cols;
} ls_state = {0, 1, 1.0f, {0, 0, 0}, {1.0f, 1.0f, 1.0f}, {0, 0, 0}, 0, 0xffffffffu, 0, 0, 0xffffffffu, 0, 0};

static const char *ls_name(unsigned funct)
{
    switch (funct) {
    case k_CONFIG: return "config";
    case k_MVIN2: return "mvin2";
    case k_MVIN: return "mvin";
    case k_MVOUT: return "mvout";
    case k_COMPUTE_PRELOADED: return "compute_preloaded";
    case k_COMPUTE_ACCUMULATE: return "compute_accumulated";
    case k_PRELOAD: return "preload";
    case k_FLUSH: return "flush";
    case k_MVIN3: return "mvin3";
    default: return "unknown";
    }
}

static void ls_reject(unsigned funct, uint64_t rs1, uint64_t rs2, const char *why)
{
    fprintf(stderr, "gemmini model: %s (funct %u, rs1 0x%016llx, rs2 0x%016llx): %s\n", ls_name(funct), funct, (unsigned long long)rs1,
            (unsigned long long)rs2, why);
    exit(3);
}

static float ls_bits_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* x * scale rounded to the nearest integer, ties to even, saturated to [lo, hi]. */
static int64_t ls_scale(int64_t x, float scale, int64_t lo, int64_t hi)
{
    double y = (double)x * (double)scale;
    double r = floor(y);
    double frac = y - r;
    if (frac > 0.5 || (frac == 0.5 && fmod(r, 2.0) != 0.0))
        r += 1.0;
    if (r < (double)lo)
        return lo;
    if (r > (double)hi)
        return hi;
    return (int64_t)r;
}

/* The rows and columns of a local address field, checked against DIM. */
static void ls_shape(unsigned funct, uint64_t rs1, uint64_t rs2, uint64_t field, uint32_t *addr, uint32_t *rows, uint32_t *cols, uint32_t max_cols)
{
    *addr = (uint32_t)field;
    *cols = (uint32_t)((field >> ADDR_LEN) & 0xffffu);
    *rows = (uint32_t)((field >> (ADDR_LEN + 16)) & 0xffffu);
    if (*rows > DIM)
        ls_reject(funct, rs1, rs2, "more than DIM rows");
    if (*cols > max_cols)
        ls_reject(funct, rs1, rs2, "more columns than one instruction moves");
}

/* Checks that rows [row, row + rows) exist in the scratchpad or the accumulator. */
static void ls_range(unsigned funct, uint64_t rs1, uint64_t rs2, uint32_t addr, uint32_t rows)
{
    const uint32_t row = addr & LS_ROW_MASK;
    const uint32_t limit = (addr & LS_ACC_BIT) ? ACC_ROWS : LS_SP_ROWS;
    if (row + rows > limit)
        ls_reject(funct, rs1, rs2, (addr & LS_ACC_BIT) ? "rows past the end of the accumulator" : "rows past the end of the scratchpad");
}

static void ls_config(uint64_t rs1, uint64_t rs2)
{
    switch (rs1 & 3u) {
    case CONFIG_EX:
        if (((rs1 >> 8) & 3u) != 0)
            ls_reject(k_CONFIG, rs1, rs2, "transposed operands are not modelled");
        if (((rs1 >> 3) & 3u) != NO_ACTIVATION)
            ls_reject(k_CONFIG, rs1, rs2, "activation functions are not modelled");
        if ((rs2 & 0xffffffffu) != 0)
            ls_reject(k_CONFIG, rs1, rs2, "a systolic-array shift is not modelled");
        ls_state.weight_stationary = (int)((rs1 >> 2) & 1u);
        ls_state.a_stride = (uint32_t)((rs1 >> 16) & 0xffffu);
        ls_state.acc_scale = ls_bits_float((uint32_t)(rs1 >> 32));
        break;
    case CONFIG_LD: {
        const unsigned id = (unsigned)((rs1 >> 3) & 3u);
        if (id > 2)
            ls_reject(k_CONFIG, rs1, rs2, "config_ld for a fourth mvin");
        ls_state.load_stride[id] = rs2;
        ls_state.load_shrunk[id] = (int)((rs1 >> 2) & 1u);
        ls_state.load_scale[id] = ls_bits_float((uint32_t)(rs1 >> 32));
        break;
    }
    case CONFIG_ST:
        if ((rs1 & 0xfffffffffffffff0ull) != 0)
            ls_reject(k_CONFIG, rs1, rs2, "max-pooling is not modelled");
        ls_state.store_stride = rs2 & 0xffffffffu;
        break;
    default: ls_reject(k_CONFIG, rs1, rs2, "unknown configuration");
    }
}

static void ls_mvin(unsigned funct, unsigned id, uint64_t rs1, uint64_t rs2)
{
    uint32_t addr, rows, cols, r, c;
    const int acc = (rs2 & LS_ACC_BIT) != 0;
    const int shrunk = acc && ls_state.load_shrunk[id];
    const size_t bytes = acc && !shrunk ? sizeof(acc_t) : sizeof(elem_t);
    /* Up to MAX_BYTES per row: blocks of DIM columns, DIM rows apart. */
    ls_shape(funct, rs1, rs2, rs2, &addr, &rows, &cols, 0xffffu);
    if (cols * bytes > MAX_BYTES)
        ls_reject(funct, rs1, rs2, "a row of more than MAX_BYTES bytes");
    ls_range(funct, rs1, rs2, addr, rows + DIM * ((cols + DIM - 1) / DIM - 1));
    for (r = 0; r < rows; ++r)
        for (c = 0; c < cols; ++c) {
            const uint32_t row = (addr & LS_ROW_MASK) + r + DIM * (c / DIM), lane = c % DIM;
            const char *src = (const char *)(uintptr_t)rs1 + r * ls_state.load_stride[id] + c * bytes;
            int64_t v = 0;
            if (rs1 != 0) {
                if (bytes == sizeof(acc_t)) {
                    acc_t a;
                    memcpy(&a, src, sizeof a);
                    v = a;
                } else {
                    v = *(const elem_t *)src;
                }
            }
            if (ls_state.load_scale[id] != 1.0f)
                v = ls_scale(v, ls_state.load_scale[id], acc ? INT32_MIN : INT8_MIN, acc ? INT32_MAX : INT8_MAX);
            if (!acc)
                ls_spad[row][lane] = (elem_t)v;
            else if (rs2 & LS_ACCUMULATE_BIT)
                ls_acc[row][lane] = (acc_t)((uint32_t)ls_acc[row][lane] + (uint32_t)v);
            else
                ls_acc[row][lane] = (acc_t)v;
        }
    if (loopscope_gemmini_transfer >= 0 && loopscope_gemmini_transfer < LOOPSCOPE_GEMMINI_TRANSFERS)
        loopscope_gemmini_transfer_bytes[loopscope_gemmini_transfer] += (unsigned long)(rows * cols * bytes);
}

static void ls_mvout(uint64_t rs1, uint64_t rs2)
{
    uint32_t addr, rows, cols, r, c;
    const int acc = (rs2 & LS_ACC_BIT) != 0;
    const int full = acc && (rs2 & LS_FULL_BIT) != 0;
    const size_t bytes = full ? sizeof(acc_t) : sizeof(elem_t);
    ls_shape(k_MVOUT, rs1, rs2, rs2, &addr, &rows, &cols, DIM);
    if (cols * bytes > MAX_BYTES)
        ls_reject(k_MVOUT, rs1, rs2, "a row of more than MAX_BYTES bytes");
    ls_range(k_MVOUT, rs1, rs2, addr, rows);
    if (rs1 == 0)
        ls_reject(k_MVOUT, rs1, rs2, "a null main-memory address");
    for (r = 0; r < rows; ++r)
        for (c = 0; c < cols; ++c) {
            const uint32_t row = (addr & LS_ROW_MASK) + r;
            char *dst = (char *)(uintptr_t)rs1 + r * ls_state.store_stride + c * bytes;
            if (full) {
                memcpy(dst, &ls_acc[row][c], sizeof(acc_t));
            } else {
                const elem_t e = acc ? (elem_t)ls_scale(ls_acc[row][c], ls_state.acc_scale, INT8_MIN, INT8_MAX) : ls_spad[row][c];
                memcpy(dst, &e, 1);
            }
        }
    if (loopscope_gemmini_transfer >= 0 && loopscope_gemmini_transfer < LOOPSCOPE_GEMMINI_TRANSFERS)
        loopscope_gemmini_transfer_bytes[loopscope_gemmini_transfer] += (unsigned long)(rows * cols * bytes);
}

static void ls_preload(uint64_t rs1, uint64_t rs2)
{
    ls_shape(k_PRELOAD, rs1, rs2, rs1, &ls_state.preload_addr, &ls_state.preload_rows, &ls_state.preload_cols, DIM);
    ls_shape(k_PRELOAD, rs1, rs2, rs2, &ls_state.out_addr, &ls_state.out_rows, &ls_state.out_cols, DIM);
    if (ls_state.preload_addr != GARBAGE_ADDR) {
        if (ls_state.preload_addr & LS_ACC_BIT)
            ls_reject(k_PRELOAD, rs1, rs2, "a preload from the accumulator");
        ls_range(k_PRELOAD, rs1, rs2, ls_state.preload_addr, ls_state.preload_rows);
    }
    if (ls_state.out_addr != GARBAGE_ADDR)
        ls_range(k_PRELOAD, rs1, rs2, ls_state.out_addr, ls_state.out_rows);
}

/* A block of the scratchpad: rows x cols from addr (GARBAGE_ADDR: zeros), the rest zero. */
static void ls_read_block(uint32_t addr, uint32_t rows, uint32_t cols, uint32_t stride, acc_t out[DIM][DIM])
{
    uint32_t r, c;
    for (r = 0; r < DIM; ++r)
        for (c = 0; c < DIM; ++c)
            out[r][c] = addr != GARBAGE_ADDR && r < rows && c < cols ? ls_spad[(addr & LS_ROW_MASK) + stride * r][c] : 0;
}

static void ls_compute(unsigned funct, uint64_t rs1, uint64_t rs2)
{
    uint32_t a_addr, a_rows, a_cols, bd_addr, bd_rows, bd_cols, i, j, k;
    acc_t a[DIM][DIM], bd[DIM][DIM], result[DIM][DIM];
    const int preloaded = funct == k_COMPUTE_PRELOADED;
    ls_shape(funct, rs1, rs2, rs1, &a_addr, &a_rows, &a_cols, DIM);
    ls_shape(funct, rs1, rs2, rs2, &bd_addr, &bd_rows, &bd_cols, DIM);
    if ((a_addr != GARBAGE_ADDR && (a_addr & LS_ACC_BIT)) || (bd_addr != GARBAGE_ADDR && (bd_addr & LS_ACC_BIT)))
        ls_reject(funct, rs1, rs2, "operands from the accumulator are not modelled");
    if (a_addr != GARBAGE_ADDR)
        ls_range(funct, rs1, rs2, a_addr, ls_state.a_stride * (a_rows ? a_rows - 1 : 0) + 1);
    if (bd_addr != GARBAGE_ADDR)
        ls_range(funct, rs1, rs2, bd_addr, bd_rows);
    ls_read_block(a_addr, a_rows, a_cols, ls_state.a_stride, a);
    ls_read_block(bd_addr, bd_rows, bd_cols, 1, bd);
    if (preloaded) {
        /* The preloaded block enters the PEs: WS the weights, OS the initial partial sums. */
        acc_t p[DIM][DIM];
        ls_read_block(ls_state.preload_addr, ls_state.preload_rows, ls_state.preload_cols, 1, p);
        memcpy(ls_pe, p, sizeof ls_pe);
    }
    for (i = 0; i < DIM; ++i)
        for (j = 0; j < DIM; ++j) {
            uint32_t sum = ls_state.weight_stationary ? (uint32_t)bd[i][j] : (uint32_t)ls_pe[i][j];
            for (k = 0; k < DIM; ++k)
                sum += (uint32_t)(a[i][k] * (ls_state.weight_stationary ? ls_pe[k][j] : bd[k][j]));
            result[i][j] = (acc_t)sum;
        }
    if (!ls_state.weight_stationary)
        memcpy(ls_pe, result, sizeof ls_pe);
    if (ls_state.out_addr == GARBAGE_ADDR)
        return;
    for (i = 0; i < ls_state.out_rows; ++i)
        for (j = 0; j < ls_state.out_cols; ++j) {
            const uint32_t row = (ls_state.out_addr & LS_ROW_MASK) + i;
            if (!(ls_state.out_addr & LS_ACC_BIT)) {
                const acc_t v = result[i][j];
                ls_spad[row][j] = (elem_t)(v > INT8_MAX ? INT8_MAX : (v < INT8_MIN ? INT8_MIN : v));
            } else if (ls_state.out_addr & LS_ACCUMULATE_BIT) {
                ls_acc[row][j] = (acc_t)((uint32_t)ls_acc[row][j] + (uint32_t)result[i][j]);
            } else {
                ls_acc[row][j] = result[i][j];
            }
        }
}

void loopscope_gemmini_execute(unsigned funct, uint64_t rs1, uint64_t rs2)
{
    if (funct < 16)
        ++loopscope_gemmini_instructions[funct];
    switch (funct) {
    case k_CONFIG: ls_config(rs1, rs2); break;
    case k_MVIN: ls_mvin(funct, 0, rs1, rs2); break;
    case k_MVIN2: ls_mvin(funct, 1, rs1, rs2); break;
    case k_MVIN3: ls_mvin(funct, 2, rs1, rs2); break;
    case k_MVOUT: ls_mvout(rs1, rs2); break;
    case k_PRELOAD: ls_preload(rs1, rs2); break;
    case k_COMPUTE_PRELOADED:
    case k_COMPUTE_ACCUMULATE: ls_compute(funct, rs1, rs2); break;
    case k_FLUSH: break;
    default: ls_reject(funct, rs1, rs2, "an instruction the model does not know");
    }
}
