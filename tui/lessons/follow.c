/* follow.c - see follow.h: the sockets of the publisher and the follower,
 * and the screen loop's hooks. The blocks they carry are made, read and
 * applied in follow_block.c. */
#define _GNU_SOURCE /* accept4, SOCK_NONBLOCK, SOCK_CLOEXEC */
#include "follow.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "app_internal.h"
#include "i18n.h"
#include "keymap.h"
#include "utf8.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

// ----------------------------------------------------------------------------
// the sockets

typedef struct {
    int fd;
    char *out;          /* owned: what is left of a block its socket did not take at once, or NULL */
    size_t out_len, at; /* its length, and what of it is sent */
} Peer;

struct Follow {
    int publisher;           /* 1: --publish; 0: --follow */
    struct sockaddr_un addr; /* PATH */
    char shown[256];         /* PATH escaped, for messages */
    char note[AV_ERR_MAX];   /* a message for the app's line ("": none), said when the app is ours */
    int note_error;          /* it reports an error */
    /* the publisher */
    int listen_fd;
    int mode;  /* of the socket file */
    dev_t dev; /* the socket file made: removed at the end only when it is still ours */
    ino_t ino;
    Peer peer[FOLLOW_MAX_FOLLOWERS]; /* the followers */
    int n_peer;
    char *block; /* owned: the state last published */
    size_t block_len;
    int too_large;               /* the state is past the limits: said once, not published */
    double accept_paused_until;  /* out of descriptors: accept waits until then */
    int started;                 /* "publishing at ..." said */
    int poll_listen, poll_peers; /* where follow_poll_fds put the listening socket (-1: not) and the peers */
    /* the follower */
    int fd;               /* the connection to the teacher, or -1 */
    int attached;         /* following: the teacher's blocks are applied */
    int detach_note;      /* a key just detached: follow_input_done says so */
    FollowReader *reader; /* owned: the stream of this connection */
    FollowBlock latest;   /* the teacher's last valid block */
    int has_latest;
    int latest_new;  /* not applied yet */
    double retry_at; /* when to connect again (following, not connected); 0: not */
    int polled_fd;   /* follow_poll_fds gave the follower's socket */
};

static void say(Follow *f, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(Follow *f, int error, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->note, sizeof f->note, fmt, ap);
    va_end(ap);
    f->note_error = error;
}

/* The message waiting, on the app's line: 1 when there was one. */
static int flush_say(Follow *f, App *a) {
    if (!f->note[0]) return 0;
    app_say(a, f->note_error, "%s", f->note);
    f->note[0] = '\0';
    return 1;
}

static const char *dash(const App *a) { return a->ascii ? "-" : "\xe2\x80\x94"; }

int follow_is_follower(const Follow *f) { return f && !f->publisher; }

// ----------------------------------------------------------------------------
// the publisher

/* The socket file at PATH, listening: a dead socket there is replaced,
 * anything else refused. 0, or -1 with err. */
static int pub_listen(Follow *f, AvError *err) {
    const char *path = f->addr.sun_path;
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode))
            return av_errorf(err, _("--publish: %s exists and is not a socket (choose another PATH)"), f->shown);
        /* Someone listening there? A dead socket refuses the connection. */
        int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (probe < 0) return av_error_io(err, _("--publish: cannot make a socket: %s"), strerror(errno));
        int rc = connect(probe, (const struct sockaddr *)&f->addr, sizeof f->addr), e = errno;
        close(probe);
        if (rc == 0 || e == EAGAIN || e == EINPROGRESS)
            return av_errorf(err, _("--publish: %s: another attnviz (or another program) listens there"), f->shown);
        if (e != ECONNREFUSED) return av_errorf(err, _("--publish: %s: %s"), f->shown, strerror(e));
        if (unlink(path) != 0)
            return av_errorf(err, _("--publish: cannot replace the dead socket %s: %s"), f->shown, strerror(errno));
    } else if (errno != ENOENT) {
        return av_errorf(err, _("--publish: %s: %s"), f->shown, strerror(errno));
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return av_error_io(err, _("--publish: cannot make a socket: %s"), strerror(errno));
    /* Never wider than 0600, even before the chmod. */
    mode_t old = umask(0177);
    int rc = bind(fd, (const struct sockaddr *)&f->addr, sizeof f->addr), e = errno;
    umask(old);
    if (rc != 0) {
        close(fd);
        return av_errorf(err, _("--publish: cannot make the socket %s: %s"), f->shown, strerror(e));
    }
    if (chmod(path, (mode_t)f->mode) != 0 || lstat(path, &st) != 0 || listen(fd, SOMAXCONN) != 0) {
        e = errno;
        unlink(path);
        close(fd);
        return av_error_io(err, _("--publish: %s: %s"), f->shown, strerror(e));
    }
    f->dev = st.st_dev, f->ino = st.st_ino;
    f->listen_fd = fd;
    return 0;
}

static void peer_drop(Follow *f, int i) {
    close(f->peer[i].fd);
    free(f->peer[i].out);
    f->peer[i] = f->peer[--f->n_peer];
}

/* Writes what the socket takes now; 0, or -1 when the follower is gone. */
static int peer_write(Peer *q, const char *p, size_t n, size_t *done) {
    *done = 0;
    while (*done < n) {
        ssize_t w = send(q->fd, p + *done, n - *done, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) *done += (size_t)w;
        else if (w < 0 && errno == EINTR) continue;
        else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
        else return -1;
    }
    return 0;
}

/* The rest of a block to follower i, as much as its socket takes now: 0,
 * or -1 when it is gone (dropped). */
static int peer_flush(Follow *f, int i) {
    Peer *q = &f->peer[i];
    size_t done;
    if (!q->out) return 0;
    if (peer_write(q, q->out + q->at, q->out_len - q->at, &done)) {
        peer_drop(f, i);
        return -1;
    }
    q->at += done;
    if (q->at == q->out_len) {
        free(q->out);
        q->out = NULL;
    }
    return 0;
}

/* A block to follower i. One that has still not taken the last block (its
 * socket buffer is full) is dropped: a slow follower never makes the
 * teacher wait. Iterate the peers downwards: a drop moves the last to i. */
static void peer_send(Follow *f, int i, const char *p, size_t n) {
    if (peer_flush(f, i)) return;
    Peer *q = &f->peer[i];
    size_t done;
    if (q->out || peer_write(q, p, n, &done) || (done < n && !(q->out = malloc(n - done)))) {
        peer_drop(f, i);
    } else if (done < n) {
        memcpy(q->out, p + done, n - done);
        q->out_len = n - done, q->at = 0;
    }
}

static void pub_accept(Follow *f) {
    for (int k = 0; k < 128; k++) { /* then the loop goes on (keys); the rest come next time */
        int fd = accept4(f->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                f->accept_paused_until = now_s() + 1.0;
            return;
        }
        shutdown(fd, SHUT_RD); /* the teacher never reads what a follower sends */
        if (f->n_peer >= FOLLOW_MAX_FOLLOWERS) {
            close(fd);
            continue;
        }
        f->peer[f->n_peer++] = (Peer){.fd = fd};
        if (f->block) peer_send(f, f->n_peer - 1, f->block, f->block_len);
    }
}

/* The longest line of a block. */
static size_t longest_line(const char *p, size_t n) {
    size_t best = 0;
    for (size_t at = 0; at < n;) {
        const char *nl = memchr(p + at, '\n', n - at);
        size_t k = nl ? (size_t)(nl - p - at) : n - at;
        if (k > best) best = k;
        at += k + 1;
    }
    return best;
}

static int pub_idle(Follow *f, App *a) {
    int redraw = 0;
    if (!f->started) {
        const char *who = f->mode == 0600   ? _("only you")
                          : f->mode == 0660 ? _("your group")
                          : f->mode == 0666 ? _("anyone here")
                                            : _("see its mode");
        /* the command last: a long PATH is what an 80-column line cuts */
        /* the students' command first: what an 80-column line cuts is the mode's words */
        app_say(a, 0, _("publishing: attnviz --follow %s (mode %04o: %s)"), f->shown, (unsigned)f->mode, who);
        f->started = redraw = 1;
    }
    size_t n;
    char *b = follow_block(a, &n);
    if (!b) return redraw;
    if (f->block && n == f->block_len && memcmp(b, f->block, n) == 0) {
        free(b);
        return redraw;
    }
    if (n > FOLLOW_MAX_BLOCK || longest_line(b, n) > FOLLOW_MAX_LINE) {
        if (!f->too_large) app_say(a, 1, _("--publish: the state is past the stream's limits: not published"));
        f->too_large = 1;
        free(b);
        return 1;
    }
    f->too_large = 0;
    free(f->block);
    f->block = b, f->block_len = n;
    for (int i = f->n_peer - 1; i >= 0; i--) peer_send(f, i, b, n);
    return redraw;
}

static int pub_poll_fds(Follow *f, struct pollfd *fds, int cap) {
    int n = 0;
    f->poll_listen = -1;
    if (f->accept_paused_until <= now_s() && n < cap) {
        f->poll_listen = n;
        fds[n++] = (struct pollfd){.fd = f->listen_fd, .events = POLLIN};
    }
    /* Every follower: a hangup drops it; POLLOUT for the rest of a block. */
    f->poll_peers = n;
    for (int i = 0; i < f->n_peer && n < cap; i++)
        fds[n++] = (struct pollfd){.fd = f->peer[i].fd, .events = f->peer[i].out ? POLLOUT : 0};
    return n;
}

static void pub_handle(Follow *f, const struct pollfd *fds, int n) {
    int np = n - f->poll_peers;
    if (np > f->n_peer) np = f->n_peer;
    for (int i = np - 1; i >= 0; i--) {
        short ev = fds[f->poll_peers + i].revents;
        Peer *q = &f->peer[i];
        if (ev & (POLLHUP | POLLERR | POLLNVAL)) peer_drop(f, i);
        else if ((ev & POLLOUT) && q->out) peer_flush(f, i);
    }
    if (f->poll_listen >= 0 && f->poll_listen < n && (fds[f->poll_listen].revents & POLLIN)) pub_accept(f);
}

// ----------------------------------------------------------------------------
// the follower

/* Connects to the teacher: 0, or -1 with errno (ENOENT, ECONNREFUSED: no
 * one listens there yet; EACCES: the socket's mode). */
static int sub_connect(Follow *f) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, (const struct sockaddr *)&f->addr, sizeof f->addr) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    FollowReader *r = follow_reader_new();
    if (!r) {
        close(fd);
        return -1;
    }
    shutdown(fd, SHUT_WR); /* a follower never writes */
    follow_reader_free(f->reader);
    f->reader = r;
    f->fd = fd;
    f->retry_at = 0;
    say(f, 0, _("following the teacher (any key: explore alone; F: follow again)"));
    return 0;
}

static void sub_lost(Follow *f, const App *a) {
    close(f->fd);
    f->fd = -1;
    if (f->attached) {
        f->retry_at = now_s() + 1.0;
        say(f, 0, _("the teacher's attnviz ended %s trying again every second (any key: explore)"), a ? dash(a) : "-");
    } else {
        say(f, 0, _("the teacher's attnviz ended %s F follows it again when it is back"), a ? dash(a) : "-");
    }
}

/* The teacher's bytes, as many as are there (at most 4 MiB a time: keys
 * come between); a refusal is said, a valid block kept as the latest. */
static void sub_read(Follow *f, const App *a) {
    static char buf[1 << 16]; /* the main thread's */
    size_t total = 0;
    char why[AV_ERR_MAX - 64];
    while (total < ((size_t)4 << 20)) {
        ssize_t r = read(f->fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (r <= 0) {
            sub_lost(f, a);
            return;
        }
        total += (size_t)r;
        int got = follow_reader_feed(f->reader, buf, (size_t)r, why, sizeof why);
        if (got & FOLLOW_GOT_ERROR) say(f, 1, _("teacher's state ignored %s %s"), a ? dash(a) : "-", why);
        FollowBlock b;
        if ((got & FOLLOW_GOT_BLOCK) && follow_reader_take(f->reader, &b)) {
            follow_block_free(&f->latest);
            f->latest = b;
            f->has_latest = f->latest_new = 1;
        }
    }
}

/* The latest block on the app (following): 1 when applied. */
static int sub_apply(Follow *f, App *a) {
    char why[AV_ERR_MAX - 64];
    f->latest_new = 0;
    if (follow_apply(a, &f->latest, why, sizeof why) == 0) return 1;
    say(f, 1, _("teacher's state ignored %s %s"), dash(a), why);
    return 0;
}

// ----------------------------------------------------------------------------
// the screen loop's hooks

Follow *follow_open(const CliOptions *o, AvError *err) {
    const char *path = o->publish ? o->publish : o->follow;
    if (!path) return NULL;
    const char *opt = o->publish ? "--publish" : "--follow";
    char shown[256];
    utf8_escape_into(shown, sizeof shown, path);
    Follow *f = calloc(1, sizeof *f);
    if (!f) return av_error_nomem(err, _("out of memory")), NULL;
    if (strlen(path) >= sizeof f->addr.sun_path) {
        free(f);
        return av_errorf(err, _("%s: %s is too long for a Unix socket (at most %zu bytes)"), opt, shown,
                         sizeof f->addr.sun_path - 1),
               NULL;
    }
    f->addr.sun_family = AF_UNIX;
    memcpy(f->addr.sun_path, path, strlen(path) + 1);
    snprintf(f->shown, sizeof f->shown, "%s", shown);
    f->publisher = o->publish != NULL;
    f->listen_fd = f->fd = -1;
    f->mode = o->publish_mode >= 0 ? o->publish_mode : 0600;
    if (f->publisher) {
        if (pub_listen(f, err)) {
            free(f);
            return NULL;
        }
        return f;
    }
    f->attached = 1;
    if (sub_connect(f) != 0) {
        int e = errno;
        f->retry_at = now_s() + 1.0;
        if (e == EACCES || e == EPERM)
            say(f, 1, _("cannot follow (%s): the teacher's --publish-mode decides who may; retrying"), strerror(e));
        else say(f, 0, _("waiting for the teacher at %s (trying every second; any key: explore alone)"), f->shown);
    }
    return f;
}

void follow_free(Follow *f) {
    if (!f) return;
    while (f->n_peer > 0) peer_drop(f, f->n_peer - 1);
    if (f->listen_fd >= 0) {
        close(f->listen_fd);
        /* Only our socket: another teacher may have replaced it since. */
        struct stat st;
        if (lstat(f->addr.sun_path, &st) == 0 && st.st_dev == f->dev && st.st_ino == f->ino) unlink(f->addr.sun_path);
    }
    if (f->fd >= 0) close(f->fd);
    free(f->block);
    follow_reader_free(f->reader);
    follow_block_free(&f->latest);
    free(f);
}

int follow_poll_fds(Follow *f, struct pollfd *fds, int cap, int app_busy) {
    f->polled_fd = 0;
    if (f->publisher) return pub_poll_fds(f, fds, cap);
    if (app_busy || f->fd < 0 || cap < 1) return 0;
    fds[0] = (struct pollfd){.fd = f->fd, .events = POLLIN};
    f->polled_fd = 1;
    return 1;
}

static int ms_until(double t) {
    double left = (t - now_s()) * 1e3;
    return left <= 0 ? 0 : (int)left + 1;
}

int follow_wake_ms(const Follow *f, int app_busy) {
    if (f->publisher) return f->accept_paused_until > 0 ? ms_until(f->accept_paused_until) : -1;
    if (app_busy || f->fd >= 0 || !f->attached || f->retry_at <= 0) return -1;
    return ms_until(f->retry_at);
}

int follow_handle(Follow *f, const struct pollfd *fds, int n, App *a) {
    if (f->publisher) {
        pub_handle(f, fds, n);
        if (f->accept_paused_until > 0 && f->accept_paused_until <= now_s()) f->accept_paused_until = 0;
        return 0;
    }
    if (!a) return 0;
    if (f->polled_fd && n >= 1 && f->fd >= 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))
        sub_read(f, a);
    f->polled_fd = 0;
    if (f->fd < 0 && f->attached && f->retry_at > 0 && f->retry_at <= now_s() && sub_connect(f) != 0)
        f->retry_at = now_s() + 1.0;
    int redraw = 0;
    if (f->attached && f->has_latest && f->latest_new) redraw = sub_apply(f, a);
    return flush_say(f, a) || redraw;
}

int follow_idle(Follow *f, App *a) {
    if (f->publisher) return pub_idle(f, a);
    int redraw = 0;
    if (f->attached && f->has_latest && f->latest_new) redraw = sub_apply(f, a);
    return flush_say(f, a) || redraw;
}

void follow_input(Follow *f, App *a, const AppKey *k) {
    if (!f || f->publisher || !f->attached) return;
    if (k && !k->is_code && k->ch < 128) {
        Action act = keymap_action((int)k->ch);
        if (act == ACT_REDRAW) return;
        if (act == ACT_FOLLOW && a->prompt == PROMPT_NONE && !a->picture_pending) return;
    }
    f->attached = 0;
    f->retry_at = 0;
    f->detach_note = 1;
}

void follow_input_done(Follow *f, App *a) {
    if (!f || !f->detach_note) return;
    f->detach_note = 0;
    char msg[sizeof a->msg];
    if (a->msg[0]) snprintf(msg, sizeof msg, _("detached: F follows again %s %s"), dash(a), a->msg);
    else snprintf(msg, sizeof msg, _("detached: F follows again"));
    app_say(a, a->msg[0] ? a->msg_error : 0, "%s", msg);
}

void follow_attach(Follow *f, App *a) {
    if (!follow_is_follower(f)) {
        app_say(a, 1, _("F follows a teacher's attnviz: start with attnviz --follow PATH"));
        return;
    }
    if (f->attached) {
        if (f->fd >= 0) app_say(a, 0, _("following the teacher already (any key: explore alone)"));
        else app_say(a, 0, _("waiting for the teacher: %s"), f->shown);
        return;
    }
    f->attached = 1;
    f->note[0] = '\0';
    int applied = f->has_latest && sub_apply(f, a);
    if (f->fd < 0 && sub_connect(f) != 0) {
        f->retry_at = now_s() + 1.0;
        if (applied) say(f, 0, _("its last state; the teacher's attnviz is not there: trying every second"));
        else say(f, 0, _("the teacher's attnviz is not there: trying every second"));
    } else if (f->fd >= 0 && !f->note[0]) {
        say(f, 0, _("following the teacher again (any key: explore alone)"));
    }
    flush_say(f, a);
}
