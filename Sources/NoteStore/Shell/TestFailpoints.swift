import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Points where the crash tests kill nb on purpose. A kill timed from outside rarely lands inside a transaction or
/// a checkout that takes a few milliseconds, so a test that must prove the journal undoes a torn one names the
/// moment instead, and nb sends itself `SIGKILL` there (no cleanup runs, exactly as for a kill from outside):
/// - `NB_TEST_KILL_IN_TRANSACTION=N`: right after a mutating command's Nth change to the work tree (a file
///   written or removed, a directory made or removed, a move), before the next one or the commit;
/// - `NB_TEST_KILL_IN_CHECKOUT=N`: right after a sync's checkout wrote or removed its Nth file, before the next
///   one or the branch's move.
///
/// Unset, which is always outside the tests, neither is called.
enum TestFailpoints {
  /// What a transaction calls with its count of changes, when a kill is asked for.
  static let transactionChanged = killer("NB_TEST_KILL_IN_TRANSACTION")
  /// What a journaled checkout calls with its count of files, when a kill is asked for.
  static let checkoutFileWritten = killer("NB_TEST_KILL_IN_CHECKOUT")

  private static func killer(_ variable: String) -> ((Int) -> Void)? {
    guard let value = getenv(variable), let limit = Int(String(cString: value)) else { return nil }
    return { count in if count == limit { kill(getpid(), SIGKILL) } }
  }
}
