#ifndef NB_CLIBGIT2_H
#define NB_CLIBGIT2_H

// libgit2's API as GitKit sees it: the declarations of the system's git2.h, while the definitions are the
// trampolines of LazyLibGit2.c, which load libgit2 on the first call (see there why).

// Only the current libgit2 API: a deprecated call is a compile error, not a surprise on the next Debian release.
#define GIT_DEPRECATE_HARD 1
#include <git2.h>
#include <git2/sys/merge.h>
#include <git2/sys/repository.h>

// git_libgit2_opts is variadic, which Swift cannot call; one typed wrapper per option GitKit uses.

/// Sets the config search path for one level (GIT_CONFIG_LEVEL_GLOBAL, ...); NULL restores the default.
int nb_git_set_search_path(int level, const char *path);

/// Reads the config search path of one level into `out` (free with git_buf_dispose).
int nb_git_get_search_path(int level, git_buf *out);

/// The CA certificates TLS verifies servers with: a bundle file, a directory of certificates, or both (NULL: not
/// that one); replaces the system's. GIT_OPT_SET_SSL_CERT_LOCATIONS.
int nb_git_set_ssl_cert_locations(const char *file, const char *path);

/// Turns libgit2's check that every object a new tree or commit names exists (and has the right type) on or off
/// for the whole process (GIT_OPT_ENABLE_STRICT_OBJECT_CREATION; on by default).
int nb_git_set_strict_object_creation(int enabled);

#endif
