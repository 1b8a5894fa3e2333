/* Hashes of the on-disk program cache (ocl_cache.c).
 *
 * SHA-256 (FIPS 180-4) names the source text inside a cache key and the key inside a file name: a strong hash, so
 * that two different sources or keys never share an entry in practice. FNV-1a 64 checksums an entry's contents: it
 * is fast on the megabytes of a program binary, and any one changed byte changes it (each step is a bijection of
 * the state), which is the damage a truncated or overwritten file shows. */
#include <string.h>

#include "ocl_internal.h"

/* First 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4, 4.2.2). */
static const uint32_t rs_sha256_k[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u};

static uint32_t rs_rotr32(uint32_t x, unsigned n) { return (x >> n) | (x << (32u - n)); }

/* One 64-byte block into the state h (FIPS 180-4, 6.2.2). */
static void rs_sha256_block(uint32_t h[8], const unsigned char *block)
{
    uint32_t w[64];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 | (uint32_t)block[4 * t + 2] << 8 |
               (uint32_t)block[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rs_rotr32(w[t - 15], 7) ^ rs_rotr32(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rs_rotr32(w[t - 2], 17) ^ rs_rotr32(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t t1 = k + (rs_rotr32(e, 6) ^ rs_rotr32(e, 11) ^ rs_rotr32(e, 25)) + ((e & f) ^ (~e & g)) +
                      rs_sha256_k[t] + w[t];
        uint32_t t2 = (rs_rotr32(a, 2) ^ rs_rotr32(a, 13) ^ rs_rotr32(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
}

void rs_sha256_hex(const void *data, size_t bytes, char hex[65])
{
    /* Initial value: first 32 bits of the fractional parts of the square roots of the first 8 primes. */
    uint32_t h[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                     0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
    const unsigned char *p = (const unsigned char *)data;
    size_t left = bytes;
    for (; left >= 64; left -= 64, p += 64) rs_sha256_block(h, p);
    /* Padding: 0x80, zeros, then the message length in bits as a 64-bit big-endian number; one or two blocks. */
    unsigned char tail[128];
    memset(tail, 0, sizeof tail);
    if (left) memcpy(tail, p, left);
    tail[left] = 0x80;
    const size_t tail_len = left + 1 + 8 <= 64 ? 64 : 128;
    const uint64_t bits = (uint64_t)bytes * 8u;
    for (int i = 0; i < 8; i++) tail[tail_len - 1 - (size_t)i] = (unsigned char)(bits >> (8 * i));
    rs_sha256_block(h, tail);
    if (tail_len == 128) rs_sha256_block(h, tail + 64);
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        const unsigned byte = (h[i / 4] >> (24 - 8 * (i % 4))) & 0xffu;
        hex[2 * i] = digits[byte >> 4];
        hex[2 * i + 1] = digits[byte & 15u];
    }
    hex[64] = '\0';
}

uint64_t rs_fnv1a64(uint64_t state, const void *data, size_t bytes)
{
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < bytes; i++) state = (state ^ p[i]) * 0x100000001b3ull; /* FNV 64-bit prime */
    return state;
}
