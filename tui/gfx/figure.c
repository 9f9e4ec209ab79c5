/* figure.c - publication-style figures (see figure.h): a plan of the page
 * (figure_plan.c: panels, cell size, labels measured with pango, the colour
 * bar), then one drawing of it (figure_draw.c) with cairo on an SVG, PDF or
 * image surface, whose bytes this file collects. */
#include "figure_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"

// ----------------------------------------------------------------------------
// output

/* A growing memory buffer that cairo writes into. */
typedef struct {
    unsigned char *data;
    size_t len, cap;
    int nomem;
} Sink;

static cairo_status_t sink_write(void *closure, const unsigned char *data, unsigned int length) {
    Sink *s = closure;
    if (length > SIZE_MAX - s->len) return s->nomem = 1, CAIRO_STATUS_WRITE_ERROR;
    if (s->len + length > s->cap) {
        size_t cap = s->cap ? s->cap : 1 << 16;
        while (cap < s->len + length) {
            if (cap > SIZE_MAX / 2) return s->nomem = 1, CAIRO_STATUS_WRITE_ERROR;
            cap *= 2;
        }
        unsigned char *d = realloc(s->data, cap);
        if (!d) return s->nomem = 1, CAIRO_STATUS_WRITE_ERROR;
        s->data = d;
        s->cap = cap;
    }
    memcpy(s->data + s->len, data, length);
    s->len += length;
    return CAIRO_STATUS_SUCCESS;
}

/* cairo names an SVG's images and groups after its surfaces' serial numbers,
 * which count on over the whole process ("image623" in the second figure):
 * they are renumbered in the order they appear, so that the same figure is
 * the same bytes. Only `id="image7"` and `#image7` are names (the base64 of
 * an image holds neither '"' nor '#'). 0, or -1 when out of memory. */
typedef struct {
    long long *num;
    size_t n, cap;
} Names;

/* The new number (1, 2, ...) of name num of a kind; 0 when out of memory. */
static size_t names_index(Names *t, long long num) {
    for (size_t k = 0; k < t->n; k++)
        if (t->num[k] == num) return k + 1;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        long long *g = realloc(t->num, cap * sizeof *g);
        if (!g) return 0;
        t->num = g;
        t->cap = cap;
    }
    t->num[t->n++] = num;
    return t->n;
}

static int svg_renumber(Sink *s) {
    static const char *const kinds[2] = {"image", "surface"};
    Names names[2] = {{0}, {0}};
    Sink out = {0};
    const unsigned char *d = s->data;
    size_t i = 0, done = 0; /* d[done..i) is still to be copied */
    while (i < s->len && !out.nomem) {
        size_t lead = d[i] == '#' ? 1 : s->len - i > 4 && memcmp(d + i, "id=\"", 4) == 0 ? 4 : 0;
        int kind = -1;
        size_t at = 0;
        for (int k = 0; lead && k < 2 && kind < 0; k++) {
            size_t kl = strlen(kinds[k]);
            if (s->len - i > lead + kl && memcmp(d + i + lead, kinds[k], kl) == 0 && d[i + lead + kl] >= '0' &&
                d[i + lead + kl] <= '9')
                kind = k, at = i + lead + kl;
        }
        if (kind < 0) {
            i++;
            continue;
        }
        long long num = 0;
        size_t e = at;
        while (e < s->len && d[e] >= '0' && d[e] <= '9' && num < (1LL << 40)) num = num * 10 + (d[e++] - '0');
        size_t idx = names_index(&names[kind], num);
        char digits[24];
        int nd = snprintf(digits, sizeof digits, "%zu", idx);
        if (!idx || sink_write(&out, d + done, (unsigned)(at - done)) ||
            sink_write(&out, (const unsigned char *)digits, (unsigned)nd))
            out.nomem = 1;
        i = done = e;
    }
    if (!out.nomem && sink_write(&out, d + done, (unsigned)(s->len - done))) out.nomem = 1;
    free(names[0].num);
    free(names[1].num);
    if (out.nomem) {
        free(out.data);
        return -1;
    }
    free(s->data);
    *s = out;
    return 0;
}

static cairo_surface_t *surface_new(const Plan *p, FigureFormat fmt, Sink *sink) {
    double w = p->size.width, h = p->size.height;
    cairo_surface_t *sf;
    switch (fmt) {
    case FIG_SVG:
        sf = cairo_svg_surface_create_for_stream(sink_write, sink, w, h);
        cairo_svg_surface_set_document_unit(sf, CAIRO_SVG_UNIT_PT);
        return sf;
    case FIG_PDF:
        sf = cairo_pdf_surface_create_for_stream(sink_write, sink, w, h);
        /* No date (cairo would write the time of day): the same figure gives the same bytes. */
        cairo_pdf_surface_set_metadata(sf, CAIRO_PDF_METADATA_CREATE_DATE, "");
        cairo_pdf_surface_set_metadata(sf, CAIRO_PDF_METADATA_CREATOR, "attnviz");
        return sf;
    default: return cairo_image_surface_create(CAIRO_FORMAT_RGB24, p->size.png_width, p->size.png_height);
    }
}

int figure_render(const Model *m, const FigureOptions *opt, FigureFormat fmt, unsigned char **out, size_t *len,
                  AvError *err) {
    *out = NULL;
    *len = 0;
    if (fmt != FIG_SVG && fmt != FIG_PNG && fmt != FIG_PDF) return av_errorf(err, _("figure: unknown format %d"), fmt);
    Plan p;
    if (fig_plan_make(&p, m, opt, err)) return -1;
    Sink sink = {0};
    cairo_surface_t *sf = surface_new(&p, fmt, &sink);
    cairo_status_t st = cairo_surface_status(sf);
    if (st == CAIRO_STATUS_SUCCESS) {
        cairo_t *cr = cairo_create(sf);
        if (fmt == FIG_PNG) cairo_scale(cr, p.size.png_scale, p.size.png_scale);
        fig_draw(cr, &p);
        st = cairo_status(cr);
        cairo_destroy(cr);
        if (st == CAIRO_STATUS_SUCCESS && fmt == FIG_PNG) {
            cairo_surface_flush(sf);
            st = cairo_surface_write_to_png_stream(sf, sink_write, &sink);
        }
        cairo_surface_finish(sf);
        if (st == CAIRO_STATUS_SUCCESS) st = cairo_surface_status(sf);
    }
    cairo_surface_destroy(sf);
    fig_plan_free(&p);
    if (st == CAIRO_STATUS_SUCCESS && !sink.nomem && fmt == FIG_SVG && svg_renumber(&sink)) sink.nomem = 1;
    if (st != CAIRO_STATUS_SUCCESS || sink.nomem) {
        free(sink.data);
        if (sink.nomem || st == CAIRO_STATUS_NO_MEMORY) return av_error_nomem(err, _("figure: out of memory"));
        return av_errorf(err, _("figure: cairo: %s"), cairo_status_to_string(st));
    }
    *out = sink.data;
    *len = sink.len;
    return 0;
}
