/* filemap.c - see filemap.h. A fixed table: adding, removing and checking
 * take a mutex; the signal handler's lookup reads each slot's `used` flag
 * (published after the slot is filled, cleared before it is reused) and
 * nothing else that could change under it. */
#define _POSIX_C_SOURCE 200809L
#include "filemap.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "i18n.h"
#include "utf8.h"

typedef struct {
    atomic_int used;       /* 1: the fields below are set and the mapping is live */
    uintptr_t start;       /* the mapping [start, start + len) */
    size_t len;            /* the file's size when mapped */
    size_t span;           /* the mapping's length: len rounded up to whole pages */
    int fd;                /* kept open: fstat of the very file that is mapped */
    struct timespec mtime; /* its modification time when mapped */
    char name[FILEMAP_NAME_MAX];
} Slot;

static Slot slots[FILEMAP_MAX];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* A lookup from a signal handler must not need a lock. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic_int must be lock-free");

static void watch(const void *map, size_t len, int fd, const struct stat *st, const char *name) {
    pthread_mutex_lock(&lock);
    for (int i = 0; i < FILEMAP_MAX; i++) {
        Slot *s = &slots[i];
        if (atomic_load_explicit(&s->used, memory_order_relaxed)) continue;
        long page = sysconf(_SC_PAGESIZE);
        s->start = (uintptr_t)map, s->len = len, s->fd = fd, s->mtime = st->st_mtim;
        s->span = page > 0 ? (len + (size_t)page - 1) / (size_t)page * (size_t)page : len;
        utf8_escape_into(s->name, sizeof s->name, name);
        atomic_store_explicit(&s->used, 1, memory_order_release);
        fd = -1;
        break;
    }
    pthread_mutex_unlock(&lock);
    if (fd >= 0) close(fd); /* the table is full: mapped, not watched */
}

const void *filemap_open(const char *path, size_t min, const char *what, size_t *len, AvError *err) {
    char safe[200];
    utf8_escape_into(safe, sizeof safe, path);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return av_errorf(err, _("%s: cannot open: %s"), safe, strerror(errno)), NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int saved = errno;
        close(fd);
        return av_errorf(err, _("%s: cannot open: %s"), safe, strerror(saved)), NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        if (S_ISDIR(st.st_mode)) return av_errorf(err, _("%s: is a directory, not a file"), safe), NULL;
        return av_errorf(err, _("%s: not a regular file (%s)"), safe, av_file_type_name((unsigned)st.st_mode)), NULL;
    }
    if ((uintmax_t)st.st_size > SIZE_MAX) {
        close(fd);
        return av_errorf(err, _("%s: %jd bytes, too large to map"), safe, (intmax_t)st.st_size), NULL;
    }
    size_t size = (size_t)st.st_size;
    if (size < min || size == 0) {
        close(fd);
        return av_errorf(err, _("%s: %zu bytes, too short for %s"), safe, size, what), NULL;
    }
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
        int saved = errno;
        close(fd);
        return av_error_io(err, _("%s: cannot map: %s"), safe, strerror(saved)), NULL;
    }
    watch(map, size, fd, &st, path);
    *len = size;
    return map;
}

void filemap_close(const void *map, size_t len) {
    if (!map) return;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < FILEMAP_MAX; i++) {
        Slot *s = &slots[i];
        if (!atomic_load_explicit(&s->used, memory_order_relaxed) || s->start != (uintptr_t)map) continue;
        atomic_store_explicit(&s->used, 0, memory_order_release);
        close(s->fd);
        break;
    }
    pthread_mutex_unlock(&lock);
    munmap((void *)(uintptr_t)map, len);
}

int filemap_check(AvError *err) {
    int rc = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < FILEMAP_MAX && rc == 0; i++) {
        const Slot *s = &slots[i];
        if (!atomic_load_explicit(&s->used, memory_order_relaxed)) continue;
        struct stat st;
        if (fstat(s->fd, &st) != 0)
            rc = av_errorf(err, _("%s: the model file changed while in use (cannot look at it: %s)"), s->name,
                           strerror(errno));
        else if ((uintmax_t)st.st_size != (uintmax_t)s->len)
            rc = av_errorf(err, _("%s: the model file changed while in use (now %jd bytes, %zu when opened)"), s->name,
                           (intmax_t)st.st_size, s->len);
        else if (st.st_mtim.tv_sec != s->mtime.tv_sec || st.st_mtim.tv_nsec != s->mtime.tv_nsec)
            rc = av_errorf(err, _("%s: the model file changed while in use (rewritten since it was opened)"), s->name);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

const char *filemap_name_at(const void *addr) {
    uintptr_t a = (uintptr_t)addr;
    for (int i = 0; i < FILEMAP_MAX; i++) {
        const Slot *s = &slots[i];
        if (!atomic_load_explicit(&s->used, memory_order_acquire)) continue;
        if (a >= s->start && a - s->start < s->span) return s->name;
    }
    return NULL;
}
