/* fuzz_discover.c - libFuzzer target for what --models and --model read
 * besides model files (src/formats/discover.h): an Ollama manifest and the
 * names ollama:NAME[:TAG] and hf:ORG/NAME.
 *
 * Byte 0 chooses. Even: the rest is a manifest; on success the digest is 64
 * lowercase hex digits that the text holds after "sha256:". Odd: the rest
 * (up to its first NUL) is a name, resolved against an Ollama store and a
 * Hugging Face cache that are empty folders made once per process: it is
 * found nowhere, so the result is 1 (not such a name: a path) or -1 with one
 * terminal-safe line, never 0. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "discover.h"
#include "fuzz_util.h"

static int holds(const char *text, size_t len, const char *want, size_t n) {
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(text + i, want, n) == 0) return 1;
    return 0;
}

static void setup(void) {
    static int done;
    if (done) return;
    done = 1;
    static char dir[] = "/tmp/fuzz-discover-XXXXXX";
    FUZZ_CHECK(mkdtemp(dir) != NULL, "mkdtemp failed");
    setenv("OLLAMA_MODELS", dir, 1);
    setenv("HF_HUB_CACHE", dir, 1);
    setenv("HOME", dir, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    setup();
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    if (data[0] % 2 == 0) {
        char hex[65];
        memset(hex, 'x', sizeof hex);
        if (discover_manifest_digest(text, len, hex) == 0) {
            FUZZ_CHECK(strlen(hex) == 64 && strspn(hex, "0123456789abcdef") == 64, "digest \"%.65s\"", hex);
            char want[72];
            memcpy(want, "sha256:", 7), memcpy(want + 7, hex, 65);
            FUZZ_CHECK(holds(text, len, want, 71), "digest %s is not in the manifest", hex);
        }
        return 0;
    }
    char *name = malloc(len + 1);
    FUZZ_CHECK(name != NULL, "out of memory");
    memcpy(name, text, len);
    name[len] = '\0';
    char path[1024] = "untouched";
    AvError err = {0};
    int rc = discover_resolve(name, path, sizeof path, &err);
    FUZZ_CHECK(rc == 1 || rc == -1, "discover_resolve(\"%s\") = %d in empty caches", name, rc);
    if (rc == 1) FUZZ_CHECK(strcmp(path, "untouched") == 0, "a path's buffer was written");
    if (rc == -1) {
        FUZZ_CHECK(err.msg[0] != '\0', "no message");
        FUZZ_CHECK(fuzz_first_unsafe(err.msg, strlen(err.msg), NULL) < 0, "unsafe byte in \"%s\"", err.msg);
    }
    free(name);
    return 0;
}
