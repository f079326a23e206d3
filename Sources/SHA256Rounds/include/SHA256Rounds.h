// The SHA-256 compression function on the processor's SHA extensions (x86-64 SHA-NI), where it
// has them: six times the speed of LikeKit's rounds in Swift, which every file an export writes
// and a restore checks goes through.

#ifndef SHA256_ROUNDS_H
#define SHA256_ROUNDS_H

#include <stddef.h>
#include <stdint.h>

/// The 64 round constants of FIPS 180-4, for LikeKit's rounds in Swift too.
extern const uint32_t likes_sha256_constants[64];

/// Whether `likes_sha256_blocks` can run on this processor.
int likes_sha256_rounds_available(void);

/// Runs the 64 rounds over each of the `blocks` 64-byte blocks at `bytes`, updating `state`
/// (the eight words a to h, in that order). Only where `likes_sha256_rounds_available()`.
void likes_sha256_blocks(uint32_t state[8], const void *bytes, size_t blocks);

#endif
