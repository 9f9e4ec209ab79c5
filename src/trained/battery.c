/* battery.c - see battery.h. The sentences are ordinary prose of the kind a
 * class reads (short stories, facts, dialogue), none written to repeat a
 * token on purpose: the duplicate and induction patterns must come from the
 * language, not from the sentence chosen. */
#include "battery.h"

#include <stddef.h>

static const char *const text_en[] = {
    "Once upon a time there was a little girl who loved to play in the garden with her dog.",
    "The train left the station at seven, and by noon we could see the mountains from the window.",
    "She opened the letter slowly, read it twice, and then put it back in the drawer without a word.",
    "Water boils at a lower temperature on a high mountain because the air pressure is lower there.",
    "The children ran to the river after school, where the old man was fishing from the bridge.",
    "When the rain stopped, the streets were quiet and the smell of wet grass filled the town.",
    "He asked the teacher why the sky is blue, and she drew the sun and the air on the board.",
    "My grandmother grows tomatoes, beans and peppers, and every summer she gives them to the neighbours.",
    "The museum was closed on Monday, so we walked along the harbour and watched the boats come in.",
    "A good map shows the roads, the rivers and the towns, and tells you how far apart they are.",
    "The cat sat by the window all afternoon, watching the birds that came to eat the bread.",
    "After dinner the family played cards, and the youngest brother won every game but the last.",
};

static const char *const text_ko[] = {
    "옛날 옛적에 작은 마을에 정원에서 개와 함께 노는 것을 좋아하는 소녀가 살았습니다.",
    "기차는 일곱 시에 역을 떠났고 정오쯤에는 창밖으로 산이 보이기 시작했다.",
    "그녀는 편지를 천천히 열어 두 번 읽고 아무 말 없이 서랍에 다시 넣었다.",
    "높은 산에서는 기압이 낮아서 물이 더 낮은 온도에서 끓는다.",
    "아이들은 방과 후에 강으로 달려갔고 노인은 다리 위에서 낚시를 하고 있었다.",
    "비가 그치자 거리는 조용해졌고 젖은 풀 냄새가 마을을 가득 채웠다.",
    "그는 선생님께 하늘이 왜 파란지 물었고 선생님은 칠판에 해와 공기를 그렸다.",
    "할머니는 토마토와 콩과 고추를 기르시고 여름마다 이웃들에게 나누어 주신다.",
    "월요일에는 박물관이 문을 닫아서 우리는 항구를 따라 걸으며 배가 들어오는 것을 보았다.",
    "좋은 지도는 길과 강과 마을을 보여 주고 그 사이가 얼마나 먼지 알려 준다.",
    "고양이는 오후 내내 창가에 앉아 빵을 먹으러 온 새들을 바라보았다.",
    "저녁을 먹은 뒤 가족은 카드 놀이를 했고 막내가 마지막 판만 빼고 모두 이겼다.",
};

static const BatteryInfo infos[BATTERY_COUNT] = {
    [BATTERY_TEXT_EN] = {"text-en", "12 English sentences of ordinary prose (built in)",
                         (int)(sizeof text_en / sizeof *text_en)},
    [BATTERY_TEXT_KO] = {"text-ko", "12 Korean sentences of ordinary prose (built in)",
                         (int)(sizeof text_ko / sizeof *text_ko)},
    [BATTERY_REPEAT_RANDOM] = {"repeat-random",
                               "[BOS] r1..rS r1..rS, r uniform over the ordinary vocabulary, 10 sequences, seed 42",
                               BATTERY_REPEAT_SEQUENCES},
};

const BatteryInfo *battery_info(BatteryKind k) { return k >= 0 && k < BATTERY_COUNT ? &infos[k] : NULL; }

const char *battery_sentence(BatteryKind k, int i) {
    if (k == BATTERY_TEXT_EN && i >= 0 && i < infos[k].count) return text_en[i];
    if (k == BATTERY_TEXT_KO && i >= 0 && i < infos[k].count) return text_ko[i];
    return NULL;
}

int battery_repeat_s(int max_pos) {
    int s = (max_pos - 1) / 2;
    if (s > BATTERY_REPEAT_S) s = BATTERY_REPEAT_S;
    return s < 2 ? 2 : s;
}
