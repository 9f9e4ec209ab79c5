/* unorm.h - Unicode normalization and the character classes tokenizers
 * need, on utf8proc's tables (the library tmux and Julia use).
 *
 * The four forms of UAX #15 (NFC, NFD, NFKC, NFKD), lowercasing as Rust's
 * char::to_lowercase does it (the Hugging Face tokenizers' Lowercase), the
 * removal of combining marks (their StripAccents), and the White_Space and
 * word-character (\w) classes of Rust's regex crate (added tokens' lstrip,
 * rstrip and single_word).
 *
 * Every function takes valid UTF-8 and works in time linear in its length:
 * utf8proc's own canonical ordering is a bubble sort (quadratic on a long
 * run of combining marks), so the characters are decomposed one by one with
 * utf8proc_decompose_char, ordered here by a stable counting sort of each
 * run of marks, and composed by utf8proc_normalize_utf32 (one pass). The
 * long loops poll the cancel flag (cancel.h). */
#ifndef ATTNVIZ_UNORM_H
#define ATTNVIZ_UNORM_H

#include <stddef.h>
#include <stdint.h>

typedef enum { UNORM_NFC, UNORM_NFD, UNORM_NFKC, UNORM_NFKD } UnormForm;

/* What a function returns besides 0. */
enum { UNORM_NOMEM = -1, UNORM_CANCELLED = -2 };

/* s[0..n) in form f: a new NUL-terminated string (caller frees) in *out,
 * its length in *out_n. 0, UNORM_NOMEM or UNORM_CANCELLED (*out NULL). */
int unorm_normalize(UnormForm f, const char *s, size_t n, char **out, size_t *out_n);

/* Every character by its full lowercase mapping (U+0130 İ is "i" and
 * U+0307; Σ is σ wherever it stands, as char::to_lowercase has it). */
int unorm_lowercase(const char *s, size_t n, char **out, size_t *out_n);

/* Without the characters of General_Category Mark (Mn, Mc, Me). */
int unorm_strip_marks(const char *s, size_t n, char **out, size_t *out_n);

/* White_Space (Rust's char::is_whitespace and regex \s). */
int unorm_is_space(uint32_t cp);

/* Rust regex's Unicode \w: Alphabetic, Mark, Decimal_Number,
 * Connector_Punctuation, Join_Control. */
int unorm_is_word(uint32_t cp);

/* The version of the Unicode tables ("15.0.0"). */
const char *unorm_unicode_version(void);

#endif
