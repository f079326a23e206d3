// See CRC32Folding.h. The method: the message is taken 64 bytes at a time as four 128-bit
// polynomials over GF(2); each is carried forward 512 bits by multiplying its two halves by
// x^(512+32) and x^(512-32) modulo P (one carry-less multiplication each) and adding the next
// block. At the end the four are folded into one (constants for 128 bits), that one to 64 and to
// 32 bits, and Barrett reduction gives the remainder. In the reflected bit order of this CRC
// each constant is the bit-reflected residue, shifted left by one (Intel, "Fast CRC Computation
// for Generic Polynomials Using PCLMULQDQ Instruction", 2009, which derives them).

#include "CRC32Folding.h"

#if defined(__x86_64__)

#include <cpuid.h>
#include <immintrin.h>

int likes_crc32_fold_available(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    return (c & bit_PCLMUL) != 0 && (c & bit_SSE4_1) != 0;
}

// x^(4*128+32) and x^(4*128-32) mod P: carry a 128-bit lane 512 bits forward.
static const uint64_t by512_low = 0x154442bd4, by512_high = 0x1c6e41596;
// x^(128+32) and x^(128-32) mod P: carry a lane 128 bits forward.
static const uint64_t by128_low = 0x1751997d0, by128_high = 0x0ccaa009e;
// x^64 mod P: 64 bits down to 32.
static const uint64_t by64 = 0x163cd6124;
// Barrett reduction: P itself (with its x^32 term) and floor(x^64 / P).
static const uint64_t polynomial = 0x1db710641, quotient = 0x1f7011641;

__attribute__((target("pclmul,sse4.1")))
static inline __m128i carry(__m128i lane, __m128i constants, __m128i next) {
    __m128i low = _mm_clmulepi64_si128(lane, constants, 0x00);
    __m128i high = _mm_clmulepi64_si128(lane, constants, 0x11);
    return _mm_xor_si128(_mm_xor_si128(low, high), next);
}

__attribute__((target("pclmul,sse4.1")))
uint32_t likes_crc32_fold(uint32_t state, const void *bytes, size_t count) {
    const uint8_t *p = (const uint8_t *)bytes;
    __m128i x0 = _mm_loadu_si128((const __m128i *)(p + 0));
    __m128i x1 = _mm_loadu_si128((const __m128i *)(p + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(p + 32));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(p + 48));
    x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)state));
    p += 64;
    count -= 64;

    const __m128i k512 = _mm_set_epi64x((long long)by512_high, (long long)by512_low);
    while (count >= 64) {
        x0 = carry(x0, k512, _mm_loadu_si128((const __m128i *)(p + 0)));
        x1 = carry(x1, k512, _mm_loadu_si128((const __m128i *)(p + 16)));
        x2 = carry(x2, k512, _mm_loadu_si128((const __m128i *)(p + 32)));
        x3 = carry(x3, k512, _mm_loadu_si128((const __m128i *)(p + 48)));
        p += 64;
        count -= 64;
    }

    const __m128i k128 = _mm_set_epi64x((long long)by128_high, (long long)by128_low);
    x0 = carry(x0, k128, x1);
    x0 = carry(x0, k128, x2);
    x0 = carry(x0, k128, x3);
    while (count >= 16) {
        x0 = carry(x0, k128, _mm_loadu_si128((const __m128i *)p));
        p += 16;
        count -= 16;
    }

    const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
    // 128 bits to 64: the low half carried past the high one.
    x0 = _mm_xor_si128(_mm_srli_si128(x0, 8), _mm_clmulepi64_si128(x0, k128, 0x10));
    // 64 bits to 32.
    const __m128i k64 = _mm_set_epi64x(0, (long long)by64);
    x0 = _mm_xor_si128(_mm_srli_si128(x0, 4), _mm_clmulepi64_si128(_mm_and_si128(x0, low32), k64, 0x00));
    // Barrett: the remainder of the 64 bits left, in the upper half of the low 64.
    const __m128i barrett = _mm_set_epi64x((long long)quotient, (long long)polynomial);
    __m128i t = _mm_clmulepi64_si128(_mm_and_si128(x0, low32), barrett, 0x10);
    t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), barrett, 0x00);
    return (uint32_t)_mm_extract_epi32(_mm_xor_si128(x0, t), 1);
}

#else

int likes_crc32_fold_available(void) { return 0; }

uint32_t likes_crc32_fold(uint32_t state, const void *bytes, size_t count) {
    (void)bytes, (void)count;
    return state;
}

#endif
