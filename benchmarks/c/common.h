/* What the three C baselines share: xoshiro256** seeded by splitmix64, Lemire's
 * unbiased bounded integers, a Fisher-Yates shuffle, the rule tables read from a file,
 * and the printing of the counts.  Written for benchmarks/bench_vs_c.py: one thread,
 * no I/O inside the loop.
 *
 * A card is rank * 4 + suit (rank 0 the Ace ... 12 the King), a Joker 52, as in
 * cardroom's kernels. */
#ifndef CARDROOM_C_COMMON_H
#define CARDROOM_C_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define JOKER 52

typedef struct { uint64_t s[4]; } rng_t;

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** (Blackman and Vigna) */
static inline uint64_t next_u64(rng_t *r) {
    uint64_t *s = r->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

static void seed_rng(rng_t *r, uint64_t seed) {
    for (int i = 0; i < 4; i++) { /* splitmix64 */
        uint64_t z = (seed += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        r->s[i] = z ^ (z >> 31);
    }
}

/* A uniform integer below bound (at most 2^16) from 16 random bits: Lemire's
 * multiply-and-reject, exactly unbiased (fresh bits on the rare rejection). */
static inline uint32_t below16(rng_t *r, uint32_t bits16, uint32_t bound) {
    uint32_t product = bits16 * bound;
    uint32_t low = product & 0xFFFF;
    if (low < bound) {
        uint32_t threshold = (0x10000u - bound) % bound;
        while (low < threshold) {
            product = (uint32_t)(next_u64(r) & 0xFFFF) * bound;
            low = product & 0xFFFF;
        }
    }
    return product >> 16;
}

/* Fisher-Yates over n cards (n < 2^16), four 16-bit draws from each 64-bit output. */
static inline void shuffle(rng_t *r, int8_t *cards, int n) {
    int i = n - 1;
    while (i >= 4) {
        uint64_t bits = next_u64(r);
        for (int k = 0; k < 4; k++, i--) {
            uint32_t j = below16(r, (uint32_t)(bits & 0xFFFF), (uint32_t)(i + 1));
            bits >>= 16;
            int8_t t = cards[i]; cards[i] = cards[j]; cards[j] = t;
        }
    }
    for (; i >= 1; i--) {
        uint32_t j = below16(r, (uint32_t)(next_u64(r) & 0xFFFF), (uint32_t)(i + 1));
        int8_t t = cards[i]; cards[i] = cards[j]; cards[j] = t;
    }
}

/* A shoe of `decks` decks of 52 cards and `jokers` Jokers a deck. */
static int make_shoe(int8_t *cards, int decks, int jokers) {
    int n = 0;
    for (int d = 0; d < decks; d++) {
        for (int c = 0; c < 52; c++) cards[n++] = (int8_t)c;
        for (int j = 0; j < jokers; j++) cards[n++] = JOKER;
    }
    return n;
}

/* The rule tables, written by bench_vs_c.py: "name count v1 v2 ..." per table, in the
 * order the program asks for them. */
static inline int64_t *read_table(FILE *f, const char *name, long expect) {
    char got[64];
    long count;
    if (fscanf(f, "%63s %ld", got, &count) != 2 || strcmp(got, name) || count != expect) {
        fprintf(stderr, "tables: expected %s of %ld values\n", name, expect);
        exit(2);
    }
    int64_t *values = malloc(sizeof(int64_t) * (size_t)count);
    for (long i = 0; i < count; i++) {
        long long v;
        if (fscanf(f, "%lld", &v) != 1) { fprintf(stderr, "tables: %s short\n", name); exit(2); }
        values[i] = v;
    }
    return values;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The counts as one JSON line: rounds, shoes, seconds and the counts by cell. */
static void print_counts(const char *game, long long rounds, long long shoes, double seconds,
                         const long long *cells, int ncells) {
    printf("{\"game\": \"%s\", \"rounds\": %lld, \"shoes\": %lld, \"seconds\": %.6f, \"cells\": [",
           game, rounds, shoes, seconds);
    for (int i = 0; i < ncells; i++) printf(i ? ", %lld" : "%lld", cells[i]);
    printf("]}\n");
}

#endif
