import Foundation

/// `nb migrate`: bringing a repository to the newest format, one ``FormatMigration`` step at a time.
extension NoteRepository {
  /// What a migration to ``RepositoryFormat/newest`` would change, without changing anything: the steps, the new
  /// settings text, and the directories that would become attachment folders. Empty (`isEmpty`) at the newest
  /// format.
  public func migrationPlan() throws -> MigrationPlan {
    let configText = try readText(".nb/config.yaml")
    return FormatMigration.plan(from: config.format, configText: configText, tree: migrationTree())
  }

  /// Applies ``migrationPlan()`` as one commit (`migrate repository to format N`) that changes only the `format:`
  /// line of `.nb/config.yaml` — what changes meaning (directories becoming attachment folders) changes no byte.
  /// Returns the plan it applied; at the newest format it changes and commits nothing.
  @discardableResult
  public func migrate() throws -> MigrationPlan {
    let plan = try mutate { tx in
      // Planned again under the lock: another process may have migrated meanwhile.
      let plan = try migrationPlan()
      guard !plan.isEmpty else { return plan }
      try tx.write(".nb/config.yaml", plan.configText)
      tx.subject = "migrate repository to format \(plan.to)"
      return plan
    }
    if !plan.isEmpty {
      config.format = plan.to
      // The index's rows were built as the old format reads the tree (notes in what are now attachment folders):
      // rebuilt here, as part of the migration, rather than by the next command with a notice about it.
      if index.isPresent { _ = try? index.rebuild() }
    }
    return plan
  }

  /// Every non-hidden directory and `.md` file of the work tree, as a migration step sees the tree (the whole of
  /// it, as format 1 reads it: nothing is an attachment folder yet).
  private func migrationTree() -> FormatMigration.Tree {
    var tree = FormatMigration.Tree(directories: [], markdownFiles: [])
    func walk(_ directory: String) {
      let full = directory.isEmpty ? root.path : absolute(directory)
      for entry in FileSystem.entries(of: full) where !entry.name.hasPrefix(".") {
        let path = RepoPaths.join(directory, entry.name)
        if entry.isDirectory {
          tree.directories.append(path)
          walk(path)
        } else if entry.isRegular, RepoPaths.isNotePath(path) {
          tree.markdownFiles.insert(path)
        }
      }
    }
    walk("")
    return tree
  }
}
