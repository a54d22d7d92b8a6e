import Foundation

/// A clock the test moves by hand, so every timestamp nb writes is known in advance.
final class ManualClock {
  /// The instant the repository reads.
  var now: Date

  init(_ now: Date) { self.now = now }

  /// Moves the clock by `seconds` (negative goes back in time).
  func advance(_ seconds: TimeInterval) { now = now.addingTimeInterval(seconds) }
}
