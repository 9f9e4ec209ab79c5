/* hftok_json.c - reading a tokenizer.json (its model, added tokens and
 * the components of hftok_parts.c) and GPT-2's vocab.json + merges.txt.
 * Nothing is taken on trust: every id in range, every string valid UTF-8,
 * every merge's pieces in the vocabulary, a BPE model with its merges. */
#include "hftok_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "readfile.h"
#include "utf8.h"
#include "jsonkeys.h"

/* The key of a vocabulary entry, checked: valid UTF-8. */
static int check_key(const cJSON *e, const char *file, const char *where, AvError *err) {
    return hftok_check_utf8(e->string, strlen(e->string), file, where, err);
}

/* The ids of the vocabulary and the added tokens, checked (in range, keys
 * and contents valid UTF-8): the largest in *top. */
static int check_ids(const cJSON *vocab, const cJSON *added, const char *file, long *top, AvError *err) {
    /* Ids are dense in real files: a bound on the largest keeps a hostile
     * one from asking for gigabytes. */
    int count = cJSON_GetArraySize(vocab) + (added ? cJSON_GetArraySize(added) : 0);
    long max_id = 2L * count + 1024;
    *top = -1;
    const cJSON *e;
    cJSON_ArrayForEach(e, vocab) {
        long id = hftok_json_int(e, max_id);
        if (check_key(e, file, "model.vocab key", err)) return -1;
        if (id < 0) {
            char *k = utf8_escape(e->string, strlen(e->string));
            av_errorf(err, _("%s: model.vocab[\"%s\"] is not an id (an integer from 0 to %ld)"), file, k ? k : "",
                      max_id);
            free(k);
            return -1;
        }
        if (id > *top) *top = id;
    }
    int i = 0;
    cJSON_ArrayForEach(e, added) {
        long id = hftok_json_int(cJSON_GetObjectItemCaseSensitive(e, "id"), max_id);
        const char *c = hftok_json_str(e, "content");
        if (id < 0 || !c || !*c)
            return av_errorf(err, _("%s: added_tokens[%d] has no id (0 to %ld) or no content"), file, i, max_id);
        char where[64];
        snprintf(where, sizeof where, "added_tokens[%d].content", i);
        if (hftok_check_utf8(c, strlen(c), file, where, err)) return -1;
        if (id > *top) *top = id;
        i++;
    }
    if (*top < 0) return av_errorf(err, _("%s: model.vocab is empty"), file);
    return 0;
}

/* The added tokens as the file lists them (their flags: the tokenizers
 * library's defaults when missing: normalized unless special). */
static int read_added(HfTok *t, const cJSON *added, const char *file, AvError *err) {
    int n_added = added ? cJSON_GetArraySize(added) : 0;
    if (n_added && !(t->added = calloc((size_t)n_added, sizeof *t->added)))
        return av_error_nomem(err, _("%s: out of memory"), file);
    const cJSON *e;
    cJSON_ArrayForEach(e, added) {
        int id = (int)cJSON_GetObjectItemCaseSensitive(e, "id")->valuedouble;
        const char *c = hftok_json_str(e, "content");
        size_t len = strlen(c);
        if (hftok_set_token(t, id, c, len, file, err)) return -1;
        int special = hftok_json_flag(e, "special");
        t->special[id] = special ? 3 : 2; /* 2 and 3: added; 3: special */
        Added *a = &t->added[t->n_added];
        if (!(a->text = hftok_dup(c, len))) return av_error_nomem(err, _("%s: out of memory"), file);
        const cJSON *norm = cJSON_GetObjectItemCaseSensitive(e, "normalized");
        a->id = id, a->len = len;
        a->single_word = (unsigned char)hftok_json_flag(e, "single_word");
        a->lstrip = (unsigned char)hftok_json_flag(e, "lstrip");
        a->rstrip = (unsigned char)hftok_json_flag(e, "rstrip");
        a->normalized = (unsigned char)(cJSON_IsBool(norm) ? cJSON_IsTrue(norm) : !special);
        t->n_added++;
    }
    return 0;
}

/* The merges of a tokenizer.json: "left right" or ["left", "right"] each. */
static int read_merges(HfTok *t, const cJSON *merges, const char *file, AvError *err) {
    if (!merges || cJSON_IsNull(merges))
        return av_errorf(err, _("%s: model.merges is %s: a BPE model needs its list of merges"), file,
                         merges ? "null" : "missing");
    if (hftok_alloc_pairs(t, (size_t)cJSON_GetArraySize(merges), file, err)) return -1;
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, merges) {
        char where[48];
        snprintf(where, sizeof where, "model.merges[%d]", i);
        const char *l = NULL, *r = NULL;
        size_t ln = 0, rn = 0;
        if (cJSON_IsString(e)) { /* "left right" */
            if (hftok_check_utf8(e->valuestring, strlen(e->valuestring), file, where, err)) return -1;
            const char *sp = strchr(e->valuestring, ' ');
            if (sp && sp != e->valuestring && sp[1] && !strchr(sp + 1, ' '))
                l = e->valuestring, ln = (size_t)(sp - l), r = sp + 1, rn = strlen(r);
        } else if (cJSON_IsArray(e) && cJSON_GetArraySize(e) == 2 && cJSON_IsString(cJSON_GetArrayItem(e, 0)) &&
                   cJSON_IsString(cJSON_GetArrayItem(e, 1))) { /* ["left", "right"] */
            l = cJSON_GetArrayItem(e, 0)->valuestring, ln = strlen(l);
            r = cJSON_GetArrayItem(e, 1)->valuestring, rn = strlen(r);
            char w[64];
            snprintf(w, sizeof w, "%s[0]", where);
            if (hftok_check_utf8(l, ln, file, w, err)) return -1;
            snprintf(w, sizeof w, "%s[1]", where);
            if (hftok_check_utf8(r, rn, file, w, err)) return -1;
        }
        if (!l) return av_errorf(err, _("%s: %s is not \"left right\" or [\"left\", \"right\"]"), file, where);
        if (hftok_add_merge(t, l, ln, r, rn, i, file, where, err)) return -1;
        i++;
    }
    return 0;
}

static HfTok *parse_json_tok(const cJSON *root, const char *file, AvError *err) {
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    if (!cJSON_IsObject(model))
        return av_errorf(err, _("%s: model is %s, not an object"), file, hftok_json_type(model)), NULL;
    const char *type = hftok_json_str(model, "type");
    if (type && strcmp(type, "BPE") != 0) {
        char name[64];
        utf8_escape_into(name, sizeof name, type);
        return av_errorf(err, _("%s: model.type %s is not supported (BPE is)"), file, name), NULL;
    }
    const cJSON *vocab = cJSON_GetObjectItemCaseSensitive(model, "vocab");
    const cJSON *merges = cJSON_GetObjectItemCaseSensitive(model, "merges");
    if (!cJSON_IsObject(vocab))
        return av_errorf(err, _("%s: model.vocab is %s, not an object"), file, hftok_json_type(vocab)), NULL;
    if (merges && !cJSON_IsArray(merges) && !cJSON_IsNull(merges))
        return av_errorf(err, _("%s: model.merges is %s, not an array"), file, hftok_json_type(merges)), NULL;
    const char *cont[] = {"continuing_subword_prefix", "end_of_word_suffix"};
    for (int i = 0; i < 2; i++) {
        const char *s = hftok_json_str(model, cont[i]);
        if (s && *s) return av_errorf(err, _("%s: model.%s is not supported"), file, cont[i]), NULL;
    }
    const cJSON *added = cJSON_GetObjectItemCaseSensitive(root, "added_tokens");
    if (added && !cJSON_IsArray(added) && !cJSON_IsNull(added))
        return av_errorf(err, _("%s: added_tokens is %s, not an array"), file, hftok_json_type(added)), NULL;
    if (cJSON_IsNull(added)) added = NULL;
    long top;
    if (check_ids(vocab, added, file, &top, err)) return NULL;

    HfTok *t = calloc(1, sizeof *t);
    if (!t) return av_error_nomem(err, _("%s: out of memory"), file), NULL;
    t->unk = -1;
    hftok_byte_table(t->byte_cp, t->cp_byte);
    if (hftok_alloc_ids(t, (int)top + 1, file, err)) goto fail;
    const cJSON *e;
    cJSON_ArrayForEach(e, vocab) {
        if (hftok_set_token(t, (int)e->valuedouble, e->string, strlen(e->string), file, err)) goto fail;
    }
    if (read_added(t, added, file, err)) goto fail;
    if (hftok_parse_normalizer(t, cJSON_GetObjectItemCaseSensitive(root, "normalizer"), file, "normalizer", err))
        goto fail;
    if (hftok_parse_pre_tokenizer(t, cJSON_GetObjectItemCaseSensitive(root, "pre_tokenizer"), file, "pre_tokenizer", 0,
                                  err))
        goto fail;
    if (t->metaspace && t->byte_level) {
        av_errorf(err, _("%s: pre_tokenizer: Metaspace with ByteLevel is not supported"), file);
        goto fail;
    }
    if (hftok_parse_post(t, cJSON_GetObjectItemCaseSensitive(root, "post_processor"), file, "post_processor", 0, err))
        goto fail;
    /* A SentencePiece-style vocabulary without a Metaspace pre-tokenizer
     * (Llama 2: Prepend and Replace normalizers) still spells spaces "▁". */
    if (!t->byte_level && !t->ms_repl && !(t->ms_repl = hftok_dup(HFTOK_METASPACE, 3))) {
        av_error_nomem(err, _("%s: out of memory"), file);
        goto fail;
    }
    t->byte_fallback = hftok_json_flag(model, "byte_fallback");
    t->fuse_unk = hftok_json_flag(model, "fuse_unk");
    t->ignore_merges = hftok_json_flag(model, "ignore_merges");
    if (hftok_make_raw(t, file, err) || hftok_build_map(t, file, err)) goto fail;
    const char *unk = hftok_json_str(model, "unk_token");
    if (unk) {
        t->unk = hftok_lookup(t, unk, strlen(unk));
        if (t->unk < 0) {
            char u[64];
            utf8_escape_into(u, sizeof u, unk);
            av_errorf(err, _("%s: model.unk_token \"%s\" is not in the vocabulary"), file, u);
            goto fail;
        }
    }
    hftok_find_symbols(t);
    if (read_merges(t, merges, file, err) || hftok_build_added(t, file, err)) goto fail;
    return t;
fail:
    hftok_free(t);
    return NULL;
}

static cJSON *parse_json(const char *json, size_t len, const char *file, const char *what, AvError *err) {
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    if (!root) {
        size_t at = end && end >= json && end <= json + len ? (size_t)(end - json) : 0;
        size_t line = 1;
        for (size_t k = 0; k < at; k++) line += json[k] == '\n';
        av_errorf(err, _("%s: not valid JSON (line %zu, byte %zu of %zu)"), file, line, at, len);
        return NULL;
    }
    if (!cJSON_IsObject(root)) {
        av_errorf(err, _("%s: %s is %s, not a JSON object"), file, what, hftok_json_type(root));
        cJSON_Delete(root);
        return NULL;
    }
    if (json_unique_keys(root, file, err)) { /* cJSON would keep the first of two values */
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

HfTok *hftok_parse(const char *json, size_t len, const char *name, AvError *err) {
    char file[HFTOK_NAME];
    utf8_escape_into(file, sizeof file, name ? name : "tokenizer.json");
    /* TRANSLATORS: the second %s of "%s: %s is %s, not a JSON object" */
    cJSON *root = parse_json(json, len, file, _("the file"), err);
    if (!root) return NULL;
    HfTok *t = parse_json_tok(root, file, err);
    cJSON_Delete(root);
    return t;
}

HfTok *hftok_open(const char *path, AvError *err) {
    char *buf;
    size_t len;
    if (av_read_file(path, HFTOK_MAX_BYTES, &buf, &len, err)) return NULL;
    HfTok *t = hftok_parse(buf, len, path, err);
    free(buf);
    return t;
}

// ----------------------------------------------------------------------------
// GPT-2's vocab.json + merges.txt

HfTok *hftok_parse_gpt2(const char *vocab, size_t vocab_len, const char *vocab_name, const char *merges,
                        size_t merges_len, const char *merges_name, AvError *err) {
    char vfile[HFTOK_NAME], mfile[HFTOK_NAME];
    utf8_escape_into(vfile, sizeof vfile, vocab_name ? vocab_name : "vocab.json");
    utf8_escape_into(mfile, sizeof mfile, merges_name ? merges_name : "merges.txt");
    /* TRANSLATORS: the second %s of "%s: %s is %s, not a JSON object" */
    cJSON *root = parse_json(vocab, vocab_len, vfile, _("the vocabulary"), err);
    if (!root) return NULL;
    HfTok *t = NULL;
    int count = cJSON_GetArraySize(root);
    long max_id = 2L * count + 1024, top = -1;
    const cJSON *e;
    cJSON_ArrayForEach(e, root) {
        long id = hftok_json_int(e, max_id);
        if (check_key(e, vfile, "key", err)) goto fail;
        if (id < 0) {
            char *k = utf8_escape(e->string, strlen(e->string));
            av_errorf(err, _("%s: \"%s\" is not an id (an integer from 0 to %ld)"), vfile, k ? k : "", max_id);
            free(k);
            goto fail;
        }
        if (id > top) top = id;
    }
    if (top < 0) {
        av_errorf(err, _("%s: the vocabulary is empty"), vfile);
        goto fail;
    }
    if (!(t = calloc(1, sizeof *t))) {
        av_error_nomem(err, _("%s: out of memory"), vfile);
        goto fail;
    }
    t->unk = -1;
    t->byte_level = 1;
    hftok_byte_table(t->byte_cp, t->cp_byte);
    if (hftok_alloc_ids(t, (int)top + 1, vfile, err)) goto fail;
    cJSON_ArrayForEach(e, root) {
        if (hftok_set_token(t, (int)e->valuedouble, e->string, strlen(e->string), vfile, err)) goto fail;
    }
    if (hftok_compile_split(t, HFTOK_GPT2_PATTERN, vfile, "pattern", err) || hftok_make_raw(t, vfile, err)) goto fail;
    /* <|endoftext|> is special, as GPT2Tokenizer has it. */
    for (int id = 0; id < t->n; id++)
        if (t->form[id] && strcmp(t->form[id], "<|endoftext|>") == 0) {
            t->added = calloc(1, sizeof *t->added);
            if (!t->added || !(t->added[0].text = hftok_dup(t->form[id], t->form_len[id]))) {
                av_error_nomem(err, _("%s: out of memory"), vfile);
                goto fail;
            }
            t->added[0].id = id, t->added[0].len = t->form_len[id];
            t->n_added = 1;
            t->special[id] = 3;
            break;
        }
    if (hftok_build_map(t, vfile, err)) goto fail;
    hftok_find_symbols(t);
    size_t lines = 1;
    for (size_t k = 0; k < merges_len; k++) lines += merges[k] == '\n';
    if (hftok_alloc_pairs(t, lines, mfile, err)) goto fail;
    int rank = 0;
    size_t line = 0;
    for (size_t at = 0; at < merges_len;) {
        const char *s = merges + at, *nl = memchr(s, '\n', merges_len - at);
        size_t n = nl ? (size_t)(nl - s) : merges_len - at;
        at += n + (nl != NULL);
        line++;
        if (n && s[n - 1] == '\r') n--;
        if (n == 0 || (line == 1 && n >= 8 && memcmp(s, "#version", 8) == 0)) continue;
        const char *sp = memchr(s, ' ', n);
        char where[32];
        snprintf(where, sizeof where, _("line %zu"), line);

        if (hftok_check_utf8(s, n, mfile, where, err)) goto fail;
        if (!sp || sp == s || sp + 1 == s + n || memchr(sp + 1, ' ', (size_t)(s + n - sp - 1))) {
            av_errorf(err, _("%s: %s is not \"left right\""), mfile, where);
            goto fail;
        }
        if (hftok_add_merge(t, s, (size_t)(sp - s), sp + 1, (size_t)(s + n - sp - 1), rank++, mfile, where, err))
            goto fail;
    }
    if (hftok_build_added(t, vfile, err)) goto fail;
    cJSON_Delete(root);
    return t;
fail:
    cJSON_Delete(root);
    hftok_free(t);
    return NULL;
}

HfTok *hftok_open_gpt2(const char *vocab_json, const char *merges_txt, AvError *err) {
    char *v = NULL, *m = NULL;
    size_t vn, mn;
    HfTok *t = NULL;
    if (av_read_file(vocab_json, HFTOK_MAX_BYTES, &v, &vn, err) == 0 &&
        av_read_file(merges_txt, HFTOK_MAX_BYTES, &m, &mn, err) == 0)
        t = hftok_parse_gpt2(v, vn, vocab_json, m, mn, merges_txt, err);
    free(v);
    free(m);
    return t;
}
