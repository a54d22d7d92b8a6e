import CLibGit2
import Foundation

/// A configured remote (`remote.<name>.url` / `pushurl`).
public struct Remote: Sendable, Equatable {
  /// The remote's name, e.g. `origin`.
  public var name: String
  /// Where fetches go.
  public var url: String
  /// Where pushes go when different from `url`.
  public var pushURL: String?

  /// Creates a remote value.
  public init(name: String, url: String, pushURL: String? = nil) {
    self.name = name
    self.url = url
    self.pushURL = pushURL
  }
}

/// What a remote advertised when we connected: its references and the branch its HEAD names.
public struct RemoteListing: Sendable, Equatable {
  /// Full reference name -> id, e.g. `refs/heads/main`. Empty for a repository without commits.
  public var references: [String: ObjectID]
  /// The branch the remote's HEAD points to (`refs/heads/main`, `refs/heads/master`); nil when the remote is
  /// empty or does not say.
  public var defaultBranch: String?

  /// Creates a listing.
  public init(references: [String: ObjectID], defaultBranch: String?) {
    self.references = references
    self.defaultBranch = defaultBranch
  }

  /// True when the remote has no branch at all (a freshly created bare repository).
  public var isEmpty: Bool { !references.keys.contains { $0.hasPrefix("refs/heads/") } }
}

/// The outcome of `fetch`.
public struct FetchResult: Sendable, Equatable {
  /// The remote's references and default branch as seen during this fetch.
  public var listing: RemoteListing
  /// The local references the fetch moved (remote-tracking branches, tags); empty when nothing was new.
  public var updatedReferences: [ReferenceUpdate]
  /// Objects received in the pack (0 when everything was already here).
  public var receivedObjects: Int
  /// Bytes received.
  public var receivedBytes: Int

  /// Creates a result.
  public init(
    listing: RemoteListing, updatedReferences: [ReferenceUpdate], receivedObjects: Int, receivedBytes: Int
  ) {
    self.listing = listing
    self.updatedReferences = updatedReferences
    self.receivedObjects = receivedObjects
    self.receivedBytes = receivedBytes
  }
}

/// What happened to one reference of a push.
public struct PushedReference: Sendable, Equatable {
  /// The outcome for one destination reference.
  public enum Status: Sendable, Equatable {
    /// The remote now has the new value.
    case updated
    /// The remote already had this value; nothing was sent.
    case upToDate
    /// The remote's value is not an ancestor of ours: the remote moved since the last fetch (then nothing was sent),
    /// or while the push was on its way (the server refused the update and its branch turned out to have moved:
    /// another push won the race). Fetch and merge, then retry.
    case rejectedNonFastForward
    /// The server refused the update (a hook, a protected branch), with its reason.
    case rejectedByServer(String)
  }

  /// The local reference pushed, e.g. `refs/heads/main`.
  public var source: String
  /// The remote reference, e.g. `refs/heads/main`.
  public var destination: String
  /// The remote's value before the push; nil when it did not exist.
  public var remoteOld: ObjectID?
  /// The value pushed.
  public var local: ObjectID
  /// The outcome.
  public var status: Status

  /// Creates a value.
  public init(source: String, destination: String, remoteOld: ObjectID?, local: ObjectID, status: Status) {
    self.source = source
    self.destination = destination
    self.remoteOld = remoteOld
    self.local = local
    self.status = status
  }

  /// True for `.rejectedNonFastForward` and `.rejectedByServer`.
  public var isRejected: Bool {
    switch status {
    case .updated, .upToDate: return false
    case .rejectedNonFastForward, .rejectedByServer: return true
    }
  }

  /// True for `.rejectedByServer`.
  var isRefusedByServer: Bool {
    if case .rejectedByServer = status { return true }
    return false
  }
}

/// The outcome of `push`: one entry per refspec, in order.
public struct PushResult: Sendable, Equatable {
  /// Per-reference outcomes.
  public var references: [PushedReference]

  /// Creates a result.
  public init(references: [PushedReference]) { self.references = references }

  /// The entries that were refused.
  public var rejected: [PushedReference] { references.filter(\.isRejected) }
  /// True when every reference is now on the remote.
  public var succeeded: Bool { rejected.isEmpty }
}

extension Repository {
  // MARK: Configured remotes

  /// The configured remotes, sorted by name.
  public func remotes() throws -> [Remote] {
    var names = git_strarray()
    try check("git_remote_list", git_remote_list(&names, pointer))
    defer { git_strarray_dispose(&names) }
    var result: [Remote] = []
    for i in 0..<names.count {
      guard let cName = names.strings[i] else { continue }
      if let remote = try remote(named: String(cString: cName)) { result.append(remote) }
    }
    return result.sorted { $0.name < $1.name }
  }

  /// The remote called `name`, or nil when there is none.
  public func remote(named name: String) throws -> Remote? {
    var remote: OpaquePointer?
    let rc = git_remote_lookup(&remote, pointer, name)
    if rc == GIT_ENOTFOUND.rawValue { return nil }
    try check("git_remote_lookup(\(name))", rc)
    defer { git_remote_free(remote) }
    return Remote(
      name: name, url: git_remote_url(remote).map { String(cString: $0) } ?? "",
      pushURL: git_remote_pushurl(remote).map { String(cString: $0) })
  }

  /// `git remote add <name> <url>`, with git's default fetch refspec `+refs/heads/*:refs/remotes/<name>/*`.
  @discardableResult
  public func addRemote(name: String, url: String) throws -> Remote {
    var remote: OpaquePointer?
    try check("git_remote_create(\(name))", git_remote_create(&remote, pointer, name, url))
    git_remote_free(remote)
    return Remote(name: name, url: url)
  }

  /// `git remote remove <name>`: its config, remote-tracking branches and upstream settings pointing at it.
  public func removeRemote(name: String) throws {
    try check("git_remote_delete(\(name))", git_remote_delete(pointer, name))
  }

  /// `git remote set-url [--push] <name> <url>`; a nil `pushURL` leaves it as it is.
  public func setRemoteURL(name: String, url: String, pushURL: String? = nil) throws {
    try check("git_remote_set_url(\(name))", git_remote_set_url(pointer, name, url))
    if let pushURL { try check("git_remote_set_pushurl(\(name))", git_remote_set_pushurl(pointer, name, pushURL)) }
  }

  // MARK: Network operations

  /// Connects to `remote` and lists its references and default branch without downloading anything.
  public func listRemote(_ remote: String, credentials: Credentials = .none) throws -> RemoteListing {
    try listRemote(remote, direction: GIT_DIRECTION_FETCH, credentials: credentials)
  }

  /// The listing of the fetch URL, or of the push URL (`pushurl`, else the URL) as receive-pack advertises it.
  private func listRemote(_ remote: String, direction: git_direction, credentials: Credentials) throws
    -> RemoteListing
  {
    let context = RemoteCallbackContext(credentials: credentials, progress: nil)
    return try withRemote(remote, context: context) { handle in
      var callbacks = try context.callbacks()
      try connect(handle, direction: direction, callbacks: &callbacks, context: context, name: remote)
      defer { git_remote_disconnect(handle) }
      return try listing(handle, context: context, name: remote)
    }
  }

  /// `git fetch <remote> [refspecs]`: downloads what is new and moves the remote-tracking references. Local
  /// branches, the index and the work tree are not touched, so a failed fetch changes nothing that matters.
  ///
  /// - Parameters:
  ///   - refspecs: fetch refspecs; empty uses the remote's configured ones.
  ///   - progress: called on this thread while the pack arrives.
  ///   - updateFetchHead: write `FETCH_HEAD` as `git fetch` does. A caller that never reads it passes false, and
  ///     the file is left empty (libgit2 truncates it either way): filled, it is freed and written again by every
  ///     fetch, and on a file system that discards freed blocks synchronously each free waits for the disk.
  /// - Throws: `RemoteError` (`isNetwork` when the remote is unreachable).
  @discardableResult
  public func fetch(
    remote: String, refspecs: [String] = [], credentials: Credentials = .none,
    progress: ((TransferProgress) -> Void)? = nil, updateFetchHead: Bool = true
  ) throws -> FetchResult {
    let context = RemoteCallbackContext(credentials: credentials, progress: progress)
    return try withRemote(remote, context: context) { handle in
      var callbacks = try context.callbacks()
      try connect(handle, direction: GIT_DIRECTION_FETCH, callbacks: &callbacks, context: context, name: remote)
      defer { git_remote_disconnect(handle) }
      let listing = try listing(handle, context: context, name: remote)

      var options = git_fetch_options()
      try check("git_fetch_options_init", git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION)))
      options.callbacks = callbacks
      // An empty remote has nothing to download; libgit2 would still negotiate, which some servers dislike.
      if !listing.references.isEmpty {
        let rc =
          refspecs.isEmpty
          ? git_remote_download(handle, nil, &options)
          : withStrArray(refspecs) { specs in git_remote_download(handle, &specs, &options) }
        if rc < 0 { throw context.error("git_remote_download", rc, remote: remote) }
      }
      let rc = git_remote_update_tips(
        handle, &callbacks, updateFetchHead ? 1 : 0, GIT_REMOTE_DOWNLOAD_TAGS_UNSPECIFIED, "fetch \(remote)")
      if rc < 0 { throw context.error("git_remote_update_tips", rc, remote: remote) }
      let stats = git_remote_stats(handle)?.pointee
      context.settle(.accepted)
      return FetchResult(
        listing: listing, updatedReferences: context.tipUpdates,
        receivedObjects: Int(stats?.received_objects ?? 0), receivedBytes: Int(stats?.received_bytes ?? 0))
    }
  }

  /// `git push <remote> <refspecs>`, never forced: each refspec is `src[:dst]` (`main`, `refs/heads/main`,
  /// `refs/heads/main:refs/heads/main`). A reference whose remote value is not an ancestor of ours is not sent and
  /// comes back as `.rejectedNonFastForward`; the others are pushed together and each gets the server's verdict
  /// (libgit2's push-update-reference callback). Remote-tracking references of accepted updates are moved.
  ///
  /// A reference the server refused is looked at again on a new connection: when the remote's value moved since
  /// it was advertised, the refusal was a lost race and comes back as `.rejectedNonFastForward` like any other.
  ///
  /// - Throws: `RemoteError` for transport failures (`isNetwork` when unreachable) and `.invalidRefspec` for a
  ///   forced (`+`) or deleting (`:dst`) refspec or an unknown source. Rejections are results, not errors.
  public func push(
    remote: String, refspecs: [String], credentials: Credentials = .none
  ) throws -> PushResult {
    let planned = try refspecs.map { try resolvePushRefspec($0, remote: remote) }
    let context = RemoteCallbackContext(credentials: credentials, progress: nil)
    let result = try withRemote(remote, context: context) { handle in
      var callbacks = try context.callbacks()
      try connect(handle, direction: GIT_DIRECTION_PUSH, callbacks: &callbacks, context: context, name: remote)
      defer { git_remote_disconnect(handle) }
      let advertised = try listing(handle, context: context, name: remote).references

      var results: [PushedReference] = []
      var toSend: [String] = []
      for (source, destination, local) in planned {
        let remoteOld = advertised[destination]
        var status = PushedReference.Status.updated
        if remoteOld == local {
          status = .upToDate
        } else if let remoteOld, !(try isAncestor(remoteOld, of: local)) {
          status = .rejectedNonFastForward
        } else {
          toSend.append("\(source):\(destination)")
        }
        results.append(
          PushedReference(
            source: source, destination: destination, remoteOld: remoteOld, local: local, status: status))
      }
      guard !toSend.isEmpty else {
        context.settle(.accepted)
        return PushResult(references: results)
      }

      var options = git_push_options()
      try check("git_push_options_init", git_push_options_init(&options, UInt32(GIT_PUSH_OPTIONS_VERSION)))
      options.callbacks = callbacks
      // The pack's delta search on every core, as git's pack-objects does (libgit2's default is one thread).
      options.pb_parallelism = 0
      let rc = withStrArray(toSend) { specs in git_remote_upload(handle, &specs, &options) }
      if rc < 0 { throw context.error("git_remote_upload", rc, remote: remote) }
      for i in results.indices where results[i].status == .updated {
        // A ref the server never mentioned was not accepted either; say so rather than claim success.
        switch context.pushStatuses[results[i].destination] {
        case .some(.none): break
        case .some(.some(let message)): results[i].status = .rejectedByServer(context.rejection(message))
        case .none: results[i].status = .rejectedByServer("no status reported by the server")
        }
      }
      let tips = git_remote_update_tips(handle, &callbacks, 0, GIT_REMOTE_DOWNLOAD_TAGS_NONE, "push \(remote)")
      if tips < 0 { throw context.error("git_remote_update_tips", tips, remote: remote) }
      context.settle(.accepted)
      return PushResult(references: results)
    }
    return recheckingRefusals(result, remote: remote, credentials: credentials)
  }

  /// A server refuses an update whose old value no longer matches the branch (git's receive-pack says "failed to
  /// update ref", having printed "cannot lock ref ... is at X but expected Y"; other servers word it their own
  /// way): the branch moved while the push was on its way, because another device's push won the race or a hook
  /// moved it. The words vary, so the branch is looked at again instead: moved since it was advertised, the
  /// refusal becomes `.rejectedNonFastForward` (fetch, merge, retry); not moved, it stands with the server's
  /// reason. When the second look fails the refusal stands too.
  private func recheckingRefusals(_ result: PushResult, remote: String, credentials: Credentials) -> PushResult {
    guard result.references.contains(where: \.isRefusedByServer),
      let now = try? listRemote(remote, direction: GIT_DIRECTION_PUSH, credentials: credentials).references
    else { return result }
    var result = result
    for i in result.references.indices where result.references[i].isRefusedByServer {
      let reference = result.references[i]
      let current = now[reference.destination]
      guard current != reference.remoteOld else { continue }
      // Someone else pushed this very commit meanwhile: it is there, which is all the push wanted.
      result.references[i].status = current == reference.local ? .upToDate : .rejectedNonFastForward
    }
    return result
  }

  // MARK: Helpers

  private func withRemote<R>(
    _ name: String, context: RemoteCallbackContext, _ body: (OpaquePointer) throws -> R
  ) throws -> R {
    var remote: OpaquePointer?
    try check("git_remote_lookup(\(name))", git_remote_lookup(&remote, pointer, name))
    defer { git_remote_free(remote) }
    context.url = git_remote_url(remote).map { String(cString: $0) } ?? name
    return try withExtendedLifetime(context) { try body(remote!) }
  }

  private func connect(
    _ remote: OpaquePointer, direction: git_direction, callbacks: inout git_remote_callbacks,
    context: RemoteCallbackContext, name: String
  ) throws {
    var proxy = git_proxy_options()
    try check("git_proxy_options_init", git_proxy_options_init(&proxy, UInt32(GIT_PROXY_OPTIONS_VERSION)))
    // Honour http_proxy / https_proxy and git's http.proxy like the git CLI does.
    proxy.type = GIT_PROXY_AUTO
    try useConfiguredCertificates(name: name)
    let rc = git_remote_connect(remote, direction, &callbacks, &proxy, nil)
    if rc < 0 { throw context.error("git_remote_connect", rc, remote: name) }
    // The server answered past authentication, so what was offered for it worked.
    context.settle(.accepted)
  }

  /// The CA certificates git itself would verify an https server with, when they are not the system's: the
  /// environment's `GIT_SSL_CAINFO` / `GIT_SSL_CAPATH`, else the config's `http.sslCAInfo` / `http.sslCAPath` (a
  /// company's own CA, a self-hosted server). libgit2 reads neither; without them it uses the system bundle.
  private func useConfiguredCertificates(name: String) throws {
    let environment = ProcessInfo.processInfo.environment
    func setting(_ variable: String, _ key: String) -> String? {
      if let value = environment[variable], !value.isEmpty { return value }
      return config(key).flatMap { $0.isEmpty ? nil : ($0.hasPrefix("~/") ? NSHomeDirectory() + $0.dropFirst() : $0) }
    }
    let file = setting("GIT_SSL_CAINFO", "http.sslCAInfo")
    let directory = setting("GIT_SSL_CAPATH", "http.sslCAPath")
    guard file != nil || directory != nil else { return }
    // A location that cannot be read would otherwise surface as every certificate failing to verify.
    for location in [file, directory].compactMap({ $0 }) where access(location, R_OK) != 0 {
      throw GitError(
        function: "http.sslCAInfo", code: -1,
        message: "cannot read the CA certificates at \(location) (from GIT_SSL_CAINFO/GIT_SSL_CAPATH or http.sslCAInfo/http.sslCAPath); fix or unset it")
    }
    try check("git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS)", nb_git_set_ssl_cert_locations(file, directory))
  }

  private func listing(_ remote: OpaquePointer, context: RemoteCallbackContext, name: String) throws
    -> RemoteListing
  {
    var heads: UnsafeMutablePointer<UnsafePointer<git_remote_head>?>?
    var count = 0
    let rc = git_remote_ls(&heads, &count, remote)
    if rc < 0 { throw context.error("git_remote_ls", rc, remote: name) }
    var references: [String: ObjectID] = [:]
    var symbolicHead: String?
    for i in 0..<count {
      guard let head = heads?[i]?.pointee, let cName = head.name else { continue }
      let refName = String(cString: cName)
      if refName == "HEAD" {
        symbolicHead = head.symref_target.map { String(cString: $0) }
        continue
      }
      // Peeled tag entries (`refs/tags/v1^{}`) are not references.
      if refName.hasSuffix("^{}") { continue }
      references[refName] = ObjectID(head.oid)
    }
    var defaultBranch = symbolicHead
    if defaultBranch == nil {
      var buf = git_buf()
      defer { git_buf_dispose(&buf) }
      if git_remote_default_branch(&buf, remote) == 0, let ptr = buf.ptr { defaultBranch = String(cString: ptr) }
    }
    return RemoteListing(references: references, defaultBranch: defaultBranch)
  }

  private func resolvePushRefspec(_ spec: String, remote: String) throws -> (String, String, ObjectID) {
    func invalid(_ why: String) -> RemoteError {
      RemoteError(
        kind: .invalidRefspec, remote: remote,
        underlying: GitError(function: "Repository.push", code: GIT_EINVALIDSPEC.rawValue, message: why))
    }
    if spec.hasPrefix("+") { throw invalid("\(spec): GitKit never force-pushes") }
    let parts = spec.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
    let sourceName = parts[0]
    if sourceName.isEmpty { throw invalid("\(spec): deleting a remote reference is not supported") }
    var ref: OpaquePointer?
    let rc = git_reference_dwim(&ref, pointer, sourceName)
    if rc < 0 { throw invalid("\(spec): no local reference \(sourceName)") }
    defer { git_reference_free(ref) }
    var resolved: OpaquePointer?
    try check("git_reference_resolve(\(sourceName))", git_reference_resolve(&resolved, ref))
    defer { git_reference_free(resolved) }
    guard let target = git_reference_target(resolved), let fullName = git_reference_name(ref) else {
      throw invalid("\(spec): \(sourceName) does not point at a commit")
    }
    let source = String(cString: fullName)
    var destination = parts.count > 1 && !parts[1].isEmpty ? parts[1] : source
    if !destination.hasPrefix("refs/") { destination = "refs/heads/" + destination }
    return (source, destination, ObjectID(target))
  }

  /// True when `ancestor` is `descendant` or reachable from it; false when `ancestor` is not even in this
  /// repository (the remote has commits we have not fetched).
  private func isAncestor(_ ancestor: ObjectID, of descendant: ObjectID) throws -> Bool {
    if ancestor == descendant { return true }
    var odb: OpaquePointer?
    try check("git_repository_odb", git_repository_odb(&odb, pointer))
    defer { git_odb_free(odb) }
    var oid = ancestor.oid
    guard git_odb_exists(odb, &oid) == 1 else { return false }
    return try isDescendant(descendant, of: ancestor)
  }
}

// MARK: - A bare repository's HEAD

/// What ``repairDanglingHead(ofBareRepositoryAt:branch:)`` found.
public enum BareHeadRepair: Sendable, Equatable {
  /// HEAD named a branch the repository does not have; it now names `branch`.
  case repointed(from: String)
  /// HEAD already names a branch that exists (or is detached): left alone.
  case unchanged
  /// The repository does not have `branch` (yet): nothing to point HEAD at.
  case branchMissing
}

extension Repository {
  /// Points the HEAD of the bare repository at `gitDirectory` at `refs/heads/<branch>` when HEAD names a branch
  /// that does not exist there — what `git init --bare` with `init.defaultBranch=master` leaves behind once only
  /// `main` is pushed, so that `git clone` checks out nothing. A HEAD naming an existing branch is the owner's
  /// choice and is never changed; a repository with a work tree is refused (moving its HEAD would make its
  /// checkout look like a change of every file).
  public static func repairDanglingHead(ofBareRepositoryAt gitDirectory: URL, branch: String) throws
    -> BareHeadRepair
  {
    LibGit2.initialize()
    var repo: OpaquePointer?
    try check("git_repository_open_bare", git_repository_open_bare(&repo, gitDirectory.standardizedFileURL.path))
    defer { git_repository_free(repo) }
    guard git_repository_is_bare(repo) == 1 else {
      throw GitError(
        function: "git_repository_is_bare", code: GIT_EINVALID.rawValue,
        message: "\(gitDirectory.path) is not a bare repository")
    }
    var head: OpaquePointer?
    let lookup = git_reference_lookup(&head, repo, "HEAD")
    try check("git_reference_lookup(HEAD)", lookup)
    defer { git_reference_free(head) }
    guard git_reference_type(head) == GIT_REFERENCE_SYMBOLIC, let cTarget = git_reference_symbolic_target(head)
    else { return .unchanged }
    let target = String(cString: cTarget)
    var oid = git_oid()
    let resolved = git_reference_name_to_id(&oid, repo, target)
    if resolved == 0 { return .unchanged }
    if resolved != GIT_ENOTFOUND.rawValue { try check("git_reference_name_to_id(\(target))", resolved) }
    let wanted = "refs/heads/" + branch
    let exists = git_reference_name_to_id(&oid, repo, wanted)
    if exists == GIT_ENOTFOUND.rawValue { return .branchMissing }
    try check("git_reference_name_to_id(\(wanted))", exists)
    try check("git_repository_set_head(\(wanted))", git_repository_set_head(repo, wanted))
    return .repointed(from: target)
  }
}
