/* utf8.h - UTF-8 decoding and escaping of text that must never reach a
 * terminal raw (control characters, escape sequences, bidi overrides). */
#ifndef ATTNVIZ_UTF8_H
#define ATTNVIZ_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Decodes one character at s[0..len). Returns the bytes it uses (1..4) and sets
 * *cp; an invalid or truncated sequence returns 1 with *cp = UTF8_INVALID. */
#define UTF8_INVALID 0xFFFFFFFFu
int utf8_decode(const char *s, size_t len, uint32_t *cp);

/* Why s[at..len) does not start a valid UTF-8 character, in words for a
 * message ("the text ends inside a 3-byte character", "byte 0xFF never
 * occurs in UTF-8"), in the reader's language, written to buf (always
 * NUL-terminated). */

void utf8_invalid_reason(const char *s, size_t len, size_t at, char *buf, size_t cap);

/* Length in bytes of the encoding of cp (1..4), written to out (4 bytes). */
int utf8_encode(uint32_t cp, char out[4]);

/* 1 when the code point must not be written to a terminal as itself: C0
 * controls, DEL, C1 controls, the bidirectional formatting characters that
 * could reorder what is shown around them, every other format character
 * (category Cf: ZWSP, ZWNJ, ZWJ, word joiner, BOM, soft hyphen, tags) and the
 * presentation selectors VS15/VS16, whose width terminals disagree on. */
int utf8_is_unsafe(uint32_t cp);

/* Returns a new NUL-terminated copy of s[0..len) that is safe to print:
 * \n \t \r as those two characters, other unsafe code points as \xNN (below
 * 0x80) or \u{HHHH}, invalid bytes as \xNN. Everything else is kept as is.
 * Caller frees. Returns NULL only when out of memory. */
char *utf8_escape(const char *s, size_t len);
/* s (NUL-terminated) escaped as utf8_escape does, into out[cap], cut at a
 * character boundary (a file name in a message: "" when out of memory). */
void utf8_escape_into(char *out, size_t cap, const char *s);

/* Terminal columns of a code point / of a string, without the locale: 0 for
 * combining and zero-width characters, 2 for East Asian wide ones (Hangul,
 * CJK, fullwidth forms, most emoji), 1 otherwise. */
/* s[0..len) with every space as U+2581 (▁), as a SentencePiece vocabulary
 * writes its pieces, into out (at most cap - 1 bytes, NUL-terminated, never
 * cutting a ▁): the length written. */
size_t utf8_show_spaces(const char *s, size_t len, char *out, size_t cap);

int utf8_cp_width(uint32_t cp);
int utf8_width(const char *s, size_t len);

#endif
