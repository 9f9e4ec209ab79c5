/* keymap.c - the key table. DESIGN.md §4 lists the keys of the contract:
 * none of them may be reused for something else. */
#include "keymap.h"

#include "app.h"
#include "i18n.h"

#define CTRL(c) ((c)&0x1f)

// One line a binding, however long (clang-format would spread each over seven).
// clang-format off
const KeyBinding keymap[] = {
    {{'q', 0}, "q", NULL, ACT_QUIT, N_("quit; in help, a page or another view: back to the heatmap"), N_("q quit"), 0, NULL},
    {{'?', 0}, "?", NULL, ACT_HELP, N_("help: every key and what the view shows"), N_("? help"), 1, NULL},
    {{27, 0}, "Esc", NULL, ACT_ESCAPE, N_("close help or an overlay; cancel a prompt"), NULL, 99, NULL},
    {{APP_KEY_UP, 'k', 0}, "↑ k", "Up k", ACT_UP, N_("cursor up (previous query)"), NULL, 99, NULL},
    {{APP_KEY_DOWN, 'j', 0}, "↓ j", "Down j", ACT_DOWN, N_("cursor down (next query)"), NULL, 99, NULL},
    {{APP_KEY_LEFT, 'h', 0}, "← h", "Left h", ACT_LEFT, N_("cursor left (previous key)"), NULL, 99, NULL},
    {{APP_KEY_RIGHT, 'l', 0}, "→ l", "Right l", ACT_RIGHT, N_("cursor right (next key)"), NULL, 99, NULL},
    {{APP_KEY_PAGE_UP, 0}, "PgUp", NULL, ACT_PAGE_UP, N_("a page up"), NULL, 99, NULL},
    {{APP_KEY_PAGE_DOWN, 0}, "PgDn", NULL, ACT_PAGE_DOWN, N_("a page down"), NULL, 99, NULL},
    {{APP_KEY_HOME, 0}, "Home", NULL, ACT_HOME, N_("first query and key"), NULL, 99, NULL},
    {{APP_KEY_END, 0}, "End", NULL, ACT_END, N_("last query and key"), NULL, 99, NULL},
    {{'\t', 0}, "Tab", NULL, ACT_NEXT_HEAD, N_("next head"), N_("Tab head"), 5, NULL},
    {{APP_KEY_BACK_TAB, 0}, "Shift-Tab", NULL, ACT_PREV_HEAD, N_("previous head"), NULL, 99, NULL},
    {{'1', 0}, "1 … 9", "1 ... 9", ACT_HEAD, N_("show that head"), NULL, 99, "1"},
    {{'2', 0}, NULL, NULL, ACT_HEAD, NULL, NULL, 99, "2"},
    {{'3', 0}, NULL, NULL, ACT_HEAD, NULL, NULL, 99, "3"},
    {{'4', 0}, NULL, NULL, ACT_HEAD, NULL, NULL, 99, "4"},
    {{'5', 0}, NULL, NULL, ACT_HEAD, NULL, NULL, 99, "5"},
    {{'6', 0}, NULL, NULL, ACT_HEAD, NULL, NULL, 99, "6"},
    {{'7', 0}, NULL, NULL, ACT_HEAD, NULL, NULL, 99, "7"},
    {{'8', 0}, NULL, NULL, ACT_HEAD, NULL, NULL, 99, "8"},
    {{'9', 0}, NULL, NULL, ACT_HEAD, NULL, NULL, 99, "9"},
    {{'a', 0}, "a", NULL, ACT_ALL_HEADS, N_("all heads side by side / one head"), N_("a all"), 6, NULL},
    {{'c', 0}, "c", NULL, ACT_PIPELINE, N_("the whole chain: every stage with its shape (pipeline)"), N_("c chain"), 7, NULL},
    {{'\n', '\r', APP_KEY_ENTER, 0}, "Enter", NULL, ACT_OPEN, N_("the arithmetic of the cell under the cursor; in all heads: open the head"), N_("Enter cell"), 8, NULL},
    {{'m', 0}, "m", NULL, ACT_MASK, N_("next mask kind (none -> causal -> ...)"), N_("m mask"), 2, NULL},
    {{'s', 0}, "s", NULL, ACT_SCALE, N_("scaling by 1/sqrt(d_k) on/off"), N_("s scale"), 3, NULL},
    {{'+', '=', 0}, "+", NULL, ACT_DK_DOUBLE, N_("d_k doubled"), N_("+/- d_k"), 9, NULL},
    {{'-', '_', 0}, "-", NULL, ACT_DK_HALVE, N_("d_k halved"), NULL, 99, NULL},
    {{'>', '.', 0}, ">", NULL, ACT_HEAD_MORE, N_("one head more"), NULL, 99, NULL},
    {{'<', ',', 0}, "<", NULL, ACT_HEAD_FEWER, N_("one head fewer"), N_("</> heads"), 10, NULL},
    {{'d', 0}, "d", NULL, ACT_DK_PROMPT, N_("type an exact d_k"), N_("d d_k"), 15, NULL},
    {{'r', 0}, "r", NULL, ACT_SEED, N_("next seed"), N_("r seed"), 11, NULL},
    {{'p', 0}, "p", NULL, ACT_POS, N_("positional encoding on/off"), N_("p pos"), 13, NULL},
    {{'e', 0}, "e", NULL, ACT_EDIT, N_("edit the sentence"), N_("e edit"), 12, NULL},
    {{'t', 0}, "t", NULL, ACT_TOKENIZER, N_("next tokenizer: words, gpt2, chars (and --pattern when given)"), N_("t tok"), 14, NULL},
    {{'v', 0}, "v", NULL, ACT_STAGE, N_("next stage: weights, scores, scaled, masked, output, X, PE, concat, Y"), N_("v stage"), 4, NULL},
    {{'o', 0}, "o", NULL, ACT_SCORE, N_("next score kind: dot product, cosine, distance, additive (s keeps its scaling)"), N_("o score"), 16, NULL},
    {{'T', 0}, "T", NULL, ACT_TIE, N_("tie Q and K (W_K = W_Q): dot and cosine scores turn symmetric"), N_("T tie"), 19, NULL},
    {{'x', 0}, "x", NULL, ACT_ATTN, N_("next attention: self, causal-self (decoder), cross (encoder-decoder)"), N_("x attn"), 17, NULL},
    {{'E', 0}, "E", NULL, ACT_TARGET, N_("edit the target sentence (of cross-attention)"), NULL, 99, NULL},
    {{']', 0}, "]", NULL, ACT_MASK_PARAM_UP, N_("window W or prefix P one more; in the pipeline: the next stage to the top"), NULL, 99, NULL},
    {{'[', 0}, "[", NULL, ACT_MASK_PARAM_DOWN, N_("window W or prefix P one less; in the pipeline: the previous stage to the top"), NULL, 99, NULL},
    {{'M', 0}, "M", NULL, ACT_PAINT_MODE, N_("mask-edit mode on/off: paint the mask by hand"), N_("M paint"), 18, NULL},
    {{' ', 0}, "Space", NULL, ACT_PAINT_TOGGLE, N_("in mask-edit mode: hide or show the cell under the cursor"), NULL, 99, NULL},
    {{'C', 0}, "C", NULL, ACT_PAINT_CLEAR, N_("in mask-edit mode: clear the painted mask (all visible)"), NULL, 99, NULL},
    {{'u', 0}, "u", NULL, ACT_PAINT_UNDO, N_("in mask-edit mode: undo the last Space or C (u again: redo)"), NULL, 99, NULL},
    {{'W', 0}, "W", NULL, ACT_PAINT_SAVE, N_("in mask-edit mode: write the painted mask to the --mask-file (all at once)"), NULL, 99, NULL},
    {{'g', 0}, "g", NULL, ACT_GRAVITY, N_("word gravity: where attention moves each token's vector, in 2-D"), N_("g gravity"), 20, NULL},
    {{'}', 0}, "}", NULL, ACT_LAYER_NEXT, N_("next layer (a model of several layers)"), NULL, 99, NULL},
    {{'{', 0}, "{", NULL, ACT_LAYER_PREV, N_("previous layer"), NULL, 99, NULL},
    {{'n', 0}, "n", NULL, ACT_NEXT_PANEL, N_("a trained model's 10 likeliest next tokens after the cursor's row"), NULL, 99, NULL},
    {{'H', 0}, "H", NULL, ACT_CENSUS, N_("head census: the field's head tests on batteries, and scores on your text"), NULL, 99, NULL},
    {{'N', 0}, "N", NULL, ACT_CONTINUE, N_("append the likeliest next token to the sentence: watch the model write"), NULL, 99, NULL},
    {{'z', 0}, "z", NULL, ACT_CONTRAST, N_("contrast: each row of weights coloured 0 .. its own largest weight (z again: 0 .. 1)"), N_("z contrast"), 21, NULL},
    {{'b', 0}, "b", NULL, ACT_LESSON_PREV, N_("in a lesson: the previous step (Space: the next)"), NULL, 99, NULL},
    {{'R', 0}, "R", NULL, ACT_LESSON_RESTART, N_("in a lesson: back to its first step"), NULL, 99, NULL},
    {{'L', 0}, "L", NULL, ACT_LESSON_LEAVE, N_("in a lesson: leave it and explore from here; L again: back to the step"), NULL, 99, NULL},
    {{'B', 0}, "B", NULL, ACT_PRESENT, N_("projector mode on/off: bigger cells, higher contrast, less chrome, large captions"), NULL, 99, NULL},
    {{'F', 0}, "F", NULL, ACT_FOLLOW, N_("follow the teacher again (--follow): the teacher's screen at once; any other key explores on your own"), N_("F follow"), 1, NULL},
    {{'P', 0}, "P", NULL, ACT_PICTURE, N_("write the screen as a picture: .svg, .png or .html (asks for the file name)"), NULL, 99, NULL},
    {{'w', 0}, "w", NULL, ACT_WEIGHTS, N_("trained weights (stories260K.bin) on this sentence; w again: random ones"), NULL, 99, NULL},
    {{CTRL('l'), 0}, "Ctrl-L", NULL, ACT_REDRAW, N_("redraw the screen"), NULL, 99, NULL},
    {{'Z', 0}, "Z", NULL, ACT_ZOOM, N_("a long text zoomed out: blocks of tokens, each row's top words (Z again: back)"), NULL, 99, NULL},
    {{'/', 0}, "/", NULL, ACT_JUMP, N_("jump to a token by its position or a part of its text"), NULL, 99, NULL},
    {{'X', 0}, "X", NULL, ACT_ABLATE, N_("switch the head shown off (zero ablation), X again: its mean over the text battery, X again: on; the next tokens show before -> after"), NULL, 99, NULL},
    {{'U', 0}, "U", NULL, ACT_LENS, N_("logit lens: each layer's guess of the next token, through the unembedding (U again: back)"), NULL, 99, NULL},
    {{'A', 0}, "A", NULL, ACT_CLASSES, N_("class map: each head's pattern class and sink share (A again: back)"), NULL, 99, NULL},
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
