/* text.h - text measured in terminal columns: display width, truncation with
 * an ellipsis by columns (never by bytes), and labels made safe to show.
 *
 * Widths come from the C library's wcwidth (what ncurses uses), so the
 * program must run in a UTF-8 LC_CTYPE (main makes sure of it). A code point
 * for which wcwidth gives -1 counts as 1 column (it is escaped before it is
 * shown anyway). */
#ifndef ATTNVIZ_TEXT_H
#define ATTNVIZ_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Columns of one code point: 0 (combining, zero width), 1 or 2. */
int text_cp_width(uint32_t cp);

/* Columns of s[0..len) (valid UTF-8 expected; an invalid byte counts 1). */
int text_width(const char *s, size_t len);

/* Writes into out (capacity cap, always NUL-terminated) the longest prefix of
 * s whose width is at most max_cols; when s does not fit, the prefix is cut
 * to leave room for `ellipsis` (e.g. "…" or "~", may be "") and the ellipsis is
 * appended. Cuts only between extended grapheme clusters (PCRE2's \X): never
 * inside a character, between a base and its marks, between a flag's two
 * regional indicators or an emoji and its skin tone. A cluster is as wide as
 * the sum of its code points (what ncurses and tmux draw). Returns the width
 * of what was written. */
int text_truncate(char *out, size_t cap, const char *s, size_t len, int max_cols, const char *ellipsis);

/* A label made safe for the screen: utf8_escape (control characters, escape
 * sequences, bidi overrides become visible \x.. \u{..} text), and in ASCII
 * mode every non-ASCII character as \u{HHHH}. Caller frees. */
char *text_safe_label(const char *s, size_t len, int ascii_only);

#endif
