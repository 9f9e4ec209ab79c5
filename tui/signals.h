/* signals.h - the signals of the interactive view (screen.c). Quit (INT,
 * TERM, HUP, QUIT) and resize (WINCH) only set a flag, which the loop reads
 * between waits: they are blocked except inside its ppoll, which unblocks
 * them atomically. USR1, USR2, ALRM and PIPE are ignored (their default would
 * kill attnviz with the terminal in curses mode). A fatal signal (SEGV, BUS,
 * FPE, ILL, ABRT, ...), on any thread, gives the terminal back first, then
 * goes on to its previous action. */
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

/* The fatal handlers (SEGV, BUS, FPE, ILL, ABRT, TRAP, SYS, XCPU, XFSZ), for
 * the whole run (main installs them first; a second call does nothing).
 * They run on the thread that faulted: no thread of attnviz blocks the
 * synchronous faults (parallel.h). A SIGBUS inside a mapped model file that
 * was cut short (filemap.h) prints "attnviz: FILE: the model file changed
 * while in use (...)" and exits with status 2; any other goes on to its
 * previous action (the default, or a sanitizer's), the terminal given back
 * first when it is set. Install them once the language is chosen
 * (language.h): the line is translated here, not in the handler. */
void signals_install_fatal(void);

/* The terminal to give back: the reset sequence made from terminfo (what
 * endwin would send: call once the terminal is set up). Cleared (with the
 * saved modes) by signals_terminal_clear, before endwin. */
void signals_terminal_set(void);
void signals_terminal_clear(void);

#endif
