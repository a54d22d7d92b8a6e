import ArgumentParser

struct CheckCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Check the repository for problems (exit 0: none, 1: some found, 2: usage error or no check).",
    subcommands: [CheckLinks.self], defaultSubcommand: CheckLinks.self)

  /// The exit status for a problem found: a vault's CI fails on it.
  static let problemsStatus: Int32 = 1
  /// The exit status for a command line nb check cannot understand, or a check that could not run (as grep: 2).
  static let usageStatus: Int32 = 2
}
