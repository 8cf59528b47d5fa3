/* 21-24-27 in plain C, the baseline of benchmarks/bench_vs_c.py.
 *
 * Usage: twentyone ROUNDS SEED TABLES
 * The shoe: 6 decks with 2 Jokers each (324 cards, a Joker counting 0), reshuffled
 * once 243 cards are dealt (3/4), no burn.  Deal P D P D; Ace + King is an initial 27
 * (both: a push); the player hits or stands by the source's basic strategy with the
 * rules' forced plays, against the dealer's first two cards; over 27 loses; the dealer
 * draws below hard 21 and soft 24; then the game's comparison.
 *
 * The decisions come as tables in TABLES, which bench_vs_c.py writes from cardroom's
 * engine (the hit/stand table with the forced plays, the comparison of two totals,
 * the two-card 27s): the same look-ups cardroom's kernel makes.  The flow of the round,
 * the shoe and the generator are written here.  A round is counted by its outcome
 * (0 player, 1 dealer, 2 push). */
#include "common.h"

#define DECKS 6
#define JOKERS 2
#define TOTALS 202
#define MAX_LOW 100
#define ACE_BONUS 13

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: twentyone ROUNDS SEED TABLES\n"); return 2; }
    long long rounds = atoll(argv[1]);
    rng_t rng;
    seed_rng(&rng, strtoull(argv[2], NULL, 10));
    FILE *f = fopen(argv[3], "r");
    if (!f) { perror(argv[3]); return 2; }
    int64_t *scalars = read_table(f, "scalars", 1);
    int both27 = (int)scalars[0];
    int64_t *initial = read_table(f, "initial", 14 * 14);
    int64_t *hits64 = read_table(f, "hits", TOTALS * TOTALS);
    int64_t *settle64 = read_table(f, "settle", TOTALS * TOTALS);
    fclose(f);
    static uint8_t hits[TOTALS][TOTALS], settle[TOTALS][TOTALS], init[14][14];
    static uint8_t dealer_hits[TOTALS];
    static int16_t totals[MAX_LOW + 1][2];
    for (int i = 0; i < TOTALS * TOTALS; i++) {
        /* a total over 27 never hits */
        hits[i / TOTALS][i % TOTALS] = (uint8_t)(hits64[i] && (i % TOTALS) / 2 <= 27);
        settle[i / TOTALS][i % TOTALS] = (uint8_t)settle64[i];
    }
    for (int i = 0; i < 14 * 14; i++) init[i / 14][i % 14] = (uint8_t)initial[i];
    for (int low = 0; low <= MAX_LOW; low++)
        for (int ace = 0; ace < 2; ace++)
            totals[low][ace] = (int16_t)(ace && low + ACE_BONUS <= 27 ? (low + ACE_BONUS) * 2 + 1
                                                                      : low * 2);
    for (int t = 0; t < TOTALS; t++) /* the dealer draws below hard 21 and soft 24 */
        dealer_hits[t] = (uint8_t)(t / 2 < (t % 2 ? 24 : 21));
    int8_t points[53], ranks[53];
    for (int c = 0; c < 53; c++) {
        ranks[c] = (int8_t)(c == JOKER ? 13 : c >> 2);
        points[c] = (int8_t)(c == JOKER ? 0 : (c >> 2) + 1);
    }

    int8_t cards[DECKS * 54];
    int size = make_shoe(cards, DECKS, JOKERS);
    int reshuffle_after = size * 3 / 4;
    long long cells[3] = {0};
    long long shoes = 0;
    double start = now();
    int pos = size;
    for (long long played = 0; played < rounds; played++) {
        if (pos >= reshuffle_after) {
            shuffle(&rng, cards, size);
            pos = 0;
            shoes++;
        }
        int p1 = cards[pos], d1 = cards[pos + 1], p2 = cards[pos + 2], d2 = cards[pos + 3];
        pos += 4;
        int pk = init[ranks[p1]][ranks[p2]], dk = init[ranks[d1]][ranks[d2]];
        int outcome;
        if (pk | dk) {
            outcome = pk && dk ? both27 : (pk ? 0 : 1);
        } else {
            int low = points[p1] + points[p2], ace = ranks[p1] == 0 || ranks[p2] == 0;
            int dlow = points[d1] + points[d2], dace = ranks[d1] == 0 || ranks[d2] == 0;
            int dealer_initial = totals[dlow][dace];
            int player = totals[low][ace];
            while (hits[dealer_initial][player]) {
                int card = cards[pos++];
                low += points[card];
                ace |= ranks[card] == 0;
                player = totals[low][ace];
            }
            if (player / 2 > 27) {
                outcome = 1;
            } else {
                int dealer = dealer_initial;
                while (dealer_hits[dealer]) {
                    int card = cards[pos++];
                    dlow += points[card];
                    dace |= ranks[card] == 0;
                    dealer = totals[dlow][dace];
                }
                outcome = settle[player][dealer];
            }
        }
        cells[outcome]++;
    }
    print_counts("21-24-27", rounds, shoes, now() - start, cells, 3);
    return 0;
}
