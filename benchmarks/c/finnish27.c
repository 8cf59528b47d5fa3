/* finnish27 in plain C, the baseline of benchmarks/bench_vs_c.py.
 *
 * Usage: finnish27 ROUNDS SEED TABLES
 * The shoe: 6 decks with 2 Jokers each (324 cards), reshuffled once 243 cards are
 * dealt (3/4), no burn.  Deal P D P D; the two-card 27s (Jo Jo, Finnish 27, Joanca);
 * the player hits by the rules' table against the dealer's first two cards; a player's
 * 27 wins at once and over 35 loses; the dealer draws below hard 24 and soft 25; then
 * the game's comparison.  A winning hand's bonus: of two cards or three cards by their
 * ranks and suits (and the dealer's 9-9), of five or more its best poker category
 * (Jokers wild).
 *
 * The rules' decisions come as tables in TABLES, which bench_vs_c.py writes from
 * cardroom's engine (the player's hit/stand table, the comparison of two totals, the
 * two-card 27s, the bonus of each hand of two and three cards, the poker award of each
 * set of categories): the same look-ups cardroom's kernel makes.  The flow of the round,
 * the shoe, the generator and the poker evaluator are written here.  A round is counted
 * in cardroom's cell: outcome * bonuses + bonus. */
#include "common.h"

#define DECKS 6
#define JOKERS 2
#define TOTALS 202 /* a total's index: value * 2 + soft */
#define MAX_LOW 100
#define JOKER_RANK 13
#define ACE_BONUS 13

/* The poker categories some five of the cards hold, as bits (bit 1 pair, 2 two pair,
 * 3 three of a kind, 4 straight, 5 full house, 6 four of a kind, 7 flush, 8 straight
 * flush, 9 five of a kind; bit 0 any five cards), every Joker wild. */
static int held_categories(const int8_t *hand, int n) {
    int counts[15] = {0}, suit_len[4] = {0}, suit_mask[4] = {0};
    int jokers = 0, mask = 0;
    for (int i = 0; i < n; i++) {
        int code = hand[i];
        if (code == JOKER) { jokers++; continue; }
        int value = code >> 2 ? (code >> 2) + 1 : 14; /* the Ace high: 14 */
        counts[value]++;
        suit_len[code & 3]++;
        suit_mask[code & 3] |= 1 << value;
        mask |= 1 << value;
    }
    int top = 0, second = 0;
    for (int v = 2; v <= 14; v++) {
        int have = counts[v];
        if (have > top) { second = top; top = have; }
        else if (have > second) second = have;
    }
    int held = 1;
    int need2 = (top < 2 ? 2 - top : 0), need2b = (second < 2 ? 2 - second : 0);
    int need3 = (top < 3 ? 3 - top : 0);
    if (top + jokers >= 2) held |= 1 << 1;
    if (need2 + need2b <= jokers) held |= 1 << 2;
    if (top + jokers >= 3) held |= 1 << 3;
    if (need3 + need2b <= jokers) held |= 1 << 5;
    if (top + jokers >= 4) held |= 1 << 6;
    if (top + jokers >= 5) held |= 1 << 9;
    for (int s = 0; s < 5; s++) {
        int bits;
        if (s < 4) {
            if (suit_len[s] + jokers < 5) continue;
            held |= 1 << 7;
            bits = suit_mask[s];
        } else {
            bits = mask;
        }
        if (bits >> 14 & 1) bits |= 2; /* the Ace low too */
        for (int high = 14; high >= 5; high--) {
            int present = __builtin_popcount((bits >> (high - 4)) & 31);
            if (present + jokers >= 5) { held |= 1 << (s < 4 ? 8 : 4); break; }
        }
    }
    return held;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: finnish27 ROUNDS SEED TABLES\n"); return 2; }
    long long rounds = atoll(argv[1]);
    rng_t rng;
    seed_rng(&rng, strtoull(argv[2], NULL, 10));
    FILE *f = fopen(argv[3], "r");
    if (!f) { perror(argv[3]); return 2; }
    int64_t *scalars = read_table(f, "scalars", 6);
    int bonuses = (int)scalars[0], equal27 = (int)scalars[1], player27_wins = (int)scalars[2];
    int win27 = (int)scalars[3], loses_over = (int)scalars[4], margin = (int)scalars[5];
    int64_t *initial = read_table(f, "initial", 14 * 14);
    int64_t *hits64 = read_table(f, "hits", TOTALS * TOTALS);
    int64_t *settle64 = read_table(f, "settle", TOTALS * TOTALS);
    int64_t *poker = read_table(f, "poker", 1024);
    int64_t *place = read_table(f, "place", 1024);
    int64_t *poker_ok = read_table(f, "poker_ok", TOTALS);
    int64_t *bonus2 = read_table(f, "bonus2", 14 * 14);
    int64_t *bonus3_64 = read_table(f, "bonus3", 14 * 14 * 14 * 64 * 2);
    fclose(f);
    /* compact copies of the big tables */
    static uint8_t hits[TOTALS][TOTALS], settle[TOTALS][TOTALS], bonus3[14][14][14][64][2];
    static uint8_t init[14][14], dealer_hits[TOTALS];
    static int16_t totals[MAX_LOW + 1][2];
    for (int i = 0; i < TOTALS * TOTALS; i++) {
        hits[i / TOTALS][i % TOTALS] = (uint8_t)hits64[i];
        settle[i / TOTALS][i % TOTALS] = (uint8_t)settle64[i];
    }
    for (long i = 0; i < 14L * 14 * 14 * 64 * 2; i++) ((uint8_t *)bonus3)[i] = (uint8_t)bonus3_64[i];
    for (int i = 0; i < 14 * 14; i++) init[i / 14][i % 14] = (uint8_t)initial[i];
    for (int low = 0; low <= MAX_LOW; low++)
        for (int ace = 0; ace < 2; ace++)
            totals[low][ace] = (int16_t)(ace && low + ACE_BONUS <= 27 ? (low + ACE_BONUS) * 2 + 1
                                                                      : low * 2);
    for (int t = 0; t < TOTALS; t++) /* the dealer draws below hard 24 and soft 25 */
        dealer_hits[t] = (uint8_t)(t / 2 < (t % 2 ? 25 : 24));
    int8_t points[53], ranks[53];
    for (int c = 0; c < 53; c++) {
        ranks[c] = (int8_t)(c == JOKER ? JOKER_RANK : c >> 2);
        points[c] = (int8_t)(c == JOKER ? 0 : (c >> 2) + 1);
    }

    int8_t cards[DECKS * 54];
    int size = make_shoe(cards, DECKS, JOKERS);
    int reshuffle_after = size * 3 / 4;
    long long *cells = calloc((size_t)(3 * bonuses), sizeof(long long));
    long long shoes = 0;
    int8_t hand[64], dealer_hand[64];
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
        hand[0] = (int8_t)p1; hand[1] = (int8_t)p2;
        int n = 2, dn = 2, player = 0;
        int pk = init[ranks[p1]][ranks[p2]], dk = init[ranks[d1]][ranks[d2]];
        int outcome;
        if (pk || dk) {
            if (pk && dk)
                outcome = player27_wins || pk > dk ? 0 : (pk == dk ? equal27 : 1);
            else
                outcome = pk ? 0 : 1;
        } else {
            int low = points[p1] + points[p2], ace = ranks[p1] == 0 || ranks[p2] == 0;
            int dlow = points[d1] + points[d2], dace = ranks[d1] == 0 || ranks[d2] == 0;
            int dealer_initial = totals[dlow][dace];
            player = totals[low][ace];
            while (hits[dealer_initial][player]) {
                int card = cards[pos++];
                hand[n++] = (int8_t)card;
                low += points[card];
                ace |= ranks[card] == 0;
                player = totals[low][ace];
            }
            int value = player >> 1;
            if (value == 27 && win27) {
                outcome = 0;
            } else if (value > loses_over) {
                outcome = 1;
            } else {
                int dealer = dealer_initial;
                dealer_hand[0] = (int8_t)d1; dealer_hand[1] = (int8_t)d2;
                while (dealer_hits[dealer]) {
                    int card = cards[pos++];
                    dealer_hand[dn++] = (int8_t)card;
                    dlow += points[card];
                    dace |= ranks[card] == 0;
                    dealer = totals[dlow][dace];
                }
                outcome = settle[player][dealer];
            }
        }
        int bonus = 0;
        if (outcome == 0) {
            if (n == 2) {
                bonus = (int)bonus2[ranks[p1] * 14 + ranks[p2]];
            } else if (n == 3) {
                int suits = (hand[0] & 3) * 16 + (hand[1] & 3) * 4 + (hand[2] & 3);
                int nines = ranks[d1] == 8 && ranks[d2] == 8;
                bonus = bonus3[ranks[hand[0]]][ranks[hand[1]]][ranks[hand[2]]][suits][nines];
            } else if (n >= 5 && poker_ok[player]) {
                int held = held_categories(hand, n);
                bonus = (int)poker[held];
                if (bonus && dn >= 5 &&
                    place[held] - place[held_categories(dealer_hand, dn)] < margin)
                    bonus = 0;
            }
        }
        cells[outcome * bonuses + bonus]++;
    }
    print_counts("finnish27", rounds, shoes, now() - start, cells, 3 * bonuses);
    return 0;
}
