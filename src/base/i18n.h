/* i18n.h - the interface's language: GNU gettext (glibc's libintl).
 *
 *   _("text")        the text in the reader's language (po/LANG.po)
 *   N_("text")       marks a text of a static table; translated with _() where used
 *   P_("one", "many", n)  the singular or the plural, in the reader's language
 *
 * `make pot` collects the marked texts into po/attnviz.pot; tui/language.c
 * chooses the language (--lang, LANGUAGE, LC_ALL, LC_MESSAGES, LANG) and
 * finds the catalogues. Texts a file, a lesson or the user wrote are never
 * passed through _(). */
#ifndef ATTNVIZ_I18N_H
#define ATTNVIZ_I18N_H

#include <libintl.h>

#define ATTNVIZ_DOMAIN   "attnviz"
#define _(s)             dgettext(ATTNVIZ_DOMAIN, s)
#define N_(s)            (s)
#define P_(one, many, n) dngettext(ATTNVIZ_DOMAIN, one, many, (unsigned long)(n))

#endif
