// libgit2, loaded the first time GitKit calls it.
//
// nb links no libgit2: this file defines every libgit2 function GitKit (and the test helpers) call as a trampoline
// that dlopens libgit2 on the first call to any of them, looks the real function up once, and jumps to it. A command
// that never touches git (show, list, search, --version) then never loads libgit2 and the dozen libraries it pulls in
// (mbedTLS, libssh2, Kerberos, PCRE, http-parser, zlib, ...): relocating them at start-up cost more than such a
// command's own work. The Swift code is unchanged: it imports CLibGit2 for git2.h's declarations, and the linker
// binds its calls to the definitions below.
//
// To call another libgit2 function, add its line to the list at the end: the prototype exactly as git2.h declares
// it, then the arguments. A prototype that differs from the header's is a compile error ("conflicting types"),
// and the function pointer each trampoline calls through has the header's type (__typeof__), so nothing here can
// drift from the headers. A function that is missing from the list is an undefined symbol at link time. Variadic
// functions cannot be forwarded: git_libgit2_opts gets one typed wrapper per option instead (nb_git_*).

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The trampolines are hidden: exported (Swift executables are linked with --export-dynamic), they would also take
// libgit2's own calls to its public functions, each then going through a trampoline. git2/common.h defines
// GIT_EXTERN (and declares the few functions in it with it); every header after it declares hidden ones.
#include <git2/common.h>
#undef GIT_EXTERN
#define GIT_EXTERN(type) extern __attribute__((visibility("hidden"))) type
#include "CLibGit2.h"

#define NB_STRING(x) NB_STRING_(x)
#define NB_STRING_(x) #x

/// The names tried, in order: the soname of the release these headers are from (what linking against it would
/// have recorded, so a build runs with what it was built against), the name the development package installs
/// (libgit2-dev: a link to the system's own release), then other 1.x sonames, for a binary copied to a machine with
/// another release (which may differ in ABI: the headers' own release always comes first).
static const char *const candidates[] = {
#if defined(__APPLE__)
  "libgit2." NB_STRING(LIBGIT2_VER_MAJOR) "." NB_STRING(LIBGIT2_VER_MINOR) ".dylib",
  "libgit2.dylib",
  "/opt/homebrew/lib/libgit2.dylib",
  "/usr/local/lib/libgit2.dylib",
#else
  "libgit2.so." NB_STRING(LIBGIT2_VER_MAJOR) "." NB_STRING(LIBGIT2_VER_MINOR),
  "libgit2.so",
  "libgit2.so.1.9",
  "libgit2.so.1.8",
  "libgit2.so.1.7",
  "libgit2.so.1.6",
  "libgit2.so.1.5",
#endif
};

static void *library;
static const char *libraryName;
static pthread_once_t loadOnce = PTHREAD_ONCE_INIT;

/// Loads libgit2, or ends the process with one line naming what it tried: every caller of a git function assumes
/// it exists, as it would have with libgit2 linked (where the dynamic loader refuses to start the program).
static void load(void) {
  char tried[512] = "";
  char firstError[512] = "";
  size_t count = sizeof candidates / sizeof candidates[0];
  for (size_t i = 0; i < count && library == NULL; i++) {
    int repeated = 0;
    for (size_t j = 0; j < i; j++) repeated |= strcmp(candidates[i], candidates[j]) == 0;
    if (repeated) continue;
    // RTLD_NOW: a missing symbol shows here, not as a crash in the middle of a commit. Not RTLD_DEEPBIND, which
    // would bind libgit2's calls to mbedTLS past the three functions nb defines to defer the CA bundle's parse
    // (DeferredCertificates.c); nb exports only those (Package.swift), so the loader's search of nb before
    // libgit2's own libraries is short.
    library = dlopen(candidates[i], RTLD_NOW | RTLD_GLOBAL);
    if (library != NULL) {
      libraryName = candidates[i];
      return;
    }
    const char *error = dlerror();
    if (firstError[0] == '\0' && error != NULL) snprintf(firstError, sizeof firstError, "%s", error);
    size_t used = strlen(tried);
    snprintf(tried + used, sizeof tried - used, "%s%s", used ? ", " : "", candidates[i]);
  }
  fprintf(
    stderr, "Error: cannot load libgit2 (tried %s: %s); install it (Debian/Ubuntu: apt-get install libgit2-dev)\n",
    tried, firstError);
  exit(1);
}

/// The address of libgit2's `name`, loading libgit2 first if this is the first call.
static void *symbol(const char *name) {
  pthread_once(&loadOnce, load);
  void *address = dlsym(library, name);
  if (address == NULL) {
    fprintf(
      stderr, "Error: %s has no %s (nb was built against libgit2 %s)\n", libraryName, name, LIBGIT2_VERSION);
    exit(1);
  }
  return address;
}

// One trampoline: `type name parameters` as git2.h declares it, calling through a pointer of the header's type,
// looked up on the first call. Two threads racing on the first call both store the same address.
#define NB_GIT_LOOKUP(name)                                                                                    \
  static __typeof__(name) *real;                                                                               \
  __typeof__(name) *function = __atomic_load_n(&real, __ATOMIC_ACQUIRE);                                       \
  if (function == NULL) {                                                                                      \
    function = (__typeof__(name) *)symbol(#name);                                                              \
    __atomic_store_n(&real, function, __ATOMIC_RELEASE);                                                       \
  }

#define NB_GIT(type, name, parameters, arguments)                                                              \
  type name parameters {                                                                                       \
    NB_GIT_LOOKUP(name)                                                                                        \
    return function arguments;                                                                                 \
  }

#define NB_GIT_VOID(name, parameters, arguments)                                                               \
  void name parameters {                                                                                       \
    NB_GIT_LOOKUP(name)                                                                                        \
    function arguments;                                                                                        \
  }

/// git_libgit2_opts itself, for the typed wrappers.
static __typeof__(git_libgit2_opts) *libgit2Options(void) {
  NB_GIT_LOOKUP(git_libgit2_opts)
  return function;
}

int nb_git_set_search_path(int level, const char *path) {
  return libgit2Options()(GIT_OPT_SET_SEARCH_PATH, level, path);
}

int nb_git_get_search_path(int level, git_buf *out) {
  return libgit2Options()(GIT_OPT_GET_SEARCH_PATH, level, out);
}

int nb_git_set_ssl_cert_locations(const char *file, const char *path) {
  return libgit2Options()(GIT_OPT_SET_SSL_CERT_LOCATIONS, file, path);
}

int nb_git_set_strict_object_creation(int enabled) {
  return libgit2Options()(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, enabled);
}

// The functions GitKit and NBTestSupport call, sorted by name.
NB_GIT(int, git_blob_create_from_buffer,
  (git_oid *id, git_repository *repo, const void *buffer, size_t len), (id, repo, buffer, len))
NB_GIT(int, git_blob_create_from_workdir,
  (git_oid *id, git_repository *repo, const char *relative_path), (id, repo, relative_path))
NB_GIT_VOID(git_blob_free, (git_blob *blob), (blob))
NB_GIT(int, git_blob_lookup, (git_blob **blob, git_repository *repo, const git_oid *id), (blob, repo, id))
NB_GIT(const void *, git_blob_rawcontent, (const git_blob *blob), (blob))
NB_GIT(git_object_size_t, git_blob_rawsize, (const git_blob *blob), (blob))
NB_GIT(int, git_branch_upstream_name, (git_buf *out, git_repository *repo, const char *refname), (out, repo, refname))
NB_GIT_VOID(git_buf_dispose, (git_buf *buffer), (buffer))
NB_GIT(int, git_checkout_options_init, (git_checkout_options *opts, unsigned int version), (opts, version))
NB_GIT(int, git_checkout_tree,
  (git_repository *repo, const git_object *treeish, const git_checkout_options *opts), (repo, treeish, opts))
NB_GIT(const git_signature *, git_commit_author, (const git_commit *commit), (commit))
NB_GIT(const git_signature *, git_commit_committer, (const git_commit *commit), (commit))
NB_GIT(int, git_commit_create,
  (git_oid *id, git_repository *repo, const char *update_ref, const git_signature *author,
  const git_signature *committer, const char *message_encoding, const char *message, const git_tree *tree,
  size_t parent_count, const git_commit *parents[]),
  (id, repo, update_ref, author, committer, message_encoding, message, tree, parent_count, parents))
NB_GIT_VOID(git_commit_free, (git_commit *commit), (commit))
NB_GIT(const git_oid *, git_commit_id, (const git_commit *commit), (commit))
NB_GIT(int, git_commit_lookup, (git_commit **commit, git_repository *repo, const git_oid *id), (commit, repo, id))
NB_GIT(const char *, git_commit_message, (const git_commit *commit), (commit))
NB_GIT(int, git_commit_parent, (git_commit **out, const git_commit *commit, unsigned int n), (out, commit, n))
NB_GIT(const git_oid *, git_commit_parent_id, (const git_commit *commit, unsigned int n), (commit, n))
NB_GIT(unsigned int, git_commit_parentcount, (const git_commit *commit), (commit))
NB_GIT(const char *, git_commit_summary, (git_commit *commit), (commit))
NB_GIT(int, git_commit_tree, (git_tree **tree_out, const git_commit *commit), (tree_out, commit))
NB_GIT(const git_oid *, git_commit_tree_id, (const git_commit *commit), (commit))
NB_GIT_VOID(git_config_free, (git_config *cfg), (cfg))
NB_GIT(int, git_config_get_string_buf, (git_buf *out, const git_config *cfg, const char *name), (out, cfg, name))
NB_GIT(int, git_config_open_level,
  (git_config **out, const git_config *parent, git_config_level_t level), (out, parent, level))
NB_GIT(int, git_config_set_string, (git_config *cfg, const char *name, const char *value), (cfg, name, value))
NB_GIT(int, git_credential_ssh_key_from_agent, (git_credential **out, const char *username), (out, username))
NB_GIT(int, git_credential_ssh_key_new,
  (git_credential **out, const char *username, const char *publickey, const char *privatekey, const char *passphrase),
  (out, username, publickey, privatekey, passphrase))
NB_GIT(int, git_credential_username_new, (git_credential **out, const char *username), (out, username))
NB_GIT(int, git_credential_userpass_plaintext_new,
  (git_credential **out, const char *username, const char *password), (out, username, password))
NB_GIT(int, git_diff_find_options_init, (git_diff_find_options *opts, unsigned int version), (opts, version))
NB_GIT(int, git_diff_find_similar, (git_diff *diff, const git_diff_find_options *options), (diff, options))
NB_GIT_VOID(git_diff_free, (git_diff *diff), (diff))
NB_GIT(const git_diff_delta *, git_diff_get_delta, (const git_diff *diff, size_t idx), (diff, idx))
NB_GIT(size_t, git_diff_num_deltas, (const git_diff *diff), (diff))
NB_GIT(int, git_diff_options_init, (git_diff_options *opts, unsigned int version), (opts, version))
NB_GIT(int, git_diff_tree_to_tree,
  (git_diff **diff, git_repository *repo, git_tree *old_tree, git_tree *new_tree, const git_diff_options *opts),
  (diff, repo, old_tree, new_tree, opts))
NB_GIT(const git_error *, git_error_last, (void), ())
NB_GIT(int, git_error_set_str, (int error_class, const char *string), (error_class, string))
NB_GIT(int, git_fetch_options_init, (git_fetch_options *opts, unsigned int version), (opts, version))
NB_GIT(int, git_filter_list_apply_to_buffer,
  (git_buf *out, git_filter_list *filters, const char *in, size_t in_len), (out, filters, in, in_len))
NB_GIT_VOID(git_filter_list_free, (git_filter_list *filters), (filters))
NB_GIT(int, git_filter_list_load,
  (git_filter_list **filters, git_repository *repo, git_blob *blob, const char *path, git_filter_mode_t mode,
    uint32_t flags),
  (filters, repo, blob, path, mode, flags))
NB_GIT(int, git_graph_ahead_behind,
  (size_t *ahead, size_t *behind, git_repository *repo, const git_oid *local, const git_oid *upstream),
  (ahead, behind, repo, local, upstream))
NB_GIT(int, git_graph_descendant_of,
  (git_repository *repo, const git_oid *commit, const git_oid *ancestor), (repo, commit, ancestor))
NB_GIT(int, git_ignore_path_is_ignored, (int *ignored, git_repository *repo, const char *path), (ignored, repo, path))
NB_GIT(int, git_index_add, (git_index *index, const git_index_entry *source_entry), (index, source_entry))
NB_GIT(int, git_index_add_bypath, (git_index *index, const char *path), (index, path))
NB_GIT_VOID(git_index_conflict_iterator_free, (git_index_conflict_iterator *iterator), (iterator))
NB_GIT(int, git_index_conflict_iterator_new,
  (git_index_conflict_iterator **iterator_out, git_index *index), (iterator_out, index))
NB_GIT(int, git_index_conflict_next,
  (const git_index_entry **ancestor_out, const git_index_entry **our_out, const git_index_entry **their_out,
  git_index_conflict_iterator *iterator), (ancestor_out, our_out, their_out, iterator))
NB_GIT(size_t, git_index_entrycount, (const git_index *index), (index))
NB_GIT_VOID(git_index_free, (git_index *index), (index))
NB_GIT(const git_index_entry *, git_index_get_byindex, (git_index *index, size_t n), (index, n))
NB_GIT(const git_index_entry *, git_index_get_bypath,
  (git_index *index, const char *path, int stage), (index, path, stage))
NB_GIT(int, git_index_has_conflicts, (const git_index *index), (index))
NB_GIT(int, git_index_new, (git_index **out), (out))
NB_GIT(const char *, git_index_path, (const git_index *index), (index))
NB_GIT(int, git_index_read, (git_index *index, int force), (index, force))
NB_GIT(int, git_index_remove_bypath, (git_index *index, const char *path), (index, path))
NB_GIT(int, git_index_remove_directory, (git_index *index, const char *dir, int stage), (index, dir, stage))
NB_GIT(int, git_index_set_version, (git_index *index, unsigned int version), (index, version))
NB_GIT(int, git_index_write, (git_index *index), (index))
NB_GIT(int, git_index_write_tree_to, (git_oid *out, git_index *index, git_repository *repo), (out, index, repo))
NB_GIT(int, git_libgit2_init, (void), ())
NB_GIT(int, git_libgit2_version, (int *major, int *minor, int *rev), (major, minor, rev))
NB_GIT(int, git_merge_base,
  (git_oid *out, git_repository *repo, const git_oid *one, const git_oid *two), (out, repo, one, two))
NB_GIT(int, git_merge_driver_register, (const char *name, git_merge_driver *driver), (name, driver))
NB_GIT(const git_index_entry *, git_merge_driver_source_ancestor, (const git_merge_driver_source *src), (src))
NB_GIT(const git_index_entry *, git_merge_driver_source_ours, (const git_merge_driver_source *src), (src))
NB_GIT(git_repository *, git_merge_driver_source_repo, (const git_merge_driver_source *src), (src))
NB_GIT(const git_index_entry *, git_merge_driver_source_theirs, (const git_merge_driver_source *src), (src))
NB_GIT(int, git_merge_file,
  (git_merge_file_result *out, const git_merge_file_input *ancestor, const git_merge_file_input *ours,
  const git_merge_file_input *theirs, const git_merge_file_options *opts), (out, ancestor, ours, theirs, opts))
NB_GIT(int, git_merge_file_input_init, (git_merge_file_input *opts, unsigned int version), (opts, version))
NB_GIT(int, git_merge_file_options_init, (git_merge_file_options *opts, unsigned int version), (opts, version))
NB_GIT_VOID(git_merge_file_result_free, (git_merge_file_result *result), (result))
NB_GIT(int, git_merge_options_init, (git_merge_options *opts, unsigned int version), (opts, version))
NB_GIT(int, git_merge_trees,
  (git_index **out, git_repository *repo, const git_tree *ancestor_tree, const git_tree *our_tree,
  const git_tree *their_tree, const git_merge_options *opts), (out, repo, ancestor_tree, our_tree, their_tree, opts))
NB_GIT_VOID(git_object_free, (git_object *object), (object))
NB_GIT(int, git_object_lookup,
  (git_object **object, git_repository *repo, const git_oid *id, git_object_t type), (object, repo, id, type))
NB_GIT(int, git_object_peel,
  (git_object **peeled, const git_object *object, git_object_t target_type), (peeled, object, target_type))
NB_GIT(int, git_odb_exists, (git_odb *db, const git_oid *id), (db, id))
NB_GIT(int, git_odb_write, (git_oid *out, git_odb *odb, const void *data, size_t len, git_object_t type), (out, odb, data, len, type))
NB_GIT_VOID(git_odb_free, (git_odb *db), (db))
NB_GIT(int, git_odb_hash, (git_oid *out, const void *data, size_t len, git_object_t type), (out, data, len, type))
NB_GIT(int, git_odb_read_header, (size_t *len_out, git_object_t *type_out, git_odb *db, const git_oid *id),
  (len_out, type_out, db, id))
NB_GIT(int, git_odb_write_pack,
  (git_odb_writepack **out, git_odb *db, git_indexer_progress_cb progress_cb, void *progress_payload),
  (out, db, progress_cb, progress_payload))
NB_GIT(int, git_oid_fromstr, (git_oid *out, const char *str), (out, str))
NB_GIT(int, git_oid_fromstrn, (git_oid *out, const char *str, size_t length), (out, str, length))
NB_GIT(int, git_oid_is_zero, (const git_oid *id), (id))
NB_GIT(char *, git_oid_tostr, (char *out, size_t n, const git_oid *id), (out, n, id))
NB_GIT(int, git_proxy_options_init, (git_proxy_options *opts, unsigned int version), (opts, version))
NB_GIT(int, git_push_options_init, (git_push_options *opts, unsigned int version), (opts, version))
NB_GIT(int, git_reference_create,
  (git_reference **out, git_repository *repo, const char *name, const git_oid *id, int force, const char *log_message),
  (out, repo, name, id, force, log_message))
NB_GIT(int, git_reference_create_matching,
  (git_reference **out, git_repository *repo, const char *name, const git_oid *id, int force, const git_oid *current_id,
  const char *log_message), (out, repo, name, id, force, current_id, log_message))
NB_GIT(int, git_reference_delete, (git_reference *ref), (ref))
NB_GIT(int, git_reference_dwim,
  (git_reference **out, git_repository *repo, const char *shorthand), (out, repo, shorthand))
NB_GIT_VOID(git_reference_free, (git_reference *ref), (ref))
NB_GIT_VOID(git_reference_iterator_free, (git_reference_iterator *iter), (iter))
NB_GIT(int, git_reference_iterator_glob_new,
  (git_reference_iterator **out, git_repository *repo, const char *glob), (out, repo, glob))
NB_GIT(int, git_reference_lookup, (git_reference **out, git_repository *repo, const char *name), (out, repo, name))
NB_GIT(const char *, git_reference_name, (const git_reference *ref), (ref))
NB_GIT(int, git_reference_name_to_id, (git_oid *out, git_repository *repo, const char *name), (out, repo, name))
NB_GIT(int, git_reference_next, (git_reference **out, git_reference_iterator *iter), (out, iter))
NB_GIT(int, git_reference_resolve, (git_reference **out, const git_reference *ref), (out, ref))
NB_GIT(const char *, git_reference_symbolic_target, (const git_reference *ref), (ref))
NB_GIT(const git_oid *, git_reference_target, (const git_reference *ref), (ref))
NB_GIT(git_reference_t, git_reference_type, (const git_reference *ref), (ref))
NB_GIT(int, git_remote_connect,
  (git_remote *remote, git_direction direction, const git_remote_callbacks *callbacks,
  const git_proxy_options *proxy_opts, const git_strarray *custom_headers),
  (remote, direction, callbacks, proxy_opts, custom_headers))
NB_GIT(int, git_remote_create,
  (git_remote **out, git_repository *repo, const char *name, const char *url), (out, repo, name, url))
NB_GIT(int, git_remote_default_branch, (git_buf *out, git_remote *remote), (out, remote))
NB_GIT(int, git_remote_delete, (git_repository *repo, const char *name), (repo, name))
NB_GIT(int, git_remote_disconnect, (git_remote *remote), (remote))
NB_GIT(int, git_remote_download,
  (git_remote *remote, const git_strarray *refspecs, const git_fetch_options *opts), (remote, refspecs, opts))
NB_GIT_VOID(git_remote_free, (git_remote *remote), (remote))
NB_GIT(int, git_remote_init_callbacks, (git_remote_callbacks *opts, unsigned int version), (opts, version))
NB_GIT(int, git_remote_list, (git_strarray *out, git_repository *repo), (out, repo))
NB_GIT(int, git_remote_lookup, (git_remote **out, git_repository *repo, const char *name), (out, repo, name))
NB_GIT(int, git_remote_ls, (const git_remote_head ***out, size_t *size, git_remote *remote), (out, size, remote))
NB_GIT(const char *, git_remote_pushurl, (const git_remote *remote), (remote))
NB_GIT(int, git_remote_set_pushurl, (git_repository *repo, const char *remote, const char *url), (repo, remote, url))
NB_GIT(int, git_remote_set_url, (git_repository *repo, const char *remote, const char *url), (repo, remote, url))
NB_GIT(const git_indexer_progress *, git_remote_stats, (git_remote *remote), (remote))
NB_GIT(int, git_remote_update_tips,
  (git_remote *remote, const git_remote_callbacks *callbacks, int update_fetchhead,
  git_remote_autotag_option_t download_tags, const char *reflog_message),
  (remote, callbacks, update_fetchhead, download_tags, reflog_message))
NB_GIT(int, git_remote_upload,
  (git_remote *remote, const git_strarray *refspecs, const git_push_options *opts), (remote, refspecs, opts))
NB_GIT(const char *, git_remote_url, (const git_remote *remote), (remote))
NB_GIT(int, git_repository_config, (git_config **out, git_repository *repo), (out, repo))
NB_GIT_VOID(git_repository_free, (git_repository *repo), (repo))
NB_GIT(int, git_repository_hashfile,
  (git_oid *out, git_repository *repo, const char *path, git_object_t type, const char *as_path),
  (out, repo, path, type, as_path))
NB_GIT(int, git_repository_head_detached, (git_repository *repo), (repo))
NB_GIT(int, git_repository_head_unborn, (git_repository *repo), (repo))
NB_GIT(int, git_repository_index, (git_index **out, git_repository *repo), (out, repo))
NB_GIT(int, git_repository_init_ext,
  (git_repository **out, const char *repo_path, git_repository_init_options *opts), (out, repo_path, opts))
NB_GIT(int, git_repository_init_options_init,
  (git_repository_init_options *opts, unsigned int version), (opts, version))
NB_GIT(int, git_repository_is_bare, (const git_repository *repo), (repo))
NB_GIT(int, git_repository_odb, (git_odb **out, git_repository *repo), (out, repo))
NB_GIT(int, git_repository_open_bare, (git_repository **out, const char *bare_path), (out, bare_path))
NB_GIT(int, git_repository_open_ext,
  (git_repository **out, const char *path, unsigned int flags, const char *ceiling_dirs),
  (out, path, flags, ceiling_dirs))
NB_GIT(const char *, git_repository_path, (const git_repository *repo), (repo))
NB_GIT(int, git_repository_set_head, (git_repository *repo, const char *refname), (repo, refname))
NB_GIT(int, git_repository_set_index, (git_repository *repo, git_index *index), (repo, index))
NB_GIT(int, git_repository_state, (git_repository *repo), (repo))
NB_GIT(const char *, git_repository_workdir, (const git_repository *repo), (repo))
NB_GIT(int, git_reset_default,
  (git_repository *repo, const git_object *target, const git_strarray* pathspecs), (repo, target, pathspecs))
NB_GIT_VOID(git_revwalk_free, (git_revwalk *walk), (walk))
NB_GIT(int, git_revwalk_new, (git_revwalk **out, git_repository *repo), (out, repo))
NB_GIT(int, git_revwalk_next, (git_oid *out, git_revwalk *walk), (out, walk))
NB_GIT(int, git_revwalk_push, (git_revwalk *walk, const git_oid *id), (walk, id))
NB_GIT(int, git_revwalk_sorting, (git_revwalk *walk, unsigned int sort_mode), (walk, sort_mode))
NB_GIT_VOID(git_signature_free, (git_signature *sig), (sig))
NB_GIT(int, git_signature_new,
  (git_signature **out, const char *name, const char *email, git_time_t time, int offset),
  (out, name, email, time, offset))
NB_GIT(const git_status_entry *, git_status_byindex, (git_status_list *statuslist, size_t idx), (statuslist, idx))
NB_GIT(size_t, git_status_list_entrycount, (git_status_list *statuslist), (statuslist))
NB_GIT_VOID(git_status_list_free, (git_status_list *statuslist), (statuslist))
NB_GIT(int, git_status_list_new,
  (git_status_list **out, git_repository *repo, const git_status_options *opts), (out, repo, opts))
NB_GIT(int, git_status_options_init, (git_status_options *opts, unsigned int version), (opts, version))
NB_GIT_VOID(git_strarray_dispose, (git_strarray *array), (array))
NB_GIT(int, git_tree_create_updated,
  (git_oid *out, git_repository *repo, git_tree *baseline, size_t nupdates, const git_tree_update *updates),
  (out, repo, baseline, nupdates, updates))
NB_GIT(const git_tree_entry *, git_tree_entry_byindex, (const git_tree *tree, size_t idx), (tree, idx))
NB_GIT(int, git_tree_entry_bypath, (git_tree_entry **out, const git_tree *root, const char *path), (out, root, path))
NB_GIT(git_filemode_t, git_tree_entry_filemode_raw, (const git_tree_entry *entry), (entry))
NB_GIT_VOID(git_tree_entry_free, (git_tree_entry *entry), (entry))
NB_GIT(const git_oid *, git_tree_entry_id, (const git_tree_entry *entry), (entry))
NB_GIT(const char *, git_tree_entry_name, (const git_tree_entry *entry), (entry))
NB_GIT(git_object_t, git_tree_entry_type, (const git_tree_entry *entry), (entry))
NB_GIT_VOID(git_tree_free, (git_tree *tree), (tree))
NB_GIT(size_t, git_tree_entrycount, (const git_tree *tree), (tree))
NB_GIT(const git_oid *, git_tree_id, (const git_tree *tree), (tree))
NB_GIT(int, git_tree_lookup, (git_tree **out, git_repository *repo, const git_oid *id), (out, repo, id))
NB_GIT(int, git_tree_walk,
  (const git_tree *tree, git_treewalk_mode mode, git_treewalk_cb callback, void *payload),
  (tree, mode, callback, payload))
NB_GIT_VOID(git_treebuilder_free, (git_treebuilder *bld), (bld))
NB_GIT(int, git_treebuilder_new,
  (git_treebuilder **out, git_repository *repo, const git_tree *source), (out, repo, source))
NB_GIT(int, git_treebuilder_write, (git_oid *id, git_treebuilder *bld), (id, bld))
