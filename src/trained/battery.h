/* battery.h - the named batteries of inputs the head tests run on
 * (headtests.h): ordinary text per language, for the previous-token,
 * duplicate-token and sink scores, and the repeated random tokens of the
 * induction score. A score names its battery, and the battery says what it
 * holds (its name, its definition, its seed, its size). */
#ifndef ATTNVIZ_BATTERY_H
#define ATTNVIZ_BATTERY_H

#include <stdint.h>

typedef enum { BATTERY_TEXT_EN, BATTERY_TEXT_KO, BATTERY_REPEAT_RANDOM, BATTERY_COUNT } BatteryKind;

typedef struct {
    const char *name;       /* "text-en", "text-ko", "repeat-random" */
    const char *definition; /* one line: what it holds */
    int count;              /* sentences or sequences */
} BatteryInfo;

const BatteryInfo *battery_info(BatteryKind k);

/* Sentence i (0..count-1) of a text battery; NULL out of range or for the
 * repeated random battery. */
const char *battery_sentence(BatteryKind k, int i);

/* The repeated random battery: BATTERY_REPEAT_SEQUENCES sequences of
 * [BOS] r1..rS r1..rS, S = BATTERY_REPEAT_S or what the context allows
 * (battery_repeat_s), seed BATTERY_SEED. */
enum { BATTERY_REPEAT_SEQUENCES = 10, BATTERY_REPEAT_S = 50 };
#define BATTERY_SEED 42u

/* S for a context of max_pos positions: 50, or (max_pos - 1) / 2 when that
 * is smaller; at least 2. */
int battery_repeat_s(int max_pos);

#endif
