/* formats.c - see formats.h: the table of model formats. */
#include "i18n.h"
#include "formats.h"

#include <string.h>
#include <sys/stat.h>

#include "discover.h"
#include "ggufmodel.h"
#include "hfcheckpoint.h"
#include "utf8.h"

static int ends_with(const char *s, const char *end) {
    size_t n = strlen(s), e = strlen(end);
    return n >= e && strcmp(s + n - e, end) == 0;
}

/* A Hugging Face checkpoint: a folder, a *.safetensors file, its index or
 * a config.json. */
static int hf_claims(const char *path) {
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return 1;
    return ends_with(path, ".safetensors") || ends_with(path, ".safetensors.index.json") ||
           ends_with(path, "config.json");
}

/* llama2.c's checkpoint: whatever no other format claims (its reader says
 * what a file that is none is). */
static int llama2_claims(const char *path) {
    (void)path;
    return 1;
}

/* In the order they are asked: the last claims every path. */
static const ModelFormat formats[] = {
    {"hf", hf_claims, hf_checkpoint_open},
    {"gguf", ggufmodel_claims, gguf_checkpoint_open},
    {"llama2.c", llama2_claims, llama2_checkpoint_open},
};

const ModelFormat *format_of(const char *path) {
    size_t i = 0;
    while (i + 1 < sizeof formats / sizeof *formats && !formats[i].claims(path)) i++;
    return &formats[i];
}

int checkpoint_open(Checkpoint *out, const char *path, const char *vocab_path, AvError *err) {
    memset(out, 0, sizeof *out);
    char found[4096];
    int named = discover_resolve(path, found, sizeof found, err); /* ollama:NAME:TAG, hf:ORG/NAME */
    if (named < 0) return -1;
    if (named == 1) return format_of(path)->open(out, path, vocab_path, err);
    if (format_of(found)->open(out, found, vocab_path, err)) return -1;
    utf8_escape_into(out->title, sizeof out->title, strchr(path, ':') + 1); /* the name, not the blob's hash */
    return 0;
}

void checkpoint_close(Checkpoint *c) {
    if (!c) return;
    vocab_free(c->vocab);
    tf_close(c->model);
    memset(c, 0, sizeof *c);
}

Vocab *vocab_open_file(const char *path, AvError *err) {
    if (ends_with(path, ".json")) return hf_tokenizer_open(path, err);
    if (ggufmodel_claims(path)) { /* the tokenizer of a GGUF's metadata (copied out of the file) */
        Gguf *g = gguf_open(path, err);
        Vocab *v = g ? ggufmodel_vocab(g, err) : NULL;
        gguf_close(g);
        return v;
    }
    LlamaTok *t = llamatok_load(path, err);
    Vocab *v = t ? vocab_of_llamatok(t) : NULL;
    if (t && !v) av_error_nomem(err, _("out of memory"));
    return v;
}
