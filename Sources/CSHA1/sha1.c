// SHA-1's compression function with the x86 SHA extensions (four rounds per instruction), for the index checksum
// and blob ids GitKit computes itself: about three times the speed of the plain Swift rounds on a CPU that has
// them. Compiled for that instruction set function by function (`target`), so the rest of the binary keeps the
// baseline; GitKit calls it only after nb_sha1_accelerated() has checked the CPU.
#include "CSHA1.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>

int nb_sha1_accelerated(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  // SSSE3 (ecx bit 9) for the byte shuffle, SSE4.1 (ecx bit 19) for the lane extract.
  if (!(c & (1u << 9)) || !(c & (1u << 19))) return 0;
  if (__get_cpuid_max(0, 0) < 7) return 0;
  __cpuid_count(7, 0, a, b, c, d);
  return (b & (1u << 29)) != 0;  // SHA
}

// Rounds 4g..4g+3 once the schedule is running: `current` holds W[4g..4g+3]; the message words of later groups are
// advanced from it (sha1msg1 with the previous, the xor with the one before, sha1msg2 for the next group), and the
// working variable E is passed from one group to the next through `ein`/`eout`.
#define NB_SHA1_GROUP(ein, eout, current, next, afterNext, previous, f) \
  ein = _mm_sha1nexte_epu32(ein, current);                              \
  eout = abcd;                                                          \
  next = _mm_sha1msg2_epu32(next, current);                             \
  abcd = _mm_sha1rnds4_epu32(abcd, ein, f);                             \
  previous = _mm_sha1msg1_epu32(previous, current);                     \
  afterNext = _mm_xor_si128(afterNext, current);

__attribute__((target("sha,sse4.1,ssse3"))) void nb_sha1_blocks(uint32_t state[5], const uint8_t *data,
                                                                 size_t blocks) {
  // Big-endian words, the first in the highest lane, as sha1rnds4 takes them.
  const __m128i order = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
  __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0x1B);
  __m128i e0 = _mm_set_epi32((int)state[4], 0, 0, 0);
  __m128i e1, m0, m1, m2, m3;
  while (blocks--) {
    const __m128i abcdBefore = abcd;
    const __m128i eBefore = e0;

    m0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 0)), order);
    e0 = _mm_add_epi32(e0, m0);
    e1 = abcd;
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 0);

    m1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16)), order);
    e1 = _mm_sha1nexte_epu32(e1, m1);
    e0 = abcd;
    abcd = _mm_sha1rnds4_epu32(abcd, e1, 0);
    m0 = _mm_sha1msg1_epu32(m0, m1);

    m2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 32)), order);
    e0 = _mm_sha1nexte_epu32(e0, m2);
    e1 = abcd;
    abcd = _mm_sha1rnds4_epu32(abcd, e0, 0);
    m1 = _mm_sha1msg1_epu32(m1, m2);
    m0 = _mm_xor_si128(m0, m2);

    m3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 48)), order);
    NB_SHA1_GROUP(e1, e0, m3, m0, m1, m2, 0)
    NB_SHA1_GROUP(e0, e1, m0, m1, m2, m3, 0)
    NB_SHA1_GROUP(e1, e0, m1, m2, m3, m0, 1)
    NB_SHA1_GROUP(e0, e1, m2, m3, m0, m1, 1)
    NB_SHA1_GROUP(e1, e0, m3, m0, m1, m2, 1)
    NB_SHA1_GROUP(e0, e1, m0, m1, m2, m3, 1)
    NB_SHA1_GROUP(e1, e0, m1, m2, m3, m0, 1)
    NB_SHA1_GROUP(e0, e1, m2, m3, m0, m1, 2)
    NB_SHA1_GROUP(e1, e0, m3, m0, m1, m2, 2)
    NB_SHA1_GROUP(e0, e1, m0, m1, m2, m3, 2)
    NB_SHA1_GROUP(e1, e0, m1, m2, m3, m0, 2)
    NB_SHA1_GROUP(e0, e1, m2, m3, m0, m1, 2)
    NB_SHA1_GROUP(e1, e0, m3, m0, m1, m2, 3)
    NB_SHA1_GROUP(e0, e1, m0, m1, m2, m3, 3)
    // The last groups' schedule steps compute words no round reads; they cost less than special-casing them.
    NB_SHA1_GROUP(e1, e0, m1, m2, m3, m0, 3)
    NB_SHA1_GROUP(e0, e1, m2, m3, m0, m1, 3)
    NB_SHA1_GROUP(e1, e0, m3, m0, m1, m2, 3)

    e0 = _mm_sha1nexte_epu32(e0, eBefore);
    abcd = _mm_add_epi32(abcd, abcdBefore);
    data += 64;
  }
  _mm_storeu_si128((__m128i *)state, _mm_shuffle_epi32(abcd, 0x1B));
  state[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}

#else

int nb_sha1_accelerated(void) { return 0; }

void nb_sha1_blocks(uint32_t state[5], const uint8_t *data, size_t blocks) {
  (void)state;
  (void)data;
  (void)blocks;
}

#endif
