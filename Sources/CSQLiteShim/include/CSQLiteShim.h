#ifndef NB_CSQLITESHIM_H
#define NB_CSQLITESHIM_H

#include <sqlite3.h>

/// sqlite3_db_config is variadic, which Swift cannot call: this asks SQLite not to checkpoint the write-ahead log
/// when the connection closes (a short nb command would otherwise pay a checkpoint, with its fsync, on every exit;
/// the log is checkpointed by later commits as usual). Returns SQLITE_OK, or SQLITE_OK on an SQLite without it.
static inline int nb_sqlite_skip_checkpoint_on_close(sqlite3 *db) {
#ifdef SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE
  return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
#else
  (void)db;
  return SQLITE_OK;
#endif
}

/// Replaces SQLite's automatic checkpoint with one that also empties the write-ahead log. With nb's short processes
/// and no checkpoint on close, the automatic one never lets the log start over: every process that opens the index
/// is its first connection, rebuilds the log's index (which forgets what was checkpointed) and reads the whole log,
/// so the log grew by every command's pages (3 MB after 60 `nb add`) and each command read all of it (7 ms at
/// 8 MB). After a commit leaves `frames` or more pages in the log, this copies them into the database and truncates
/// the log to nothing — without waiting: when a reader still uses the log (a paged `nb list`), the checkpoint gives
/// up at once (the busy timeout is lifted for it, then set back to `busyTimeoutMilliseconds`) and a later commit
/// tries again.
static inline int nb_sqlite_truncating_checkpoint_hook(void *arg, sqlite3 *db, const char *name, int frames) {
  long long packed = (long long)(long)arg;
  int threshold = (int)(packed & 0xFFFFFFFF);
  int timeout = (int)(packed >> 32);
  if (frames < threshold) return SQLITE_OK;
  sqlite3_busy_timeout(db, 0);
  (void)sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_TRUNCATE, (int *)0, (int *)0);
  sqlite3_busy_timeout(db, timeout);
  return SQLITE_OK;
}

/// Installs nb_sqlite_truncating_checkpoint_hook on `db` (in place of `PRAGMA wal_autocheckpoint`).
static inline void nb_sqlite_truncate_log_after(sqlite3 *db, int frames, int busyTimeoutMilliseconds) {
  long long packed = ((long long)busyTimeoutMilliseconds << 32) | (long long)(unsigned int)frames;
  sqlite3_wal_hook(db, nb_sqlite_truncating_checkpoint_hook, (void *)(long)packed);
}

#endif
