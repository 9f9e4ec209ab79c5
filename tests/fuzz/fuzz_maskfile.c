/* fuzz_maskfile.c - libFuzzer target for the mask file (src/core/mask.h): the
 * reader of both formats (0/1 rows and runs), the writer and the comments W
 * keeps.
 *
 * The first two bytes choose the shape (n_q 0..79, n_k 0..139: both formats
 * of the writer, which switches to runs above 64 keys); the rest is the file.
 * On failure: *grid is NULL and the message is one NUL-terminated line
 * without a byte a terminal would act on (bytes of the file are quoted in
 * hex). On success: every cell is 0 or 1; what mask_format_grid writes, with
 * the file's comments, is read back to the same grid, and its comments are
 * the same comments (W never loses or doubles them). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "mask.h"
#include "readfile.h"

static void check_message(const AvError *err) {
    size_t n = fuzz_msg_len(err->msg, sizeof err->msg);
    FUZZ_CHECK(n > 0, "failure without a message");
    long bad = fuzz_first_unsafe(err->msg, n, NULL);
    if (bad >= 0) fuzz_dump("message", err->msg, n);
    FUZZ_CHECK(bad < 0, "message has an unsafe byte at %ld", bad);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    int n_q = data[0] % 80, n_k = data[1] % 140;
    size -= 2;
    /* A heap copy of exactly `size` bytes (not NUL-terminated), so that ASan
     * sees a read past the end. */
    char *buf = malloc(size ? size : 1);
    FUZZ_CHECK(buf != NULL, "out of memory");
    if (size) memcpy(buf, data + 2, size);

    AvError err = {0};
    unsigned char *grid = (unsigned char *)1;
    int rc = mask_parse_grid(&grid, n_q, n_k, buf, size, "fuzz.mask", &err);
    if (rc != 0) {
        FUZZ_CHECK(rc == -1, "mask_parse_grid returned %d", rc);
        FUZZ_CHECK(grid == NULL, "failed parse left *grid set");
        check_message(&err);
        free(buf);
        return 0;
    }
    size_t cells = (size_t)n_q * (size_t)n_k;
    for (size_t c = 0; c < cells; c++) FUZZ_CHECK(grid[c] <= 1, "cell %zu = %d", c, grid[c]);

    int dropped = -1;
    char *comments = mask_file_comments(buf, size, &dropped);
    free(buf);
    FUZZ_CHECK(comments != NULL, "out of memory");
    FUZZ_CHECK(dropped >= 0, "dropped = %d", dropped);

    char *text;
    size_t len;
    FUZZ_CHECK(mask_format_grid(&text, &len, grid, n_q, n_k, comments, AV_MAX_INPUT_BYTES, &err) == 0,
               "mask_format_grid %d x %d: %s", n_q, n_k, err.msg);
    FUZZ_CHECK(strlen(text) == len, "length %zu, strlen %zu", len, strlen(text));
    unsigned char *back;
    if (mask_parse_grid(&back, n_q, n_k, text, len, "fuzz.mask", &err) != 0) {
        fuzz_dump("written", text, len);
        FUZZ_CHECK(0, "what the writer wrote is refused: %s", err.msg);
    }
    FUZZ_CHECK(cells == 0 || memcmp(back, grid, cells) == 0, "the grid read back differs");
    char *again = mask_file_comments(text, len, &dropped);
    FUZZ_CHECK(again != NULL, "out of memory");
    FUZZ_CHECK(strcmp(again, comments) == 0, "the comments written are not the comments read");
    FUZZ_CHECK(dropped == 0, "the writer put %d comments after row values", dropped);
    free(again);
    free(back);
    free(text);
    free(comments);
    free(grid);
    return 0;
}
