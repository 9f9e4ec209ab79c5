/* test_files.c - the files attnviz reads and writes: the mask file format
 * (0/1 rows and runs, every shape up to 4096 x 4096 within the input limit),
 * the atomic writer (a failed write leaves the old file as it was; links,
 * modes, non-regular files) and the reader (FIFOs refused without blocking,
 * only ENOENT is "no file yet").
 *
 * Linked with -Wl,--wrap=write,--wrap=fsync (see the Makefile): a test arms
 * a failure of the k-th write or fsync of the code, as a full disk would. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "mask.h"
#include "readfile.h"
#include "rng.h"

ssize_t __real_write(int fd, const void *buf, size_t n);
int __real_fsync(int fd);
ssize_t __wrap_write(int fd, const void *buf, size_t n);
int __wrap_fsync(int fd);

static int write_fails_at; /* > 0: the k-th write fails with ENOSPC */
static int fsync_fails_at; /* > 0: the k-th fsync fails with EIO */
static size_t write_chunk; /* > 0: a write takes at most this many bytes (short writes) */

ssize_t __wrap_write(int fd, const void *buf, size_t n) {
    if (write_fails_at > 0 && --write_fails_at == 0) {
        errno = ENOSPC;
        return -1;
    }
    if (write_chunk && n > write_chunk) n = write_chunk;
    return __real_write(fd, buf, n);
}

int __wrap_fsync(int fd) {
    if (fsync_fails_at > 0 && --fsync_fails_at == 0) {
        errno = EIO;
        return -1;
    }
    return __real_fsync(fd);
}

// ----------------------------------------------------------------------------
// helpers

static char dir[64];
static char path_buf[4][256];

/* A path in the test's directory (4 slots, reused in turn). */
static const char *in_dir(const char *name) {
    static int slot;
    char *p = path_buf[slot++ % 4];
    snprintf(p, sizeof path_buf[0], "%s/%s", dir, name);
    return p;
}

static int setup_dir(void **state) {
    (void)state;
    strcpy(dir, "/tmp/attnviz-files.XXXXXX");
    write_fails_at = fsync_fails_at = 0;
    write_chunk = 0;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown_dir(void **state) {
    (void)state;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            const char *p = in_dir(e->d_name);
            if (unlink(p) != 0) rmdir(p);
        }
    closedir(d);
    rmdir(dir);
    return 0;
}

/* Entries in the test's directory: a temporary file left behind shows. */
static int dir_entries(void) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void put_file(const char *p, const char *text, mode_t mode) {
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(p, mode), 0);
}

/* The whole file (read back with stdio, not the code under test). */
static char *slurp(const char *p) {
    FILE *f = fopen(p, "rb");
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

// ----------------------------------------------------------------------------
// the mask file format

/* Writes grid, checks the text fits the input limit, reads it back. */
static void round_trip(const unsigned char *grid, int n_q, int n_k) {
    AvError err = {0};
    char *text;
    size_t len;
    if (mask_format_grid(&text, &len, grid, n_q, n_k, NULL, AV_MAX_INPUT_BYTES, &err))
        fail_msg("%d x %d: %s", n_q, n_k, err.msg);
    assert_true(len <= AV_MAX_INPUT_BYTES);
    assert_int_equal(strlen(text), len);
    unsigned char *back;
    if (mask_parse_grid(&back, n_q, n_k, text, len, "m", &err)) fail_msg("%d x %d read back: %s", n_q, n_k, err.msg);
    for (size_t c = 0; c < (size_t)n_q * (size_t)n_k; c++)
        if (back[c] != (grid ? grid[c] : 1)) fail_msg("%d x %d: cell %zu differs", n_q, n_k, c);
    free(back);
    free(text);
}

static void test_mask_small_is_rows_of_bits(void **state) {
    (void)state;
    AvError err = {0};
    const unsigned char g[6] = {1, 0, 1, 0, 1, 1};
    char *text;
    size_t len;
    assert_int_equal(mask_format_grid(&text, &len, g, 2, 3, NULL, AV_MAX_INPUT_BYTES, &err), 0);
    assert_string_equal(text, "# attnviz painted mask: 2 queries x 3 keys, 1 = visible, 0 = masked\n1 0 1\n0 1 1\n");
    free(text);
}

static void test_mask_runs_format(void **state) {
    (void)state;
    AvError err = {0};
    enum { K = 100 };
    unsigned char g[2 * K];
    memset(g, 1, sizeof g);
    g[3] = 0;             /* row 0: 3 visible, 1 masked, 96 visible */
    memset(g + K, 0, 10); /* row 1: starts masked: 0 visible, 10 masked, 90 visible */
    char *text;
    size_t len;
    assert_int_equal(mask_format_grid(&text, &len, g, 2, K, NULL, AV_MAX_INPUT_BYTES, &err), 0);
    assert_non_null(strstr(text, "# attnviz painted mask: 2 queries x 100 keys, as runs\n"));
    assert_non_null(strstr(text, "\nruns\n3 1 96\n0 10 90\n"));
    free(text);
    round_trip(g, 2, K);
    /* by hand: spaces, tabs, CRLF, comments and blank lines */
    const char *hand = "# mine\r\nruns   # the format\r\n\r\n  3\t1 96 # row 0\r\n0 10 90\r\n";
    unsigned char *back;
    assert_int_equal(mask_parse_grid(&back, 2, K, hand, strlen(hand), "m", &err), 0);
    assert_memory_equal(back, g, sizeof g);
    free(back);
}

static void test_mask_old_format_still_read(void **state) {
    (void)state;
    AvError err = {0};
    unsigned char *g;
    const char *txt =
        "# attnviz painted mask: 2 queries x 3 keys, 1 = visible, 0 = masked\n1 0 1\r\n\n0 1 1  # row 2\n";
    assert_int_equal(mask_parse_grid(&g, 2, 3, txt, strlen(txt), "m.txt", &err), 0);
    const unsigned char want[6] = {1, 0, 1, 0, 1, 1};
    assert_memory_equal(g, want, 6);
    free(g);
    /* wide rows of bits (written by attnviz before the runs format) */
    enum { K = 300 };
    char *wide = malloc(3 * K * 2 + 1);
    size_t o = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < K; j++) wide[o++] = (char)('0' + ((i + j) % 3 != 0)), wide[o++] = j + 1 < K ? ' ' : '\n';
    wide[o] = '\0';
    assert_int_equal(mask_parse_grid(&g, 3, K, wide, o, "m.txt", &err), 0);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < K; j++) assert_int_equal(g[i * K + j], (i + j) % 3 != 0);
    free(g);
    free(wide);
}

static void test_mask_runs_errors(void **state) {
    (void)state;
    AvError err = {0};
    unsigned char *g = NULL;
    struct {
        const char *text, *want;
    } cases[] = {
        {"runs\n2 2\n3\n", "m:2:3: this run goes past the 3 keys of the row"},
        {"runs\n1 1\n3\n", "m:2: the runs cover 2 keys, expected 3 (one per key)"},
        {"runs\n1 x 1\n3\n", "m:2:3: expected a run length (a whole number), found 'x'"},
        {"runs\n-3\n3\n", "m:2:1: expected a run length (a whole number), found '-'"},
        {"runs 3\n3\n3\n", "m:1:6: nothing may follow 'runs' on its line"},
        {"runs\n99999999999999999999999\n3\n", "m:2:1: this run goes past the 3 keys"},
        {"runs\n3\n3\n3\n", "m:4:1: more than 2 rows (one per query)"},
        {"runs\n3\n", "m: 1 row, expected 2"},
        {"runs\n3\nruns\n", "m:3:1: expected a run length (a whole number), found 'r'"},
        {"1 1 1\nruns\n", "m:2:1: expected 0 or 1, found 'r'"},
        {"runs\n3\n1\t\001\n", "m:3:3: expected a run length (a whole number), found byte 0x01"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        err.msg[0] = '\0';
        if (mask_parse_grid(&g, 2, 3, cases[c].text, strlen(cases[c].text), "m", &err) != -1)
            fail_msg("case %zu accepted", c);
        assert_null(g);
        if (!strstr(err.msg, cases[c].want)) fail_msg("case %zu: [%s], expected [%s]", c, err.msg, cases[c].want);
    }
    /* zeros in the middle and the runs of a row of 0 keys are fine */
    const char *ok = "runs\n1 0 2\n0 3\n";
    assert_int_equal(mask_parse_grid(&g, 2, 3, ok, strlen(ok), "m", &err), 0);
    const unsigned char want[6] = {1, 1, 1, 0, 0, 0};
    assert_memory_equal(g, want, 6);
    free(g);
}

/* The largest mask: every pattern someone paints (a causal or banded shape,
 * thousands of scattered cells, blocks) is written within the limit and read
 * back bit for bit. */
static void test_mask_4096_round_trip(void **state) {
    (void)state;
    enum { N = 4096 };
    unsigned char *g = malloc((size_t)N * N);
    assert_non_null(g);
    round_trip(NULL, N, N); /* all visible */
    memset(g, 0, (size_t)N * N);
    round_trip(g, N, N); /* all masked */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) g[(size_t)i * N + j] = j <= i;
    round_trip(g, N, N); /* causal */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) g[(size_t)i * N + j] = j <= i && j > i - 64;
    round_trip(g, N, N); /* a window */
    RngStream r;
    rng_init(&r, 7);
    memset(g, 1, (size_t)N * N);
    for (int k = 0; k < 100000; k++) g[rng_next(&r) % ((uint64_t)N * N)] ^= 1;
    round_trip(g, N, N); /* 100,000 cells painted at random */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) g[(size_t)i * N + j] = ((i / 256) + (j / 256)) % 2;
    round_trip(g, N, N); /* blocks */
    /* other shapes: 0/1 rows up to 64 keys, runs above */
    static const int shapes[][2] = {{0, 0},  {1, 1},  {1, 64}, {1, 65},   {N, 1},
                                    {N, 64}, {N, 65}, {1, N},  {7, 3000}, {N, 2}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int q = shapes[s][0], k = shapes[s][1];
        for (size_t c = 0; c < (size_t)q * (size_t)k; c++) g[c] = (rng_next(&r) % 7) != 0;
        round_trip(g, q, k);
    }
    /* 64 keys as 0/1 rows, 4096 of them: the densest mask of that format fits */
    for (size_t c = 0; c < (size_t)N * 64; c++) g[c] = (unsigned char)(c % 2);
    round_trip(g, N, 64);
    free(g);
}

/* A checkerboard of 4096 x 4096 has 16.7 million runs: it cannot fit in the
 * 1 MiB that is read back, and the writer says so instead of writing it. */
static void test_mask_too_detailed_refused(void **state) {
    (void)state;
    enum { N = 4096 };
    unsigned char *g = malloc((size_t)N * N);
    assert_non_null(g);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) g[(size_t)i * N + j] = (unsigned char)((i + j) % 2);
    AvError err = {0};
    char *text = (char *)1;
    size_t len = 1;
    assert_int_equal(mask_format_grid(&text, &len, g, N, N, NULL, AV_MAX_INPUT_BYTES, &err), -1);
    assert_null(text);
    assert_non_null(strstr(err.msg, "4096 x 4096"));
    assert_non_null(strstr(err.msg, "over the limit of 1048576"));
    free(g);
}

static void test_mask_comments_kept(void **state) {
    (void)state;
    const char *file = "# attnviz painted mask: 2 queries x 3 keys, 1 = visible, 0 = masked\n"
                       "# my notes: row 1 hides 'cat'\n"
                       "  # indented\n"
                       "1 0 1 # row 0\n"
                       "0 1 1\n";
    int dropped = -1;
    char *c = mask_file_comments(file, strlen(file), &dropped);
    assert_string_equal(c, "# my notes: row 1 hides 'cat'\n  # indented\n");
    assert_int_equal(dropped, 1);
    AvError err = {0};
    const unsigned char g[6] = {1, 0, 1, 0, 1, 1};
    char *text;
    size_t len;
    assert_int_equal(mask_format_grid(&text, &len, g, 2, 3, c, AV_MAX_INPUT_BYTES, &err), 0);
    assert_string_equal(text, "# attnviz painted mask: 2 queries x 3 keys, 1 = visible, 0 = masked\n"
                              "# my notes: row 1 hides 'cat'\n  # indented\n1 0 1\n0 1 1\n");
    /* written again: the same comments, once (the header is not taken as one) */
    char *c2 = mask_file_comments(text, len, &dropped);
    assert_string_equal(c2, c);
    assert_int_equal(dropped, 0);
    free(c2);
    free(text);
    free(c);
}

// ----------------------------------------------------------------------------
// the atomic writer

static void test_atomic_new_file(void **state) {
    (void)state;
    mode_t old = umask(027);
    AvError err = {0};
    const char *p = in_dir("new.txt");
    assert_int_equal(av_write_file_atomic(p, "hello\n", 6, &err), 0);
    umask(old);
    assert_string_equal(slurp(p), "hello\n");
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640); /* 0666 & ~umask */
    assert_int_equal(dir_entries(), 1);
    /* short writes are continued */
    write_chunk = 3;
    assert_int_equal(av_write_file_atomic(p, "0123456789", 10, &err), 0);
    write_chunk = 0;
    assert_string_equal(slurp(p), "0123456789");
}

static void test_atomic_replaces_keeping_mode(void **state) {
    (void)state;
    AvError err = {0};
    const char *p = in_dir("m.txt");
    put_file(p, "old content\n", 0604);
    struct stat before, after;
    assert_int_equal(stat(p, &before), 0);
    assert_int_equal(av_write_file_atomic(p, "new\n", 4, &err), 0);
    assert_string_equal(slurp(p), "new\n");
    assert_int_equal(stat(p, &after), 0);
    assert_int_equal(after.st_mode & 07777, 0604);
    assert_true(after.st_ino != before.st_ino); /* a new file renamed over, not written in place */
    assert_int_equal(dir_entries(), 1);
}

/* A full disk in the middle of the write, or a failed fsync: the old file is
 * intact, no temporary file is left, and the message says why. */
static void test_atomic_failure_keeps_old(void **state) {
    (void)state;
    const char *p = in_dir("m.txt");
    put_file(p, "the old mask\n", 0644);
    size_t big = 1 << 20;
    char *data = malloc(big);
    memset(data, '1', big);
    for (int k = 1; k <= 3; k++) {
        AvError err = {0};
        write_fails_at = k; /* the first, second or third write */
        write_chunk = 1 << 18;
        assert_int_equal(av_write_file_atomic(p, data, big, &err), -1);
        write_chunk = 0;
        write_fails_at = 0;
        assert_string_equal(slurp(p), "the old mask\n");
        assert_int_equal(dir_entries(), 1);
        assert_non_null(strstr(err.msg, p));
        assert_non_null(strstr(err.msg, "No space left on device"));
        assert_non_null(strstr(err.msg, "the old file is unchanged"));
    }
    AvError err = {0};
    fsync_fails_at = 1;
    assert_int_equal(av_write_file_atomic(p, data, 100, &err), -1);
    fsync_fails_at = 0;
    assert_string_equal(slurp(p), "the old mask\n");
    assert_int_equal(dir_entries(), 1);
    assert_non_null(strstr(err.msg, "cannot sync: Input/output error"));
    /* a new file that cannot be written is not created at all */
    write_fails_at = 1;
    assert_int_equal(av_write_file_atomic(in_dir("new.txt"), data, 100, &err), -1);
    write_fails_at = 0;
    assert_int_equal(access(in_dir("new.txt"), F_OK), -1);
    assert_int_equal(dir_entries(), 1);
    assert_non_null(strstr(err.msg, "nothing written"));
    free(data);
}

/* The same on a real full file system, when this test may mount one (root
 * in a container that allows it); skipped otherwise. */
static void test_atomic_real_full_disk(void **state) {
    (void)state;
    const char *mnt = in_dir("small");
    assert_int_equal(mkdir(mnt, 0755), 0);
    if (mount("tmpfs", mnt, "tmpfs", 0, "size=64k") != 0) {
        rmdir(mnt);
        skip();
    }
    char p[300];
    snprintf(p, sizeof p, "%s/m.txt", mnt);
    put_file(p, "the old mask\n", 0644);
    size_t big = 256 << 10;
    char *data = malloc(big);
    memset(data, '0', big);
    AvError err = {0};
    int rc = av_write_file_atomic(p, data, big, &err);
    char *back = slurp(p);
    int entries = 0;
    DIR *d = opendir(mnt);
    for (struct dirent *e; d && (e = readdir(d));) entries += e->d_name[0] != '.';
    if (d) closedir(d);
    umount(mnt);
    rmdir(mnt);
    free(data);
    assert_int_equal(rc, -1);
    assert_string_equal(back, "the old mask\n");
    assert_int_equal(entries, 1);
    assert_non_null(strstr(err.msg, "No space left on device"));
}

/* A link to a regular file: the target is replaced (mode kept), the link
 * stays a link. */
static void test_atomic_follows_symlink(void **state) {
    (void)state;
    AvError err = {0};
    const char *target = in_dir("real.txt"), *link = in_dir("link.txt");
    put_file(target, "old\n", 0640);
    assert_int_equal(symlink("real.txt", link), 0);
    assert_int_equal(av_write_file_atomic(link, "new\n", 4, &err), 0);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(stat(target, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    assert_string_equal(slurp(target), "new\n");
    assert_int_equal(dir_entries(), 2);
}

static void test_atomic_refuses_what_is_not_a_file(void **state) {
    (void)state;
    AvError err = {0};
    const char *dangling = in_dir("dangling");
    assert_int_equal(symlink("nowhere.txt", dangling), 0);
    assert_int_equal(av_write_file_atomic(dangling, "x", 1, &err), -1);
    assert_non_null(strstr(err.msg, "a symbolic link to a file that does not exist"));
    assert_int_equal(access(in_dir("nowhere.txt"), F_OK), -1); /* not created */

    const char *sub = in_dir("sub");
    assert_int_equal(mkdir(sub, 0755), 0);
    assert_int_equal(av_write_file_atomic(sub, "x", 1, &err), -1);
    assert_non_null(strstr(err.msg, "not a regular file (a directory)"));

    const char *fifo = in_dir("fifo");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    alarm(5); /* a blocking open would hang here: fail instead */
    assert_int_equal(av_write_file_atomic(fifo, "x", 1, &err), -1);
    alarm(0);
    assert_non_null(strstr(err.msg, "not a regular file (a FIFO)"));

    const char *to_fifo = in_dir("to-fifo");
    assert_int_equal(symlink("fifo", to_fifo), 0);
    assert_int_equal(av_write_file_atomic(to_fifo, "x", 1, &err), -1);
    assert_non_null(strstr(err.msg, "a symbolic link to a FIFO"));

    assert_int_equal(av_write_file_atomic("-", "x", 1, &err), -1);
    assert_non_null(strstr(err.msg, "standard input"));

    const char *loop = in_dir("loop");
    assert_int_equal(symlink("loop", loop), 0);
    assert_int_equal(av_write_file_atomic(loop, "x", 1, &err), -1);
    assert_non_null(strstr(err.msg, "Too many levels of symbolic links"));

    char nodir[300];
    snprintf(nodir, sizeof nodir, "%s/missing/m.txt", dir);
    assert_int_equal(av_write_file_atomic(nodir, "x", 1, &err), -1);
    assert_non_null(strstr(err.msg, "cannot create a temporary file in"));
    assert_non_null(strstr(err.msg, "No such file or directory"));
    assert_int_equal(dir_entries(), 5);
}

// ----------------------------------------------------------------------------
// the reader

static void test_read_refuses_fifo_without_blocking(void **state) {
    (void)state;
    AvError err = {0};
    const char *fifo = in_dir("fifo");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    char *buf;
    size_t len;
    alarm(5); /* open() of a FIFO without a writer blocks: this would hang */
    assert_int_equal(av_read_file(fifo, AV_MAX_INPUT_BYTES, &buf, &len, &err), -1);
    assert_int_equal(av_read_file_if_exists(fifo, AV_MAX_INPUT_BYTES, &buf, &len, &err), -1);
    alarm(0);
    assert_null(buf);
    assert_non_null(strstr(err.msg, "fifo: not a regular file (a FIFO)"));
    assert_int_equal(av_read_file("/dev/null", AV_MAX_INPUT_BYTES, &buf, &len, &err), -1);
    assert_non_null(strstr(err.msg, "not a regular file (a character device)"));
    assert_int_equal(av_read_file(dir, AV_MAX_INPUT_BYTES, &buf, &len, &err), -1);
    assert_non_null(strstr(err.msg, "is a directory"));
}

/* Only a file that is not there is "no file yet"; every other error is said. */
static void test_read_if_exists(void **state) {
    (void)state;
    AvError err = {0};
    char *buf = (char *)1;
    size_t len;
    assert_int_equal(av_read_file_if_exists(in_dir("absent"), AV_MAX_INPUT_BYTES, &buf, &len, &err), 0);
    assert_null(buf);

    const char *p = in_dir("m.txt");
    put_file(p, "1 0\n", 0644);
    assert_int_equal(av_read_file_if_exists(p, AV_MAX_INPUT_BYTES, &buf, &len, &err), 0);
    assert_string_equal(buf, "1 0\n");
    free(buf);

    const char *loop = in_dir("loop");
    assert_int_equal(symlink("loop", loop), 0);
    assert_int_equal(av_read_file_if_exists(loop, AV_MAX_INPUT_BYTES, &buf, &len, &err), -1);
    assert_non_null(strstr(err.msg, "loop: Too many levels of symbolic links"));

    char through[300];
    snprintf(through, sizeof through, "%s/x", p); /* a path through a regular file */
    assert_int_equal(av_read_file_if_exists(through, AV_MAX_INPUT_BYTES, &buf, &len, &err), -1);
    assert_non_null(strstr(err.msg, "m.txt/x: Not a directory"));

    const char *dangling = in_dir("dangling");
    assert_int_equal(symlink("nowhere", dangling), 0);
    assert_int_equal(av_read_file_if_exists(dangling, AV_MAX_INPUT_BYTES, &buf, &len, &err), -1);
    assert_non_null(strstr(err.msg, "dangling: a symbolic link to a file that does not exist"));
}

int main(void) {
    signal(SIGALRM, SIG_DFL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mask_small_is_rows_of_bits),
        cmocka_unit_test(test_mask_runs_format),
        cmocka_unit_test(test_mask_old_format_still_read),
        cmocka_unit_test(test_mask_runs_errors),
        cmocka_unit_test(test_mask_4096_round_trip),
        cmocka_unit_test(test_mask_too_detailed_refused),
        cmocka_unit_test(test_mask_comments_kept),
        cmocka_unit_test_setup_teardown(test_atomic_new_file, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_atomic_replaces_keeping_mode, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_atomic_failure_keeps_old, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_atomic_real_full_disk, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_atomic_follows_symlink, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_atomic_refuses_what_is_not_a_file, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_read_refuses_fifo_without_blocking, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_read_if_exists, setup_dir, teardown_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
