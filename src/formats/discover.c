/* discover.c - see discover.h: the folders of Ollama, LM Studio and Hugging
 * Face's cache walked (bounded depth, sorted), each model found checked the
 * way --model would open it, without reading its weights. */
#define _POSIX_C_SOURCE 200809L
#include "i18n.h"
#include "discover.h"

#include <cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gguf.h"
#include "ggufmodel.h"
#include "hfcheckpoint.h"
#include "llama2.h"
#include "readfile.h"
#include "utf8.h"

enum { PATH_CAP = 1024, MAX_FOUND = 4096, MANIFEST_MAX = 1 << 20 };

typedef struct {
    FoundModel *v;
    int n, cap;
} List;

static int is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static uint64_t file_bytes(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

static int ends_with(const char *s, const char *end) {
    size_t n = strlen(s), e = strlen(end);
    return n >= e && strcmp(s + n - e, end) == 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The entries of a folder but . and .., sorted (caller frees each and the
 * array); 0 when it cannot be read. */
static int list_dir(const char *dir, char ***out) {
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0, cap = 0;
    char **v = NULL;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (n == cap) {
            char **w = realloc(v, sizeof *v * (size_t)(cap = cap ? 2 * cap : 16));
            if (!w) break;
            v = w;
        }
        if (!(v[n] = strdup(e->d_name))) break;
        n++;
    }
    closedir(d);
    if (n) qsort(v, (size_t)n, sizeof *v, by_name);
    *out = v;
    return n;
}

static void free_list(char **v, int n) {
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

/* ~/rest, or $var (var set and not empty), into buf; 0 when neither is. */
static int home_path(char *buf, size_t cap, const char *var, const char *rest) {
    const char *v = var ? getenv(var) : NULL, *home = getenv("HOME");
    if (v && *v) return snprintf(buf, cap, "%s", v) > 0;
    if (!rest || !home || !*home) return 0;
    return snprintf(buf, cap, "%s/%s", home, rest) > 0;
}

// ----------------------------------------------------------------------------
// one model

/* A GGUF's matrix types by the bytes they hold, "Q4_K+Q6_K", at most three. */
static void gguf_types(const Gguf *g, char *out, size_t cap) {
    uint64_t bytes[QT_COUNT] = {0};
    for (int i = 0; i < gguf_tensor_count(g); i++) {
        const GgufTensor *t = gguf_tensor_at(g, i);
        if (t->ndim >= 2 && (unsigned)t->type < QT_COUNT) bytes[t->type] += t->bytes;
    }
    out[0] = '\0';
    for (int k = 0; k < 3; k++) {
        int best = -1;
        for (int t = 0; t < QT_COUNT; t++)
            if (bytes[t] && (best < 0 || bytes[t] > bytes[best])) best = t;
        if (best < 0) break;
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", k ? "+" : "", quant_name(best));
        bytes[best] = 0;
    }
    if (!out[0]) snprintf(out, cap, "?");
}

static void check_gguf(FoundModel *f) {
    AvError err = {0};
    Gguf *g = gguf_open(f->path, &err);
    if (g) {
        GgufStr a;
        if (gguf_get_str(g, "general.architecture", &a, &err) == 0) {
            char raw[32];
            size_t k = a.len < sizeof raw - 1 ? a.len : sizeof raw - 1;
            memcpy(raw, a.s, k), raw[k] = '\0';
            utf8_escape_into(f->arch, sizeof f->arch, raw);
        }
        gguf_types(g, f->quant, sizeof f->quant);
        gguf_close(g);
        f->ok = ggufmodel_check(f->path, &err) == 0;
    }
    if (!f->ok) snprintf(f->why, sizeof f->why, "%s", err.msg);
}

static void check_folder(FoundModel *f) {
    char cfg[PATH_CAP + 16], *text = NULL;
    size_t len = 0;
    AvError err = {0};
    snprintf(cfg, sizeof cfg, "%s/config.json", f->path);
    snprintf(f->quant, sizeof f->quant, "safetensors");
    char **names;
    int n = list_dir(f->path, &names);
    for (int i = 0; i < n; i++) {
        char p[PATH_CAP + 256];
        snprintf(p, sizeof p, "%s/%s", f->path, names[i]);
        f->bytes += file_bytes(p);
    }
    free_list(names, n);
    TfConfig c;
    if (av_read_text(cfg, (size_t)1 << 20, 0, &text, &len, &err) == 0) {
        cJSON *j = cJSON_ParseWithLength(text, len);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "model_type");
        if (cJSON_IsString(t)) utf8_escape_into(f->arch, sizeof f->arch, t->valuestring);
        cJSON_Delete(j);
        f->ok = hf_config_parse(&c, text, len, cfg, &err) == 0;
        free(text);
    }
    if (!f->ok) snprintf(f->why, sizeof f->why, "%s", err.msg);
}

static void check_llama2(FoundModel *f) {
    AvError err = {0};
    TfModel *m = llama2_open(f->path, &err);
    snprintf(f->arch, sizeof f->arch, "llama2.c");
    snprintf(f->quant, sizeof f->quant, "F32");
    f->ok = m != NULL;
    tf_close(m);
    if (!f->ok) snprintf(f->why, sizeof f->why, "%s", err.msg);
}

/* Adds the model at path (a GGUF, a llama2.c .bin or a Hugging Face
 * folder) under name. */
static int add(List *l, const char *source, const char *name, const char *path) {
    if (l->n >= MAX_FOUND) return 0;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        FoundModel *v = realloc(l->v, sizeof *v * (size_t)cap);
        if (!v) return -1;
        l->v = v, l->cap = cap;
    }
    FoundModel *f = &l->v[l->n++];
    memset(f, 0, sizeof *f);
    snprintf(f->source, sizeof f->source, "%s", source);
    utf8_escape_into(f->name, sizeof f->name, name);
    snprintf(f->path, sizeof f->path, "%s", path);
    snprintf(f->arch, sizeof f->arch, "?");
    if (is_dir(path)) check_folder(f);
    else if (f->bytes = file_bytes(path), ggufmodel_claims(path)) check_gguf(f);
    else check_llama2(f);
    return 0;
}

// ----------------------------------------------------------------------------
// the places

/* $ATTNVIZ_MODELS: GGUF files, .bin files and folders with config.json. */
static int walk_dir(List *l, const char *dir, int depth) {
    char **names;
    int n = list_dir(dir, &names), rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        char p[PATH_CAP];
        if (snprintf(p, sizeof p, "%s/%s", dir, names[i]) >= (int)sizeof p) continue;
        char cfg[PATH_CAP + 16];
        snprintf(cfg, sizeof cfg, "%s/config.json", p);
        if (is_dir(p) && is_file(cfg)) rc = add(l, "dir", p, p);
        else if (is_dir(p) && depth > 0) rc = walk_dir(l, p, depth - 1);
        else if (is_file(p) && (ends_with(p, ".gguf") || (ends_with(p, ".bin") && !ends_with(p, "tokenizer.bin") &&
                                                          strncmp(names[i], "tok", 3) != 0)))
            rc = add(l, "dir", p, p);
    }
    free_list(names, n);
    return rc;
}

int discover_manifest_digest(const char *text, size_t len, char hex[65]) {
    cJSON *j = cJSON_ParseWithLength(text, len);
    int rc = -1;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "layers")) {
        const cJSON *mt = cJSON_GetObjectItemCaseSensitive(e, "mediaType");
        const cJSON *dg = cJSON_GetObjectItemCaseSensitive(e, "digest");
        if (!cJSON_IsString(mt) || !cJSON_IsString(dg) || strcmp(mt->valuestring, "application/vnd.ollama.image.model"))
            continue;
        const char *d = dg->valuestring;
        if (strncmp(d, "sha256:", 7) != 0 || strlen(d + 7) != 64 || strspn(d + 7, "0123456789abcdef") != 64) break;
        memcpy(hex, d + 7, 65);
        rc = 0;
        break;
    }
    cJSON_Delete(j);
    return rc;
}

/* The blob a manifest names as the model (blobs/sha256-HEX), into blob. */
static int manifest_blob(const char *root, const char *manifest, char *blob, size_t cap) {
    char *text = NULL, hex[65];
    size_t len = 0;
    AvError err = {0};
    if (av_read_file(manifest, MANIFEST_MAX, &text, &len, &err)) return -1;
    int rc = discover_manifest_digest(text, len, hex);
    free(text);
    if (!rc) snprintf(blob, cap, "%s/blobs/sha256-%s", root, hex);
    return rc;
}

/* Ollama's name of manifests/HOST/NS/NAME/TAG: NAME:TAG for the library,
 * NS/NAME:TAG, or HOST/NS/NAME:TAG. */
static void ollama_name(char *out, size_t cap, const char *host, const char *ns, const char *name, const char *tag) {
    if (strcmp(host, "registry.ollama.ai") != 0) snprintf(out, cap, "ollama:%s/%s/%s:%s", host, ns, name, tag);
    else if (strcmp(ns, "library") != 0) snprintf(out, cap, "ollama:%s/%s:%s", ns, name, tag);
    else snprintf(out, cap, "ollama:%s:%s", name, tag);
}

static int walk_ollama(List *l) {
    char root[PATH_CAP], dir[4][PATH_CAP + 256];
    if (!home_path(root, sizeof root, "OLLAMA_MODELS", ".ollama/models")) return 0;
    snprintf(dir[0], sizeof dir[0], "%s/manifests", root);
    char **host, **ns, **name, **tag;
    int nh = list_dir(dir[0], &host), rc = 0;
    for (int a = 0; a < nh && !rc; a++) {
        snprintf(dir[1], sizeof dir[1], "%.600s/%.200s", dir[0], host[a]);
        int nn = list_dir(dir[1], &ns);
        for (int b = 0; b < nn && !rc; b++) {
            snprintf(dir[2], sizeof dir[2], "%.700s/%.100s", dir[1], ns[b]);
            int nm = list_dir(dir[2], &name);
            for (int c = 0; c < nm && !rc; c++) {
                snprintf(dir[3], sizeof dir[3], "%.800s/%.100s", dir[2], name[c]);
                int nt = list_dir(dir[3], &tag);
                for (int d = 0; d < nt && !rc; d++) {
                    char manifest[PATH_CAP + 512], blob[PATH_CAP + 128], shown[256];
                    snprintf(manifest, sizeof manifest, "%s/%s", dir[3], tag[d]);
                    if (!is_file(manifest) || manifest_blob(root, manifest, blob, sizeof blob)) continue;
                    ollama_name(shown, sizeof shown, host[a], ns[b], name[c], tag[d]);
                    rc = add(l, "ollama", shown, blob);
                }
                free_list(tag, nt);
            }
            free_list(name, nm);
        }
        free_list(ns, nn);
    }
    free_list(host, nh);
    return rc;
}

static int walk_lmstudio(List *l) {
    static const char *const roots[] = {".lmstudio/models", ".cache/lm-studio/models"};
    int rc = 0;
    for (int r = 0; r < 2 && !rc; r++) {
        char root[PATH_CAP];
        if (!home_path(root, sizeof root, NULL, roots[r]) || !is_dir(root)) continue;
        char **pub, **repo, **file;
        int np = list_dir(root, &pub);
        for (int a = 0; a < np && !rc; a++) {
            char d1[PATH_CAP + 256], d2[PATH_CAP + 512], p[PATH_CAP + 768];
            snprintf(d1, sizeof d1, "%s/%s", root, pub[a]);
            int nr = list_dir(d1, &repo);
            for (int b = 0; b < nr && !rc; b++) {
                snprintf(d2, sizeof d2, "%s/%s", d1, repo[b]);
                int nf = list_dir(d2, &file);
                for (int c = 0; c < nf && !rc; c++) {
                    snprintf(p, sizeof p, "%s/%s", d2, file[c]);
                    if (ends_with(file[c], ".gguf") && is_file(p)) rc = add(l, "lmstudio", p, p);
                }
                free_list(file, nf);
            }
            free_list(repo, nr);
        }
        free_list(pub, np);
    }
    return rc;
}

static int hf_hub(char *buf, size_t cap) {
    const char *cache = getenv("HF_HUB_CACHE"), *home = getenv("HF_HOME");
    if (cache && *cache) return snprintf(buf, cap, "%s", cache) > 0;
    if (home && *home) return snprintf(buf, cap, "%s/hub", home) > 0;
    return home_path(buf, cap, NULL, ".cache/huggingface/hub");
}

/* The snapshot of models--ORG--NAME: refs/main's, else the last by name. */
static int hf_snapshot(const char *repo, char *out, size_t cap) {
    char ref[PATH_CAP + 32], *text = NULL;
    size_t len = 0;
    AvError err = {0};
    snprintf(ref, sizeof ref, "%s/refs/main", repo);
    if (av_read_file(ref, 256, &text, &len, &err) == 0) {
        while (len && (text[len - 1] == '\n' || text[len - 1] == '\r')) len--;
        text[len] = '\0';
        int safe = len > 0 && !strchr(text, '/') && strcmp(text, "..") != 0;
        if (safe) snprintf(out, cap, "%s/snapshots/%s", repo, text);
        free(text);
        if (safe && is_dir(out)) return 0;
    }
    char snaps[PATH_CAP + 32], **revs;
    snprintf(snaps, sizeof snaps, "%s/snapshots", repo);
    int n = list_dir(snaps, &revs);
    if (n) snprintf(out, cap, "%s/%s", snaps, revs[n - 1]);
    free_list(revs, n);
    return n ? 0 : -1;
}

/* What of a snapshot --model opens: the folder (config.json), else its
 * first GGUF file. */
static int hf_target(const char *snap, char *out, size_t cap) {
    char cfg[PATH_CAP + 16], **names;
    snprintf(cfg, sizeof cfg, "%s/config.json", snap);
    if (is_file(cfg)) return snprintf(out, cap, "%s", snap), 0;
    int n = list_dir(snap, &names), rc = -1;
    for (int i = 0; i < n && rc; i++)
        if (ends_with(names[i], ".gguf")) rc = 0, snprintf(out, cap, "%s/%s", snap, names[i]);
    free_list(names, n);
    return rc;
}

static int walk_hf(List *l) {
    char hub[PATH_CAP], **repos;
    if (!hf_hub(hub, sizeof hub)) return 0;
    int n = list_dir(hub, &repos), rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        if (strncmp(repos[i], "models--", 8) != 0) continue;
        char repo[PATH_CAP + 256], snap[PATH_CAP + 512], target[PATH_CAP + 768], name[300];
        snprintf(repo, sizeof repo, "%s/%s", hub, repos[i]);
        if (hf_snapshot(repo, snap, sizeof snap) || hf_target(snap, target, sizeof target)) continue;
        /* models--ORG--NAME -> hf:ORG/NAME */
        const char *org = repos[i] + 8, *sep = strstr(org, "--");
        if (sep) snprintf(name, sizeof name, "hf:%.*s/%s", (int)(sep - org), org, sep + 2);
        else snprintf(name, sizeof name, "hf:%s", org);
        rc = add(l, "hf", name, target);
    }
    free_list(repos, n);
    return rc;
}

int discover_models(FoundModel **out, AvError *err) {
    List l = {0};
    const char *mine = getenv("ATTNVIZ_MODELS");
    int rc = (mine && *mine ? walk_dir(&l, mine, 1) : 0) || walk_ollama(&l) || walk_lmstudio(&l) || walk_hf(&l);
    if (rc) {
        free(l.v);
        *out = NULL;
        return av_error_nomem(err, _("out of memory listing the models"));
    }
    *out = l.v;
    return l.n;
}

void discover_places(char *buf, size_t cap) {
    char p[4][PATH_CAP];
    const char *mine = getenv("ATTNVIZ_MODELS");
    int n = 0;
    buf[0] = '\0';
    if (mine && *mine) snprintf(p[n++], sizeof p[0], "%s", mine);
    if (home_path(p[n], sizeof p[0], "OLLAMA_MODELS", ".ollama/models")) n++;
    if (home_path(p[n], sizeof p[0], NULL, ".lmstudio/models")) n++;
    if (hf_hub(p[n], sizeof p[0])) n++;
    for (int i = 0; i < n; i++) {
        char e[PATH_CAP];
        utf8_escape_into(e, sizeof e, p[i]);
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", i ? ", " : "", e);
    }
}

// ----------------------------------------------------------------------------
// names

/* A part of a name: letters, digits, . _ - (and not "." or ".."). */
static int name_part_ok(const char *s, size_t n) {
    if (n == 0 || (n <= 2 && strspn(s, ".") == n)) return 0;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] == '.' || s[i] == '_' || s[i] == '-' || (s[i] >= '0' && s[i] <= '9') ||
              (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
            return 0;
    return 1;
}

static int resolve_ollama(const char *spec, char *path, size_t cap, AvError *err) {
    char root[PATH_CAP], part[3][128] = {"registry.ollama.ai", "library", ""}, tag[128] = "latest";
    char shown[300];
    utf8_escape_into(shown, sizeof shown, spec);
    const char *colon = strrchr(spec, ':'), *slash = strrchr(spec, '/');
    size_t name_len = colon && (!slash || colon > slash) ? (size_t)(colon - spec) : strlen(spec);
    if (colon && (!slash || colon > slash)) {
        if (!name_part_ok(colon + 1, strlen(colon + 1)) || strlen(colon + 1) >= sizeof tag)
            return av_errorf(err, _("ollama:%s: not an Ollama name (NAME or NAME:TAG)"), shown);
        snprintf(tag, sizeof tag, "%s", colon + 1);
    }
    /* NAME, NS/NAME or HOST/NS/NAME */
    const char *p[3];
    size_t len[3];
    int parts = 0;
    for (const char *s = spec; parts < 3;) {
        const char *e = memchr(s, '/', name_len - (size_t)(s - spec));
        p[parts] = s, len[parts] = e ? (size_t)(e - s) : name_len - (size_t)(s - spec);
        parts++;
        if (!e) break;
        s = e + 1;
    }
    int whole = p[parts - 1] + len[parts - 1] == spec + name_len;
    for (int i = 0; i < parts; i++)
        if (!whole || !name_part_ok(p[i], len[i]) || len[i] >= sizeof part[0])
            return av_errorf(err, _("ollama:%s: not an Ollama name (NAME or NAME:TAG)"), shown);
    for (int i = 0; i < parts; i++) snprintf(part[3 - parts + i], sizeof part[0], "%.*s", (int)len[i], p[i]);
    if (!home_path(root, sizeof root, "OLLAMA_MODELS", ".ollama/models"))
        return av_errorf(err, _("ollama:%s: neither OLLAMA_MODELS nor HOME is set"), shown);
    char manifest[PATH_CAP + 600], where[PATH_CAP + 600];
    snprintf(manifest, sizeof manifest, "%s/manifests/%s/%s/%s/%s", root, part[0], part[1], part[2], tag);
    utf8_escape_into(where, sizeof where, manifest);
    if (!is_file(manifest)) return av_errorf(err, _("ollama:%s: not found (no manifest %s)"), shown, where);
    if (manifest_blob(root, manifest, path, cap))
        return av_errorf(err, _("ollama:%s: the manifest %s names no model layer"), shown, where);
    return 0;
}

static int resolve_hf(const char *spec, char *path, size_t cap, AvError *err) {
    char shown[300], hub[PATH_CAP], repo[PATH_CAP + 300], snap[PATH_CAP + 600], where[PATH_CAP + 600];
    utf8_escape_into(shown, sizeof shown, spec);
    const char *slash = strchr(spec, '/');
    if (!slash || !name_part_ok(spec, (size_t)(slash - spec)) || !name_part_ok(slash + 1, strlen(slash + 1)) ||
        strlen(spec) > 200)
        return av_errorf(err, _("hf:%s: not a Hugging Face name (ORG/NAME)"), shown);
    if (!hf_hub(hub, sizeof hub)) return av_errorf(err, _("hf:%s: neither HF_HOME nor HOME is set"), shown);
    snprintf(repo, sizeof repo, "%s/models--%.*s--%s", hub, (int)(slash - spec), spec, slash + 1);
    utf8_escape_into(where, sizeof where, repo);
    if (!is_dir(repo)) return av_errorf(err, _("hf:%s: not in the Hugging Face cache (no %s)"), shown, where);
    if (hf_snapshot(repo, snap, sizeof snap) || hf_target(snap, path, cap))
        return av_errorf(err, _("hf:%s: %s has no snapshot with config.json or a GGUF file"), shown, where);
    return 0;
}

int discover_resolve(const char *name, char *path, size_t cap, AvError *err) {
    if (strncmp(name, "ollama:", 7) == 0) return resolve_ollama(name + 7, path, cap, err);
    if (strncmp(name, "hf:", 3) == 0) return resolve_hf(name + 3, path, cap, err);
    return 1;
}
