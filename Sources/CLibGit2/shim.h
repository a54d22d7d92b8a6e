#ifndef NB_CLIBGIT2_SHIM_H
#define NB_CLIBGIT2_SHIM_H

// Only the current libgit2 API: a deprecated call is a compile error, not a surprise on the next Debian release.
#define GIT_DEPRECATE_HARD 1
#include <git2.h>
#include <git2/sys/merge.h>
#include <git2/sys/repository.h>

// git_libgit2_opts is variadic, which Swift cannot call; one typed wrapper per option GitKit uses.

/// Sets the config search path for one level (GIT_CONFIG_LEVEL_GLOBAL, ...); NULL restores the default.
static inline int nb_git_set_search_path(int level, const char *path) {
  return git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, level, path);
}

/// Reads the config search path of one level into `out` (free with git_buf_dispose).
static inline int nb_git_get_search_path(int level, git_buf *out) {
  return git_libgit2_opts(GIT_OPT_GET_SEARCH_PATH, level, out);
}

#endif
