/* headtests.c - see headtests.h. */
#include "headtests.h"

#include "rng.h"

int headtest_pattern(HeadPattern p, const int *tok, int i, int j) {
    if (j > i) return 0;
    switch (p) {
    case HEADTEST_PREV: return j == i - 1;
    case HEADTEST_DUPLICATE: return j < i && tok[i] == tok[j];
    case HEADTEST_INDUCTION: return j >= 1 && j - 1 < i && tok[i] == tok[j - 1];
    }
    return 0;
}

double headtest_mul(const float *a, int n, const int *tok, HeadPattern p, int exclude_bos, int exclude_current) {
    double hit = 0, all = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if ((exclude_bos && j == 0) || (exclude_current && j == i)) continue;
            double w = a[(long)i * n + j];
            all += w;
            if (headtest_pattern(p, tok, i, j)) hit += w;
        }
    return all > 0 ? hit / all : 0;
}

double headtest_induction_stripe(const float *a, int n, int s) {
    double sum = 0;
    int count = 0;
    for (int i = s - 1; i < n; i++) {
        int j = i - (s - 1);
        if (i < 0 || j < 0) continue;
        sum += a[(long)i * n + j];
        count++;
    }
    return count ? sum / count : 0;
}

double headtest_sink(const float *a, int n) {
    double sum = 0;
    for (int i = 1; i < n; i++) sum += a[(long)i * n];
    return n > 1 ? sum / (n - 1) : 0;
}

void headtest_repeated_random(uint64_t seed, int index, int s, int bos, int lo, int hi, int *out) {
    RngStream r;
    rng_init(&r, rng_key(seed, RNG_KIND_BATTERY, 0, (uint32_t)index));
    out[0] = bos;
    uint64_t span = (uint64_t)(hi - lo);
    for (int k = 0; k < s; k++) {
        /* rejection keeps the draw uniform whatever the span */
        uint64_t limit = UINT64_MAX - UINT64_MAX % span, x;
        do x = rng_next(&r);
        while (x >= limit);
        out[1 + k] = lo + (int)(x % span);
        out[1 + s + k] = out[1 + k];
    }
}
