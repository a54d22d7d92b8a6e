#ifndef NB_CLIBGIT2_SHIM_H
#define NB_CLIBGIT2_SHIM_H

// Only the current libgit2 API: a deprecated call is a compile error, not a surprise on the next Debian release.
#define GIT_DEPRECATE_HARD 1
#include <git2.h>
#include <git2/sys/merge.h>

#endif
