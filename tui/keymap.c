/* keymap.c - the key table. DESIGN.md §4 lists the keys of the contract:
 * none of them may be reused for something else. */
#include "keymap.h"

#include "app.h"

#define CTRL(c) ((c)&0x1f)

// One line a binding, however long (clang-format would spread each over seven).
// clang-format off
const KeyBinding keymap[] = {
    {{'q', 0}, "q", NULL, ACT_QUIT, "quit; in help, a page or another view: back to the heatmap", "q quit", 0, NULL},
    {{'?', 0}, "?", NULL, ACT_HELP, "help: every key and what the view shows", "? help", 1, NULL},
    {{27, 0}, "Esc", NULL, ACT_ESCAPE, "close help or an overlay; cancel a prompt", NULL, 99, NULL},
    {{APP_KEY_UP, 'k', 0}, "↑ k", "Up k", ACT_UP, "cursor up (previous query)", NULL, 99, NULL},
    {{APP_KEY_DOWN, 'j', 0}, "↓ j", "Down j", ACT_DOWN, "cursor down (next query)", NULL, 99, NULL},
    {{APP_KEY_LEFT, 'h', 0}, "← h", "Left h", ACT_LEFT, "cursor left (previous key)", NULL, 99, NULL},
    {{APP_KEY_RIGHT, 'l', 0}, "→ l", "Right l", ACT_RIGHT, "cursor right (next key)", NULL, 99, NULL},
    {{APP_KEY_PAGE_UP, 0}, "PgUp", NULL, ACT_PAGE_UP, "a page up", NULL, 99, NULL},
    {{APP_KEY_PAGE_DOWN, 0}, "PgDn", NULL, ACT_PAGE_DOWN, "a page down", NULL, 99, NULL},
    {{APP_KEY_HOME, 0}, "Home", NULL, ACT_HOME, "first query and key", NULL, 99, NULL},
    {{APP_KEY_END, 0}, "End", NULL, ACT_END, "last query and key", NULL, 99, NULL},
    {{'\t', 0}, "Tab", NULL, ACT_NEXT_HEAD, "next head", "Tab head", 5, NULL},
    {{APP_KEY_BACK_TAB, 0}, "Shift-Tab", NULL, ACT_PREV_HEAD, "previous head", NULL, 99, NULL},
    {{'1', 0}, "1 … 9", "1 ... 9", ACT_HEAD, "show that head", NULL, 99, "1"},
    {{'2', 0}, NULL, NULL, ACT_HEAD, NULL, NULL, 99, "2"},
    {{'3', 0}, NULL, NULL, ACT_HEAD, NULL, NULL, 99, "3"},
    {{'4', 0}, NULL, NULL, ACT_HEAD, NULL, NULL, 99, "4"},
    {{'5', 0}, NULL, NULL, ACT_HEAD, NULL, NULL, 99, "5"},
    {{'6', 0}, NULL, NULL, ACT_HEAD, NULL, NULL, 99, "6"},
    {{'7', 0}, NULL, NULL, ACT_HEAD, NULL, NULL, 99, "7"},
    {{'8', 0}, NULL, NULL, ACT_HEAD, NULL, NULL, 99, "8"},
    {{'9', 0}, NULL, NULL, ACT_HEAD, NULL, NULL, 99, "9"},
    {{'a', 0}, "a", NULL, ACT_ALL_HEADS, "all heads side by side / one head", "a all", 6, NULL},
    {{'c', 0}, "c", NULL, ACT_PIPELINE, "the whole chain: every stage with its shape (pipeline)", "c chain", 7, NULL},
    {{'\n', '\r', APP_KEY_ENTER, 0}, "Enter", NULL, ACT_OPEN, "the arithmetic of the cell under the cursor; in all heads: open the head", "Enter cell", 8, NULL},
    {{'m', 0}, "m", NULL, ACT_MASK, "next mask kind (none -> causal -> ...)", "m mask", 2, NULL},
    {{'s', 0}, "s", NULL, ACT_SCALE, "scaling by 1/sqrt(d_k) on/off", "s scale", 3, NULL},
    {{'+', '=', 0}, "+", NULL, ACT_DK_DOUBLE, "d_k doubled", "+/- d_k", 9, NULL},
    {{'-', '_', 0}, "-", NULL, ACT_DK_HALVE, "d_k halved", NULL, 99, NULL},
    {{'>', '.', 0}, ">", NULL, ACT_HEAD_MORE, "one head more", NULL, 99, NULL},
    {{'<', ',', 0}, "<", NULL, ACT_HEAD_FEWER, "one head fewer", "</> heads", 10, NULL},
    {{'d', 0}, "d", NULL, ACT_DK_PROMPT, "type an exact d_k", "d d_k", 15, NULL},
    {{'r', 0}, "r", NULL, ACT_SEED, "next seed", "r seed", 11, NULL},
    {{'p', 0}, "p", NULL, ACT_POS, "positional encoding on/off", "p pos", 13, NULL},
    {{'e', 0}, "e", NULL, ACT_EDIT, "edit the sentence", "e edit", 12, NULL},
    {{'t', 0}, "t", NULL, ACT_TOKENIZER, "next tokenizer: words, gpt2, chars (and --pattern when given)", "t tok", 14, NULL},
    {{'v', 0}, "v", NULL, ACT_STAGE, "next stage: weights, scores, scaled, masked, output, X, PE, concat, Y", "v stage", 4, NULL},
    {{'o', 0}, "o", NULL, ACT_SCORE, "next score kind: dot product, cosine, distance, additive (s keeps its scaling)", "o score", 16, NULL},
    {{'T', 0}, "T", NULL, ACT_TIE, "tie Q and K (W_K = W_Q): dot and cosine scores turn symmetric", "T tie", 19, NULL},
    {{'x', 0}, "x", NULL, ACT_ATTN, "next attention: self, causal-self (decoder), cross (encoder-decoder)", "x attn", 17, NULL},
    {{'E', 0}, "E", NULL, ACT_TARGET, "edit the target sentence (of cross-attention)", NULL, 99, NULL},
    {{']', 0}, "]", NULL, ACT_MASK_PARAM_UP, "window W or prefix P one more; in the pipeline: the next stage to the top", NULL, 99, NULL},
    {{'[', 0}, "[", NULL, ACT_MASK_PARAM_DOWN, "window W or prefix P one less; in the pipeline: the previous stage to the top", NULL, 99, NULL},
    {{'M', 0}, "M", NULL, ACT_PAINT_MODE, "mask-edit mode on/off: paint the mask by hand", "M paint", 18, NULL},
    {{' ', 0}, "Space", NULL, ACT_PAINT_TOGGLE, "in mask-edit mode: hide or show the cell under the cursor", NULL, 99, NULL},
    {{'C', 0}, "C", NULL, ACT_PAINT_CLEAR, "in mask-edit mode: clear the painted mask (all visible)", NULL, 99, NULL},
    {{'u', 0}, "u", NULL, ACT_PAINT_UNDO, "in mask-edit mode: undo the last Space or C (u again: redo)", NULL, 99, NULL},
    {{'W', 0}, "W", NULL, ACT_PAINT_SAVE, "in mask-edit mode: write the painted mask to the --mask-file (all at once)", NULL, 99, NULL},
    {{'g', 0}, "g", NULL, ACT_GRAVITY, "word gravity: where attention moves each token's vector, in 2-D", "g gravity", 20, NULL},
    {{'}', 0}, "}", NULL, ACT_LAYER_NEXT, "next layer (a model of several layers)", NULL, 99, NULL},
    {{'{', 0}, "{", NULL, ACT_LAYER_PREV, "previous layer", NULL, 99, NULL},
    {{'n', 0}, "n", NULL, ACT_NEXT_PANEL, "a trained model's 10 likeliest next tokens after the cursor's row", NULL, 99, NULL},
    {{'H', 0}, "H", NULL, ACT_CENSUS, "head census: all heads scored by prev, sink, self, induction, H", NULL, 99, NULL},
    {{'N', 0}, "N", NULL, ACT_CONTINUE, "append the likeliest next token to the sentence: watch the model write", NULL, 99, NULL},
    {{'z', 0}, "z", NULL, ACT_CONTRAST, "contrast: each row of weights coloured 0 .. its own largest weight (z again: 0 .. 1)", "z contrast", 21, NULL},
    {{'b', 0}, "b", NULL, ACT_LESSON_PREV, "in a lesson: the previous step (Space: the next)", NULL, 99, NULL},
    {{'R', 0}, "R", NULL, ACT_LESSON_RESTART, "in a lesson: back to its first step", NULL, 99, NULL},
    {{'L', 0}, "L", NULL, ACT_LESSON_LEAVE, "in a lesson: leave it and explore from here; L again: back to the step", NULL, 99, NULL},
    {{'B', 0}, "B", NULL, ACT_PRESENT, "projector mode on/off: bigger cells, higher contrast, less chrome, large captions", NULL, 99, NULL},
    {{'F', 0}, "F", NULL, ACT_FOLLOW, "follow the teacher again (--follow): the teacher's screen at once; any other key explores on your own", "F follow", 1, NULL},
    {{'P', 0}, "P", NULL, ACT_PICTURE, "write the screen as a picture: .svg, .png or .html (asks for the file name)", NULL, 99, NULL},
    {{'w', 0}, "w", NULL, ACT_WEIGHTS, "trained weights (stories260K.bin) on this sentence; w again: random ones", NULL, 99, NULL},
    {{CTRL('l'), 0}, "Ctrl-L", NULL, ACT_REDRAW, "redraw the screen", NULL, 99, NULL},
    {{'Z', 0}, "Z", NULL, ACT_ZOOM, "a long text zoomed out: blocks of tokens, each row's top words (Z again: back)", NULL, 99, NULL},
    {{'/', 0}, "/", NULL, ACT_JUMP, "jump to a token by its position or a part of its text", NULL, 99, NULL},
    {{'A', 0}, "A", NULL, ACT_CLASSES, "class map: each head's pattern class and sink share (A again: back)", NULL, 99, NULL},
};
// clang-format on

const int keymap_count = (int)(sizeof keymap / sizeof *keymap);

const KeyBinding *keymap_binding(int key) {
    for (int i = 0; i < keymap_count; i++)
        for (int k = 0; k < 4 && keymap[i].keys[k]; k++)
            if (keymap[i].keys[k] == key) return &keymap[i];
    return NULL;
}

Action keymap_action(int key) {
    const KeyBinding *b = keymap_binding(key);
    return b ? b->action : ACT_NONE;
}
