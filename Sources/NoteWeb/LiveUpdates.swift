import Foundation
import NoteStore
import NoteWatch

/// The open pages' subscriptions to the repository's changes: one ``RepositoryFeed`` fanned out to every page's
/// Server-Sent Events stream (`GET /events`), as the text of each event.
///
/// An event is `event: change` with one JSON line, `{"everything": false, "paths": ["work/roadmap.md"]}`; the
/// page's script refreshes what it shows, or tells an open edit form that its file changed. A comment line every
/// ``heartbeat`` seconds keeps proxies and the browser from taking a quiet stream for a dead one, and lets the
/// server notice a page that went away.
public final class LiveUpdates: @unchecked Sendable {
  /// Seconds between keep-alive comments.
  public let heartbeat: TimeInterval
  private let lock = NSLock()
  private var subscribers: [UUID: AsyncStream<String>.Continuation] = [:]
  private var timer: DispatchSourceTimer?
  private var feed: RepositoryFeed?

  /// A hub with no source yet: ``publish(_:)`` feeds it (tests), or ``listen(to:)`` a repository.
  public init(heartbeat: TimeInterval = 25) {
    self.heartbeat = heartbeat
    let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "nb.serve.heartbeat"))
    timer.schedule(deadline: .now() + heartbeat, repeating: heartbeat)
    timer.setEventHandler { [weak self] in self?.send(": keep-alive\n\n") }
    timer.resume()
    self.timer = timer
  }

  deinit {
    timer?.cancel()
    feed?.stop()
  }

  /// Starts a feed of the repository at `root`, published to every subscriber from now on. With `journalFor`, the
  /// feed also keeps that repository's change journal (see ``RepositoryFeed``), so the pages' queries never walk.
  /// - Throws: ``WatchError`` when the root cannot be watched.
  /// `immediately` is called on the watcher's thread as soon as a file is seen to change, before the change reaches
  /// any page (see ``RepositoryFeed/start(immediately:_:)``).
  public func listen(
    to root: URL, journalFor repository: NoteRepository? = nil, immediately: (@Sendable () -> Void)? = nil
  ) throws {
    let feed = try RepositoryFeed(root: root, journalFor: repository)
    feed.start(immediately: immediately) { [weak self] change in self?.publish(change) }
    lock.withLock { self.feed = feed }
  }

  /// How many pages are subscribed.
  public var count: Int { lock.withLock { subscribers.count } }

  /// A new subscription: the stream of event texts, starting with the reconnection delay for the browser.
  /// ``unsubscribe(_:)`` it when the page goes away.
  public func subscribe() -> (id: UUID, events: AsyncStream<String>) {
    let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(64))
    let id = UUID()
    // A browser reconnects on its own after a dropped stream; one second keeps a restarted server's pages live.
    continuation.yield("retry: 1000\n: connected\n\n")
    lock.withLock { subscribers[id] = continuation }
    return (id, stream)
  }

  /// Ends a subscription.
  public func unsubscribe(_ id: UUID) {
    lock.withLock { subscribers.removeValue(forKey: id) }?.finish()
  }

  /// Ends every subscription (the server is stopping).
  public func finishAll() {
    let all = lock.withLock {
      defer { subscribers.removeAll() }
      return Array(subscribers.values)
    }
    for continuation in all { continuation.finish() }
  }

  /// Sends `change` to every subscriber.
  public func publish(_ change: RepositoryFeed.Change) {
    send(Self.event(change))
  }

  /// The event text of `change`: `event: change`, then its JSON on one `data:` line.
  static func event(_ change: RepositoryFeed.Change) -> String {
    let object: [String: Any] = ["paths": change.paths, "everything": change.everything]
    let json =
      (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
      .map { String(decoding: $0, as: UTF8.self) } ?? #"{"everything":true,"paths":[]}"#
    return "event: change\ndata: \(json)\n\n"
  }

  private func send(_ text: String) {
    let all = lock.withLock { Array(subscribers.values) }
    for continuation in all { continuation.yield(text) }
  }
}
