/* screen_internal.h - what screen.c (the frame job, the loop, the
 * terminal) and screen_input.c (the terminal's input made events) share,
 * for them alone: the events and the input side of the loop. */
#ifndef ATTNVIZ_SCREEN_INTERNAL_H
#define ATTNVIZ_SCREEN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

typedef enum { EV_KEY, EV_CODE, EV_MOUSE, EV_PASTE } EventKind;

typedef struct {
    EventKind kind;
    uint32_t ch;      /* the character or KEY_* code */
    int y, x, button; /* EV_MOUSE */
} Event;

typedef struct {
    Event *ev;
    size_t n, cap;
} Queue;

/* The input side of the loop (main thread only). */
typedef struct {
    Queue pending;   /* events for the next frame */
    int pasting;     /* inside a bracketed paste */
    int end_match;   /* bytes of the paste's end marker seen so far */
    int eof;         /* the terminal is gone (EOF, EIO) */
    int empty_reads; /* ERRs in a row where the terminal said it was readable */
    char mb[4];      /* the bytes of a UTF-8 character read so far */
    int mb_len, mb_need;
} Input;

/* Reads what is waiting into in->pending; with `wait_first`, blocks for the
 * first byte or key (the terminal said it is readable: only the rest of a
 * sequence is waited for). */
void input_read(Input *in, int wait_first);
/* The keys typed while the model loaded (loadwatch.h), before the first
 * frame's, into in->pending. */
void input_typeahead(Input *in);
/* The key sequences ncurses should know beyond terminfo's: the paste's
 * start marker, and the common keys of terminals that TERM may not describe
 * (after newterm, before the first read). */
void input_define_keys(void);

#endif
