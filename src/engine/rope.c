/* rope.c - see trained.h: RoPE's frequencies and pairs, the one place the
 * engine's table of angles (transformer.c) and the views' captions
 * (trained_rope_freq) both read, so the screen says the angles the model
 * turned by. */
#include "trained.h"

#include <math.h>

double rope_freq(double theta, int hs, const RopeScaling *s, int p) {
    double f = pow(theta, -(2.0 * p) / hs);
    if (!s || s->kind == ROPE_SCALE_NONE) return f;
    if (s->kind == ROPE_SCALE_LINEAR) return f / s->factor;
    /* Llama 3 (HF's _compute_llama3_parameters): the long wavelengths
     * interpolated by factor, the short ones kept, a smooth mix between */
    double wavelen = 2.0 * M_PI / f, L = s->original_max_pos;
    double low_wavelen = L / s->low_freq_factor, high_wavelen = L / s->high_freq_factor;
    if (wavelen < high_wavelen) return f;
    if (wavelen > low_wavelen) return f / s->factor;
    double smooth = (L / wavelen - s->low_freq_factor) / (s->high_freq_factor - s->low_freq_factor);
    return (1.0 - smooth) * f / s->factor + smooth * f;
}

double trained_rope_freq(const TrainedInfo *t, int p) {
    return rope_freq(t->rope_theta, t->head_size, &t->rope_scaling, p);
}

void trained_rope_pair(const TrainedInfo *t, int p, int *a, int *b) {
    if (t->rope == ROPE_HALF) *a = p, *b = p + t->head_size / 2;
    else *a = 2 * p, *b = 2 * p + 1;
}
