/* language.h - the locale and the interface's language.
 *
 * attnviz needs a UTF-8 locale to measure and draw its labels, and speaks
 * English or Korean (po/ko.po, GNU gettext). language_setup chooses both,
 * once, before anything is printed. */
#ifndef ATTNVIZ_LANGUAGE_H
#define ATTNVIZ_LANGUAGE_H

#include <stddef.h>

typedef struct {
    /* 1 when the locale is not UTF-8 (LC_ALL=C over SSH, say): LC_CTYPE was
     * switched to C.UTF-8 and attnviz's own glyphs are drawn in ASCII. */
    int ascii;
    /* A UTF-8 locale the environment asks for that is not installed
     * ("ko_KR.UTF-8"): C.UTF-8 is used instead, glyphs stay UTF-8, and
     * note says so in one line (in the reader's language). */
    char note[256];
} LanguageSetup;

/* Sets the locale from the environment, then the language: "en" or "ko".
 * The language is `lang` when given (--lang), otherwise the first of
 * LANGUAGE, LC_ALL, LC_MESSAGES and LANG that is set ("ko..." is Korean,
 * anything else English). Binds the message catalogue (language_localedir). */
void language_setup(const char *lang, LanguageSetup *out);

/* The language chosen: "en" or "ko" ("en" before language_setup). */
const char *language_current(void);

/* The language the environment asks for, without --lang: "en" or "ko". */
const char *language_from_env(void);

/* Where the catalogues are (DIR/LANG/LC_MESSAGES/attnviz.mo):
 * $ATTNVIZ_LOCALEDIR, the build folder beside the binary (build/locale), the
 * installed share/locale beside its bin/, or LOCALEDIR. NULL when none has
 * them. */
const char *language_localedir(void);

#endif
