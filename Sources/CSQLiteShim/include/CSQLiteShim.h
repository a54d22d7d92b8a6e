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

#endif
