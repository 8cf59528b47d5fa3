/* Punto banco in plain C, the baseline of benchmarks/bench_vs_c.py.
 *
 * Usage: punto_banco ROUNDS SEED
 * The default rules of cardroom's punto-banco: 8 decks, no Jokers, the cut card 16
 * cards from the end (a coup starts only while fewer than 400 cards are dealt), no
 * burn; naturals 8 and 9, the player draws on 0-5, the banker on the usual tableau.
 * Each coup is counted in cardroom's cell: ((outcome * 10 + banker total) * 2 +
 * player pair) * 2 + banker pair, outcome 0 player, 1 banker, 2 tie. */
#include "common.h"

#define DECKS 8
#define CUT_CARD 16

/* Does the banker, on `banker`, draw when the player's third card has `third`
 * points (10: the player stood)? */
static int banker_draws(int banker, int third) {
    if (third == 10) return banker <= 5;
    switch (banker) {
    case 0: case 1: case 2: return 1;
    case 3: return third != 8;
    case 4: return third >= 2 && third <= 7;
    case 5: return third >= 4 && third <= 7;
    case 6: return third == 6 || third == 7;
    default: return 0;
    }
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: punto_banco ROUNDS SEED\n"); return 2; }
    long long rounds = atoll(argv[1]);
    rng_t rng;
    seed_rng(&rng, strtoull(argv[2], NULL, 10));
    int8_t cards[DECKS * 52];
    int size = make_shoe(cards, DECKS, 0);
    int reshuffle_after = size - CUT_CARD;
    uint8_t draws[10][11];
    for (int b = 0; b < 10; b++)
        for (int t = 0; t <= 10; t++) draws[b][t] = (uint8_t)banker_draws(b, t);
    int8_t points[DECKS * 52];
    long long cells[120] = {0};
    long long shoes = 0;
    double start = now();
    int pos = size;
    for (long long played = 0; played < rounds; played++) {
        if (pos >= reshuffle_after) {
            shuffle(&rng, cards, size);
            for (int i = 0; i < size; i++) {
                int rank = cards[i] >> 2;
                points[i] = (int8_t)(rank < 9 ? rank + 1 : 0);
            }
            pos = 0;
            shoes++;
        }
        const int8_t *p = points + pos;
        int player = (p[0] + p[2]) % 10;
        int banker = (p[1] + p[3]) % 10;
        /* without branches over the points: which way a coup goes cannot be
         * predicted (the faster of the two ways this was written) */
        int on = (player < 8) & (banker < 8);
        int player_draws = on & (player <= 5);
        int third = player_draws ? p[4] : 10;
        player = (player + player_draws * p[4]) % 10;
        int banker_draw = on & draws[banker][third];
        banker = (banker + banker_draw * p[4 + player_draws]) % 10;
        int used = 4 + player_draws + banker_draw;
        int ppair = (cards[pos] >> 2) == (cards[pos + 2] >> 2);
        int bpair = (cards[pos + 1] >> 2) == (cards[pos + 3] >> 2);
        pos += used;
        int outcome = banker == player ? 2 : banker > player;
        cells[((outcome * 10 + banker) * 2 + ppair) * 2 + bpair]++;
    }
    print_counts("punto-banco", rounds, shoes, now() - start, cells, 120);
    return 0;
}
