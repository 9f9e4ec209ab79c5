/* lessons_builtin.c - the built-in lessons (lesson.h), in English and in
 * Korean: the source texts' walk from a sentence to multi-head attention, the
 * texts' worked example recomputed, the scaling, the masks (their texts in
 * lessons_formula.c), the heads, word gravity and a trained model's heads
 * (lessons_heads.c).
 *
 * Every number a caption states is what attnviz shows at that step (seen with
 * --lesson N --step K, at 80x24 and --once) or, for the text's own numbers,
 * computed from them. A Korean lesson has the English one's steps and
 * commands; where the English shows "I saw a movie yesterday and the movie
 * was fun" it shows the texts' "나는 어제 친구와 영화를 봤는데, 그 영화는 정말
 * 재미있었다", and its captions state that sentence's numbers.
 * tests/test_lessons.c checks all of that but the numbers. Step 1 of each
 * lesson sets everything the lesson relies on: a lesson may start from any
 * state of its source. */
#include "lesson.h"

#include <string.h>

#include "lessons_builtin.h"

static const struct {
    const char *en, *ko;
} lessons[] = {
    {lesson1_en, lesson1_ko}, {lesson2_en, lesson2_ko}, {lesson3_en, lesson3_ko}, {lesson4_en, lesson4_ko},
    {lesson5_en, lesson5_ko}, {lesson6_en, lesson6_ko}, {lesson7_en, lesson7_ko},
};

int lesson_builtin_count(void) { return (int)(sizeof lessons / sizeof *lessons); }

const char *lesson_builtin(int k, const char *lang) {
    if (k < 1 || k > lesson_builtin_count()) return NULL;
    const char *ko = lessons[k - 1].ko;
    return lang && strcmp(lang, "ko") == 0 && ko ? ko : lessons[k - 1].en;
}
