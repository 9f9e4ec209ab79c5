/* gfx.c - see gfx.h. */
#include "gfx.h"
#include "i18n.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

GfxFunctions gfx_fn;

enum {
#define GFX_LIB_ID(id, soname, package) id,
    GFX_LIBRARIES(GFX_LIB_ID)
#undef GFX_LIB_ID
        GFX_N_LIBS
};

static const struct {
    const char *soname, *package;
} libs[GFX_N_LIBS] = {
#define GFX_LIB_ROW(id, soname, package) [id] = {soname, package},
    GFX_LIBRARIES(GFX_LIB_ROW)
#undef GFX_LIB_ROW
};

/* Where each pointer of gfx_fn goes: dlsym gives a void *, which POSIX lets
 * us store in a function pointer of the same size (ISO C has no cast for it). */
static const struct {
    int lib;
    const char *name;
    size_t offset;
} functions[] = {
#define GFX_FN_ROW(lib, name) {lib, #name, offsetof(GfxFunctions, name)},
    GFX_FUNCTIONS(GFX_FN_ROW)
#undef GFX_FN_ROW
};

_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym's void * holds a function pointer");

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_rc;      /* 0 or -1: what every gfx_load returns */
static AvError load_err; /* the message when load_rc is -1 */

/* The first gfx_load's work (pthread_once). On failure gfx_fn stays empty
 * and the libraries already opened stay loaded, unused: dlclose would unmap
 * what their constructors allocated and registered (glib's types), and
 * LeakSanitizer then reports it from an unknown module. */
static void load(void) {
    const char *missing = getenv("ATTNVIZ_GFX_MISSING"); /* the test knob (gfx.h) */
    void *handle[GFX_N_LIBS] = {0};
    int lib = 0, faked = 0;
    for (; lib < GFX_N_LIBS; lib++) {
        if ((faked = missing && strcmp(missing, libs[lib].soname) == 0)) break;
        if (!(handle[lib] = dlopen(libs[lib].soname, RTLD_NOW | RTLD_LOCAL))) break;
    }
    if (lib < GFX_N_LIBS) {
        const char *why = faked ? NULL : dlerror();
        size_t n = strlen(libs[lib].soname);
        /* dlerror names the file it could not open: this one, or one it needs */
        if (!why || (strncmp(why, libs[lib].soname, n) == 0 && why[n] == ':'))
            load_rc = av_errorf(&load_err, _("cannot draw the picture: %s is missing (install the Debian package %s)"),
                                libs[lib].soname, libs[lib].package);
        else
            load_rc = av_errorf(&load_err, _("cannot draw the picture: %s does not load (the Debian package %s): %s"),
                                libs[lib].soname, libs[lib].package, why);
    } else {
        for (size_t i = 0; i < sizeof functions / sizeof *functions; i++) {
            void *sym = dlsym(handle[functions[i].lib], functions[i].name);
            if (!sym) {
                load_rc =
                    av_errorf(&load_err, _("cannot draw the picture: %s has no %s (upgrade the Debian package %s)"),
                              libs[functions[i].lib].soname, functions[i].name, libs[functions[i].lib].package);
                memset(&gfx_fn, 0, sizeof gfx_fn);
                break;
            }
            memcpy((char *)&gfx_fn + functions[i].offset, &sym, sizeof sym);
        }
    }
}

int gfx_load(AvError *err) {
    pthread_once(&load_once, load);
    if (load_rc && err) *err = load_err;
    return load_rc;
}
