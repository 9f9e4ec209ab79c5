/* bench.c - the C half of `make bench` (issue 7): timings of attnviz's own
 * code, printed as key=value lines that tests/bench/run.sh merges with the
 * NumPy/PyTorch reference (ref.py) and the tmux byte counts (bytes.sh).
 *
 *   bench machine                  CPU, flags, cores, attnviz's kernel and threads
 *   bench peak                     the per-core FMA peak (AVX2, AVX-512, the kernel's)
 *   bench gemm                     the products alone, per kernel, one thread, as a
 *                                  fraction of that kernel's peak
 *   bench forward [BUDGET_S [SHAPES]]  full forward at the teaching sizes and the three
 *                                  anchors (or SHAPES: "n,d_model,heads;..."), 1 and 2 threads
 *   bench incremental              mask / scale toggle and head switch vs a full forward
 *   bench latency [BUDGET_S]       key -> doupdate on a headless ncurses screen
 *   bench follow [N] [K]           a --publish teacher and N followers (processes), K
 *                                  changes: key -> last follower's block (issue 16)
 *   bench spawn N CMD [ARGS...]    median wall time and peak RSS of N runs of CMD
 *   bench llama-write DIR          a synthetic llama2.c checkpoint of stories15M's
 *                                  shape and a vocabulary of 32000 pieces, in DIR
 *   bench llama NAME FILE BUDGET_S OUT
 *                                  load time, RSS and the forward of 256 tokens of
 *                                  a checkpoint, 1 and 2 threads; OUT.ids, OUT.logits
 *   bench llama-latency FILE BUDGET_S
 *                                  key -> doupdate of the keys that recompute a
 *                                  model (the synthetic one: 128 tokens)
 *   bench hf-write DIR SHAPE DTYPE a synthetic Hugging Face checkpoint folder
 *                                  (config.json, model.safetensors) of GPT-2
 *                                  small's or SmolLM2-135M's shape (gpt2,
 *                                  smollm2), f32 or bf16, in DIR
 *   bench hf NAME DIR BUDGET_S OUT load time, RSS and the forward of 128 and
 *                                  512 tokens of a checkpoint folder, 1 and 2
 *                                  threads; OUT.<n>.ids, OUT.<n>.logits
 *   bench append DIR               issue 17: a word appended to, and a character
 *                                  typed at the end of, a 256-token sentence of
 *                                  a GPT-2-small-shape checkpoint (written in DIR
 *                                  when absent) vs its full forward
 *
 * A benchmark, not a test: it never fails on a number. A shape that cannot be
 * set up (a budget of the model, out of memory) is reported as a skip line.
 * Times are from CLOCK_MONOTONIC; every figure is a median after a warm-up. */
#define _XOPEN_SOURCE_EXTENDED 1
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1
#endif
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <math.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "canvas.h"
#include "cli.h"
#include "finite.h"
#include "follow.h"
#include "hfcheckpoint.h"
#include "keycode.h"
#include "llama2.h"
#include "matrix.h"
#include "model.h"
#include "parallel.h"
#include "rng.h"
#include "rowops.h"
#include "safetensors.h"
#include "screen.h"
#include "source_trained.h"

extern char **environ;

// ----------------------------------------------------------------------------
// clocks and statistics

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile (0..1) of n samples by the nearest-rank rule; sorts v. */
static double quantile(double *v, int n, double q) {
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int rank = (int)(q * n + 0.999999); /* ceil(q n), 1-based */
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return v[rank - 1];
}

static double median(double *v, int n) {
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// ----------------------------------------------------------------------------
// models of a given shape

/* A sentence of n distinct one-token words ("w0 w1 ..."): the words tokenizer
 * makes exactly n tokens of it. Caller frees. */
static char *words_text(int n, size_t *len) {
    size_t cap = (size_t)n * 8 + 1, at = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
    for (int i = 0; i < n; i++) at += (size_t)snprintf(s + at, cap - at, i ? " w%d" : "w%d", i);
    *len = at;
    return s;
}

/* A model of n tokens, d_model, heads, d_k = d_v = d_model / heads, causal
 * mask, scaling on, computed once. NULL with why[] set when it cannot be. */
static Model *make_model(int n, int d_model, int heads, char *why, size_t why_cap) {
    AvError err = {0};
    Model *m = model_new();
    if (!m) {
        snprintf(why, why_cap, "out of memory");
        return NULL;
    }
    ModelConfig c;
    model_config_default(&c);
    c.d_model = d_model;
    c.heads = heads;
    c.d_k = c.d_v = d_model / heads;
    c.mask = MASK_CAUSAL;
    c.scale = 1;
    size_t len = 0;
    char *text = words_text(n, &len);
    if (!text) {
        model_free(m);
        snprintf(why, why_cap, "out of memory");
        return NULL;
    }
    /* Config first on the default (empty) sentence, then the long text. */
    int rc = model_set_config(m, &c, &err);
    if (!rc) rc = model_set_text(m, text, len, &err);
    free(text);
    if (rc) {
        snprintf(why, why_cap, "%s", err.msg);
        model_free(m);
        return NULL;
    }
    model_update(m, &err);
    if (m->n_q != n || m->n_k != n) {
        snprintf(why, why_cap, "the sentence gave %d tokens, not %d", m->n_q, n);
        model_free(m);
        return NULL;
    }
    return m;
}

/* Floating-point operations of one full forward (issue 7's count; the causal
 * half of the scores is counted too, as NumPy and PyTorch compute it). */
static double forward_flops(int n, int dm, int heads) {
    double N = n, D = dm, dk = (double)(dm / heads), H = heads;
    return 3 * 2 * N * D * D + 2 * N * N * dk * H + 2 * N * N * dk * H + 2 * N * D * D;
}

/* One full forward without drawing the weights again. */
static double time_forward(Model *m) {
    double t0 = now_ms();
    model_invalidate(m, STAGE_PROJECT);
    model_update(m, NULL);
    return now_ms() - t0;
}

/* Median of full forwards after one warm-up: at least min_reps, then more
 * until target_ms has been spent (at most max_reps); a run that alone takes
 * longer than budget_ms stops the repetition early (slow kernels). */
static double median_forward(Model *m, int min_reps, int max_reps, double target_ms, double budget_ms, int *reps) {
    double warm = time_forward(m);
    double *t = malloc(sizeof *t * (size_t)max_reps);
    if (!t) return warm;
    int k = 0;
    double spent = 0.0, total = warm;
    while (k < max_reps) {
        t[k] = time_forward(m);
        spent += t[k];
        total += t[k++];
        if (k >= min_reps && spent >= target_ms) break;
        if (total + t[k - 1] > budget_ms) break; /* the next run would not fit */
    }
    double med = median(t, k);
    free(t);
    *reps = k;
    return med;
}

// ----------------------------------------------------------------------------
// bench machine

static void cmd_machine(void) {
    char cpu[256] = "unknown", line[8192];
    int avx2 = 0, avx512f = 0, fma = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        int got_name = 0, got_flags = 0;
        while (fgets(line, sizeof line, f)) {
            if (!got_name && strncmp(line, "model name", 10) == 0) {
                char *v = strchr(line, ':');
                if (v) {
                    v++;
                    while (*v == ' ' || *v == '\t') v++;
                    snprintf(cpu, sizeof cpu, "%s", v);
                    cpu[strcspn(cpu, "\n\"")] = '\0';
                    got_name = 1;
                }
            }
            if (!got_flags && strncmp(line, "flags", 5) == 0) {
                avx2 = strstr(line, " avx2") != NULL;
                avx512f = strstr(line, " avx512f") != NULL;
                fma = strstr(line, " fma") != NULL;
                got_flags = 1;
            }
        }
        fclose(f);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = par_set_threads(0);
    /* The load when the run started: other work on the machine skews every figure. */
    char load[64] = "unknown";
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        if (fscanf(la, "%63s", load) != 1) snprintf(load, sizeof load, "unknown");
        fclose(la);
    }
    printf("bench=machine cpu=\"%s\" cores=%ld avx2=%s avx512f=%s fma=%s kernel=%s threads=%d "
           "load1=%s\n",
           cpu, cores, avx2 ? "yes" : "no", avx512f ? "yes" : "no", fma ? "yes" : "no", mat_kernel_name(), threads,
           load);
}

// ----------------------------------------------------------------------------
// bench forward

/* The teaching sizes (the app's default width and heads, n <= 64), then the
 * anchors of issue 7. */
static const int shapes[][3] = {{16, 64, 4}, {64, 64, 4}, {64, 512, 8}, {256, 768, 12}, {1024, 768, 12}};

/* Prints `raw=forward n= d_model= heads= threads= attnviz_ms= gflops= reps=`
 * for run.sh to merge with the references. budget_s bounds the repetitions
 * of the whole command (slow kernels: fewer repetitions, never a failure). */
static void cmd_forward(double budget_s, const char *only) {
    double t_start = now_ms(), budget = budget_s * 1e3;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int n = shapes[s][0], dm = shapes[s][1], h = shapes[s][2];
        if (only) { /* "n,d_model,heads;...": the shapes named only */
            char key[64];
            snprintf(key, sizeof key, "%d,%d,%d", n, dm, h);
            const char *at = strstr(only, key);
            size_t kl = strlen(key);
            if (!at || (at != only && at[-1] != ';') || (at[kl] != '\0' && at[kl] != ';')) continue;
        }
        char why[512];
        Model *m = make_model(n, dm, h, why, sizeof why);
        if (!m) {
            printf("bench=skip what=attnviz_forward n=%d d_model=%d heads=%d reason=\"%s\"\n", n, dm, h, why);
            continue;
        }
        for (int threads = 1; threads <= 2; threads++) {
            par_set_threads(threads);
            /* Later shapes are bigger: leave them a share of what is left. */
            double left = budget - (now_ms() - t_start);
            int remaining = (int)(sizeof shapes / sizeof *shapes - s) * 2 - (threads - 1);
            double share = left / (remaining > 0 ? remaining : 1);
            if (share < 0) share = 0;
            int reps = 0;
            double ms = median_forward(m, 5, 200, share < 300 ? share : 300, share, &reps);
            double gflops = forward_flops(n, dm, h) / (ms * 1e6);
            printf("raw=forward n=%d d_model=%d heads=%d threads=%d attnviz_ms=%.3f gflops=%.2f "
                   "reps=%d\n",
                   n, dm, h, par_threads(), ms, gflops, reps);
            fflush(stdout);
        }
        model_free(m);
    }
    par_set_threads(1);
}

// ----------------------------------------------------------------------------
// bench incremental

/* Median time of `reps` presses of a key in the app as a user makes them:
 * app_key, then app_update (what the next frame recomputes: the heatmap of
 * the weights needs the stages up to the output; Y is computed only for the
 * views that show it). *stages is the stages one press recomputed. */
static double median_key(App *a, int key, int reps, int *stages) {
    double *t = malloc(sizeof *t * (size_t)reps);
    if (!t) return 0.0;
    AppKey k = {0, (uint32_t)key};
    app_key(a, k), app_update(a);
    app_key(a, k), app_update(a);
    unsigned long before = 0, after = 0;
    for (int s = 0; s < STAGE_COUNT; s++) before += a->m->computed[s];
    for (int i = 0; i < reps; i++) {
        double t0 = now_ms();
        app_key(a, k);
        app_update(a);
        t[i] = now_ms() - t0;
    }
    for (int s = 0; s < STAGE_COUNT; s++) after += a->m->computed[s];
    *stages = (int)((after - before) / (unsigned long)reps);
    double med = median(t, reps);
    free(t);
    return med;
}

static void cmd_incremental(void) {
    const int n = 256, dm = 768, h = 12;
    char why[512];
    par_set_threads(1);
    Model *m = make_model(n, dm, h, why, sizeof why);
    if (!m) {
        printf("bench=skip what=incremental n=%d d_model=%d heads=%d reason=\"%s\"\n", n, dm, h, why);
        return;
    }
    int reps = 0;
    double full = median_forward(m, 5, 100, 300, 20000, &reps);
    /* Repetitions sized from the full forward: about a second each. */
    int steps = full > 0 ? (int)(1000.0 / full) : 50;
    if (steps < 5) steps = 5;
    if (steps > 200) steps = 200;
    int mask_stages = 0, scale_stages = 0;
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    double mask = median_key(&a, 'm', steps, &mask_stages);
    double scale = median_key(&a, 's', steps, &scale_stages);

    /* The head switch: Tab through the app, which recomputes nothing. */
    AppKey tab = {0, '\t'};
    unsigned long before = 0, after = 0;
    for (int s = 0; s < STAGE_COUNT; s++) before += m->computed[s];
    enum { TABS = 2000 };
    static double t[TABS];
    app_key(&a, tab); /* warm-up */
    for (int i = 0; i < TABS; i++) {
        double t0 = now_ms();
        app_key(&a, tab);
        t[i] = now_ms() - t0;
    }
    for (int s = 0; s < STAGE_COUNT; s++) after += m->computed[s];
    double tabs = median(t, TABS);
    app_free(&a);
    printf("bench=incremental via=app n=%d d_model=%d heads=%d threads=1 full_ms=%.3f mask_ms=%.3f "
           "mask_ratio=%.3f "
           "scale_ms=%.3f scale_ratio=%.3f head_switch_ms=%.6f head_switch_ratio=%.6f "
           "mask_stages=%d scale_stages=%d head_switch_stages=%lu\n",
           n, dm, h, full, mask, mask / full, scale, scale / full, tabs, tabs / full, mask_stages, scale_stages,
           after - before);
    model_free(m);
}

// ----------------------------------------------------------------------------
// bench latency

/* The scripted keys: cursor moves, heads, masks, scaling, stages, d_k, the
 * all-heads, pipeline and gravity views; the mask cycles back to causal. */
static const AppKey script[] = {
    {1, KEY_RIGHT}, {1, KEY_RIGHT}, {1, KEY_DOWN}, {1, KEY_DOWN}, {1, KEY_LEFT}, {1, KEY_UP},  {0, '\t'},
    {0, '\t'},      {1, KEY_BTAB},  {0, '2'},      {0, 'm'},      {0, 's'},      {0, 's'},     {0, 'v'},
    {0, 'v'},       {0, 'v'},       {0, 'v'},      {0, 'l'},      {0, 'j'},      {0, '+'},     {0, '-'},
    {0, 'a'},       {1, KEY_RIGHT}, {0, 'a'},      {0, 'c'},      {0, 'c'},      {1, KEY_END}, {1, KEY_HOME},
    {1, KEY_NPAGE}, {0, 'm'},       {0, 'm'},      {0, 'm'},      {0, 'm'},      {0, 'm'},     {0, 'g'},
    {0, 'c'},       {0, 'c'},       {0, 'v'},      {0, 'v'},      {0, 'v'},      {0, 'v'},     {0, 'v'},
};
enum { SCRIPT_LEN = (int)(sizeof script / sizeof *script) };

/* A key's name without blanks: "KEY_RIGHT", "Tab", "m". */
static void key_label(char *buf, size_t cap, AppKey k) {
    if (k.is_code) {
        const char *name = keyname((int)k.ch);
        snprintf(buf, cap, "%s", name ? name : "?");
    } else if (k.ch == '\t') {
        snprintf(buf, cap, "Tab");
    } else {
        snprintf(buf, cap, "%c", (int)k.ch);
    }
}

/* Called after each key of the llama script (untimed): N grew the sentence,
 * this puts it back. */
typedef void (*AfterKey)(App *a, AppKey k, void *ctx);

/* Drives the real app on m with ncurses writing to /dev/null at w x h: for
 * every key of keys[0..nkeys) (repeated while fewer than min_keys were
 * pressed and within budget_ms), the time from app_key to the end of the
 * screen_blit (doupdate) of the frame that shows its result. Prints one
 * bench=latency line that starts with `what`; with by_key, the median and
 * the stages recomputed of each distinct key too. m is freed. */
static void latency_loop(Model *m, const AppKey *keys, int nkeys, int w, int h, int min_keys, double budget_ms,
                         const char *what, int by_key, AfterKey after, void *ctx) {
    /* ncurses writes every frame to /dev/null: the diff and the escape
     * sequences are computed as for a real terminal, nothing is shown. */
    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    SCREEN *scr = out && in ? newterm("xterm-256color", out, in) : NULL;
    if (!scr) {
        printf("bench=skip what=latency %s reason=\"newterm(xterm-256color) failed\"\n", what);
        if (out) fclose(out);
        if (in) fclose(in);
        model_free(m);
        return;
    }
    set_term(scr);
    resizeterm(h, w);
    if (has_colors()) {
        start_color();
        use_default_colors();
    }
    App a;
    app_init(&a, m, screen_tier(COLOR_AUTO), 0, 1, NULL);
    a.enforce_min = 1;
    Canvas *cv = cv_new(COLS, LINES);
    int cap = min_keys > nkeys ? min_keys + nkeys : 2 * nkeys;
    double *t = malloc(sizeof *t * (size_t)cap);
    int *kidx = malloc(sizeof *kidx * (size_t)cap), *kstages = malloc(sizeof *kstages * (size_t)cap);
    int keys_done = 0, truncated = 0, slowest = 0, marks = 0;
    double last_update = 0.0; /* ms the last recompute took */
    if (cv && t && kidx && kstages) {
        app_draw(&a, cv);
        screen_blit(cv, a.tier);
        double start = now_ms();
        for (int k = 0; keys_done < cap; k++) {
            if (keys_done >= min_keys && k % nkeys == 0) break;
            if (now_ms() - start > budget_ms) {
                truncated = 1;
                break;
            }
            AppKey key = keys[k % nkeys]; /* ncurses' codes, as the terminal sends them */
            if (key.is_code) key.ch = keycode_from_curses((int)key.ch);
            unsigned long before = 0, after_n = 0;
            for (int s = 0; s < STAGE_COUNT; s++) before += m->computed[s];
            double t0 = now_ms();
            if (app_key(&a, key)) {
                /* One frame as screen_run makes it (tui/screen.c), but on
                 * this thread (screen_run starts a frame thread: some tens of
                 * microseconds, not counted here): when the recompute takes
                 * longer than a frame a "computing" mark is sent (here: when
                 * the last one did); then the recompute, the draw, the blit. */
                if (cv->w != COLS || cv->h != LINES) cv_resize(cv, COLS, LINES);
                if (app_needs_update(&a)) {
                    if (last_update > 16.0) {
                        cv_text_right(cv, 0, 0, a.ascii ? " computing... " : " computing… ", cv->w,
                                      style_attr(ST_REVERSE | ST_BOLD));
                        screen_blit(cv, a.tier);
                        marks++;
                    }
                    double u0 = now_ms();
                    app_update(&a);
                    last_update = now_ms() - u0;
                }
                app_draw(&a, cv);
                screen_blit(cv, a.tier);
            }
            t[keys_done] = now_ms() - t0;
            for (int s = 0; s < STAGE_COUNT; s++) after_n += m->computed[s];
            kidx[keys_done] = k % nkeys;
            kstages[keys_done] = (int)(after_n - before);
            if (t[keys_done] > t[slowest]) slowest = keys_done;
            keys_done++;
            if (after) after(&a, keys[k % nkeys], ctx);
        }
    }
    int ok = cv && t && kidx && kstages;
    if (!ok) printf("bench=skip what=latency %s reason=\"out of memory\"\n", what);
    /* Per key (before the quantiles sort t): "m:12.1ms/6st,s:..." */
    char per[1024] = "";
    if (ok && by_key) {
        double *sel = malloc(sizeof *sel * (size_t)(keys_done ? keys_done : 1));
        size_t at = 0;
        for (int i = 0; sel && i < nkeys; i++) {
            int first = 1;
            for (int j = 0; j < i; j++)
                if (keys[j].is_code == keys[i].is_code && keys[j].ch == keys[i].ch) first = 0;
            if (!first) continue;
            int c = 0;
            long st = 0;
            for (int j = 0; j < keys_done; j++)
                if (keys[kidx[j]].is_code == keys[i].is_code && keys[kidx[j]].ch == keys[i].ch)
                    sel[c++] = t[j], st += kstages[j];
            if (!c) continue;
            char label[64];
            key_label(label, sizeof label, keys[i]);
            at += (size_t)snprintf(per + at, at < sizeof per ? sizeof per - at : 0, "%s%s:%.1fms/%ldst", at ? "," : "",
                                   label, median(sel, c), st / c);
            if (at >= sizeof per) break;
        }
        free(sel);
    }
    double mx = keys_done ? t[slowest] : 0.0;
    char slow_key[64] = "none";
    if (keys_done) key_label(slow_key, sizeof slow_key, keys[kidx[slowest]]);
    double p50 = quantile(t, keys_done, 0.50), p99 = quantile(t, keys_done, 0.99);
    if (ok)
        printf("bench=latency %s size=%dx%d keys=%d p50_ms=%.3f p99_ms=%.3f max_ms=%.3f max_key=%s "
               "computing_marks=%d threads=%d%s%s%s%s\n",
               what, COLS, LINES, keys_done, p50, p99, mx, slow_key, marks, par_threads(), by_key ? " per_key=\"" : "",
               by_key ? per : "", by_key ? "\"" : "",
               truncated ? " truncated=\"time budget reached before the end of the script\"" : "");
    fflush(stdout);
    free(t);
    free(kidx);
    free(kstages);
    cv_free(cv);
    app_free(&a);
    endwin();
    delscreen(scr);
    fclose(out);
    fclose(in);
    model_free(m);
}

static void latency_run(int n, int dm, int heads, int w, int h, int min_keys, double budget_ms) {
    char why[512], what[128];
    Model *m = make_model(n, dm, heads, why, sizeof why);
    snprintf(what, sizeof what, "n=%d d_model=%d heads=%d", n, dm, heads);
    if (!m) {
        printf("bench=skip what=latency %s reason=\"%s\"\n", what, why);
        return;
    }
    latency_loop(m, script, SCRIPT_LEN, w, h, min_keys, budget_ms, what, 1, NULL, NULL);
}

static void cmd_latency(double budget_s) {
    par_set_threads(0); /* as the app runs: the default thread count */
    double b = budget_s * 1e3;
    latency_run(128, 512, 8, 80, 24, 4 * SCRIPT_LEN, b * 0.1);
    latency_run(128, 512, 8, 200, 50, 4 * SCRIPT_LEN, b * 0.1);
    latency_run(1024, 768, 12, 200, 50, SCRIPT_LEN, b * 0.8);
}

// ----------------------------------------------------------------------------
// llama2.c checkpoints (issue 12)

/* The synthetic stories15M shape: dim, hidden_dim, n_layers, n_heads,
 * n_kv_heads, vocab_size, seq_len. */
static const int32_t syn_shape[7] = {288, 768, 6, 6, 6, 32000, 256};
#define SYN_NAME "stories15M-shape"

/* The synthetic vocabulary: llama2.c's first 259 pieces (<unk>, <s>, </s>,
 * the bytes <0x00>..<0xFF>), " ", the letters, then " a".." z", " aa".." zz",
 * " aaa".." zzz" and as many " aaaa"... as fill syn_shape[5]. Each word of
 * up to 4 letters after a space is one piece, which the merges reach letter
 * by letter (" a", " ab", " abc"): "abc de" is BOS " abc" " de". */
enum { SYN_FIRST_WORD = 259 + 1 + 26, SYN_MAX_PIECE = 6 };

/* Piece `id` into buf (at least 8 bytes); its length. */
static int syn_piece(int id, char *buf) {
    if (id == 0) return (int)strlen(strcpy(buf, "<unk>"));
    if (id == 1) return (int)strlen(strcpy(buf, "<s>"));
    if (id == 2) return (int)strlen(strcpy(buf, "</s>"));
    if (id < 259) return snprintf(buf, 8, "<0x%02X>", id - 3);
    if (id == 259) return (int)strlen(strcpy(buf, " "));
    if (id < SYN_FIRST_WORD) return buf[0] = (char)('a' + id - 260), buf[1] = '\0', 1;
    int k = id - SYN_FIRST_WORD, len = 1, count = 26;
    while (k >= count) k -= count, count *= 26, len++;
    buf[0] = ' ';
    for (int i = len; i >= 1; i--) buf[i] = (char)('a' + k % 26), k /= 26;
    buf[len + 1] = '\0';
    return len + 1;
}

/* The sentence of `words` distinct three-letter words ("xqa bcd ...") that
 * the synthetic vocabulary makes 1 + words tokens of. Caller frees. */
static char *syn_text(int words, size_t *len) {
    char *s = malloc((size_t)words * 4 + 1), piece[8];
    if (!s) return NULL;
    size_t at = 0;
    for (int i = 0; i < words; i++) {
        int three = SYN_FIRST_WORD + 26 + 26 * 26 + (int)(((long)i * 7919 + 101) % (26 * 26 * 26));
        int l = syn_piece(three, piece);
        memcpy(s + at, piece + (i == 0), (size_t)l - (i == 0)); /* the dummy prefix gives the first space */
        at += (size_t)l - (i == 0);
    }
    s[at] = '\0';
    *len = at;
    return s;
}

static int put_i32(FILE *f, int32_t v) { return fwrite(&v, sizeof v, 1, f) == 1 ? 0 : -1; }

static int write_vocab(const char *path, int n) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int rc = put_i32(f, SYN_MAX_PIECE);
    char piece[16];
    for (int id = 0; id < n && !rc; id++) {
        int32_t len = syn_piece(id, piece);
        float score = -(float)id; /* merges: any order gives the same pieces here */
        rc = fwrite(&score, sizeof score, 1, f) == 1 && put_i32(f, len) == 0 &&
                     fwrite(piece, 1, (size_t)len, f) == (size_t)len
                 ? 0
                 : -1;
    }
    if (fclose(f)) rc = -1;
    return rc;
}

/* count floats to f: N(0, sd) from rng (sd 0: all `fill`). */
static int write_floats(FILE *f, size_t count, double sd, float fill, RngStream *rng) {
    enum { CHUNK = 1 << 16 };
    static float buf[CHUNK];
    while (count) {
        size_t k = count < CHUNK ? count : CHUNK;
        for (size_t i = 0; i < k; i++) buf[i] = sd > 0 ? (float)(sd * rng_normal(rng)) : fill;
        if (fwrite(buf, sizeof *buf, k, f) != k) return -1;
        count -= k;
    }
    return 0;
}

/* The legacy layout (llama2.h): the header, then the tensors, seeded
 * N(0, 0.02) weights, RMSNorm weights 1, the two RoPE tables as llama2.c
 * exports them, the classifier tied. */
static int write_checkpoint(const char *path, const int32_t hdr[7]) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t dim = (size_t)hdr[0], hid = (size_t)hdr[1], L = (size_t)hdr[2], hs = dim / (size_t)hdr[3];
    size_t kv = (size_t)hdr[4] * hs, V = (size_t)hdr[5], S = (size_t)hdr[6];
    RngStream rng;
    rng_init(&rng, 12);
    int rc = 0;
    for (int i = 0; i < 7 && !rc; i++) rc = put_i32(f, hdr[i]);
    const double sd = 0.02;
    if (!rc) rc = write_floats(f, V * dim, sd, 0, &rng);       /* embed */
    if (!rc) rc = write_floats(f, L * dim, 0, 1.0f, &rng);     /* rms_att */
    if (!rc) rc = write_floats(f, L * dim * dim, sd, 0, &rng); /* wq */
    if (!rc) rc = write_floats(f, L * kv * dim, sd, 0, &rng);  /* wk */
    if (!rc) rc = write_floats(f, L * kv * dim, sd, 0, &rng);  /* wv */
    if (!rc) rc = write_floats(f, L * dim * dim, sd, 0, &rng); /* wo */
    if (!rc) rc = write_floats(f, L * dim, 0, 1.0f, &rng);     /* rms_ffn */
    if (!rc) rc = write_floats(f, L * hid * dim, sd, 0, &rng); /* w1 */
    if (!rc) rc = write_floats(f, L * dim * hid, sd, 0, &rng); /* w2 */
    if (!rc) rc = write_floats(f, L * hid * dim, sd, 0, &rng); /* w3 */
    if (!rc) rc = write_floats(f, dim, 0, 1.0f, &rng);         /* rms_final */
    for (int table = 0; table < 2 && !rc; table++)             /* freq_cis_real, freq_cis_imag */
        for (size_t p = 0; p < S && !rc; p++)
            for (size_t i = 0; i < hs / 2 && !rc; i++) {
                double a = (double)p * pow(10000.0, -(2.0 * (double)i) / (double)hs);
                float v = (float)(table ? sin(a) : cos(a));
                rc = fwrite(&v, sizeof v, 1, f) == 1 ? 0 : -1;
            }
    if (fclose(f)) rc = -1;
    return rc;
}

/* bench llama-write DIR: DIR/stories15M-shape.bin and DIR/tokenizer.bin. */
static int cmd_llama_write(const char *dir) {
    char model[4096], vocab[4096];
    snprintf(model, sizeof model, "%s/" SYN_NAME ".bin", dir);
    snprintf(vocab, sizeof vocab, "%s/tokenizer.bin", dir);
    double t0 = now_ms();
    if (write_checkpoint(model, syn_shape) || write_vocab(vocab, syn_shape[5])) {
        printf("bench=skip what=model name=" SYN_NAME " reason=\"cannot write %s: %s\"\n", dir, strerror(errno));
        return 1;
    }
    struct stat st;
    long kb = stat(model, &st) == 0 ? (long)(st.st_size / 1024) : -1;
    printf("raw=llama_write name=" SYN_NAME " path=%s file_kb=%ld ms=%.1f\n", model, kb, now_ms() - t0);
    return 0;
}

typedef struct {
    long rss, anon, file; /* kB: VmRSS, RssAnon, RssFile of /proc/self/status */
} Rss;

static Rss rss_now(void) {
    Rss r = {-1, -1, -1};
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return r;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmRSS:", 6) == 0) r.rss = atol(line + 6);
        else if (strncmp(line, "RssAnon:", 8) == 0) r.anon = atol(line + 8);
        else if (strncmp(line, "RssFile:", 8) == 0) r.file = atol(line + 8);
    }
    fclose(f);
    return r;
}

/* Bytes malloc has handed out (the heap and its mmap'd blocks); 0 where
 * the C library cannot say (mallinfo2 is glibc 2.33's). */
static size_t heap_bytes(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
#else
    return 0;
#endif
}

/* Floating-point operations of a forward of n tokens with every row's
 * logits: the projections and the FFN, the attention (the causal half:
 * what attnviz computes; the references compute the whole n x n), the
 * classifier. */
static double llama_flops(const TfConfig *c, int n) {
    double N = n, D = c->dim, KV = c->kv_dim, Hd = c->hidden_dim;
    double layer = 2 * N * (2 * D * D + 2 * KV * D + 3 * D * Hd) + 2 * 2 * (N * (N + 1) / 2) * D;
    return c->n_layers * layer + 2 * N * D * c->vocab;
}

static double time_llama_forward(TfRun *r, const int *ids, int n) {
    double t0 = now_ms();
    tf_forward(r, ids, n, NULL);
    return now_ms() - t0;
}

static int write_file(const char *path, const void *p, size_t bytes) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int rc = fwrite(p, 1, bytes, f) == bytes ? 0 : -1;
    if (fclose(f)) rc = -1;
    return rc;
}

/* bench llama NAME FILE BUDGET_S OUT: the load (llama2_open: mmap and
 * validation) and RSS around it, the full forward of 256 tokens (every
 * row's logits, as the app keeps them) at 1 and 2 threads; OUT.ids (int32)
 * and OUT.logits (float32, tokens x vocab) for ref.py --check. */
static int cmd_llama(const char *name, const char *path, double budget_s, const char *out) {
    AvError err = {0};
    Rss r0 = rss_now();
    double t0 = now_ms();
    TfModel *lm = llama2_open(path, &err);
    double first = now_ms() - t0;
    if (!lm) {
        printf("bench=skip what=model name=%s reason=\"%s\"\n", name, err.msg);
        return 1;
    }
    Rss r1 = rss_now();
    const TfConfig *c = &lm->cfg;
    int n = c->max_pos < 256 ? c->max_pos : 256;
    int *ids = malloc(sizeof *ids * (size_t)n);
    if (!ids) return tf_close(lm), 1;
    RngStream rng;
    rng_init(&rng, 256);
    ids[0] = LLAMA2_BOS;
    for (int i = 1; i < n; i++) ids[i] = (int)(rng_next(&rng) % (uint64_t)c->vocab);

    double budget = budget_s * 1e3, start = now_ms();
    Rss r2 = r1;
    size_t run_bytes = 0;
    for (int threads = 1; threads <= 2; threads++) {
        par_set_threads(threads);
        size_t h0 = heap_bytes();
        TfRun *run = tf_run_new(lm, n, 1, &err);
        if (!run) {
            printf("bench=skip what=model name=%s threads=%d reason=\"%s\"\n", name, threads, err.msg);
            break;
        }
        double warm = time_llama_forward(run, ids, n);
        if (threads == 1) {
            r2 = rss_now(); /* after a run of n tokens */
            run_bytes = heap_bytes() - h0;
            char p[4096];
            snprintf(p, sizeof p, "%s.ids", out);
            int32_t *ids32 = malloc(sizeof *ids32 * (size_t)n);
            int rc = !ids32;
            for (int i = 0; !rc && i < n; i++) ids32[i] = ids[i];
            if (!rc) rc = write_file(p, ids32, sizeof *ids32 * (size_t)n);
            free(ids32);
            snprintf(p, sizeof p, "%s.logits", out);
            if (!rc) rc = write_file(p, run->logits, sizeof(float) * (size_t)n * (size_t)c->vocab);
            if (rc) printf("bench=skip what=model_check name=%s reason=\"cannot write %s\"\n", name, p);
        }
        /* Half of what is left for each thread count; at least 5 runs. */
        double share = (budget - (now_ms() - start)) / (3 - threads);
        enum { MAX_REPS = 200 };
        double t[MAX_REPS], spent = warm;
        int k = 0;
        while (k < MAX_REPS) {
            t[k] = time_llama_forward(run, ids, n);
            spent += t[k++];
            if (k >= 5 && spent >= (share < 1000 ? share : 1000)) break;
            if (spent + t[k - 1] > share && k >= 3) break;
        }
        double ms = median(t, k);
        /* The classifier alone (every row: n x vocab x dim), of the same run. */
        double lt[5];
        for (int i = 0; i < 5; i++) {
            double l0 = now_ms();
            tf_logits(run);
            lt[i] = now_ms() - l0;
        }
        printf("raw=model name=%s threads=%d tokens=%d attnviz_ms=%.3f gflops=%.2f logits_ms=%.3f reps=%d\n", name,
               par_threads(), n, ms, llama_flops(c, n) / (ms * 1e6), median(lt, 5), k);
        fflush(stdout);
        tf_run_free(run);
    }
    par_set_threads(1);

    /* The load again, page cache warm: open (mmap, validation) and close. */
    double lt[50];
    int lk = 0;
    double lstart = now_ms();
    while (lk < 50 && (lk < 5 || now_ms() - lstart < 1000)) {
        double l0 = now_ms();
        TfModel *again = llama2_open(path, &err);
        lt[lk++] = now_ms() - l0;
        tf_close(again);
    }
    struct stat st;
    long file_kb = stat(path, &st) == 0 ? (long)(st.st_size / 1024) : -1;
    printf("raw=model_load name=%s dim=%d hidden=%d layers=%d heads=%d kv_heads=%d vocab=%d seq_len=%d "
           "file_kb=%ld load_ms=%.3f load_first_ms=%.3f load_reps=%d "
           "rss_kb_before=%ld rss_anon_kb_before=%ld rss_file_kb_before=%ld "
           "rss_kb_loaded=%ld rss_anon_kb_loaded=%ld rss_file_kb_loaded=%ld "
           "rss_kb=%ld rss_anon_kb=%ld rss_file_kb=%ld tokens=%d run_alloc_kb=%zu\n",
           name, c->dim, c->hidden_dim, c->n_layers, c->n_heads, c->n_kv_heads, c->vocab, c->max_pos, file_kb,
           median(lt, lk), first, lk, r0.rss, r0.anon, r0.file, r1.rss, r1.anon, r1.file, r2.rss, r2.anon, r2.file, n,
           run_bytes / 1024);
    free(ids);
    tf_close(lm);
    return 0;
}

/* The keys of the model that recompute (m: the next mask, every layer
 * again; s: scaling; N: one more token, the sentence again) and } (the
 * next layer: a redraw, every layer is computed already). The mask goes
 * round its six kinds back to causal. */
static const AppKey llama_script[] = {
    {0, 'm'}, {0, 's'}, {0, 's'}, {0, '}'}, {0, 'N'}, {0, 'm'}, {0, '}'}, {0, 'm'},
    {0, 'N'}, {0, 'm'}, {0, 's'}, {0, 's'}, {0, 'm'}, {0, '}'}, {0, 'N'}, {0, 'm'},
};
enum { LLAMA_SCRIPT_LEN = (int)(sizeof llama_script / sizeof *llama_script) };

typedef struct {
    const char *text;
    size_t len;
} LlamaReset;

/* After N (untimed): the sentence back to its 128 tokens, recomputed. */
static void llama_reset(App *a, AppKey k, void *ctx) {
    if (k.is_code || k.ch != 'N') return;
    const LlamaReset *r = ctx;
    if (model_set_text(a->m, r->text, r->len, NULL)) return;
    if (a->ci >= a->m->n_q) a->ci = a->m->n_q - 1;
    if (a->cj >= a->m->n_k) a->cj = a->m->n_k - 1;
    app_update(a);
}

/* bench llama-latency FILE BUDGET_S: the checkpoint (its tokenizer.bin
 * beside it) as the app opens it, causal, on the 128 tokens of syn_text,
 * at the default thread count, 200x50. */
static int cmd_llama_latency(const char *path, double budget_s) {
    par_set_threads(0);
    AvError err = {0};
    size_t len = 0;
    char *text = syn_text(127, &len);
    Model *m = text ? model_new() : NULL;
    if (!m || model_set_trained(m, path, NULL, text, len, &err)) {
        printf("bench=skip what=latency model=" SYN_NAME " reason=\"%s\"\n", m ? err.msg : "out of memory");
        model_free(m);
        free(text);
        return 1;
    }
    ModelConfig c = m->cfg; /* as build_from_model: causal, scaled */
    c.mask = MASK_CAUSAL;
    c.scale = 1;
    if (model_set_config(m, &c, &err) || model_update(m, &err)) {
        printf("bench=skip what=latency model=" SYN_NAME " reason=\"%s\"\n", err.msg);
        model_free(m);
        free(text);
        return 1;
    }
    char what[256];
    snprintf(what, sizeof what, "model=" SYN_NAME " n=%d d_model=%d heads=%d layers=%d", m->n_q, m->cfg.d_model,
             m->cfg.heads, m->cfg.layers);
    if (m->n_q != 128) printf("bench=warn what=latency reason=\"the sentence gave %d tokens, not 128\"\n", m->n_q);
    LlamaReset reset = {text, len};
    latency_loop(m, llama_script, LLAMA_SCRIPT_LEN, 200, 50, 4 * LLAMA_SCRIPT_LEN, budget_s * 1e3, what, 1, llama_reset,
                 &reset);
    free(text);
    return 0;
}

// ----------------------------------------------------------------------------
// Hugging Face checkpoints (issue 14)

/* A tensor of a synthetic checkpoint: its name, shape and how it is drawn. */
typedef enum { HF_SYN_MATRIX, HF_SYN_NORM, HF_SYN_BIAS } HfSynKind;

typedef struct {
    char name[64];
    int ndim;
    size_t shape[2];
    HfSynKind kind;
} HfSynTensor;

/* The two shapes bench hf-write knows. */
typedef struct {
    const char *shape; /* "gpt2", "smollm2" */
    int gpt2;          /* 1: GPT-2's names and Conv1D (in, out); 0: TfModel's, nn.Linear (out, in) */
    int dim, hidden, layers, heads, kv_heads, vocab, max_pos;
} HfSynShape;

static const HfSynShape hf_syn_shapes[] = {
    {"gpt2", 1, 768, 3072, 12, 12, 12, 50257, 1024},  /* GPT-2 small */
    {"smollm2", 0, 576, 1536, 30, 9, 3, 49152, 8192}, /* SmolLM2-135M */
};

static void hf_syn_add(HfSynTensor *t, int *n, HfSynKind kind, size_t d0, size_t d1, const char *fmt, int layer) {
    HfSynTensor *x = &t[(*n)++];
    snprintf(x->name, sizeof x->name, fmt, layer);
    x->ndim = d1 ? 2 : 1, x->shape[0] = d0, x->shape[1] = d1, x->kind = kind;
}

/* Every tensor of shape s, in the order they are written; their count.
 * t has room for 4 + 12 layers (GPT-2) or 2 + 9 layers (TfModel). */
static int hf_syn_tensors(const HfSynShape *s, HfSynTensor *t) {
    size_t d = (size_t)s->dim, hid = (size_t)s->hidden, kv = (size_t)(s->kv_heads * (s->dim / s->heads));
    int n = 0;
    if (s->gpt2) {
        hf_syn_add(t, &n, HF_SYN_MATRIX, (size_t)s->vocab, d, "wte.weight", 0);
        hf_syn_add(t, &n, HF_SYN_MATRIX, (size_t)s->max_pos, d, "wpe.weight", 0);
        for (int l = 0; l < s->layers; l++) {
            hf_syn_add(t, &n, HF_SYN_NORM, d, 0, "h.%d.ln_1.weight", l);
            hf_syn_add(t, &n, HF_SYN_BIAS, d, 0, "h.%d.ln_1.bias", l);
            hf_syn_add(t, &n, HF_SYN_MATRIX, d, 3 * d, "h.%d.attn.c_attn.weight", l); /* Conv1D: (in, out) */
            hf_syn_add(t, &n, HF_SYN_BIAS, 3 * d, 0, "h.%d.attn.c_attn.bias", l);
            hf_syn_add(t, &n, HF_SYN_MATRIX, d, d, "h.%d.attn.c_proj.weight", l);
            hf_syn_add(t, &n, HF_SYN_BIAS, d, 0, "h.%d.attn.c_proj.bias", l);
            hf_syn_add(t, &n, HF_SYN_NORM, d, 0, "h.%d.ln_2.weight", l);
            hf_syn_add(t, &n, HF_SYN_BIAS, d, 0, "h.%d.ln_2.bias", l);
            hf_syn_add(t, &n, HF_SYN_MATRIX, d, hid, "h.%d.mlp.c_fc.weight", l);
            hf_syn_add(t, &n, HF_SYN_BIAS, hid, 0, "h.%d.mlp.c_fc.bias", l);
            hf_syn_add(t, &n, HF_SYN_MATRIX, hid, d, "h.%d.mlp.c_proj.weight", l);
            hf_syn_add(t, &n, HF_SYN_BIAS, d, 0, "h.%d.mlp.c_proj.bias", l);
        }
        hf_syn_add(t, &n, HF_SYN_NORM, d, 0, "ln_f.weight", 0);
        hf_syn_add(t, &n, HF_SYN_BIAS, d, 0, "ln_f.bias", 0);
        return n;
    }
    hf_syn_add(t, &n, HF_SYN_MATRIX, (size_t)s->vocab, d, "model.embed_tokens.weight", 0); /* tied: no lm_head */
    for (int l = 0; l < s->layers; l++) {
        hf_syn_add(t, &n, HF_SYN_NORM, d, 0, "model.layers.%d.input_layernorm.weight", l);
        hf_syn_add(t, &n, HF_SYN_MATRIX, d, d, "model.layers.%d.self_attn.q_proj.weight", l); /* (out, in) */
        hf_syn_add(t, &n, HF_SYN_MATRIX, kv, d, "model.layers.%d.self_attn.k_proj.weight", l);
        hf_syn_add(t, &n, HF_SYN_MATRIX, kv, d, "model.layers.%d.self_attn.v_proj.weight", l);
        hf_syn_add(t, &n, HF_SYN_MATRIX, d, d, "model.layers.%d.self_attn.o_proj.weight", l);
        hf_syn_add(t, &n, HF_SYN_NORM, d, 0, "model.layers.%d.post_attention_layernorm.weight", l);
        hf_syn_add(t, &n, HF_SYN_MATRIX, hid, d, "model.layers.%d.mlp.gate_proj.weight", l);
        hf_syn_add(t, &n, HF_SYN_MATRIX, hid, d, "model.layers.%d.mlp.up_proj.weight", l);
        hf_syn_add(t, &n, HF_SYN_MATRIX, d, hid, "model.layers.%d.mlp.down_proj.weight", l);
    }
    hf_syn_add(t, &n, HF_SYN_NORM, d, 0, "model.norm.weight", 0);
    return n;
}

static size_t hf_syn_count(const HfSynTensor *t) { return t->shape[0] * (t->ndim == 2 ? t->shape[1] : 1); }

/* The float's bfloat16, rounded to nearest even (no NaN is drawn). */
static uint16_t f32_to_bf16(float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return (uint16_t)((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}

/* One tensor's data to f, count elements drawn as its kind says (matrices
 * N(0, 0.02), norm weights 1, biases N(0, 0.01)), F32 or BF16 little-endian;
 * streamed through a small buffer. */
static int hf_syn_write_data(FILE *f, const HfSynTensor *t, int bf16, RngStream *rng) {
    enum { CHUNK = 1 << 15 };
    static float buf[CHUNK];
    static uint16_t half[CHUNK];
    double sd = t->kind == HF_SYN_MATRIX ? 0.02 : t->kind == HF_SYN_BIAS ? 0.01 : 0.0;
    for (size_t left = hf_syn_count(t); left;) {
        size_t k = left < CHUNK ? left : CHUNK;
        for (size_t i = 0; i < k; i++) buf[i] = sd > 0 ? (float)(sd * rng_normal(rng)) : 1.0f;
        if (bf16) {
            for (size_t i = 0; i < k; i++) half[i] = f32_to_bf16(buf[i]);
            if (fwrite(half, sizeof *half, k, f) != k) return -1;
        } else if (fwrite(buf, sizeof *buf, k, f) != k) return -1;
        left -= k;
    }
    return 0;
}

/* path.tmp written by write(f, ctx), then renamed to path: a reader never
 * sees half a file. */
static int write_atomic(const char *path, int (*write)(FILE *f, const void *ctx), const void *ctx) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) return -1;
    int rc = write(f, ctx);
    if (fclose(f)) rc = -1;
    if (!rc && rename(tmp, path)) rc = -1;
    if (rc) remove(tmp);
    return rc;
}

typedef struct {
    const HfSynShape *s;
    int bf16;
} HfSynFile;

static int hf_syn_write_config(FILE *f, const void *ctx) {
    const HfSynFile *w = ctx;
    const HfSynShape *s = w->s;
    const char *dtype = w->bf16 ? "bfloat16" : "float32";
    if (s->gpt2)
        return fprintf(f,
                       "{\n  \"architectures\": [\"GPT2LMHeadModel\"],\n  \"model_type\": \"gpt2\",\n"
                       "  \"n_embd\": %d,\n  \"n_layer\": %d,\n  \"n_head\": %d,\n  \"n_inner\": %d,\n"
                       "  \"vocab_size\": %d,\n  \"n_positions\": %d,\n  \"n_ctx\": %d,\n"
                       "  \"layer_norm_epsilon\": 1e-05,\n  \"activation_function\": \"gelu_new\",\n"
                       "  \"tie_word_embeddings\": true,\n  \"torch_dtype\": \"%s\"\n}\n",
                       s->dim, s->layers, s->heads, s->hidden, s->vocab, s->max_pos, s->max_pos, dtype) < 0
                   ? -1
                   : 0;
    return fprintf(f,
                   "{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"model_type\": \"llama\",\n"
                   "  \"hidden_size\": %d,\n  \"intermediate_size\": %d,\n  \"num_hidden_layers\": %d,\n"
                   "  \"num_attention_heads\": %d,\n  \"num_key_value_heads\": %d,\n  \"vocab_size\": %d,\n"
                   "  \"max_position_embeddings\": %d,\n  \"rms_norm_eps\": 1e-05,\n  \"rope_theta\": 100000.0,\n"
                   "  \"rope_scaling\": null,\n  \"tie_word_embeddings\": true,\n  \"hidden_act\": \"silu\",\n"
                   "  \"attention_bias\": false,\n  \"mlp_bias\": false,\n  \"torch_dtype\": \"%s\"\n}\n",
                   s->dim, s->hidden, s->layers, s->heads, s->kv_heads, s->vocab, s->max_pos, dtype) < 0
               ? -1
               : 0;
}

/* The safetensors file: u64 N, N bytes of JSON (padded with spaces so that
 * the data starts at a multiple of 8), then each tensor at an offset that is
 * a multiple of 8 (zero bytes between), seeded per tensor. */
static int hf_syn_write_weights(FILE *f, const void *ctx) {
    const HfSynFile *w = ctx;
    HfSynTensor *t = malloc(sizeof *t * (size_t)(4 + 12 * w->s->layers));
    size_t cap = 1 << 16, len = 0;
    char *h = malloc(cap);
    int rc = t && h ? 0 : -1;
    int n = rc ? 0 : hf_syn_tensors(w->s, t);
    size_t esize = w->bf16 ? 2 : 4, at = 0;
    if (!rc) len = (size_t)snprintf(h, cap, "{\"__metadata__\":{\"format\":\"pt\"}");
    for (int i = 0; i < n && !rc; i++) {
        size_t bytes = hf_syn_count(&t[i]) * esize;
        char shape[64];
        if (t[i].ndim == 2) snprintf(shape, sizeof shape, "%zu,%zu", t[i].shape[0], t[i].shape[1]);
        else snprintf(shape, sizeof shape, "%zu", t[i].shape[0]);
        if (cap - len < 256) {
            char *g = realloc(h, cap * 2);
            if (!g) rc = -1;
            else h = g, cap *= 2;
        }
        if (!rc)
            len += (size_t)snprintf(h + len, cap - len,
                                    ",\"%s\":{\"dtype\":\"%s\",\"shape\":[%s],\"data_offsets\":[%zu,%zu]}", t[i].name,
                                    w->bf16 ? "BF16" : "F32", shape, at, at + bytes);
        at = (at + bytes + 7) / 8 * 8;
    }
    if (!rc && cap - len < 16) { /* the brace and the padding */
        char *g = realloc(h, cap + 16);
        if (!g) rc = -1;
        else h = g, cap += 16;
    }
    if (!rc) {
        h[len++] = '}';
        while ((8 + len) % 8) h[len++] = ' ';
        uint64_t hl = len;
        rc = fwrite(&hl, sizeof hl, 1, f) == 1 && fwrite(h, 1, len, f) == len ? 0 : -1;
    }
    static const unsigned char zeros[8];
    for (int i = 0; i < n && !rc; i++) {
        RngStream rng;
        rng_init(&rng, 0x1400u + (uint64_t)i); /* each tensor its own stream */
        rc = hf_syn_write_data(f, &t[i], w->bf16, &rng);
        size_t bytes = hf_syn_count(&t[i]) * esize, pad = (8 - bytes % 8) % 8;
        if (!rc && pad && fwrite(zeros, 1, pad, f) != pad) rc = -1;
    }
    free(h);
    free(t);
    return rc;
}

/* bench hf-write DIR SHAPE DTYPE: DIR/config.json and DIR/model.safetensors. */
static int cmd_hf_write(const char *dir, const char *shape, const char *dtype) {
    const HfSynShape *s = NULL;
    for (size_t i = 0; i < sizeof hf_syn_shapes / sizeof *hf_syn_shapes; i++)
        if (strcmp(shape, hf_syn_shapes[i].shape) == 0) s = &hf_syn_shapes[i];
    int bf16 = strcmp(dtype, "bf16") == 0;
    if (!s || (!bf16 && strcmp(dtype, "f32") != 0)) {
        fprintf(stderr, "bench hf-write: SHAPE is gpt2 or smollm2, DTYPE f32 or bf16\n");
        return 2;
    }
    double t0 = now_ms();
    HfSynFile w = {s, bf16};
    char config[4096], weights[4096];
    snprintf(config, sizeof config, "%s/config.json", dir);
    snprintf(weights, sizeof weights, "%s/model.safetensors", dir);
    if ((mkdir(dir, 0755) && errno != EEXIST) || write_atomic(config, hf_syn_write_config, &w) ||
        write_atomic(weights, hf_syn_write_weights, &w)) {
        printf("bench=skip what=hf shape=%s dtype=%s reason=\"cannot write %s: %s\"\n", shape, dtype, dir,
               strerror(errno));
        return 1;
    }
    struct stat st;
    long kb = stat(weights, &st) == 0 ? (long)(st.st_size / 1024) : -1;
    printf("raw=hf_write shape=%s dtype=%s dir=%s file_kb=%ld ms=%.1f\n", shape, dtype, dir, kb, now_ms() - t0);
    return 0;
}

/* Floating-point operations of a forward of n tokens with the last row's
 * logits: the projections and the FFN (GPT-2: 2 matrices, SwiGLU: 3), the
 * attention's causal half (what attnviz computes; PyTorch's SDPA computes
 * the whole n x n), the classifier of one row. */
static double hf_flops(const TfConfig *c, int n) {
    double N = n, D = c->dim, Q = c->q_dim, KV = c->kv_dim, Hd = c->hidden_dim;
    double ffn = c->arch->mlp == TF_MLP_GELU_TANH ? 2 : 3;
    double layer = 2 * N * (D * Q + 2 * D * KV + Q * D + ffn * D * Hd) + 2 * 2 * (N * (N + 1) / 2) * Q;
    return c->n_layers * layer + 2 * D * c->vocab;
}

static double time_hf_forward(TfRun *r, const int *ids, int n) {
    double t0 = now_ms();
    tf_forward(r, ids, n, NULL);
    return now_ms() - t0;
}

/* OUT.<n>.ids (int32) and OUT.<n>.logits (float32, the last row: vocab). */
static int hf_write_check(const char *out, const TfRun *r, const int *ids, int n) {
    char p[4096];
    int32_t *ids32 = malloc(sizeof *ids32 * (size_t)n);
    int rc = ids32 ? 0 : -1;
    for (int i = 0; !rc && i < n; i++) ids32[i] = ids[i];
    snprintf(p, sizeof p, "%s.%d.ids", out, n);
    if (!rc) rc = write_file(p, ids32, sizeof *ids32 * (size_t)n);
    free(ids32);
    snprintf(p, sizeof p, "%s.%d.logits", out, n);
    if (!rc) rc = write_file(p, r->logits, sizeof(float) * (size_t)r->cfg->vocab);
    return rc;
}

/* The file type of the folder's first tensor ("F32", "BF16"), for the lines. */
static const char *hf_dtype(const char *dir) {
    static char name[8] = "unknown";
    AvError err = {0};
    StModel *st = st_open_dir(dir, &err);
    if (st && st_model_count(st) > 0) snprintf(name, sizeof name, "%s", st_dtype_name(st_model_at(st, 0)->dtype));
    st_model_close(st);
    for (char *c = name; *c; c++) *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    return name;
}

/* bench hf NAME DIR BUDGET_S OUT: hf_open (mmap, validation) timed and RSS
 * around it; the forward of 128 and 512 seeded ids with the last row's
 * logits at 1 and 2 threads, RSS after the 512-token run; OUT.<n>.ids and
 * OUT.<n>.logits for ref.py hf --check. */
static int cmd_hf(const char *name, const char *dir, double budget_s, const char *out) {
    AvError err = {0};
    Rss r0 = rss_now();
    double t0 = now_ms();
    TfModel *m = hf_open(dir, &err);
    double first = now_ms() - t0;
    if (!m) {
        printf("bench=skip what=hf name=%s reason=\"%s\"\n", name, err.msg);
        return 1;
    }
    Rss r1 = rss_now();
    const TfConfig *c = &m->cfg;
    const char *dtype = hf_dtype(dir);
    enum { RUNS = 2 };
    static const int tokens[RUNS] = {128, 512};
    int *ids = malloc(sizeof *ids * 512);
    if (!ids) return tf_close(m), 1;
    RngStream rng;
    rng_init(&rng, 1414);
    for (int i = 0; i < 512; i++) ids[i] = (int)(rng_next(&rng) % (uint64_t)c->vocab);

    /* The budget by the work: a 512-token forward is about 4 of 128. */
    double budget = budget_s * 1e3, start = now_ms(), weight_left = 2 * (128 + 512);
    Rss r2 = r1;
    size_t run_bytes = 0;
    int run_tokens = 0;
    for (int ni = 0; ni < RUNS; ni++) {
        int n = tokens[ni] < c->max_pos ? tokens[ni] : c->max_pos;
        for (int threads = 1; threads <= 2; threads++) {
            par_set_threads(threads);
            TfRun *run = tf_run_new(m, n, 0, &err);
            if (!run) {
                printf("bench=skip what=hf name=%s tokens=%d threads=%d reason=\"%s\"\n", name, n, threads, err.msg);
                weight_left -= tokens[ni];
                continue;
            }
            double warm = time_hf_forward(run, ids, n);
            if (threads == 1) {
                r2 = rss_now(), run_bytes = run->bytes, run_tokens = n;
                if (hf_write_check(out, run, ids, n))
                    printf("bench=skip what=hf_check name=%s tokens=%d reason=\"cannot write %s.%d.*\"\n", name, n, out,
                           n);
            }
            double share = (budget - (now_ms() - start)) * tokens[ni] / weight_left;
            weight_left -= tokens[ni];
            enum { MAX_REPS = 50 };
            double t[MAX_REPS], spent = warm;
            int k = 0;
            while (k < MAX_REPS) {
                t[k] = time_hf_forward(run, ids, n);
                spent += t[k++];
                if (k >= 3 && spent + t[k - 1] > share) break; /* the next would not fit */
            }
            double ms = median(t, k);
            printf("raw=hf name=%s dtype=%s threads=%d tokens=%d attnviz_ms=%.3f gflops=%.2f reps=%d logits=last\n",
                   name, dtype, par_threads(), n, ms, hf_flops(c, n) / (ms * 1e6), k);
            fflush(stdout);
            tf_run_free(run);
        }
    }
    par_set_threads(1);

    /* The load again, page cache warm: open (mmap, validation) and close. */
    double lt[50];
    int lk = 0;
    double lstart = now_ms();
    while (lk < 50 && (lk < 5 || now_ms() - lstart < 1000)) {
        double l0 = now_ms();
        TfModel *again = hf_open(dir, &err);
        lt[lk++] = now_ms() - l0;
        tf_close(again);
    }
    char weights[4096];
    snprintf(weights, sizeof weights, "%s/model.safetensors", dir);
    struct stat st;
    long file_kb = stat(weights, &st) == 0 ? (long)(st.st_size / 1024) : -1;
    printf("raw=hf_load name=%s dtype=%s model_type=%s dim=%d hidden=%d layers=%d heads=%d kv_heads=%d vocab=%d "
           "file_kb=%ld load_ms=%.3f load_first_ms=%.3f load_reps=%d model_heap_kb=%zu "
           "rss_kb_before=%ld rss_anon_kb_before=%ld rss_file_kb_before=%ld "
           "rss_kb_loaded=%ld rss_anon_kb_loaded=%ld rss_file_kb_loaded=%ld "
           "rss_kb=%ld rss_anon_kb=%ld rss_file_kb=%ld tokens=%d run_alloc_kb=%zu\n",
           name, dtype, c->model_type, c->dim, c->hidden_dim, c->n_layers, c->n_heads, c->n_kv_heads, c->vocab, file_kb,
           median(lt, lk), first, lk, tf_heap_bytes(m) / 1024, r0.rss, r0.anon, r0.file, r1.rss, r1.anon, r1.file,
           r2.rss, r2.anon, r2.file, run_tokens, run_bytes / 1024);
    free(ids);
    tf_close(m);
    return 0;
}

// ----------------------------------------------------------------------------
// bench follow (issue 16)

/* What a follower process tells the bench: its index and the time it had a
 * new teacher's block applied and drawn (16 bytes: one atomic pipe write). */
typedef struct {
    int child, pad;
    double ms;
} FollowRecord;

/* A follower: the real one (follow.h) on an app of its own, as attnviz
 * --follow runs it but without a terminal: each new block is applied,
 * recomputed and drawn on an 80x24 canvas, then reported on fd out. Ends
 * when the teacher's side closes. */
static void follow_child(int idx, const char *path, int out) {
    for (int fd = 3; fd < 1024; fd++)
        if (fd != out) close(fd); /* the parent's listening socket is not ours */
    par_set_threads(1);
    char why[256];
    Model *m = make_model(10, 64, 4, why, sizeof why);
    if (!m) _exit(1);
    App a;
    app_init(&a, m, TIER_NONE, 0, 1, NULL);
    CliOptions o;
    memset(&o, 0, sizeof o);
    o.follow = path, o.publish_mode = -1;
    AvError err = {0};
    Follow *f = follow_open(&o, &err);
    Canvas *cv = cv_new(80, 24);
    if (!f || !cv) _exit(1);
    a.follow = f;
    char *last = follow_block(&a, NULL); /* a message alone is no new block */
    for (;;) {
        follow_idle(f, &a);
        struct pollfd fds[1];
        int n = follow_poll_fds(f, fds, 1, 0);
        if (n == 0) break; /* the teacher's side is gone */
        if (poll(fds, (nfds_t)n, -1) < 0 && errno != EINTR) break;
        if (!follow_handle(f, fds, n, &a)) continue;
        char *now = follow_block(&a, NULL);
        if (now && (!last || strcmp(now, last) != 0)) {
            app_update(&a);
            app_draw(&a, cv);
            FollowRecord r = {idx, 0, now_ms()};
            if (write(out, &r, sizeof r) != (ssize_t)sizeof r) break;
        }
        free(last);
        last = now;
    }
    _exit(0);
}

/* CPU seconds (user + system) of process pid from /proc, or -1. */
static double proc_cpu_s(pid_t pid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    unsigned long ut = 0, st = 0;
    /* after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2) return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static double self_cpu_s(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec * 1e-6;
}

/* Waits on the publisher's sockets and the records' pipe until `want`
 * records came or `timeout_ms` passed; the latest record's time into *last.
 * Returns the records read. */
static int follow_pump(Follow *pub, App *t, int rfd, int want, double timeout_ms, double *last) {
    int n = 0;
    double end = now_ms() + timeout_ms;
    while (n < want) {
        struct pollfd fds[1 + FOLLOW_MAX_FDS];
        fds[0] = (struct pollfd){.fd = rfd, .events = POLLIN};
        int nf = follow_poll_fds(pub, fds + 1, FOLLOW_MAX_FDS, 0);
        double left = end - now_ms();
        if (left <= 0) break;
        if (poll(fds, (nfds_t)(1 + nf), (int)left + 1) < 0 && errno != EINTR) break;
        follow_handle(pub, fds + 1, nf, t);
        if (fds[0].revents & POLLIN) {
            FollowRecord r[64];
            ssize_t k = read(rfd, r, sizeof r);
            for (ssize_t i = 0; i < k / (ssize_t)sizeof *r; i++, n++)
                if (r[i].ms > *last) *last = r[i].ms;
        }
    }
    return n;
}

/* N follower processes on a publisher's socket; K changes at the teacher
 * (keys that change its state, each recomputed, drawn and published as the
 * frame does); for each, the time from the key to the last follower's new
 * block applied and drawn; then the CPU of the publisher and the followers
 * while the class sits idle for 2 s. */
static void cmd_follow(int n, int k) {
    char dir[] = "/tmp/attnviz-bench-follow.XXXXXX", path[128];
    if (!mkdtemp(dir)) {
        printf("bench=skip what=follow reason=\"mkdtemp: %s\"\n", strerror(errno));
        return;
    }
    snprintf(path, sizeof path, "%s/class", dir);
    CliOptions o;
    memset(&o, 0, sizeof o);
    o.publish = path, o.publish_mode = -1;
    AvError err = {0};
    Follow *pub = follow_open(&o, &err);
    int pfd[2];
    if (!pub || pipe(pfd) != 0) {
        printf("bench=skip what=follow reason=\"%s\"\n", pub ? strerror(errno) : err.msg);
        follow_free(pub);
        rmdir(dir);
        return;
    }
    /* The followers first, before the teacher has a model or a thread. */
    pid_t *pid = calloc((size_t)n, sizeof *pid);
    int started = 0;
    for (; pid && started < n; started++) {
        pid_t c = fork();
        if (c == 0) follow_child(started, path, pfd[1]);
        if (c < 0) break;
        pid[started] = c;
    }
    close(pfd[1]);
    char why[256];
    Model *m = make_model(10, 64, 4, why, sizeof why);
    App t;
    Canvas *cv = cv_new(100, 30);
    double *lat = malloc(sizeof *lat * (size_t)(k > 0 ? k : 1)),
           *pub_us = malloc(sizeof *pub_us * (size_t)(k > 0 ? k : 1));
    int changes = 0, missed = 0, got_first = 0;
    double idle_self = -1, idle_children = 0;
    if (m && cv && lat && pub_us) {
        app_init(&t, m, TIER_NONE, 0, 1, NULL);
        t.follow = pub;
        app_draw(&t, cv);
        app_run(&t, "scale", NULL); /* not the followers' own start: each sees the first block as new */
        app_update(&t);
        follow_idle(pub, &t); /* the first block: to each follower as it is accepted */
        double last = 0;
        got_first = follow_pump(pub, &t, pfd[0], started, 20000, &last);
        static const AppKey keys[] = {{0, 'm'}, {0, '\t'}, {0, 's'}, {0, 'v'}, {0, 'j'},
                                      {0, 'l'}, {0, 'k'},  {0, 'h'}, {0, 'r'}};
        for (int i = 0; i < k; i++) {
            double t0 = now_ms();
            app_key(&t, keys[i % (int)(sizeof keys / sizeof *keys)]);
            app_update(&t);
            app_draw(&t, cv);
            double p0 = now_ms();
            follow_idle(pub, &t);
            pub_us[changes] = (now_ms() - p0) * 1e3;
            last = 0;
            int r = follow_pump(pub, &t, pfd[0], got_first, 5000, &last);
            if (r < got_first) missed += got_first - r;
            lat[changes++] = (r ? last : now_ms()) - t0;
        }
        /* Idle: the publisher waits as the screen loop does; nobody changes anything. */
        double c0 = 0, c1 = 0;
        for (int i = 0; i < started; i++) c0 += proc_cpu_s(pid[i]);
        double s0 = self_cpu_s();
        double dummy = 0;
        follow_pump(pub, &t, pfd[0], 1, 2000, &dummy);
        idle_self = self_cpu_s() - s0;
        for (int i = 0; i < started; i++) c1 += proc_cpu_s(pid[i]);
        idle_children = c1 - c0;
        app_free(&t);
    }
    follow_free(pub); /* the followers see the end and exit */
    for (int i = 0; i < started; i++) waitpid(pid[i], NULL, 0);
    close(pfd[0]);
    rmdir(dir);
    double p50 = quantile(lat, changes, 0.50), p99 = quantile(lat, changes, 0.99), mx = quantile(lat, changes, 1.0);
    double u50 = quantile(pub_us, changes, 0.50);
    if (m && cv && lat && pub_us)
        printf("bench=follow followers=%d connected=%d changes=%d p50_ms=%.3f p99_ms=%.3f max_ms=%.3f "
               "publish_us_p50=%.1f missed=%d idle_s=2 idle_cpu_ms=%.1f idle_cpu_followers_ms=%.1f cores=%ld "
               "what=\"key at the teacher -> the last follower's block applied and drawn (80x24)\"\n",
               n, got_first, changes, p50, p99, mx, u50, missed, idle_self * 1e3, idle_children * 1e3,
               sysconf(_SC_NPROCESSORS_ONLN));
    else printf("bench=skip what=follow reason=\"%s\"\n", m ? "out of memory" : why);
    fflush(stdout);
    free(lat), free(pub_us), free(pid);
    cv_free(cv);
    model_free(m);
}

// ----------------------------------------------------------------------------
// bench spawn

/* Runs argv n times (after one warm-up run) with standard output and input on
 * /dev/null; prints `raw=spawn ms=<median wall time> rss_kib=<largest
 * ru_maxrss> status=<last exit status>`. */
static int cmd_spawn(int n, char **argv) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    double *t = malloc(sizeof *t * (size_t)(n + 1));
    if (!t) return 1;
    long rss = 0;
    int status = 0, runs = 0;
    for (int i = 0; i <= n; i++) {
        pid_t pid;
        double t0 = now_ms();
        int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
        if (rc != 0) {
            printf("bench=skip what=spawn cmd=\"%s\" reason=\"%s\"\n", argv[0], strerror(rc));
            free(t);
            posix_spawn_file_actions_destroy(&fa);
            return 1;
        }
        struct rusage ru;
        int st = 0;
        while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR) {
        }
        double dt = now_ms() - t0;
        status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (i == 0) continue; /* warm-up: page cache, dynamic loader */
        t[runs++] = dt;
        if (ru.ru_maxrss > rss) rss = ru.ru_maxrss;
    }
    printf("raw=spawn ms=%.3f rss_kib=%ld status=%d runs=%d\n", median(t, runs), rss, status, runs);
    free(t);
    posix_spawn_file_actions_destroy(&fa);
    return 0;
}

// ----------------------------------------------------------------------------
// bench append (issue 17): edits cost what they change

/* GPT-2's byte-to-unicode table: byte b's code point in a byte-level piece. */
static int gpt2_byte_char(int b) {
    if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174) return b;
    int k = 0;
    for (int c = 0; c < b; c++)
        if (!((c >= 33 && c <= 126) || (c >= 161 && c <= 172) || c >= 174)) k++;
    return 256 + k;
}

/* Code point cp as UTF-8 into out (4 bytes), JSON-escaped; its length. */
static int json_char(int cp, char *out) {
    if (cp == '"' || cp == '\\') return out[0] = '\\', out[1] = (char)cp, 2;
    if (cp < 0x80) return out[0] = (char)cp, 1;
    if (cp < 0x800) return out[0] = (char)(0xC0 | cp >> 6), out[1] = (char)(0x80 | (cp & 63)), 2;
    out[0] = (char)(0xE0 | cp >> 12), out[1] = (char)(0x80 | ((cp >> 6) & 63)), out[2] = (char)(0x80 | (cp & 63));
    return 3;
}

/* The words of the append bench's sentences: each, after a space, is one
 * token of the vocabulary below, reached letter by letter through merges
 * (" c", " ca", " cat"), so " ca" is a token too. */
static const char *const append_words[] = {"the", "cat", "sat", "on",  "mat", "dog", "ran", "far",
                                           "a",   "big", "red", "sun", "sky", "was", "and", "it"};
enum { APPEND_WORDS = (int)(sizeof append_words / sizeof *append_words) };

/* DIR/vocab.json and DIR/merges.txt: GPT-2's 256 byte pieces, " w", " wo"...
 * of every word, and <|endoftext|>. 0 or -1. */
static int append_write_vocab(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/vocab.json", dir);
    FILE *v = fopen(path, "w");
    snprintf(path, sizeof path, "%s/merges.txt", dir);
    FILE *mg = fopen(path, "w");
    int rc = v && mg ? 0 : -1, id = 0;
    if (!rc) fputs("{", v), fputs("#version: 0.2\n", mg);
    for (int b = 0; b < 256 && !rc; b++) {
        char s[8];
        int n = json_char(gpt2_byte_char(b), s);
        fprintf(v, "%s\"%.*s\": %d", b ? ", " : "", n, s, id++);
    }
    /* the merged pieces, each once: " c", " ca", " cat"; "Ġ" is U+0120 */
    char seen[APPEND_WORDS * 8][8];
    int nseen = 0;
    for (int w = 0; w < APPEND_WORDS && !rc; w++) {
        const char *word = append_words[w];
        for (size_t k = 1; k <= strlen(word); k++) {
            char piece[8];
            snprintf(piece, sizeof piece, "%.*s", (int)k, word);
            int dup = 0;
            for (int i = 0; i < nseen; i++) dup |= strcmp(seen[i], piece) == 0;
            if (dup) continue;
            snprintf(seen[nseen++], sizeof seen[0], "%s", piece);
            fprintf(v, ", \"\xC4\xA0%s\": %d", piece, id++);
            if (k == 1) fprintf(mg, "\xC4\xA0 %c\n", piece[0]);
            else fprintf(mg, "\xC4\xA0%.*s %c\n", (int)k - 1, piece, piece[k - 1]);
        }
    }
    if (!rc) fprintf(v, ", \"<|endoftext|>\": %d}\n", id);
    if (v && fclose(v)) rc = -1;
    if (mg && fclose(mg)) rc = -1;
    return rc;
}

/* words of the bench's vocabulary, seeded, each after a space. Caller frees. */
static char *append_text(int words, const char *tail, size_t *len) {
    size_t cap = (size_t)words * 5 + strlen(tail) + 1, at = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
    for (int i = 0; i < words; i++)
        at += (size_t)snprintf(s + at, cap - at, " %s", append_words[(i * 7 + i / 16) % APPEND_WORDS]);
    at += (size_t)snprintf(s + at, cap - at, "%s", tail);
    *len = at;
    return s;
}

/* The sentence set and the update the app makes on a key: model_set_text,
 * then model_update_to(STAGE_FINAL); its time in ms (-1 on failure). */
static double append_set(Model *m, const char *text, size_t len) {
    AvError err = {0};
    double t0 = now_ms();
    if (model_set_text(m, text, len, &err)) {
        printf("bench=warn what=append reason=\"%s\"\n", err.msg);
        return -1;
    }
    model_update_to(m, STAGE_FINAL);
    return now_ms() - t0;
}

/* bench append DIR: a GPT-2-small-shape checkpoint (hf-write's) with a
 * vocabulary of its own in DIR, opened as the app opens it (causal,
 * scaled) on a sentence of 256 tokens; the median time of a full forward
 * from scratch (a sentence that differs at its first token), of appending
 * one word, and of typing one character that changes the last token. */
static int cmd_append(const char *dir) {
    char cfg[4096];
    snprintf(cfg, sizeof cfg, "%s/model.safetensors", dir);
    struct stat st;
    if (stat(cfg, &st) != 0 && cmd_hf_write(dir, "gpt2", "f32")) return 1;
    if (append_write_vocab(dir)) {
        printf("bench=skip what=append reason=\"cannot write %s/vocab.json\"\n", dir);
        return 1;
    }
    par_set_threads(0);
    AvError err = {0};
    size_t la, lb, lc, ld, le;
    char *base = append_text(256, "", &la), *other = append_text(256, "", &lb);
    char *more = append_text(256, " dog", &lc), *part = append_text(255, " ca", &ld),
         *typed = append_text(255, " cat", &le);
    if (other) other[1] = other[1] == 'd' ? 'c' : 'd'; /* another first word: nothing in common */
    Model *m = base && other && more && part && typed ? model_new() : NULL;
    if (!m || model_set_trained(m, dir, NULL, base, la, &err)) {
        printf("bench=skip what=append reason=\"%s\"\n", m ? err.msg : "out of memory");
        model_free(m);
        free(base), free(other), free(more), free(part), free(typed);
        return 1;
    }
    ModelConfig c = m->cfg; /* as build_from_model: causal, scaled */
    c.mask = MASK_CAUSAL;
    c.scale = 1;
    if (model_set_config(m, &c, &err)) printf("bench=warn what=append reason=\"%s\"\n", err.msg);
    model_update_to(m, STAGE_FINAL);
    if (m->n_q != 256) printf("bench=warn what=append reason=\"the sentence gave %d tokens, not 256\"\n", m->n_q);
    /* The first edit after the opening (which made room for twice the rows). */
    double first = append_set(m, more, lc);
    append_set(m, base, la);
    enum { REPS = 9 };
    double full[REPS], again[REPS], app[REPS], type[REPS];
    int app_rows = 0, type_rows = 0;
    for (int i = 0; i < REPS; i++) {
        append_set(m, other, lb); /* untimed: nothing in common with the next */
        full[i] = append_set(m, base, la);
        double t0 = now_ms(); /* every row again in the same storage: the recompute alone */
        model_invalidate(m, STAGE_PROJECT);
        model_update_to(m, STAGE_FINAL);
        again[i] = now_ms() - t0;
        app[i] = append_set(m, more, lc);
        app_rows = m->rows_updated;
        append_set(m, part, ld);            /* untimed: 255 words and " ca" */
        type[i] = append_set(m, typed, le); /* " ca" + "t": the last token is another */
        type_rows = m->rows_updated;
    }
    double f = median(full, REPS), r = median(again, REPS), a = median(app, REPS), t = median(type, REPS);
    /* The floor the products set: the engine's own KV cache (no model, no
     * stages), one row after 256 against the 256, the new row's logits
     * apart (the update above computes none). */
    enum { HF_REPS = 3 };
    double hf_full[HF_REPS], hf_one[HF_REPS];
    TfRun *run = tf_run_new(model_trained_engine(m), 257, 0, &err);
    int ids[257];
    for (int i = 0; i < 257; i++) ids[i] = i % 300;
    for (int i = 0; run && i < HF_REPS; i++) {
        double t0 = now_ms();
        tf_forward(run, ids, 256, NULL);
        hf_full[i] = now_ms() - t0;
        t0 = now_ms();
        tf_extend(run, ids + 256, 1, NULL);
        double t1 = now_ms();
        tf_logits_row(run, 256);
        hf_one[i] = (t1 - t0) - (now_ms() - t1);
    }
    tf_run_free(run);
    double hf_f = run ? median(hf_full, HF_REPS) : -1, hf_o = run ? median(hf_one, HF_REPS) : -1;
    double load[3] = {0};
    if (getloadavg(load, 3) < 1) load[0] = -1;
    printf("bench=append name=gpt2-shape tokens=%d threads=%d full_ms=%.3f append_ms=%.3f ratio=%.4f type_ms=%.3f "
           "type_ratio=%.4f rows_recomputed=%d type_rows_recomputed=%d recompute_ms=%.3f append_vs_recompute=%.4f "
           "hf_forward_ms=%.3f hf_extend_ms=%.3f hf_extend_ratio=%.4f first_ms=%.3f reps=%d load=%.2f\n",
           256, par_threads(), f, a, a / f, t, t / f, app_rows, type_rows, r, a / r, hf_f, hf_o, hf_o / hf_f, first,
           REPS, load[0]);
    model_free(m);
    free(base), free(other), free(more), free(part), free(typed);
    return 0;
}

// ----------------------------------------------------------------------------
// the machine's FMA peak (issue 17): every GFLOP/s figure is also a fraction of it

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

/* n iterations of 10 independent vector FMAs in named registers (an array
 * of vectors was kept in memory by the compiler: a peak of a third of the
 * real one), enough for 2 FMA pipes of latency 4 with margin; returns a sum
 * so that the compiler keeps the work. */
#define FMA10(T, FMA)                                                                                                  \
    a0 = FMA(a0, m, c), a1 = FMA(a1, m, c), a2 = FMA(a2, m, c), a3 = FMA(a3, m, c), a4 = FMA(a4, m, c);                \
    a5 = FMA(a5, m, c), a6 = FMA(a6, m, c), a7 = FMA(a7, m, c), a8 = FMA(a8, m, c), a9 = FMA(a9, m, c)

__attribute__((target("avx2,fma"), noinline)) static float fma_loop_avx2(long n) {
    __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
    __m256 a0 = _mm256_set1_ps(0), a1 = _mm256_set1_ps(1), a2 = _mm256_set1_ps(2), a3 = _mm256_set1_ps(3);
    __m256 a4 = _mm256_set1_ps(4), a5 = _mm256_set1_ps(5), a6 = _mm256_set1_ps(6), a7 = _mm256_set1_ps(7);
    __m256 a8 = _mm256_set1_ps(8), a9 = _mm256_set1_ps(9);
    for (long k = 0; k < n; k++) {
        FMA10(__m256, _mm256_fmadd_ps);
    }
    __m256 s = _mm256_add_ps(
        _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
        _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(_mm256_add_ps(a6, a7), _mm256_add_ps(a8, a9))));
    float out[8];
    _mm256_storeu_ps(out, s);
    return out[0];
}

__attribute__((target("avx512f"), noinline)) static float fma_loop_avx512(long n) {
    __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
    __m512 a0 = _mm512_set1_ps(0), a1 = _mm512_set1_ps(1), a2 = _mm512_set1_ps(2), a3 = _mm512_set1_ps(3);
    __m512 a4 = _mm512_set1_ps(4), a5 = _mm512_set1_ps(5), a6 = _mm512_set1_ps(6), a7 = _mm512_set1_ps(7);
    __m512 a8 = _mm512_set1_ps(8), a9 = _mm512_set1_ps(9);
    for (long k = 0; k < n; k++) {
        FMA10(__m512, _mm512_fmadd_ps);
    }
    __m512 s = _mm512_add_ps(
        _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
        _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(_mm512_add_ps(a6, a7), _mm512_add_ps(a8, a9))));
    return _mm512_reduce_add_ps(s);
}

/* GFLOP/s of one core: the best of 5 runs of about 0.1 s each. */
static double peak_of(float (*loop)(long), int lanes) {
    long n = 1 << 20;
    double best = 0;
    volatile float sink = 0;
    for (int r = 0; r < 5; r++) {
        double t0 = now_ms();
        sink += loop(n);
        double ms = now_ms() - t0;
        if (ms < 50 && r == 0) { /* too short to time well: grow once */
            n *= 8;
            r--;
            continue;
        }
        double g = 2.0 * 10 * lanes * (double)n / (ms * 1e6);
        if (g > best) best = g;
    }
    (void)sink;
    return best;
}
#endif

/* bench peak: the per-core FMA peak of each vector width the CPU has, and
 * the one of attnviz's kernel (the anchor of every GFLOP/s fraction). */
static void cmd_peak(void) {
#if defined(__GNUC__) && defined(__x86_64__)
    __builtin_cpu_init();
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    int avx512 = __builtin_cpu_supports("avx512f");
    double p2 = avx2 ? peak_of(fma_loop_avx2, 8) : 0, p5 = avx512 ? peak_of(fma_loop_avx512, 16) : 0;
    const char *k = mat_kernel_name();
    double kernel = strstr(k, "512") ? p5 : strstr(k, "avx2") ? p2 : 0;
    printf("bench=peak avx2_gflops=%.1f avx512_gflops=%.1f kernel=%s kernel_peak_gflops=%.1f per=core\n", p2, p5, k,
           kernel);
#else
    printf("bench=peak kernel=%s kernel_peak_gflops=0 reason=\"not an x86-64 build\"\n", mat_kernel_name());
#endif
}

// ----------------------------------------------------------------------------
// the products alone, per kernel, as a fraction of that kernel's FMA peak (issue 17)

typedef struct {
    const char *what;
    int m, k, n;
    int transposed; /* b given as (n, k): K^T of the scores */
    int packed;     /* b packed once (weights); else packed in every product, timed */
} GemmShape;

/* The products of the bench's forwards: the projections (X W) at the
 * anchors' shapes, GPT-2's MLP, one head's scores Q K^T and A V. */
static const GemmShape gemm_shapes[] = {
    {"proj_n64_d512", 64, 512, 512, 0, 1},     {"proj_n256_d768", 256, 768, 768, 0, 1},
    {"proj_n1024_d768", 1024, 768, 768, 0, 1}, {"mlp_n512_d768", 512, 768, 3072, 0, 1},
    {"scores_n256_dk64", 256, 64, 256, 1, 0},  {"av_n256_dk64", 256, 256, 64, 0, 0},
};

static double gemm_once(const GemmShape *s, float *c, const float *a, const float *b, const MatPacked *bp) {
    double t0 = now_ms();
    if (s->packed) mat_mul_rows(c, s->n, a, s->k, bp, 0, s->m);
    else if (s->transposed) mat_mul_bt(c, s->n, a, s->k, b, s->k, s->m, s->k, s->n);
    else mat_mul(c, s->n, a, s->k, b, s->n, s->m, s->k, s->n);
    return now_ms() - t0;
}

/* bench gemm: GFLOP/s of every kernel the CPU has at the shapes above, one
 * thread, beside the FMA peak of the kernel's vector width measured in the
 * same run (the target: 0.80 of it). */
static void cmd_gemm(void) {
#if defined(__GNUC__) && defined(__x86_64__)
    __builtin_cpu_init();
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    int avx512 = __builtin_cpu_supports("avx512f");
    double p2 = avx2 ? peak_of(fma_loop_avx2, 8) : 0, p5 = avx512 ? peak_of(fma_loop_avx512, 16) : 0;
#else
    double p2 = 0, p5 = 0;
#endif
    const char *kernels[] = {"avx512", "avx2", "portable"};
    par_set_threads(1);
    for (size_t kk = 0; kk < sizeof kernels / sizeof *kernels; kk++) {
        if (mat_set_kernel(kernels[kk])) continue;
        double peak = kk == 0 ? p5 : kk == 1 ? p2 : 0;
        /* portable (fmaf: a library call on x86-64 without -mfma) is the
         * fallback of CPUs without AVX2: one shape, no peak to compare */
        size_t shapes = kk == 2 ? 1 : sizeof gemm_shapes / sizeof *gemm_shapes;
        for (size_t i = 0; i < shapes; i++) {
            const GemmShape *s = &gemm_shapes[i];
            size_t na = (size_t)s->m * s->k, nb = (size_t)s->k * s->n, nc = (size_t)s->m * s->n;
            float *a = malloc(sizeof(float) * na), *b = malloc(sizeof(float) * nb), *c = malloc(sizeof(float) * nc);
            MatPacked bp = {0};
            if (!a || !b || !c || (s->packed && mat_pack(&bp, b, s->n, s->k, s->n, 0))) {
                printf("bench=skip what=gemm shape=%s reason=\"out of memory\"\n", s->what);
                free(a), free(b), free(c);
                continue;
            }
            RngStream r;
            rng_init(&r, 17);
            for (size_t q = 0; q < na; q++) a[q] = (float)rng_normal(&r);
            for (size_t q = 0; q < nb; q++) b[q] = (float)rng_normal(&r);
            if (s->packed) mat_pack_into(&bp, bp.data, b, s->n, s->k, s->n, 0);
            double flop = 2.0 * s->m * s->k * s->n, t[400];
            int reps = 0;
            double spent = 0, budget = kk == 2 ? 300 : 400;
            gemm_once(s, c, a, b, &bp); /* warm-up */
            while (reps < 400 && (reps < 5 || spent < budget)) spent += t[reps++] = gemm_once(s, c, a, b, &bp);
            double ms = median(t, reps), g = flop / (ms * 1e6);
            printf("bench=gemm kernel=%s shape=%s m=%d k=%d n=%d threads=1 ms=%.4f gflops=%.1f", kernels[kk], s->what,
                   s->m, s->k, s->n, ms, g);
            if (peak > 0) printf(" peak_gflops=%.1f fraction=%.2f", peak, g / peak);
            printf(" packed_b=%s reps=%d\n", s->packed ? "once" : "per_product", reps);
            mat_packed_free(&bp);
            free(a), free(b), free(c);
        }
    }
    mat_set_kernel(NULL);
}

// ----------------------------------------------------------------------------

// ----------------------------------------------------------------------------
// finite: the scan of every weight at open (finite.h), in memory

/* ms per 100 MB of F32 and BF16 weights, one thread and all of them; the
 * arrays are written first (in memory: the figure leaves out the disk). */
static void cmd_finite(int mb) {
    size_t bytes = (size_t)mb << 20;
    unsigned char *buf = malloc(bytes);
    if (!buf) {
        fprintf(stderr, "bench finite: out of memory\n");
        return;
    }
    for (size_t i = 0; i < bytes; i += 4) { /* finite values, not zeros */
        float v = (float)(i % 1000) * 0.001f;
        memcpy(buf + i, &v, 4);
    }
    int all = par_set_threads(0);
    for (int t = 0; t < 2; t++) {
        par_set_threads(t ? all : 1);
        for (int ty = 0; ty < 2; ty++) {
            FiniteArray a = {buf, ty ? FINITE_BF16 : FINITE_F32, ty ? bytes / 2 : bytes / 4};
            double best = 1e30;
            for (int r = 0; r < 5; r++) {
                uint64_t at;
                double t0 = now_ms();
                if (finite_scan(&a, 1, &at) != -1) fprintf(stderr, "bench finite: a bad element?\n");
                double ms = now_ms() - t0;
                if (ms < best) best = ms;
            }
            printf("bench=finite type=%s threads=%d mb=%d ms=%.2f ms_per_100mb=%.2f\n", ty ? "bf16" : "f32",
                   par_threads(), mb, best, best * 100.0 / mb);
        }
    }
    free(buf);
}

static void usage(void) {
    fprintf(stderr, "usage: bench machine | peak | gemm | forward [BUDGET_S] | incremental | latency [BUDGET_S] | "
                    "follow [N] [K] | spawn N CMD [ARGS...] | llama-write DIR | llama NAME FILE BUDGET_S OUT | "
                    "llama-latency FILE BUDGET_S | hf-write DIR gpt2|smollm2 f32|bf16 | "
                    "hf NAME DIR BUDGET_S OUT | append DIR | finite MB\n");
}

int main(int argc, char **argv) {
    if (argc < 2) return usage(), 2;
    const char *cmd = argv[1];
    /* BENCH_KERNEL=avx2|avx512|portable: the products and the row operations
     * of that instruction set (the AVX2 path measured on an AVX-512 CPU). */
    const char *force = getenv("BENCH_KERNEL");
    if (force && *force && (mat_set_kernel(force) || attn_set_rowops(force))) {
        fprintf(stderr, "bench: BENCH_KERNEL=%s: this CPU lacks it\n", force);
        return 2;
    }
    if (strcmp(cmd, "machine") == 0) cmd_machine();
    else if (strcmp(cmd, "peak") == 0) cmd_peak();
    else if (strcmp(cmd, "gemm") == 0) cmd_gemm();
    else if (strcmp(cmd, "forward") == 0) cmd_forward(argc > 2 ? atof(argv[2]) : 60.0, argc > 3 ? argv[3] : NULL);
    else if (strcmp(cmd, "incremental") == 0) cmd_incremental();
    else if (strcmp(cmd, "finite") == 0) cmd_finite(argc > 2 && atoi(argv[2]) > 0 ? atoi(argv[2]) : 500);
    else if (strcmp(cmd, "latency") == 0) cmd_latency(argc > 2 ? atof(argv[2]) : 30.0);
    else if (strcmp(cmd, "follow") == 0)
        cmd_follow(argc > 2 && atoi(argv[2]) > 0 ? atoi(argv[2]) : 100,
                   argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 200);
    else if (strcmp(cmd, "spawn") == 0 && argc > 3) return cmd_spawn(atoi(argv[2]) > 0 ? atoi(argv[2]) : 1, argv + 3);
    else if (strcmp(cmd, "llama-write") == 0 && argc == 3) return cmd_llama_write(argv[2]);
    else if (strcmp(cmd, "llama") == 0 && argc == 6) {
        int rc = cmd_llama(argv[2], argv[3], atof(argv[4]), argv[5]);
        par_set_threads(1);
        return rc;
    } else if (strcmp(cmd, "llama-latency") == 0 && argc == 4) {
        int rc = cmd_llama_latency(argv[2], atof(argv[3]));
        par_set_threads(1);
        return rc;
    } else if (strcmp(cmd, "hf-write") == 0 && argc == 5) return cmd_hf_write(argv[2], argv[3], argv[4]);
    else if (strcmp(cmd, "append") == 0 && argc == 3) {
        int rc = cmd_append(argv[2]);
        par_set_threads(1);
        return rc;
    } else if (strcmp(cmd, "hf") == 0 && argc == 6) {
        int rc = cmd_hf(argv[2], argv[3], atof(argv[4]), argv[5]);
        par_set_threads(1);
        return rc;
    } else return usage(), 2;
    par_set_threads(1); /* joins the workers before exit */
    return 0;
}
