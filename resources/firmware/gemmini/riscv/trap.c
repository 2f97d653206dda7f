/* riscv/trap.c: bare-metal support of the RISC-V harness build (qemu-system-riscv64 -M virt,
   machine mode, picolibc with semihosting). The core has no Gemmini, so every custom-3
   instruction of the kernel traps as an illegal instruction; the handler decodes its funct, rs1
   and rs2 from the instruction word and the saved registers, runs the functional model
   (gemmini_model.c) and resumes after the instruction. Any other trap is reported and ends the
   program with status 4. */
#include "gemmini.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void loopscope_trap(uint64_t *regs);
void loopscope_trap_entry(void);

/* Saves x1..x31 (x[i] at 8 * i from sp), calls loopscope_trap(sp), restores them, mret. */
__asm__(".section .text\n"
        ".balign 4\n"
        ".globl loopscope_trap_entry\n"
        "loopscope_trap_entry:\n"
        "  addi sp, sp, -256\n"
        "  sd x1, 8(sp)\n  sd x3, 24(sp)\n  sd x4, 32(sp)\n  sd x5, 40(sp)\n  sd x6, 48(sp)\n  sd x7, 56(sp)\n"
        "  sd x8, 64(sp)\n  sd x9, 72(sp)\n  sd x10, 80(sp)\n  sd x11, 88(sp)\n  sd x12, 96(sp)\n  sd x13, 104(sp)\n"
        "  sd x14, 112(sp)\n  sd x15, 120(sp)\n  sd x16, 128(sp)\n  sd x17, 136(sp)\n  sd x18, 144(sp)\n  sd x19, 152(sp)\n"
        "  sd x20, 160(sp)\n  sd x21, 168(sp)\n  sd x22, 176(sp)\n  sd x23, 184(sp)\n  sd x24, 192(sp)\n  sd x25, 200(sp)\n"
        "  sd x26, 208(sp)\n  sd x27, 216(sp)\n  sd x28, 224(sp)\n  sd x29, 232(sp)\n  sd x30, 240(sp)\n  sd x31, 248(sp)\n"
        "  addi t0, sp, 256\n  sd t0, 16(sp)\n  sd x0, 0(sp)\n"
        "  mv a0, sp\n  call loopscope_trap\n"
        "  ld x1, 8(sp)\n  ld x3, 24(sp)\n  ld x4, 32(sp)\n  ld x5, 40(sp)\n  ld x6, 48(sp)\n  ld x7, 56(sp)\n"
        "  ld x8, 64(sp)\n  ld x9, 72(sp)\n  ld x10, 80(sp)\n  ld x11, 88(sp)\n  ld x12, 96(sp)\n  ld x13, 104(sp)\n"
        "  ld x14, 112(sp)\n  ld x15, 120(sp)\n  ld x16, 128(sp)\n  ld x17, 136(sp)\n  ld x18, 144(sp)\n  ld x19, 152(sp)\n"
        "  ld x20, 160(sp)\n  ld x21, 168(sp)\n  ld x22, 176(sp)\n  ld x23, 184(sp)\n  ld x24, 192(sp)\n  ld x25, 200(sp)\n"
        "  ld x26, 208(sp)\n  ld x27, 216(sp)\n  ld x28, 224(sp)\n  ld x29, 232(sp)\n  ld x30, 240(sp)\n  ld x31, 248(sp)\n"
        "  addi sp, sp, 256\n"
        "  mret\n");

void loopscope_trap(uint64_t *regs)
{
    uint64_t mcause, mepc, mtval;
    __asm__ volatile("csrr %0, mcause" : "=r"(mcause));
    __asm__ volatile("csrr %0, mepc" : "=r"(mepc));
    __asm__ volatile("csrr %0, mtval" : "=r"(mtval));
    const uint32_t insn = *(const volatile uint32_t *)(uintptr_t)mepc;
    /* Illegal instruction (cause 2) with opcode custom-3 (0x7b) and funct3 011 (rs1, rs2, no rd). */
    if (mcause == 2 && (insn & 0x7fu) == 0x7bu && ((insn >> 12) & 7u) == 3u) {
        const unsigned funct = insn >> 25, rs1 = (insn >> 15) & 31u, rs2 = (insn >> 20) & 31u;
        loopscope_gemmini_execute(funct, regs[rs1], regs[rs2]);
        __asm__ volatile("csrw mepc, %0" : : "r"(mepc + 4));
        return;
    }
    printf("riscv: fatal trap mcause=0x%llx mepc=0x%llx mtval=0x%llx insn=0x%08x\n", (unsigned long long)mcause, (unsigned long long)mepc,
           (unsigned long long)mtval, (unsigned)insn);
    exit(4);
}

/* Installed before main. */
__attribute__((constructor)) static void loopscope_install_trap(void)
{
    __asm__ volatile("csrw mtvec, %0" : : "r"(&loopscope_trap_entry));
}
