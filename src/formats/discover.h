/* discover.h - the models already on the disk (issue 28): what
 * `attnviz --models` lists and the names --model takes besides a path.
 * Nothing is downloaded; a folder that is not there is skipped.
 *
 * The places, in this order:
 *   $ATTNVIZ_MODELS       a folder: *.gguf, llama2.c *.bin, Hugging Face
 *                         folders (config.json), at most two levels down
 *   Ollama                $OLLAMA_MODELS, else ~/.ollama/models: each
 *                         manifests/HOST/NAMESPACE/NAME/TAG (JSON) whose layer
 *                         of mediaType application/vnd.ollama.image.model is
 *                         the blob blobs/sha256-HEX (a GGUF without a name)
 *   LM Studio             ~/.lmstudio/models and ~/.cache/lm-studio/models:
 *                         PUBLISHER/REPO/FILE.gguf
 *   Hugging Face's cache  $HF_HUB_CACHE, else $HF_HOME/hub, else
 *                         ~/.cache/huggingface/hub: models--ORG--NAME/
 *                         snapshots/REV/ (REV from refs/main, else the last),
 *                         a folder with config.json or *.gguf files in it
 *
 * Names --model takes (discover_resolve):
 *   ollama:NAME[:TAG]    NAME as Ollama writes it ("llama3.2", "ns/name",
 *                        "host/ns/name"), TAG "latest" when not given
 *   hf:ORG/NAME          the snapshot's folder, or its GGUF file when it has
 *                        no config.json (the first by name)
 * A name that is not found says in one line where it was looked for. */
#ifndef ATTNVIZ_DISCOVER_H
#define ATTNVIZ_DISCOVER_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct {
    char source[12];      /* "dir", "ollama", "lmstudio", "hf" */
    char name[256];       /* what --model takes: "ollama:llama3.2:1b", "hf:ORG/NAME", or the path */
    char path[1024];      /* the file or folder */
    char arch[32];        /* general.architecture or model_type; "?" when unknown */
    char quant[48];       /* a GGUF's matrix types by their bytes ("Q4_K+Q6_K"); "safetensors"; "F32" (llama2.c) */
    uint64_t bytes;       /* the file, or the folder's files */
    int ok;               /* attnviz opens it (everything checked but the weights' finiteness) */
    char why[AV_ERR_MAX]; /* when not: the line opening it gives */
} FoundModel;

/* Every model in the places above, in that order (*out: caller frees; NULL
 * when none). Returns the count, or -1 when out of memory. */
int discover_models(FoundModel **out, AvError *err);

/* The places looked in, "A, B, C", into buf (for "no models found"). */
void discover_places(char *buf, size_t cap);

/* name an ollama: or hf: name: 0 with its path in path[cap]; 1 when name is
 * neither (a path: path untouched); -1 with one line when it is not there
 * (naming where it looked) or is malformed. */
int discover_resolve(const char *name, char *path, size_t cap, AvError *err);

/* An Ollama manifest (JSON, text[len]): the 64 lowercase hex digits of the
 * sha256 digest of its first layer of mediaType
 * application/vnd.ollama.image.model, into hex (NUL-terminated): 0, or -1
 * when it names none or names it malformed. */
int discover_manifest_digest(const char *text, size_t len, char hex[65]);

#endif
