/*
 * A PH-style perfect-hash poker evaluator in C: the yardstick of benches/bench_evaluators.py.
 *
 * Like PH Evaluator (HenryRLee/PokerHandEvaluator), it is rank-only (no suit tie-break) and
 * table driven: a flush is looked up by its 13-bit rank mask; any other hand by a perfect hash
 * of its rank multiset (the combinatorial number system of multisets, r_i + i strictly
 * increasing, into C(17, 5) = 6,188 entries for five cards, C(15, 3) = 455 for three). The
 * tables hold dense strengths (higher wins) and are filled by the benchmark from tablecert's
 * rank-only ordering before timing, as PH Evaluator ships precomputed tables. Card ids are
 * tablecert's: 4 * rank + suit.
 */
#include <stddef.h>
#include <stdint.h>

static uint16_t flush_table[2][8192];
static uint16_t rest_table[2][6188];
static uint32_t choose[18][6];

/* Install the tables of one hand size (3 or 5). */
void ph_init(int hand_size, const uint16_t *flush, const uint16_t *rest, size_t rest_len) {
    int t = hand_size == 5;
    for (int n = 0; n < 18; n++)
        for (int k = 0; k < 6; k++)
            choose[n][k] = k == 0 ? 1 : n == 0 ? 0 : choose[n - 1][k - 1] + choose[n - 1][k];
    for (int m = 0; m < 8192; m++) flush_table[t][m] = flush[m];
    for (size_t i = 0; i < rest_len; i++) rest_table[t][i] = rest[i];
}

static inline int32_t evaluate_one(const uint8_t *c, size_t hand_size, int t) {
    uint32_t by_suit[4] = {0, 0, 0, 0};
    uint64_t counts = 0; /* 13 rank counts, 3 bits each */
    for (size_t i = 0; i < hand_size; i++) {
        by_suit[c[i] & 3] |= 1u << (c[i] >> 2);
        counts += 1ull << (3 * (c[i] >> 2));
    }
    for (int s = 0; s < 4; s++)
        if ((size_t)__builtin_popcount(by_suit[s]) == hand_size) return flush_table[t][by_suit[s]];
    uint32_t index = 0, position = 0;
    while (counts) {
        int slot = __builtin_ctzll(counts) / 3;
        uint32_t k = (counts >> (3 * slot)) & 7;
        for (uint32_t j = 0; j < k; j++, position++) index += choose[slot + position][position + 1];
        counts &= ~(7ull << (3 * slot));
    }
    return rest_table[t][index];
}

int32_t ph_evaluate(const uint8_t *cards, size_t n_hands, size_t hand_size, int32_t *scores) {
    int t = hand_size == 5;
    for (size_t i = 0; i < n_hands; i++) scores[i] = evaluate_one(cards + i * hand_size, hand_size, t);
    return 0;
}
