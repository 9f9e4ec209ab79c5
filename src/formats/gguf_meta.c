/* gguf_meta.c - the metadata of an opened GGUF file read out (gguf.h):
 * scalars, the typed getters with their one-line refusals, and the elements
 * of arrays. Every value was validated by gguf_open (gguf.c), so reading one
 * cannot run past the mapping. */
#include "gguf_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "i18n.h"
#include "utf8.h"

int gguf_wrong_type(const Gguf *g, const GgufKv *kv, const char *k, const char *want, AvError *err) {
    if (kv->type == GGUF_ARRAY)
        return av_errorf(err, _("%s: key %s: type array of %s, not %s"), gguf_file(g), k, gguf_type_name(kv->elem),
                         want);
    return av_errorf(err, _("%s: key %s: type %s, not %s"), gguf_file(g), k, gguf_type_name(kv->type), want);
}

static int64_t int_at(GgufType type, const unsigned char *p) {
    switch (type) {
    case GGUF_UINT8:
    case GGUF_BOOL: return p[0];
    case GGUF_INT8: return (int8_t)p[0];
    case GGUF_UINT16: return (int64_t)gguf_le(p, 2);
    case GGUF_INT16: return (int16_t)gguf_le(p, 2);
    case GGUF_UINT32: return (int64_t)gguf_le(p, 4);
    case GGUF_INT32: return (int32_t)gguf_le(p, 4);
    case GGUF_UINT64: {
        uint64_t u = gguf_le(p, 8);
        return u > INT64_MAX ? INT64_MAX : (int64_t)u;
    }
    case GGUF_INT64: return (int64_t)gguf_le(p, 8);
    default: return 0;
    }
}

static double float_at(GgufType type, const unsigned char *p) {
    if (type == GGUF_FLOAT32) {
        uint32_t u = (uint32_t)gguf_le(p, 4);
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    if (type == GGUF_FLOAT64) {
        uint64_t u = gguf_le(p, 8);
        double d;
        memcpy(&d, &u, sizeof d);
        return d;
    }
    return (double)int_at(type, p);
}

int64_t gguf_kv_int(const GgufKv *kv) {
    return kv && kv->type != GGUF_ARRAY && (gguf_is_int_type(kv->type) || kv->type == GGUF_BOOL)
               ? int_at(kv->type, kv->data)
               : 0;
}
double gguf_kv_float(const GgufKv *kv) {
    return kv && (kv->type == GGUF_FLOAT32 || kv->type == GGUF_FLOAT64) ? float_at(kv->type, kv->data) : 0;
}
GgufStr gguf_kv_str(const GgufKv *kv) {
    GgufStr s = {NULL, 0};
    if (kv && kv->type == GGUF_STRING) s.s = (const char *)kv->data, s.len = kv->bytes;
    return s;
}

/* The kv of `key`, escaped into k; NULL when absent. */
static const GgufKv *lookup(const Gguf *g, const char *key, char *k, size_t cap) {
    utf8_escape_into(k, cap, key);
    return gguf_kv_find(g, key);
}

int gguf_get_int(const Gguf *g, const char *key, int64_t min, int64_t max, int64_t *out, AvError *err) {
    char k[200];
    const GgufKv *kv = lookup(g, key, k, sizeof k);
    if (!kv) return 1;
    if (!gguf_is_int_type(kv->type)) return gguf_wrong_type(g, kv, k, _("an integer"), err);
    if (kv->type == GGUF_UINT64 && gguf_le(kv->data, 8) > (uint64_t)max)
        return av_errorf(err, _("%s: key %s: %llu is out of range (%lld to %lld)"), gguf_file(g), k,
                         (unsigned long long)gguf_le(kv->data, 8), (long long)min, (long long)max);
    int64_t v = int_at(kv->type, kv->data);
    if (v < min || v > max)
        return av_errorf(err, _("%s: key %s: %lld is out of range (%lld to %lld)"), gguf_file(g), k, (long long)v,
                         (long long)min, (long long)max);
    *out = v;
    return 0;
}

int gguf_get_float(const Gguf *g, const char *key, double *out, AvError *err) {
    char k[200];
    const GgufKv *kv = lookup(g, key, k, sizeof k);
    if (!kv) return 1;
    if (kv->type != GGUF_FLOAT32 && kv->type != GGUF_FLOAT64 && !gguf_is_int_type(kv->type))
        return gguf_wrong_type(g, kv, k, _("a number"), err);
    double v = float_at(kv->type, kv->data);
    if (!isfinite(v)) return av_errorf(err, _("%s: key %s: %g is not a finite number"), gguf_file(g), k, v);
    *out = v;
    return 0;
}

int gguf_get_bool(const Gguf *g, const char *key, int *out, AvError *err) {
    char k[200];
    const GgufKv *kv = lookup(g, key, k, sizeof k);
    if (!kv) return 1;
    if (kv->type != GGUF_BOOL) return gguf_wrong_type(g, kv, k, _("a bool"), err);
    *out = kv->data[0];
    return 0;
}

int gguf_get_str(const Gguf *g, const char *key, GgufStr *out, AvError *err) {
    char k[200];
    const GgufKv *kv = lookup(g, key, k, sizeof k);
    if (!kv) return 1;
    if (kv->type != GGUF_STRING) return gguf_wrong_type(g, kv, k, _("a string"), err);
    *out = gguf_kv_str(kv);
    return 0;
}

int gguf_get_array(const Gguf *g, const char *key, GgufType elem, int any_int, const GgufKv **out, AvError *err) {
    char k[200];
    const GgufKv *kv = lookup(g, key, k, sizeof k);
    if (!kv) return 1;
    int fits = kv->type == GGUF_ARRAY && (kv->elem == elem || (any_int && gguf_is_int_type(kv->elem)));
    if (!fits) {
        char want[64];
        snprintf(want, sizeof want, _("array of %s"), any_int ? _("integers") : gguf_type_name((int)elem));
        return gguf_wrong_type(g, kv, k, want, err);
    }
    *out = kv;
    return 0;
}

int gguf_missing(const Gguf *g, const char *key, AvError *err) {
    char k[200];
    utf8_escape_into(k, sizeof k, key);
    return av_errorf(err, _("%s: no key %s"), gguf_file(g), k);
}

int gguf_array_strings(const GgufKv *kv, GgufStr *out) {
    if (!kv || kv->type != GGUF_ARRAY || kv->elem != GGUF_STRING) return -1;
    const unsigned char *p = kv->data;
    for (uint64_t i = 0; i < kv->n; i++) {
        uint64_t len = gguf_le(p, 8);
        out[i].s = (const char *)p + 8, out[i].len = (size_t)len;
        p += 8 + len;
    }
    return 0;
}

int gguf_array_ints(const GgufKv *kv, int64_t *out) {
    if (!kv || kv->type != GGUF_ARRAY || !gguf_is_int_type(kv->elem)) return -1;
    size_t size = (size_t)gguf_type_sizes[kv->elem];
    for (uint64_t i = 0; i < kv->n; i++) out[i] = int_at(kv->elem, kv->data + i * size);
    return 0;
}

int gguf_array_floats(const GgufKv *kv, float *out) {
    if (!kv || kv->type != GGUF_ARRAY ||
        !(gguf_is_int_type(kv->elem) || kv->elem == GGUF_FLOAT32 || kv->elem == GGUF_FLOAT64))
        return -1;
    size_t size = (size_t)gguf_type_sizes[kv->elem];
    for (uint64_t i = 0; i < kv->n; i++) out[i] = (float)float_at(kv->elem, kv->data + i * size);
    return 0;
}
