/* lessons_builtin.c - the built-in lessons (lesson.h), in English and in
 * Korean: the source texts' walk from a sentence to multi-head attention. */
#include "lesson.h"

#include <string.h>

static const char lesson1_en[] =
    "title: From a sentence to attention weights\n"
    "lang: en\n"
    "== Tokens\n"
    "A transformer never sees letters. The sentence is cut into tokens, and each token gets\n"
    "an id in a vocabulary. Here the tokenizer splits at word boundaries: 10 tokens.\n"
    "> tokenizer words\n"
    "> sentence \"I saw a movie yesterday and the movie was fun\"\n"
    "> config d_model=64 heads=4 d_k=16 d_v=16 seed=42 pos=none score=scaled mask=causal scale=on\n"
    "> view pipeline\n";

static const struct { const char *en, *ko; } lessons[] = {{lesson1_en, NULL}};

int lesson_builtin_count(void) { return (int)(sizeof lessons / sizeof *lessons); }

const char *lesson_builtin(int k, const char *lang) {
    if (k < 1 || k > lesson_builtin_count()) return NULL;
    const char *ko = lessons[k - 1].ko;
    return lang && strcmp(lang, "ko") == 0 && ko ? ko : lessons[k - 1].en;
}
