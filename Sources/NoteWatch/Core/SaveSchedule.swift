import Foundation

/// When the watcher saves: `debounce` after the last change of a burst, but never later than `maxDelay` after its
/// first, so a file written without pause is still saved. Pure: it is given the time, it keeps no clock.
public struct SaveSchedule: Equatable, Sendable {
  /// Quiet time after the last change.
  public var debounce: TimeInterval
  /// The longest a change waits, however busy the files stay.
  public var maxDelay: TimeInterval
  /// The first change not yet saved.
  public private(set) var first: Date?
  /// The last change not yet saved.
  public private(set) var last: Date?

  /// Creates an empty schedule.
  public init(debounce: TimeInterval, maxDelay: TimeInterval = 30) {
    self.debounce = debounce
    self.maxDelay = max(maxDelay, debounce)
  }

  /// Whether a change waits to be saved.
  public var isPending: Bool { first != nil }

  /// Records a change seen at `time`.
  public mutating func change(at time: Date) {
    if first == nil { first = time }
    if last.map({ time > $0 }) ?? true { last = time }
  }

  /// When the pending changes are due; nil when nothing is pending.
  public var deadline: Date? {
    guard let first, let last else { return nil }
    return min(last.addingTimeInterval(debounce), first.addingTimeInterval(maxDelay))
  }

  /// Whether the pending changes are due at `time`.
  public func isDue(at time: Date) -> Bool {
    deadline.map { time >= $0 } ?? false
  }

  /// Forgets the pending changes (they were saved).
  public mutating func saved() {
    first = nil
    last = nil
  }
}

/// How long to wait before retrying something that failed (an unreachable remote, a full disk): doubling from
/// `initial` up to `maximum`, so an offline laptop costs a look every few minutes, not every interval.
public struct RetryDelay: Equatable, Sendable {
  /// The first wait.
  public var initial: TimeInterval
  /// The longest wait.
  public var maximum: TimeInterval
  /// Failures in a row so far.
  public private(set) var failures = 0

  /// Creates a delay that starts at `initial` and stops doubling at `maximum`.
  public init(initial: TimeInterval, maximum: TimeInterval = 180) {
    self.initial = initial
    self.maximum = max(initial, maximum)
  }

  /// Records one more failure and returns how long to wait before the next try.
  public mutating func failed() -> TimeInterval {
    let wait = min(maximum, initial * pow(2, Double(min(failures, 30))))
    failures += 1
    return wait
  }

  /// Records a success: the next failure waits `initial` again.
  public mutating func succeeded() { failures = 0 }

  /// Whether the last try failed.
  public var isFailing: Bool { failures > 0 }
}
