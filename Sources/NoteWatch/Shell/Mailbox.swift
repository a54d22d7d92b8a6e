import Foundation

/// The watcher's inbox: the file-notification thread, signal handlers and the app post here; the watcher's one
/// thread waits on it with a deadline (its next save or remote check), so it sleeps, not polls, while nothing
/// happens.
final class Mailbox<Message>: @unchecked Sendable {
  private let condition = NSCondition()
  private var messages: [Message] = []

  func post(_ message: Message) {
    condition.lock()
    messages.append(message)
    condition.signal()
    condition.unlock()
  }

  /// Everything posted so far, waiting until something is or `deadline` passes (nil: no deadline); empty on
  /// timeout.
  func take(until deadline: Date?) -> [Message] {
    condition.lock()
    defer { condition.unlock() }
    while messages.isEmpty {
      if let deadline {
        if !condition.wait(until: deadline) { break }
      } else {
        condition.wait()
      }
    }
    let taken = messages
    messages.removeAll()
    return taken
  }
}
