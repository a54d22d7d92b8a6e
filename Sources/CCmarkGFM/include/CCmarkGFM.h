#ifndef NB_CCMARKGFM_H
#define NB_CCMARKGFM_H

// GitHub's cmark-gfm as `nb serve` uses it: one call from Markdown to HTML, the library loaded the first time it is
// used (see LazyCmarkGFM.c for why). The names are nb's; the work is cmark-gfm's.

#include <stddef.h>

/// What nb_cmark_render may add to its safe default (cmark-gfm's CMARK_OPT_* values, re-exported so Swift needs
/// no cmark header). Raw HTML and dangerous URLs are always left out: there is no way to ask for CMARK_OPT_UNSAFE.
enum {
  /// A line break in a paragraph becomes <br />, as in Obsidian's default.
  NB_CMARK_HARD_BREAKS = 1 << 2,
  /// Footnotes ([^1]) as GitHub renders them.
  NB_CMARK_FOOTNOTES = 1 << 13,
};

/// `length` bytes of Markdown at `markdown` as HTML: CommonMark with GitHub's tables, strikethrough, autolinks and
/// task lists; raw HTML shown as text (an HTML block as a code block of its bytes, inline HTML as text), and links and images with `javascript:`, `vbscript:`, `file:` or a
/// non-image `data:` URL given an empty address (cmark-gfm's safe mode), and the tagfilter extension on top.
/// Returns a NUL-terminated string to release with nb_cmark_free, or NULL when cmark-gfm cannot be loaded
/// (nb_cmark_load_error says why) or memory ran out.
char *nb_cmark_render(const char *markdown, size_t length, int options);

/// Releases what nb_cmark_render returned.
void nb_cmark_free(char *html);

/// Why cmark-gfm could not be loaded (the names tried and the loader's message), "" once it is; loads it first.
const char *nb_cmark_load_error(void);

/// Whether this process has loaded cmark-gfm yet, without loading it (for tests of the lazy load).
int nb_cmark_is_loaded(void);

#endif
