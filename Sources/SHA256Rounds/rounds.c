// See SHA256Rounds.h. The extensions keep the eight words in two registers, one holding A, B, E
// and F (from the highest lane down) and the other C, D, G and H. SHA256RNDS2 runs two rounds,
// taking both and the two round inputs (message word plus constant) in the low lanes of a third,
// and returns the new A, B, E, F; the old ones are then the new C, D, G, H, so the two registers
// swap roles after every call. SHA256MSG1 and SHA256MSG2 extend the message four words at a
// time: for words t..t+3, MSG1 adds sigma0 of the words 15 back to those 16 back, the words 7
// back are added in, and MSG2 adds sigma1 of the words 2 back, the last two lanes using the
// first two it has just made.

#include "SHA256Rounds.h"

// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
const uint32_t likes_sha256_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#if defined(__x86_64__)

#include <cpuid.h>
#include <immintrin.h>

int likes_sha256_rounds_available(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    if ((c & bit_SSE4_1) == 0 || (c & bit_SSSE3) == 0) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b & bit_SHA) != 0;
}

__attribute__((target("sha,sse4.1,ssse3")))
void likes_sha256_blocks(uint32_t state[8], const void *bytes, size_t blocks) {
    const uint8_t *p = (const uint8_t *)bytes;
    // Big-endian words: the bytes of each 32-bit lane reversed.
    const __m128i byteSwap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);

    // a b c d and e f g h (lowest lane first) into the registers: f e b a and h g d c.
    __m128i abcd = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i efgh = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i badc = _mm_shuffle_epi32(abcd, 0xB1);
    __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1B);
    __m128i abef = _mm_alignr_epi8(badc, hgfe, 8);
    __m128i cdgh = _mm_blend_epi16(hgfe, badc, 0xF0);

    while (blocks > 0) {
        const __m128i savedABEF = abef, savedCDGH = cdgh;
        __m128i w[4];
        for (int group = 0; group < 16; group++) {
            __m128i words;
            if (group < 4) {
                words = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * group)), byteSwap);
            } else {
                const __m128i back16 = w[group & 3], back12 = w[(group + 1) & 3];
                const __m128i back8 = w[(group + 2) & 3], back4 = w[(group + 3) & 3];
                words = _mm_sha256msg1_epu32(back16, back12);
                words = _mm_add_epi32(words, _mm_alignr_epi8(back4, back8, 4));
                words = _mm_sha256msg2_epu32(words, back4);
            }
            w[group & 3] = words;
            __m128i input = _mm_add_epi32(words, _mm_loadu_si128((const __m128i *)&likes_sha256_constants[4 * group]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, input);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(input, 0x0E));
        }
        abef = _mm_add_epi32(abef, savedABEF);
        cdgh = _mm_add_epi32(cdgh, savedCDGH);
        p += 64;
        blocks--;
    }

    // Back to a b c d and e f g h: first a b e f and g h c d, lowest lane first.
    __m128i abefLowFirst = _mm_shuffle_epi32(abef, 0x1B);
    __m128i ghcdLowFirst = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(abefLowFirst, ghcdLowFirst, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(ghcdLowFirst, abefLowFirst, 8));
}

#else

int likes_sha256_rounds_available(void) { return 0; }

void likes_sha256_blocks(uint32_t state[8], const void *bytes, size_t blocks) {
    (void)state, (void)bytes, (void)blocks;
}

#endif
