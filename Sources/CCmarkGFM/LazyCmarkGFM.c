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
  char *html = document != NULL ? cmark.renderHTML(document, safe, cmark.extensions(parser)) : NULL;
  if (document != NULL) cmark.nodeFree(document);
  cmark.parserFree(parser);
  return html;
}

// cmark's default allocator is the C library's (calloc, realloc, free).
void nb_cmark_free(char *html) { free(html); }
