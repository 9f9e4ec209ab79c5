/* follow.h - a class that follows its teacher (issue 16). The teacher's
 * attnviz publishes its state (--publish PATH) on a local Unix socket at
 * every change; students on the same machine run attnviz --follow PATH and
 * see the same screen at their own terminal size, explore on their own with
 * any key and follow again with F.
 *
 * The stream (contract): blocks of lines, each line ending in "\n",
 *
 *   attnviz-state 1
 *   tokenizer words                  script_state()'s commands (script.h):
 *   sentence "I saw a movie"         sentence, configuration, view, stage,
 *   config d_model=64 heads=4 ...    head, layer, cursor, page, highlight
 *   ...
 *   caption "TITLE" "TEXT"           the lesson's caption shown, or `caption`
 *   end
 *
 * A line is at most FOLLOW_MAX_LINE bytes, a block FOLLOW_MAX_BLOCK bytes and
 * FOLLOW_MAX_CMDS commands. The follower checks every line as strictly as the
 * command line's options (script_parse, and valid UTF-8 without a raw control
 * byte), takes only commands of the state (no `key`: nothing from the stream
 * runs an action, a program or writes a file), and applies a whole valid
 * block or nothing: a refused line or block is said on its message line
 * ("teacher's state ignored — line 3: unknown command 'rm'") and its state
 * stays as it was.
 *
 * The publisher (the teacher) listens without blocking in the screen loop's
 * ppoll, sends the current block to a new follower at once and a new block
 * after every frame that changed the state. It never reads from a follower
 * (shutdown SHUT_RD on each), and a follower that has not taken the last
 * block when the next one comes (its socket buffer full) is dropped: a slow
 * student never blocks the teacher. The socket file is made with mode 0600
 * (--publish-mode: 0660 for the teacher's group, 0666 for everyone), replaces
 * a dead socket at PATH (no one listens there), refuses any other file, and
 * is removed when the teacher's attnviz ends (q, SIGINT, SIGTERM, SIGHUP).
 *
 * The follower's socket is in the same ppoll as the keys: an idle class costs
 * no CPU. Any key (but F, a resize and Ctrl-L) detaches: the student explores
 * from the teacher's state, the stream is still read, and F follows again
 * with the latest block. When the teacher's attnviz ends, the follower says
 * so and, while following, tries to connect again every second (F at once). */
#ifndef ATTNVIZ_FOLLOW_H
#define ATTNVIZ_FOLLOW_H

#include <poll.h>
#include <stddef.h>

#include "app.h"
#include "cli.h"
#include "error.h"
#include "script.h"

#define FOLLOW_HEADER "attnviz-state 1"
#define FOLLOW_END    "end"
/* A sentence of 1 MiB, every byte quoted as \xHH, fits in a line; two of
 * them (a sentence and a target) and the rest in a block. */
#define FOLLOW_MAX_LINE      (((size_t)4 << 20) + 64)
#define FOLLOW_MAX_BLOCK     ((size_t)9 << 20)
#define FOLLOW_MAX_CMDS      64
#define FOLLOW_MAX_FOLLOWERS 500
/* The descriptors follow_poll_fds may add to a wait: the listening socket
 * and every follower, or the follower's one socket. */
#define FOLLOW_MAX_FDS (FOLLOW_MAX_FOLLOWERS + 1)

// ----------------------------------------------------------------------------
// the block

/* The app's state as a block of the stream: the header, script_state(), the
 * caption shown (lesson_caption_now, made safe and cut to the caption
 * command's limits) and "end" (caller frees; NULL when out of memory). */
char *follow_block(const App *a, size_t *len);

/* A block read from the stream: its commands and the line of each (the
 * header is line 1). */
typedef struct {
    ScriptCmd *cmd;
    int *line;
    int n;
} FollowBlock;

void follow_block_free(FollowBlock *b); /* NULL-safe; leaves it empty */

/* Applies a whole block to the app (a sentence, a tokenizer or a target
 * equal to the app's is skipped: nothing recomputes for a cursor move). 0,
 * or -1 with why ("line 7: head 5: the model has 4") and the app as it was
 * before the block. */
int follow_apply(App *a, const FollowBlock *b, char *why, size_t cap);

// ----------------------------------------------------------------------------
// reading the stream (no sockets: the tests feed it bytes)

typedef struct FollowReader FollowReader;

FollowReader *follow_reader_new(void);    /* NULL when out of memory */
void follow_reader_free(FollowReader *r); /* NULL-safe */

enum { FOLLOW_GOT_BLOCK = 1, FOLLOW_GOT_ERROR = 2 };

/* Feeds n bytes of the stream. Returns FOLLOW_GOT_BLOCK when a valid block
 * ended among them (follow_reader_take gives the latest), | FOLLOW_GOT_ERROR
 * when a line or a block was refused (why: the first refusal among them,
 * "line 3: unknown command 'rm'"; the rest of that block is skipped to its
 * "end"). At most FOLLOW_MAX_LINE bytes of a line are kept, whatever comes. */
int follow_reader_feed(FollowReader *r, const char *p, size_t n, char *why, size_t cap);

/* The latest valid block, moved to the caller (free with follow_block_free);
 * 0 when there was none since the last take. */
int follow_reader_take(FollowReader *r, FollowBlock *out);

// ----------------------------------------------------------------------------
// the screen loop's side (screen.c)

/* --publish PATH [--publish-mode MODE] or --follow PATH: the socket made
 * (the publisher listens; the follower connects, or will try again). NULL
 * with err when neither option is given (err empty) or PATH cannot be used
 * (exit status av_error_exit_status: 2 for a path that is another file, a
 * live socket, too long or in a directory one cannot write). Free with
 * follow_free, which removes the publisher's socket file. */
Follow *follow_open(const CliOptions *o, AvError *err);
void follow_free(Follow *f); /* NULL-safe */

/* 1 when f follows a teacher (F is in the help then). NULL-safe. */
int follow_is_follower(const Follow *f);

/* The descriptors to wait on, into fds[0..cap): the publisher's listening
 * socket and followers (any time), the follower's socket (only with
 * app_busy 0: a frame job has the app otherwise). Returns how many. */
int follow_poll_fds(Follow *f, struct pollfd *fds, int cap, int app_busy);
/* Milliseconds until f wants follow_handle without input (the follower's
 * next try to connect, a pause of accept), or -1: none. */
int follow_wake_ms(const Follow *f, int app_busy);
/* After the wait: what fds[0..n) (from follow_poll_fds) said, and what is
 * due. With the app (a: no job runs; NULL while one does), a block from the
 * teacher is applied while following and messages are said. Returns 1 when
 * the screen should be redrawn. */
int follow_handle(Follow *f, const struct pollfd *fds, int n, App *a);

/* Between frames (the app is the caller's): the publisher sends the state
 * when it changed; pending messages are said. Returns 1 to redraw. */
int follow_idle(Follow *f, App *a);

/* Before and after the app takes an input event (the frame job's thread):
 * k is the key, or NULL for a mouse event or a paste. Any input but F (the
 * key of "follow", outside a prompt), Ctrl-L and a resize detaches. */
void follow_input(Follow *f, App *a, const AppKey *k);
void follow_input_done(Follow *f, App *a);

/* F: follow the teacher again (the latest block at once, or a connection
 * tried at once); what happened is said on the message line. */
void follow_attach(Follow *f, App *a);

#endif
