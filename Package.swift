// swift-tools-version:6.1
import PackageDescription

let package = Package(
  name: "nb",
  platforms: [.macOS(.v13), .iOS(.v16)],
  products: [
    .executable(name: "nb", targets: ["nb"]),
    .library(name: "NoteStore", targets: ["NoteStore"]),
    .library(name: "InkKit", targets: ["InkKit"]),
    .library(name: "NoteWatch", targets: ["NoteWatch"]),
    .library(name: "TaskKit", targets: ["TaskKit"]),
    .library(name: "InboxKit", targets: ["InboxKit"]),
    .library(name: "LinkKit", targets: ["LinkKit"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    .package(url: "https://github.com/stencilproject/Stencil", from: "0.15.1"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
    // `nb serve`'s HTTP server. No traits: their swift-configuration reader and full-Foundation form coding are
    // not used, and swift-configuration would be built on every CI run.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    // Hummingbird's own dependencies, named for the types nb serve uses directly (header names, the bind error).
    .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    // Also Hummingbird's: the server's logger, and the graceful shutdown that ends the live pages' event streams.
    .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
  ],
  targets: [
    // libgit2 from the system (Debian: libgit2-dev): git2.h's declarations, and trampolines that load libgit2 with
    // dlopen on the first call, so that a command that never touches git never loads it (LazyLibGit2.c); nothing
    // links it. GitKit is the only product module importing it.
    .target(name: "CLibGit2", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
    .target(name: "GitKit", dependencies: ["CLibGit2", "CSHA1", "TextFormat"]),
    // SHA-1's compression function with the CPU's SHA extensions, checked for at run time (GitKit's SHA1).
    .target(name: "CSHA1"),
    // One variadic SQLite call Swift cannot make (the system sqlite3.h, which GRDB links); used by the index.
    .target(name: "CSQLiteShim"),
    // Text both file formats share (RFC 3339 instants, UUID text, counted nouns), and trimming and padding without
    // NSString for the hot paths (GitKit too); `package` access, not a product.
    .target(name: "TextFormat"),
    // libxml2's streaming reader for the InkML import, loaded with dlopen on first use (LazyLibXML2.c says why).
    .target(name: "CLibXML2", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
    // GitHub's cmark-gfm (Debian: libcmark-gfm-dev, libcmark-gfm-extensions-dev) for `nb serve`'s note pages: one
    // render call over its headers, the libraries loaded with dlopen on the first page (LazyCmarkGFM.c says why).
    .target(name: "CCmarkGFM", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
    // Handwriting sidecars: model, codec, editing, merge, render, import. Foundation, and libxml2 for InkML.
    .target(name: "InkKit", dependencies: ["TextFormat", "CLibXML2"]),
    // Tasks as plain text: dates, recurrence rules, checklist and Obsidian Tasks lines, iCalendar and todo.txt.
    // Pure functions over values; Foundation only. NoteStore's index reads tasks with it.
    .target(name: "TaskKit", dependencies: ["TextFormat"]),
    // The inbox: suggesting a notebook for a captured note (naive Bayes that learns from corrections) and the
    // append-only decision log two devices merge. Pure functions over values; Foundation only.
    .target(name: "InboxKit", dependencies: ["TextFormat"]),
    // Links between notes as Obsidian reads them: scanning, resolving, rewriting after a rename or move. Pure
    // functions over values; Foundation and TextFormat only.
    .target(name: "LinkKit", dependencies: ["TextFormat"]),
    // Kernel file notifications for `nb watch`: inotify on Linux, polling elsewhere. Foundation and the C library only.
    .target(name: "FileWatch"),
    .target(
      name: "NoteStore",
      dependencies: [
        "GitKit",
        "InkKit",
        "TaskKit",
        "InboxKit",
        "LinkKit",
        "TextFormat",
        "CSQLiteShim",
        .product(name: "Yams", package: "Yams"),
        .product(name: "Stencil", package: "Stencil"),
        .product(name: "GRDB", package: "GRDB.swift"),
      ]
    ),
    // `nb watch` as a library: commit editors' saves after a quiet moment, sync, a stream of changes for apps.
    .target(name: "NoteWatch", dependencies: ["NoteStore", "FileWatch"]),
    // `nb serve` as a library: the notebooks in a browser, over NoteStore's public API only (never GitKit), so it
    // is also the proof that an app embedding the library can build the note app.
    .target(
      name: "NoteWeb",
      dependencies: [
        "NoteStore",
        "NoteWatch",
        "LinkKit",
        "InkKit",
        "TaskKit",
        "CCmarkGFM",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        // `nb serve --tls-cert/--tls-key`: HTTPS through swift-nio-ssl (BoringSSL, built from source: about 3 minutes
        // of a CI build on 2 cores).
        .product(name: "HummingbirdTLS", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Stencil", package: "Stencil"),
      ]
    ),
    .target(
      name: "NBCLI",
      dependencies: [
        "NoteStore",
        "NoteWatch",
        "NoteWeb",
        "InkKit",
        "TaskKit",
        "InboxKit",
        "LinkKit",
        "TextFormat",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // Linked without PIE in release builds: a position-independent nb makes the dynamic loader apply 95 000 relative
    // relocations (and copy the pages they touch) on every start, about 1 ms of the 4-6 ms a read-only command
    // takes. The shared libraries it loads keep their address randomisation.
    // The C++ library (Foundation's ICU uses it) and libgcc are linked statically too: loading libstdc++.so.6 and
    // libgcc_s.so.1 cost every start about 0.5 ms. Toolchain arguments name `-lstdc++` before anything a package
    // adds, so `link/` comes first on the search path and holds a `libstdc++.so` that is a linker script naming the
    // archive.
    .executableTarget(
      name: "nb", dependencies: ["NBCLI"], exclude: ["link"],
      linkerSettings: [
        .unsafeFlags(["-Xclang-linker", "-no-pie"], .when(platforms: [.linux], configuration: .release)),
        .unsafeFlags(
          ["-L", Context.packageDirectory + "/Sources/nb/link", "-Xclang-linker", "-static-libgcc"],
          .when(platforms: [.linux], configuration: .release)),
        // Exports only the three mbedTLS functions CLibGit2/DeferredCertificates.c defines, so libgit2's calls bind to
        // them: the CA bundle is then parsed by the first TLS connection, not by every git_libgit2_init().
        .unsafeFlags(executableExports, .when(platforms: [.linux])),
      ]
    ),
    // Linked like nb (the exported mbedTLS functions), so its libgit2 start-up floor is the one nb pays.
    .executableTarget(
      name: "nb-bench", dependencies: ["NoteStore", "InkKit", "InboxKit", "NBTestSupport", "CLibGit2"],
      linkerSettings: [.unsafeFlags(executableExports, .when(platforms: [.linux]))]),
    // Not a product: helpers shared by the test targets and the benchmark. It links libgit2 itself only for the
    // in-process merge drivers and tree merge that prove the ink driver works inside a libgit2 merge (nb never runs
    // one, so that code stays out of GitKit).
    .target(name: "NBTestSupport", dependencies: ["GitKit", "CLibGit2"]),
    .testTarget(name: "GitKitTests", dependencies: ["GitKit", "NBTestSupport"]),
    .testTarget(name: "InkKitTests", dependencies: ["InkKit", "NBTestSupport"]),
    .testTarget(name: "TaskKitTests", dependencies: ["TaskKit", "NBTestSupport"]),
    .testTarget(name: "InboxKitTests", dependencies: ["InboxKit"]),
    .testTarget(name: "LinkKitTests", dependencies: ["LinkKit"]),
    .testTarget(name: "FileWatchTests", dependencies: ["FileWatch", "NBTestSupport"]),
    .testTarget(
      name: "NoteStoreTests",
      dependencies: [
        "NoteStore", "InkKit", "TextFormat", "NBTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    // Depends on NoteStore alone: compiles only while the public API holds no GitKit type.
    .testTarget(name: "NoteStoreAPITests", dependencies: ["NoteStore"]),
    .testTarget(name: "NBCLITests", dependencies: ["NBCLI", "NBTestSupport"]),
    .testTarget(
      name: "NoteWebTests", dependencies: ["NoteWeb", "NoteStore", "NoteWatch", "TaskKit", "LinkKit", "NBTestSupport"]),
    .testTarget(name: "NoteWatchTests", dependencies: ["NoteWatch", "NoteStore", "GitKit", "NBTestSupport"]),
    // Slow end-to-end tests of `nb watch`: real watcher processes (the built nb), real editors, git as the oracle.
    .testTarget(name: "NBWatchTests", dependencies: ["NBTestSupport"]),
    // Slow end-to-end tests of `nb serve` in headless Chromium through Selenium (Python scripts under browser/).
    .testTarget(name: "BrowserTests", dependencies: ["NBTestSupport"], exclude: ["browser"]),
  ],
  swiftLanguageModes: [.v5]
)

/// What an executable exports to the libraries it loads: only CLibGit2/DeferredCertificates.c's three mbedTLS
/// functions, which libgit2's calls must bind to. SwiftPM links executables with --export-dynamic, which put 12 000
/// Swift symbols in nb's dynamic symbol table; every symbol libgit2 and its dozen libraries look up when nb loads
/// them searched that table first (about 2 ms of each git command's start).
var executableExports: [String] {
  ["-Xlinker", "--no-export-dynamic"]
    + ["mbedtls_x509_crt_parse_file", "mbedtls_x509_crt_free", "mbedtls_ssl_setup"].flatMap {
      ["-Xlinker", "--export-dynamic-symbol=\($0)"]
    }
}
