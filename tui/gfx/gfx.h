/* gfx.h - cairo and pango, loaded at run time (dlopen) by the first picture
 * that needs them: a PNG of the screen (picture.c), a --figure (figure.c),
 * projector mode's large type (bigtext.c). A process that draws none never
 * maps them: with glib, harfbuzz, fontconfig, freetype, pixman and X11 they
 * were about 4 MB of every process's memory (issue 17).
 *
 * Include this instead of <cairo.h> and <pango/pangocairo.h> and call
 * gfx_load before the first cairo or pango call of a function: the calls
 * are written as usual (cairo_create(s)) and go through gfx_fn, the table
 * gfx_load fills. The headers are the libraries' own (their -dev packages
 * are needed to build); the binary is not linked with the libraries.
 *
 * Test knob: ATTNVIZ_GFX_MISSING=SONAME (one of GFX_LIBRARIES, e.g.
 * libcairo.so.2) makes gfx_load fail as if that library were not
 * installed. */
#ifndef ATTNVIZ_GFX_H
#define ATTNVIZ_GFX_H

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <pango/pangocairo.h>

#include "error.h"

/* The libraries: an id, the soname loaded, the Debian package that has it. */
#define GFX_LIBRARIES(X)                                                                                               \
    X(GFX_CAIRO, "libcairo.so.2", "libcairo2")                                                                         \
    X(GFX_PANGO, "libpango-1.0.so.0", "libpango-1.0-0")                                                                \
    X(GFX_PANGOCAIRO, "libpangocairo-1.0.so.0", "libpangocairo-1.0-0")                                                 \
    X(GFX_GOBJECT, "libgobject-2.0.so.0", "libglib2.0-0")

/* Every function attnviz and its tests call, with the library it is in. A
 * name added here needs its #define below; a call of a name missing here
 * fails to link (the libraries are not linked). */
#define GFX_FUNCTIONS(X)                                                                                               \
    X(GFX_CAIRO, cairo_clip)                                                                                           \
    X(GFX_CAIRO, cairo_create)                                                                                         \
    X(GFX_CAIRO, cairo_destroy)                                                                                        \
    X(GFX_CAIRO, cairo_fill)                                                                                           \
    X(GFX_CAIRO, cairo_fill_preserve)                                                                                  \
    X(GFX_CAIRO, cairo_font_options_create)                                                                            \
    X(GFX_CAIRO, cairo_font_options_destroy)                                                                           \
    X(GFX_CAIRO, cairo_font_options_set_antialias)                                                                     \
    X(GFX_CAIRO, cairo_font_options_set_hint_metrics)                                                                  \
    X(GFX_CAIRO, cairo_font_options_set_hint_style)                                                                    \
    X(GFX_CAIRO, cairo_image_surface_create)                                                                           \
    X(GFX_CAIRO, cairo_image_surface_create_from_png)                                                                  \
    X(GFX_CAIRO, cairo_image_surface_create_from_png_stream)                                                           \
    X(GFX_CAIRO, cairo_image_surface_get_data)                                                                         \
    X(GFX_CAIRO, cairo_image_surface_get_format)                                                                       \
    X(GFX_CAIRO, cairo_image_surface_get_height)                                                                       \
    X(GFX_CAIRO, cairo_image_surface_get_stride)                                                                       \
    X(GFX_CAIRO, cairo_image_surface_get_width)                                                                        \
    X(GFX_CAIRO, cairo_line_to)                                                                                        \
    X(GFX_CAIRO, cairo_move_to)                                                                                        \
    X(GFX_CAIRO, cairo_new_path)                                                                                       \
    X(GFX_CAIRO, cairo_paint)                                                                                          \
    X(GFX_CAIRO, cairo_pattern_add_color_stop_rgb)                                                                     \
    X(GFX_CAIRO, cairo_pattern_create_linear)                                                                          \
    X(GFX_CAIRO, cairo_pattern_destroy)                                                                                \
    X(GFX_CAIRO, cairo_pdf_surface_create_for_stream)                                                                  \
    X(GFX_CAIRO, cairo_pdf_surface_set_metadata)                                                                       \
    X(GFX_CAIRO, cairo_rectangle)                                                                                      \
    X(GFX_CAIRO, cairo_restore)                                                                                        \
    X(GFX_CAIRO, cairo_rotate)                                                                                         \
    X(GFX_CAIRO, cairo_save)                                                                                           \
    X(GFX_CAIRO, cairo_scale)                                                                                          \
    X(GFX_CAIRO, cairo_set_antialias)                                                                                  \
    X(GFX_CAIRO, cairo_set_line_width)                                                                                 \
    X(GFX_CAIRO, cairo_set_source)                                                                                     \
    X(GFX_CAIRO, cairo_set_source_rgb)                                                                                 \
    X(GFX_CAIRO, cairo_status)                                                                                         \
    X(GFX_CAIRO, cairo_status_to_string)                                                                               \
    X(GFX_CAIRO, cairo_stroke)                                                                                         \
    X(GFX_CAIRO, cairo_surface_destroy)                                                                                \
    X(GFX_CAIRO, cairo_surface_finish)                                                                                 \
    X(GFX_CAIRO, cairo_surface_flush)                                                                                  \
    X(GFX_CAIRO, cairo_surface_status)                                                                                 \
    X(GFX_CAIRO, cairo_surface_write_to_png_stream)                                                                    \
    X(GFX_CAIRO, cairo_svg_surface_create_for_stream)                                                                  \
    X(GFX_CAIRO, cairo_svg_surface_set_document_unit)                                                                  \
    X(GFX_CAIRO, cairo_translate)                                                                                      \
    X(GFX_PANGO, pango_context_set_round_glyph_positions)                                                              \
    X(GFX_PANGO, pango_font_description_free)                                                                          \
    X(GFX_PANGO, pango_font_description_from_string)                                                                   \
    X(GFX_PANGO, pango_font_description_set_absolute_size)                                                             \
    X(GFX_PANGO, pango_font_description_set_weight)                                                                    \
    X(GFX_PANGO, pango_font_map_create_context)                                                                        \
    X(GFX_PANGO, pango_layout_context_changed)                                                                         \
    X(GFX_PANGO, pango_layout_get_baseline)                                                                            \
    X(GFX_PANGO, pango_layout_get_context)                                                                             \
    X(GFX_PANGO, pango_layout_get_extents)                                                                             \
    X(GFX_PANGO, pango_layout_get_pixel_size)                                                                          \
    X(GFX_PANGO, pango_layout_new)                                                                                     \
    X(GFX_PANGO, pango_layout_set_ellipsize)                                                                           \
    X(GFX_PANGO, pango_layout_set_font_description)                                                                    \
    X(GFX_PANGO, pango_layout_set_single_paragraph_mode)                                                               \
    X(GFX_PANGO, pango_layout_set_text)                                                                                \
    X(GFX_PANGO, pango_layout_set_width)                                                                               \
    X(GFX_PANGOCAIRO, pango_cairo_context_set_font_options)                                                            \
    X(GFX_PANGOCAIRO, pango_cairo_context_set_resolution)                                                              \
    X(GFX_PANGOCAIRO, pango_cairo_font_map_new)                                                                        \
    X(GFX_PANGOCAIRO, pango_cairo_show_layout)                                                                         \
    X(GFX_PANGOCAIRO, pango_cairo_update_context)                                                                      \
    X(GFX_GOBJECT, g_object_unref)

/* One pointer per function, typed from the library's own declaration. */
typedef struct {
#define GFX_FIELD(lib, name) __typeof__(name) *name;
    GFX_FUNCTIONS(GFX_FIELD)
#undef GFX_FIELD
} GfxFunctions;

/* Filled by gfx_load; read only after it returned 0. */
extern GfxFunctions gfx_fn;

/* Loads the libraries and resolves every function, the first time (any
 * thread; the others wait for it); later calls return the first one's
 * result. 0, or -1 with one line in err (kind AV_ERR_INPUT: the command
 * line exits 2) naming what is missing and the Debian package to install. */
int gfx_load(AvError *err);

/* The calls by their own names (function-like: a name not followed by '('
 * stays the function's, as in __typeof__ above). */
#define cairo_clip(...)                                 gfx_fn.cairo_clip(__VA_ARGS__)
#define cairo_create(...)                               gfx_fn.cairo_create(__VA_ARGS__)
#define cairo_destroy(...)                              gfx_fn.cairo_destroy(__VA_ARGS__)
#define cairo_fill(...)                                 gfx_fn.cairo_fill(__VA_ARGS__)
#define cairo_fill_preserve(...)                        gfx_fn.cairo_fill_preserve(__VA_ARGS__)
#define cairo_font_options_create(...)                  gfx_fn.cairo_font_options_create(__VA_ARGS__)
#define cairo_font_options_destroy(...)                 gfx_fn.cairo_font_options_destroy(__VA_ARGS__)
#define cairo_font_options_set_antialias(...)           gfx_fn.cairo_font_options_set_antialias(__VA_ARGS__)
#define cairo_font_options_set_hint_metrics(...)        gfx_fn.cairo_font_options_set_hint_metrics(__VA_ARGS__)
#define cairo_font_options_set_hint_style(...)          gfx_fn.cairo_font_options_set_hint_style(__VA_ARGS__)
#define cairo_image_surface_create(...)                 gfx_fn.cairo_image_surface_create(__VA_ARGS__)
#define cairo_image_surface_create_from_png(...)        gfx_fn.cairo_image_surface_create_from_png(__VA_ARGS__)
#define cairo_image_surface_create_from_png_stream(...) gfx_fn.cairo_image_surface_create_from_png_stream(__VA_ARGS__)
#define cairo_image_surface_get_data(...)               gfx_fn.cairo_image_surface_get_data(__VA_ARGS__)
#define cairo_image_surface_get_format(...)             gfx_fn.cairo_image_surface_get_format(__VA_ARGS__)
#define cairo_image_surface_get_height(...)             gfx_fn.cairo_image_surface_get_height(__VA_ARGS__)
#define cairo_image_surface_get_stride(...)             gfx_fn.cairo_image_surface_get_stride(__VA_ARGS__)
#define cairo_image_surface_get_width(...)              gfx_fn.cairo_image_surface_get_width(__VA_ARGS__)
#define cairo_line_to(...)                              gfx_fn.cairo_line_to(__VA_ARGS__)
#define cairo_move_to(...)                              gfx_fn.cairo_move_to(__VA_ARGS__)
#define cairo_new_path(...)                             gfx_fn.cairo_new_path(__VA_ARGS__)
#define cairo_paint(...)                                gfx_fn.cairo_paint(__VA_ARGS__)
#define cairo_pattern_add_color_stop_rgb(...)           gfx_fn.cairo_pattern_add_color_stop_rgb(__VA_ARGS__)
#define cairo_pattern_create_linear(...)                gfx_fn.cairo_pattern_create_linear(__VA_ARGS__)
#define cairo_pattern_destroy(...)                      gfx_fn.cairo_pattern_destroy(__VA_ARGS__)
#define cairo_pdf_surface_create_for_stream(...)        gfx_fn.cairo_pdf_surface_create_for_stream(__VA_ARGS__)
#define cairo_pdf_surface_set_metadata(...)             gfx_fn.cairo_pdf_surface_set_metadata(__VA_ARGS__)
#define cairo_rectangle(...)                            gfx_fn.cairo_rectangle(__VA_ARGS__)
#define cairo_restore(...)                              gfx_fn.cairo_restore(__VA_ARGS__)
#define cairo_rotate(...)                               gfx_fn.cairo_rotate(__VA_ARGS__)
#define cairo_save(...)                                 gfx_fn.cairo_save(__VA_ARGS__)
#define cairo_scale(...)                                gfx_fn.cairo_scale(__VA_ARGS__)
#define cairo_set_antialias(...)                        gfx_fn.cairo_set_antialias(__VA_ARGS__)
#define cairo_set_line_width(...)                       gfx_fn.cairo_set_line_width(__VA_ARGS__)
#define cairo_set_source(...)                           gfx_fn.cairo_set_source(__VA_ARGS__)
#define cairo_set_source_rgb(...)                       gfx_fn.cairo_set_source_rgb(__VA_ARGS__)
#define cairo_status(...)                               gfx_fn.cairo_status(__VA_ARGS__)
#define cairo_status_to_string(...)                     gfx_fn.cairo_status_to_string(__VA_ARGS__)
#define cairo_stroke(...)                               gfx_fn.cairo_stroke(__VA_ARGS__)
#define cairo_surface_destroy(...)                      gfx_fn.cairo_surface_destroy(__VA_ARGS__)
#define cairo_surface_finish(...)                       gfx_fn.cairo_surface_finish(__VA_ARGS__)
#define cairo_surface_flush(...)                        gfx_fn.cairo_surface_flush(__VA_ARGS__)
#define cairo_surface_status(...)                       gfx_fn.cairo_surface_status(__VA_ARGS__)
#define cairo_surface_write_to_png_stream(...)          gfx_fn.cairo_surface_write_to_png_stream(__VA_ARGS__)
#define cairo_svg_surface_create_for_stream(...)        gfx_fn.cairo_svg_surface_create_for_stream(__VA_ARGS__)
#define cairo_svg_surface_set_document_unit(...)        gfx_fn.cairo_svg_surface_set_document_unit(__VA_ARGS__)
#define cairo_translate(...)                            gfx_fn.cairo_translate(__VA_ARGS__)
#define pango_context_set_round_glyph_positions(...)    gfx_fn.pango_context_set_round_glyph_positions(__VA_ARGS__)
#define pango_font_description_free(...)                gfx_fn.pango_font_description_free(__VA_ARGS__)
#define pango_font_description_from_string(...)         gfx_fn.pango_font_description_from_string(__VA_ARGS__)
#define pango_font_description_set_absolute_size(...)   gfx_fn.pango_font_description_set_absolute_size(__VA_ARGS__)
#define pango_font_description_set_weight(...)          gfx_fn.pango_font_description_set_weight(__VA_ARGS__)
#define pango_font_map_create_context(...)              gfx_fn.pango_font_map_create_context(__VA_ARGS__)
#define pango_layout_context_changed(...)               gfx_fn.pango_layout_context_changed(__VA_ARGS__)
#define pango_layout_get_baseline(...)                  gfx_fn.pango_layout_get_baseline(__VA_ARGS__)
#define pango_layout_get_context(...)                   gfx_fn.pango_layout_get_context(__VA_ARGS__)
#define pango_layout_get_extents(...)                   gfx_fn.pango_layout_get_extents(__VA_ARGS__)
#define pango_layout_get_pixel_size(...)                gfx_fn.pango_layout_get_pixel_size(__VA_ARGS__)
#define pango_layout_new(...)                           gfx_fn.pango_layout_new(__VA_ARGS__)
#define pango_layout_set_ellipsize(...)                 gfx_fn.pango_layout_set_ellipsize(__VA_ARGS__)
#define pango_layout_set_font_description(...)          gfx_fn.pango_layout_set_font_description(__VA_ARGS__)
#define pango_layout_set_single_paragraph_mode(...)     gfx_fn.pango_layout_set_single_paragraph_mode(__VA_ARGS__)
#define pango_layout_set_text(...)                      gfx_fn.pango_layout_set_text(__VA_ARGS__)
#define pango_layout_set_width(...)                     gfx_fn.pango_layout_set_width(__VA_ARGS__)
#define pango_cairo_context_set_font_options(...)       gfx_fn.pango_cairo_context_set_font_options(__VA_ARGS__)
#define pango_cairo_context_set_resolution(...)         gfx_fn.pango_cairo_context_set_resolution(__VA_ARGS__)
#define pango_cairo_font_map_new(...)                   gfx_fn.pango_cairo_font_map_new(__VA_ARGS__)
#define pango_cairo_show_layout(...)                    gfx_fn.pango_cairo_show_layout(__VA_ARGS__)
#define pango_cairo_update_context(...)                 gfx_fn.pango_cairo_update_context(__VA_ARGS__)
#define g_object_unref(...)                             gfx_fn.g_object_unref(__VA_ARGS__)

#endif
