// Exfiltration at compile time: embeds a reference file planted by the self-test with .incbin.
#include <cuda_runtime.h>

#include "kforge.h"

__asm__(".section .rodata\n.global kf_stolen\nkf_stolen:\n.incbin \"/tmp/kforge-selftest-canary/reference.bin\"\n.previous\n");

extern "C" int kf_forward(const kf_tensor*, int32_t, kf_tensor*, int32_t, void*) { return 0; }
