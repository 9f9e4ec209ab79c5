/* atomicfile.c - see atomicfile.h. */
#define _POSIX_C_SOURCE 200809L
#include "atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "i18n.h"

const char *av_file_type_name(unsigned mode) {
    if (S_ISDIR(mode)) return _("a directory");
    if (S_ISFIFO(mode)) return _("a FIFO");
    if (S_ISCHR(mode)) return _("a character device");
    if (S_ISBLK(mode)) return _("a block device");
    if (S_ISSOCK(mode)) return _("a socket");
    if (S_ISLNK(mode)) return _("a symbolic link");
    return _("not a regular file");
}

/* The file to replace: `path` itself, or the final target of a symbolic
 * link (renaming over the link would turn it into a plain file). *target is
 * malloc'd; *exists says whether it is there already (then *st is its
 * status). Only a path that does not exist at all is a new file: a dangling
 * link is refused, since creating its target somewhere else surprises. */
static int resolve_target(const char *path, char **target, struct stat *st, int *exists, AvError *err) {
    *target = NULL;
    *exists = 0;
    struct stat lst;
    if (lstat(path, &lst) != 0) {
        if (errno != ENOENT) return av_errorf(err, "%s: %s", path, strerror(errno));
        *target = strdup(path);
        return *target ? 0 : av_error_nomem(err, _("%s: out of memory"), path);
    }
    if (S_ISLNK(lst.st_mode)) {
        if (stat(path, st) != 0) {
            if (errno == ENOENT)
                return av_errorf(err, _("%s: a symbolic link to a file that does not exist; not written"), path);
            return av_errorf(err, "%s: %s", path, strerror(errno));
        }
        if (!S_ISREG(st->st_mode))
            return av_errorf(err, _("%s: a symbolic link to %s, not a regular file; not written"), path,
                             av_file_type_name((unsigned)st->st_mode));
        *target = realpath(path, NULL);
        if (!*target) return av_errorf(err, _("%s: cannot resolve the symbolic link: %s"), path, strerror(errno));
    } else if (!S_ISREG(lst.st_mode)) {
        return av_errorf(err, _("%s: not a regular file (%s); not written"), path,
                         av_file_type_name((unsigned)lst.st_mode));
    } else {
        *st = lst;
        *target = strdup(path);
        if (!*target) return av_error_nomem(err, _("%s: out of memory"), path);
    }
    *exists = 1;
    return 0;
}

static int write_all(int fd, const char *p, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (n == 0) { /* a file system that takes nothing without saying why */
            errno = EIO;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Syncs the directory so that the rename itself survives a crash. File
 * systems that cannot sync a directory say EINVAL: nothing more to do. */
static int sync_dir(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    int saved = errno;
    close(fd);
    if (rc != 0 && saved == EINVAL) rc = 0;
    errno = saved;
    return rc;
}

int av_write_file_atomic(const char *path, const void *data, size_t len, AvError *err) {
    if (strcmp(path, "-") == 0) return av_errorf(err, _("standard input ('-') cannot be written"));
    char *target;
    struct stat st;
    int exists;
    if (resolve_target(path, &target, &st, &exists, err)) return -1;
    const char *slash = strrchr(target, '/');
    const char *base = slash ? slash + 1 : target;
    if (!*base) {
        free(target);
        return av_errorf(err, _("%s: names a directory, not a file"), path);
    }
    size_t dlen = slash ? (size_t)(slash - target) : 0;
    /* "dir/.name.XXXXXX": in the same directory (rename does not cross file
     * systems), hidden, and recognisable if a crash leaves it behind. */
    size_t tcap = dlen + strlen(base) + 16;
    char *tmp = malloc(tcap), *dir = malloc(dlen + 2);
    if (!tmp || !dir) {
        free(tmp), free(dir), free(target);
        return av_error_nomem(err, _("%s: out of memory"), path);
    }
    if (slash && dlen == 0) strcpy(dir, "/");
    else if (slash) snprintf(dir, dlen + 2, "%.*s", (int)dlen, target);
    else strcpy(dir, ".");
    if (slash) snprintf(tmp, tcap, "%.*s/.%s.XXXXXX", (int)dlen, target, base);
    else snprintf(tmp, tcap, ".%s.XXXXXX", base);

    int rc = -1, fd = mkstemp(tmp);
    if (fd < 0) {
        av_error_io(err, _("%s: cannot create a temporary file in %s: %s"), path, dir, strerror(errno));
        goto out;
    }
    mode_t mode;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    const char *step = N_("cannot write");
    if (write_all(fd, data, len)) goto fail;
    step = N_("cannot sync");
    if (fsync(fd)) goto fail;
    step = N_("cannot set the mode");
    if (fchmod(fd, mode)) goto fail;
    /* As root, keep the old owner; elsewhere this fails and the file is ours,
     * as with any editor that writes a new file. */
    if (exists && (st.st_uid != geteuid() || st.st_gid != getegid()) && fchown(fd, st.st_uid, st.st_gid) != 0) {
        /* not an error: the content is what matters */
    }
    step = N_("cannot write");
    int closed = close(fd);
    fd = -1;
    if (closed) goto fail;
    step = N_("cannot replace");
    if (rename(tmp, target)) goto fail;
    if (sync_dir(dir)) {
        av_error_io(err, _("%s: written, but its directory %s could not be synced: %s"), path, dir, strerror(errno));
        goto out;
    }
    rc = 0;
    goto out;
fail : {
    int saved = errno;
    if (fd >= 0) close(fd);
    unlink(tmp);
    av_error_io(err, "%s: %s: %s (%s)", path, _(step), strerror(saved),
                exists ? _("the old file is unchanged") : _("nothing written"));
}
out:
    free(tmp);
    free(dir);
    free(target);
    return rc;
}
