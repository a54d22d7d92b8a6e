import Foundation

/// A `pre-receive` hook that makes a push lose a race, deterministically: while receive-pack holds the pushed
/// objects but before it moves any reference, the hook has another clone push to the same branch (a real second
/// `git push`, through the repository's own receive-pack), then lets the first push go on. receive-pack then finds
/// the branch no longer at the value it advertised and refuses the update ("failed to update ref", after "cannot
/// lock ref ... is at X but expected Y") — exactly what a server says when another device's push lands between a
/// client's ref advertisement and its update.
///
/// Only a server's receive-pack runs hooks: serve the repository over `git daemon`, smart HTTP or ssh (libgit2
/// writes a path or `file://` remote itself, without hooks).
public struct RacingPushHook {
  /// One line per time the hook ran for a push other than its own: `moved <n>` or `accepted <n>`.
  public let log: URL

  /// Installs the hook in the bare repository `bare`.
  ///
  /// - Parameters:
  ///   - other: a clone of `bare` (with a git identity) whose `HEAD` the hook pushes to `branch`.
  ///   - times: how many pushes lose the race; nil for every push (the remote keeps moving).
  ///   - prepare: shell commands run in `other` before each of the hook's pushes, with `$n` the run's number
  ///     (1, 2, ...); empty to push what `other` already committed.
  public static func install(
    in bare: URL, branch: String = "main", other: URL, times: Int?, prepare: String = ""
  ) throws -> RacingPushHook {
    let log = bare.appendingPathComponent("racing-push.log")
    let counter = bare.appendingPathComponent("racing-push.count")
    // The nested push runs this hook again; the variable (inherited through the local receive-pack) lets it pass.
    // Inside pre-receive, GIT_DIR and the quarantine's object directories point at the pushed repository, and git
    // refuses reference updates from a quarantine, so they are unset before working in the other clone.
    let script = """
      #!/bin/sh
      cat >/dev/null
      if [ -n "$NB_TEST_RACING_PUSH" ]; then exit 0; fi
      n=$(( $(cat '\(counter.path)' 2>/dev/null || echo 0) + 1 ))
      echo "$n" > '\(counter.path)'
      if [ \(times ?? -1) -ge 0 ] && [ "$n" -gt \(times ?? -1) ]; then
        echo "accepted $n" >> '\(log.path)'
        exit 0
      fi
      unset $(git rev-parse --local-env-vars) GIT_QUARANTINE_PATH GIT_PUSH_OPTION_COUNT
      cd '\(other.path)' || exit 1
      \(prepare.isEmpty ? ":" : prepare)
      NB_TEST_RACING_PUSH=1 git push -q '\(bare.path)' 'HEAD:refs/heads/\(branch)' >&2 || exit 1
      echo "moved $n" >> '\(log.path)'
      exit 0

      """
    let hook = bare.appendingPathComponent("hooks/pre-receive")
    try Data(script.utf8).write(to: hook)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook.path)
    return RacingPushHook(log: log)
  }

  /// The log's lines, in order (empty before the hook first ran).
  public var runs: [String] {
    guard let data = FileManager.default.contents(atPath: log.path) else { return [] }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
  }
}
