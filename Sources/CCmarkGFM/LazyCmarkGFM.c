// cmark-gfm, loaded the first time a note page is rendered.
//
// Only `nb serve` renders Markdown, yet every nb process would map libcmark-gfm and its extensions library, and
// run their relocations, at start if nb linked them (and nb would not start at all on a machine without them). This
// file loads both with dlopen on the first render instead. Its calls are typed by cmark-gfm's own headers
// (__typeof__ of each declaration), so a prototype cannot drift from the library the build saw; the soname tried
// first is that release's.

#include "CCmarkGFM.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>
#include <cmark-gfm_version.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
  __typeof__(cmark_gfm_core_extensions_ensure_registered) *ensureRegistered;
  __typeof__(cmark_parser_new) *parserNew;
  __typeof__(cmark_find_syntax_extension) *findExtension;
  __typeof__(cmark_parser_attach_syntax_extension) *attachExtension;
  __typeof__(cmark_parser_feed) *feed;
  __typeof__(cmark_parser_finish) *finish;
  __typeof__(cmark_parser_get_syntax_extensions) *extensions;
  __typeof__(cmark_render_html) *renderHTML;
  __typeof__(cmark_node_free) *nodeFree;
  __typeof__(cmark_parser_free) *parserFree;
  __typeof__(cmark_iter_new) *iterNew;
  __typeof__(cmark_iter_next) *iterNext;
  __typeof__(cmark_iter_get_node) *iterNode;
  __typeof__(cmark_iter_free) *iterFree;
  __typeof__(cmark_node_get_type) *nodeType;
  __typeof__(cmark_node_get_literal) *nodeLiteral;
  __typeof__(cmark_node_set_literal) *setLiteral;
  __typeof__(cmark_node_new) *nodeNew;
  __typeof__(cmark_node_replace) *nodeReplace;
} cmark;

// The extensions library names the core library as a dependency, so loading it loads both.
static const char *const candidates[] = {
#if defined(__APPLE__)
  "libcmark-gfm-extensions." CMARK_GFM_VERSION_STRING ".dylib",
  "libcmark-gfm-extensions.dylib",
#else
  "libcmark-gfm-extensions.so." CMARK_GFM_VERSION_STRING,
  "libcmark-gfm-extensions.so",
#endif
};

/// GitHub's own set; tagfilter matters only for raw HTML, which safe mode already drops: it stays as a second wall.
static const char *const extensionNames[] = {"table", "strikethrough", "autolink", "tasklist", "tagfilter"};

static pthread_once_t loadOnce = PTHREAD_ONCE_INIT;
static int loaded;
static char loadError[768];

#define NB_CMARK_BIND(field, symbol)                                                                           \
  if ((*(void **)&cmark.field = dlsym(library, #symbol)) == NULL) {                                            \
    snprintf(loadError, sizeof loadError, "%s has no %s (nb was built against cmark-gfm %s)", name, #symbol,   \
      CMARK_GFM_VERSION_STRING);                                                                               \
    return;                                                                                                    \
  }

static void load(void) {
  void *library = NULL;
  const char *name = NULL;
  char tried[256] = "";
  char firstError[256] = "";
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
    library = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
    if (library != NULL) {
      name = candidates[i];
      break;
    }
    const char *error = dlerror();
    if (firstError[0] == '\0' && error != NULL) snprintf(firstError, sizeof firstError, "%s", error);
    size_t used = strlen(tried);
    snprintf(tried + used, sizeof tried - used, "%s%s", used ? ", " : "", candidates[i]);
  }
  if (library == NULL) {
    snprintf(loadError, sizeof loadError,
      "cannot load cmark-gfm (tried %s: %s); install it (Debian/Ubuntu: apt-get install libcmark-gfm-extensions-dev)",
      tried, firstError);
    return;
  }
  // dlsym on the extensions library's handle also searches the libraries it depends on: the core's calls resolve.
  NB_CMARK_BIND(ensureRegistered, cmark_gfm_core_extensions_ensure_registered)
  NB_CMARK_BIND(parserNew, cmark_parser_new)
  NB_CMARK_BIND(findExtension, cmark_find_syntax_extension)
  NB_CMARK_BIND(attachExtension, cmark_parser_attach_syntax_extension)
  NB_CMARK_BIND(feed, cmark_parser_feed)
  NB_CMARK_BIND(finish, cmark_parser_finish)
  NB_CMARK_BIND(extensions, cmark_parser_get_syntax_extensions)
  NB_CMARK_BIND(renderHTML, cmark_render_html)
  NB_CMARK_BIND(nodeFree, cmark_node_free)
  NB_CMARK_BIND(parserFree, cmark_parser_free)
  NB_CMARK_BIND(iterNew, cmark_iter_new)
  NB_CMARK_BIND(iterNext, cmark_iter_next)
  NB_CMARK_BIND(iterNode, cmark_iter_get_node)
  NB_CMARK_BIND(iterFree, cmark_iter_free)
  NB_CMARK_BIND(nodeType, cmark_node_get_type)
  NB_CMARK_BIND(nodeLiteral, cmark_node_get_literal)
  NB_CMARK_BIND(setLiteral, cmark_node_set_literal)
  NB_CMARK_BIND(nodeNew, cmark_node_new)
  NB_CMARK_BIND(nodeReplace, cmark_node_replace)
  // Registration fills a global list without a lock: once, here, before any thread parses.
  cmark.ensureRegistered();
  for (size_t i = 0; i < sizeof extensionNames / sizeof extensionNames[0]; i++) {
    if (cmark.findExtension(extensionNames[i]) == NULL) {
      snprintf(loadError, sizeof loadError, "%s has no extension %s", name, extensionNames[i]);
      return;
    }
  }
  loaded = 1;
}

const char *nb_cmark_load_error(void) {
  pthread_once(&loadOnce, load);
  return loaded ? "" : loadError;
}

int nb_cmark_is_loaded(void) { return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE); }

/// Raw HTML in `document` made text: an HTML block a code block of the same bytes, inline HTML a text node. Safe
/// mode alone drops it for a comment, and a person's `<kbd>` or pasted markup would vanish from the page; shown as
/// text it is neither lost nor run. Returns 0 when memory ran out (the caller then renders nothing).
static int htmlAsText(cmark_node *document) {
  size_t count = 0, capacity = 0;
  cmark_node **found = NULL;
  cmark_iter *iter = cmark.iterNew(document);
  if (iter == NULL) return 0;
  cmark_event_type event;
  int ok = 1;
  // Collected first and replaced after: the iterator must not lose its place in a tree changing under it.
  while ((event = cmark.iterNext(iter)) != CMARK_EVENT_DONE) {
    cmark_node *node = cmark.iterNode(iter);
    cmark_node_type type = cmark.nodeType(node);
    if (event != CMARK_EVENT_ENTER || (type != CMARK_NODE_HTML_BLOCK && type != CMARK_NODE_HTML_INLINE)) continue;
    if (count == capacity) {
      capacity = capacity ? capacity * 2 : 16;
      cmark_node **grown = realloc(found, capacity * sizeof *found);
      if (grown == NULL) {
        ok = 0;
        break;
      }
      found = grown;
    }
    found[count++] = node;
  }
  cmark.iterFree(iter);
  for (size_t i = 0; ok && i < count; i++) {
    int block = cmark.nodeType(found[i]) == CMARK_NODE_HTML_BLOCK;
    cmark_node *text = cmark.nodeNew(block ? CMARK_NODE_CODE_BLOCK : CMARK_NODE_TEXT);
    const char *literal = cmark.nodeLiteral(found[i]);
    if (text == NULL || !cmark.setLiteral(text, literal ? literal : "") || !cmark.nodeReplace(found[i], text)) {
      if (text != NULL) cmark.nodeFree(text);
      ok = 0;
      break;
    }
    cmark.nodeFree(found[i]);
  }
  free(found);
  return ok;
}

char *nb_cmark_render(const char *markdown, size_t length, int options) {
  pthread_once(&loadOnce, load);
  if (!loaded) return NULL;
  // Only the options nb_cmark_render documents: never CMARK_OPT_UNSAFE.
  int safe = (options & (NB_CMARK_HARD_BREAKS | NB_CMARK_FOOTNOTES)) | CMARK_OPT_GITHUB_PRE_LANG |
    CMARK_OPT_VALIDATE_UTF8;
  cmark_parser *parser = cmark.parserNew(safe);
  if (parser == NULL) return NULL;
  for (size_t i = 0; i < sizeof extensionNames / sizeof extensionNames[0]; i++) {
    cmark.attachExtension(parser, cmark.findExtension(extensionNames[i]));
  }
  cmark.feed(parser, markdown, length);
  cmark_node *document = cmark.finish(parser);
  char *html =
    document != NULL && htmlAsText(document) ? cmark.renderHTML(document, safe, cmark.extensions(parser)) : NULL;
  if (document != NULL) cmark.nodeFree(document);
  cmark.parserFree(parser);
  return html;
}

// cmark's default allocator is the C library's (calloc, realloc, free).
void nb_cmark_free(char *html) { free(html); }
