/* signals.h - the signals of the interactive view (screen.c). Quit (INT,
 * TERM, HUP, QUIT) and resize (WINCH) only set a flag, which the loop reads
 * between waits: they are blocked except inside its ppoll, which unblocks
 * them atomically. USR1, USR2, ALRM and PIPE are ignored (their default would
 * kill attnviz with the terminal in curses mode). A fatal signal (SEGV, BUS,
 * FPE, ILL, ABRT, ...) gives the terminal back first, then goes on to its
 * previous action. */
#ifndef ATTNVIZ_SIGNALS_H
#define ATTNVIZ_SIGNALS_H

#include <signal.h>

/* Installs the handlers (before newterm: ncurses then keeps its own away)
 * and blocks the signals; *wait_mask is the mask to wait with, *old_mask the
 * mask to restore. */
void signals_install(sigset_t *wait_mask, sigset_t *old_mask);

/* Puts the handlers and the mask back as they were (after endwin). A signal
 * that came meanwhile stays in signals_quit: it is handled, not re-delivered. */
void signals_remove(const sigset_t *old_mask);

/* The quit signal that came (its number), or 0. Once set, it stays. */
int signals_quit(void);

/* 1 when the terminal was resized since the last call. */
int signals_take_resize(void);

/* Saves the terminal modes of fd (slot 0: input, 1: output) before curses
 * changes them: the fatal handler puts them back. */
void signals_save_modes(int slot, int fd);

/* The fatal handlers, with the reset sequence made from terminfo (call once
 * the terminal is set up: what endwin would send, written with write(2)). */
void signals_install_fatal(void);
/* Puts the previous fatal actions back and forgets the saved modes. */
void signals_remove_fatal(void);

#endif
