/* fuzz_stream.c - libFuzzer target for the classroom stream a follower
 * reads (follow_reader_feed, tui/lessons/follow.h): what a hostile publisher could
 * send.
 *
 * Byte 0 sets the chunk size (1 + byte % 64): the rest is fed in chunks of
 * it, as a socket may deliver it. Every refusal's message is one
 * terminal-safe line. Every block the reader accepts is applied to a small
 * app (follow_apply; blocks that would grow the model are taken and not
 * applied: fuzz_script.h) and drawn once; a block that is refused leaves
 * the app's state (script_state) as it was. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "follow.h"
#include "fuzz_script.h"

FUZZ_NO_COVERAGE static void check_why(const char *why, size_t cap) {
    size_t n = strnlen(why, cap);
    FUZZ_CHECK(n > 0 && n < cap, "a refusal without a message");
    long bad = fuzz_first_unsafe(why, n, NULL);
    if (bad >= 0) fuzz_dump("why", why, n);
    FUZZ_CHECK(bad < 0, "message has an unsafe byte at %ld", bad);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    size_t chunk = 1 + data[0] % 64;
    data++, size--;
    FollowReader *r = follow_reader_new();
    FUZZ_CHECK(r != NULL, "out of memory");
    App *a = fuzz_script_app_new();
    int blocks = 0;
    for (size_t at = 0; at < size; at += chunk) {
        size_t n = size - at < chunk ? size - at : chunk;
        char why[512] = "";
        int got = follow_reader_feed(r, (const char *)data + at, n, why, sizeof why);
        if (got & FOLLOW_GOT_ERROR) check_why(why, sizeof why);
        FollowBlock b;
        if (!(got & FOLLOW_GOT_BLOCK) || !follow_reader_take(r, &b)) continue;
        int cheap = blocks < 4;
        for (int i = 0; cheap && i < b.n; i++) cheap = fuzz_script_cheap(&b.cmd[i]);
        if (cheap) {
            char *before = script_state(a, NULL);
            FUZZ_CHECK(before != NULL, "out of memory");
            if (follow_apply(a, &b, why, sizeof why)) {
                check_why(why, sizeof why);
                char *after = script_state(a, NULL);
                FUZZ_CHECK(after && strcmp(before, after) == 0, "a refused block changed the app");
                free(after);
            }
            free(before);
            fuzz_script_frame(a);
            blocks++;
        }
        follow_block_free(&b);
    }
    follow_reader_free(r);
    return 0;
}
