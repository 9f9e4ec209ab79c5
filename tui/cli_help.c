/* cli_help.c - the text of --help (cli_usage) and the default sentence
 * (cli_default_text), in the reader's language: the words of the command
 * line, apart from its parser (cli.c). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "i18n.h"
#include "language.h"

const char *cli_default_text(void) {
    return strcmp(language_current(), "ko") == 0 ? CLI_DEFAULT_TEXT_KO : CLI_DEFAULT_TEXT;
}

/* The help, in parts (a C string literal is at most 4095 bytes; a
 * translator gets one section at a time). The first part's %s are the
 * default sentences. */
static const char *const usage_parts[] = {
    N_("Usage: attnviz [OPTIONS] [TEXT...]\n"
       "Interactive terminal visualizer of transformer attention.\n"
       "\n"
       "Input (default: \"%s\";\n"
       "       in Korean, --lang ko or a Korean locale: \"%s\"):\n"),
    N_("  TEXT...                the sentence (several words are joined by spaces)\n"
       "  -f, --file FILE        read the sentence from FILE ('-' = standard input; at most 1 MiB)\n"
       "      --max-tokens N     keep the sentence's first N tokens, 1..4096 (a longer text is\n"
       "                         refused without it, with the N that fits)\n"
       "      --qkv FILE         Q, K, V of one head from FILE (format: man attnviz)\n"
       "      --model PATH       a trained model, every layer and head: a llama2.c\n"
       "                         checkpoint (.bin), a Hugging Face folder (config.json\n"
       "                         and model.safetensors) or a GGUF file (llama.cpp, Ollama,\n"
       "                         LM Studio; F32 to Q2_K): GPT-2, Llama, Qwen2, Mistral;\n"
       "                         or ollama:NAME[:TAG], hf:ORG/NAME (from their caches)\n"
       "      --models           list the models on this machine (Ollama, LM Studio, the\n"
       "                         Hugging Face cache, $ATTNVIZ_MODELS) and whether they open\n"
       "      --vocab FILE       its tokenizer (default beside it: tokenizer.bin, tok<V>.bin,\n"
       "                         tokenizer.json, or vocab.json with merges.txt; a GGUF's own)\n"
       "      --layer N          the model's layer to start in, 1..L\n"
       "      --generate N       print the model's greedy continuation of N tokens and exit\n"
       "      --ablate L.H,...   switch heads of the model off (layer.head from 1: 5.6, or\n"
       "                         2.1,5.6): their outputs zeroed, or with a final :mean their\n"
       "                         means over the text battery; X in the view does one head\n"
       "  -t, --tokenizer NAME   words | gpt2 | chars  (default words)\n"
       "      --pattern REGEX    your own PCRE2 pattern: every match is a token\n"
       "\n"),
    N_("Model:\n"
       "      --d-model N        embedding width, 1..4096 (default 64)\n"
       "  -H, --heads N          number of heads, 1..64 (default 4)\n"
       "  -k, --d-k N            query/key width per head, 1..4096 (default d_model/heads)\n"
       "      --d-v N            value width per head, 1..4096 (default d_k)\n"
       "  -m, --mask KIND        none | causal | window:W | prefix:P | padding | painted\n"
       "                         (default causal: the sentence's tokens see only the past;\n"
       "                         none with --qkv or cross-attention; W 1..4096, P 0..4096)\n"
       "      --mask-file FILE   the painted mask (W writes it): rows of 0/1 (1 = visible), or\n"
       "                         'runs' then per row the runs of visible, masked, ... keys\n"
       "      --pad N            N <pad> tokens after the sentence, 0..4096 (mask padding hides them)\n"
       "      --score KIND       scaled | dot | cosine | distance | additive  (default scaled)\n"
       "      --no-scale         no scaling of the scores (score dot: Q K^T, not / sqrt(d_k))\n"
       "      --tie-qk           W_K = W_Q: dot and cosine scores turn symmetric (not additive)\n"
       "      --target TEXT      a second sentence: queries of cross-attention\n"
       "      --attn MODE        self | causal-self | cross  (default self; cross with --target)\n"
       "      --pos KIND         none | sinusoidal positional encoding (default none)\n"
       "  -s, --seed N           seed of every random number, 0..2^64-1 (default 42)\n"
       "\n"),
    N_("Output:\n"
       "      --threads N        threads for the products, 1..64 (default: the CPUs, at most 8);\n"
       "                         the numbers are the same for any N\n"
       "      --dump[=FORMAT]    print every stage and exit: text (default) | json | csv;\n"
       "                         tokens: id <TAB> piece of each token (--vocab alone: tokenize only)\n"
       "                         (json of a trained model: next_tokens {id, piece, bytes, prob});\n"
       "                         heads | heads-csv: every head's tests on the built-in batteries\n"
       "                         lens: the logit lens, each layer's top token at each position\n"
       "                         sweep: each head alone off, its effect on the next token\n"
       "      --lens-token PIECE with --dump=lens: that token's probability everywhere too;\n"
       "                         with --dump=sweep: the token (default: the likeliest)\n"
       "                         patch: activation patching of TEXT (clean) by --patch-from\n"
       "      --patch-from TEXT  the corrupted prompt, as many tokens as TEXT\n"
       "      --metric A,B       logit(A) - logit(B) after the last token (two pieces)\n"
       "      --once             draw the view once on standard output and exit\n"
       "      --width N          width for --once, 20..1000 (default: terminal, COLUMNS or 80)\n"
       "      --view NAME        view to start in: heatmap | heads | pipeline | gravity | census |\n"
       "                         classes | zoom | lens\n"
       "      --head N           the head shown, 1..heads (default 1)\n"
       "      --stage NAME       the stage shown: weights (default) | scores | scaled | masked |\n"
       "                         output | x | pe | concat | y\n"),
    N_("      --export FILE      draw the view once and write it as a picture, by the extension:\n"
       "                         .svg | .png | .html (the screen: --width columns, its colours)\n"
       "      --figure[=KIND]    with --export: a figure for slides instead (.svg | .png | .pdf):\n"
       "                         head (default) | heads (the layer's) | layers (every layer x head)\n"
       "      --numbers          the figure's values in its cells\n"
       "      --force            --export may replace an existing file\n"),
    N_("      --lesson NAME      a lesson: 1..7 (built in), a lesson FILE, or list (prints them)\n"
       "      --step N           the lesson's step to start at (default 1)\n"
       "      --lang LANG        en | ko: the interface's and the lessons' language (default:\n"
       "                         the locale's: LANGUAGE, LC_ALL, LC_MESSAGES or LANG)\n"
       "      --present          projector mode (B): bigger cells, less chrome, large captions\n"
       "      --publish PATH     publish the state at every change on the Unix socket PATH, for\n"
       "                         students on this machine: attnviz --follow PATH\n"
       "      --publish-mode M   who may follow: 0600 (default: you), 0660 (your group), 0666 (all)\n"
       "      --follow PATH      show what the teacher's attnviz publishes at PATH, at this\n"
       "                         terminal's size; any key explores on your own, F follows again\n"),
    N_("      --no-mouse         leave the mouse to the terminal (text selection)\n"
       "      --color WHEN       auto | always | never  (default auto; NO_COLOR set = never)\n"
       "      --theme KIND       auto | dark | light: the terminal's background, where 0 starts\n"
       "                         (default auto: COLORFGBG, else dark)\n"
       "      --ascii            ASCII glyphs only\n"
       "  -h, --help             this help\n"
       "  -V, --version          the version\n"
       "\n"),
    N_("Limits: 4096 tokens, 1 MiB of input, heads x tokens x tokens <= 16777216,\n"
       "1 GiB of matrices, 2^32 multiply-adds a pass.\n"
       "Exit status: 0 ok, 1 runtime failure, 2 bad input, 128+N ended by signal N.\n"),
};

const char *cli_usage(void) {
    /* in the reader's language: Korean takes up to three bytes a column */
    static char text[32768];
    int at = snprintf(text, sizeof text, _(usage_parts[0]), CLI_DEFAULT_TEXT, CLI_DEFAULT_TEXT_KO);
    for (size_t i = 1; at >= 0 && (size_t)at < sizeof text && i < sizeof usage_parts / sizeof *usage_parts; i++)
        at += snprintf(text + at, sizeof text - (size_t)at, "%s", _(usage_parts[i]));
    return text;
}
