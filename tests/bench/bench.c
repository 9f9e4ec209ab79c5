/* bench.c - the C half of `make bench` (issue 7): timings of attnviz's own
 * code, printed as key=value lines that tests/bench/run.sh merges with the
 * NumPy/PyTorch reference (ref.py) and the tmux byte counts (bytes.sh).
 *
 *   bench machine                  CPU, flags, cores, attnviz's kernel and threads
 *   bench forward [BUDGET_S]       full forward at the three anchor shapes, 1 and 2 threads
 *   bench incremental              mask / scale toggle and head switch vs a full forward
 *   bench latency [BUDGET_S]       key -> doupdate on a headless ncurses screen
 *   bench spawn N CMD [ARGS...]    median wall time and peak RSS of N runs of CMD
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
#include "keycode.h"
#include "matrix.h"
#include "model.h"
#include "parallel.h"
#include "screen.h"

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

static const int shapes[][3] = {{64, 512, 8}, {256, 768, 12}, {1024, 768, 12}};

/* Prints `raw=forward n= d_model= heads= threads= attnviz_ms= gflops= reps=`
 * for run.sh to merge with the references. budget_s bounds the repetitions
 * of the whole command (slow kernels: fewer repetitions, never a failure). */
static void cmd_forward(double budget_s) {
    double t_start = now_ms(), budget = budget_s * 1e3;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int n = shapes[s][0], dm = shapes[s][1], h = shapes[s][2];
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

/* Drives the real app on ncurses writing to /dev/null at w x h: for every
 * key, the time from app_key to the end of the screen_blit (doupdate) of the
 * frame that shows its result. */
static void latency_run(int n, int dm, int heads, int w, int h, int min_keys, double budget_ms) {
    char why[512];
    Model *m = make_model(n, dm, heads, why, sizeof why);
    if (!m) {
        printf("bench=skip what=latency n=%d d_model=%d heads=%d reason=\"%s\"\n", n, dm, heads, why);
        return;
    }
    /* ncurses writes every frame to /dev/null: the diff and the escape
     * sequences are computed as for a real terminal, nothing is shown. */
    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    SCREEN *scr = out && in ? newterm("xterm-256color", out, in) : NULL;
    if (!scr) {
        printf("bench=skip what=latency n=%d d_model=%d heads=%d reason=\"newterm(xterm-256color) "
               "failed\"\n",
               n, dm, heads);
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
    int cap = min_keys > SCRIPT_LEN ? min_keys + SCRIPT_LEN : 2 * SCRIPT_LEN;
    double *t = malloc(sizeof *t * (size_t)cap);
    int keys = 0, truncated = 0, slowest = 0, marks = 0;
    double last_update = 0.0; /* ms the last recompute took */
    if (cv && t) {
        app_draw(&a, cv);
        screen_blit(cv, a.tier);
        double start = now_ms();
        for (int k = 0; keys < cap; k++) {
            if (keys >= min_keys && k % SCRIPT_LEN == 0) break;
            if (now_ms() - start > budget_ms) {
                truncated = 1;
                break;
            }
            AppKey key = script[k % SCRIPT_LEN]; /* ncurses' codes, as the terminal sends them */
            if (key.is_code) key.ch = keycode_from_curses((int)key.ch);
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
            t[keys] = now_ms() - t0;
            if (t[keys] > t[slowest]) slowest = keys;
            keys++;
        }
    }
    if (!cv || !t) printf("bench=skip what=latency n=%d d_model=%d heads=%d reason=\"out of memory\"\n", n, dm, heads);
    double mx = keys ? t[slowest] : 0.0;
    char slow_key[64] = "none";
    if (keys) key_label(slow_key, sizeof slow_key, script[slowest % SCRIPT_LEN]);
    double p50 = quantile(t, keys, 0.50), p99 = quantile(t, keys, 0.99);
    if (cv && t)
        printf("bench=latency n=%d d_model=%d heads=%d size=%dx%d keys=%d p50_ms=%.3f p99_ms=%.3f "
               "max_ms=%.3f "
               "max_key=%s computing_marks=%d threads=%d%s\n",
               n, dm, heads, COLS, LINES, keys, p50, p99, mx, slow_key, marks, par_threads(),
               truncated ? " truncated=\"time budget reached before the end of the script\"" : "");
    fflush(stdout);
    free(t);
    cv_free(cv);
    app_free(&a);
    endwin();
    delscreen(scr);
    fclose(out);
    fclose(in);
    model_free(m);
}

static void cmd_latency(double budget_s) {
    par_set_threads(0); /* as the app runs: the default thread count */
    double b = budget_s * 1e3;
    latency_run(128, 512, 8, 80, 24, 4 * SCRIPT_LEN, b * 0.1);
    latency_run(128, 512, 8, 200, 50, 4 * SCRIPT_LEN, b * 0.1);
    latency_run(1024, 768, 12, 200, 50, SCRIPT_LEN, b * 0.8);
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

static void usage(void) {
    fprintf(stderr, "usage: bench machine | forward [BUDGET_S] | incremental | latency [BUDGET_S] | "
                    "spawn N CMD [ARGS...]\n");
}

int main(int argc, char **argv) {
    if (argc < 2) return usage(), 2;
    const char *cmd = argv[1];
    if (strcmp(cmd, "machine") == 0) cmd_machine();
    else if (strcmp(cmd, "forward") == 0) cmd_forward(argc > 2 ? atof(argv[2]) : 60.0);
    else if (strcmp(cmd, "incremental") == 0) cmd_incremental();
    else if (strcmp(cmd, "latency") == 0) cmd_latency(argc > 2 ? atof(argv[2]) : 30.0);
    else if (strcmp(cmd, "spawn") == 0 && argc > 3) return cmd_spawn(atoi(argv[2]) > 0 ? atoi(argv[2]) : 1, argv + 3);
    else return usage(), 2;
    par_set_threads(1); /* joins the workers before exit */
    return 0;
}
