#ifndef NB_CSHA1_H
#define NB_CSHA1_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this CPU has the SHA extensions (and the SSSE3 and SSE4.1 they are used with), else 0.
int nb_sha1_accelerated(void);

/// Runs SHA-1's compression function over `blocks` 64-byte blocks at `data`, updating the five chaining words in
/// `state`. Only to be called when nb_sha1_accelerated() returned 1.
void nb_sha1_blocks(uint32_t state[5], const uint8_t *data, size_t blocks);

#endif
