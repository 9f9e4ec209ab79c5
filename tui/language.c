/* language.c - see language.h. */
#define _GNU_SOURCE
#include "language.h"

#include <langinfo.h>
#include <libintl.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "i18n.h"

#ifndef LOCALEDIR
#define LOCALEDIR "/usr/local/share/locale"
#endif

static const char *current = "en";

const char *language_current(void) { return current; }

const char *language_from_env(void) {
    static const char *const vars[] = {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && v[0]) return strncmp(v, "ko", 2) == 0 ? "ko" : "en";
    }
    return "en";
}

/* 1 when DIR/ko/LC_MESSAGES/attnviz.mo is a file. */
static int has_catalogue(const char *dir) {
    char path[PATH_MAX + 64];
    struct stat st;
    snprintf(path, sizeof path, "%s/ko/LC_MESSAGES/" ATTNVIZ_DOMAIN ".mo", dir);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *language_localedir(void) {
    static char dir[PATH_MAX + 32];
    const char *env = getenv("ATTNVIZ_LOCALEDIR");
    if (env && env[0]) return has_catalogue(env) ? env : NULL;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        /* ./attnviz at the root of the source tree; build/release/attnviz;
         * build/release/tests/test_*; PREFIX/bin/attnviz */
        static const char *const rel[] = {"/build/locale", "/../locale", "/../../locale", "/../share/locale"};
        for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
            snprintf(dir, sizeof dir, "%s%s", exe, rel[i]);
            if (has_catalogue(dir)) return dir;
        }
    }
    return has_catalogue(LOCALEDIR) ? LOCALEDIR : NULL;
}

/* The locale the environment names for a category (LC_ALL, then the
 * category's variable, then LANG), or NULL. */
static const char *asked_locale(const char *category) {
    const char *v = getenv("LC_ALL");
    if (v && v[0]) return v;
    if ((v = getenv(category)) && v[0]) return v;
    if ((v = getenv("LANG")) && v[0]) return v;
    return NULL;
}

static int is_utf8_name(const char *name) { return name && (strcasestr(name, "utf-8") || strcasestr(name, "utf8")); }

void language_setup(const char *lang, LanguageSetup *out) {
    memset(out, 0, sizeof *out);
    const char *asked = asked_locale("LC_CTYPE");
    int missing = 0;
    if (!setlocale(LC_ALL, "")) {
        /* One of the names is not installed: glibc changed nothing. */
        missing = is_utf8_name(asked);
        if (!setlocale(LC_ALL, "C.UTF-8")) setlocale(LC_ALL, "C");
    }
    const char *cs = nl_langinfo(CODESET);
    if (!(cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0))) {
        if (!setlocale(LC_CTYPE, "C.UTF-8")) setlocale(LC_CTYPE, "en_US.UTF-8");
        out->ascii = !missing;
    }
    current = lang && strcmp(lang, "ko") == 0 ? "ko" : lang ? "en" : language_from_env();
    /* gettext reads LANGUAGE first; in the "C" locale it reads nothing. */
    setenv("LANGUAGE", current, 1);
    const char *msgs = setlocale(LC_MESSAGES, NULL);
    if (msgs && (strcmp(msgs, "C") == 0 || strcmp(msgs, "POSIX") == 0) && strcmp(current, "en") != 0)
        setlocale(LC_MESSAGES, "C.UTF-8");
    const char *dir = language_localedir();
    if (dir) bindtextdomain(ATTNVIZ_DOMAIN, dir);
    bind_textdomain_codeset(ATTNVIZ_DOMAIN, "UTF-8");
    if (missing)
        snprintf(out->note, sizeof out->note,
                 _("the locale %s is not installed; using C.UTF-8 (locale -a lists those that are)"), asked);
}
