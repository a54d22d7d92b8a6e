import Foundation
import NBTestSupport
import XCTest

@testable import NoteWeb

/// The page script's live updates (`templates/web/app.js`, as compiled in), run by Node against a small stand-in
/// for the browser: an event stream, fetch, DOMParser and the few document calls the script makes. Fails where no
/// `node` is installed (`.ci/run` installs Debian's nodejs). What a real browser does with the result is for a
/// browser test.
final class PageScriptTests: XCTestCase {
  /// A browser stand-in: `PAGE` says which page it is (`note`, `edit`, `busy`, `draw`); `STEPS` run after the script
  /// loaded; it prints what happened as one JSON object.
  private static let harness = #"""
    "use strict";
    const page = process.env.PAGE;
    const listeners = {};
    const replaced = [];
    const fetches = [];
    const sources = [];
    class Element {
      constructor(tagName, options = {}) {
        Object.assign(this, { tagName, hidden: false, value: "", type: "text", dataset: {}, inForm: false }, options);
      }
      closest() { return this.inForm ? {} : null; }
      replaceWith(node) { replaced.push(node.tagName); }
    }
    globalThis.HTMLElement = Element;
    const elements = { main: new Element("MAIN") };
    if (page === "edit") {
      elements["form.edit[data-path]"] = new Element("FORM", { dataset: { path: "work/roadmap.md" } });
      elements["#changed-on-disk"] = new Element("P", { hidden: true });
    }
    globalThis.document = {
      hidden: false, title: "old", activeElement: null,
      addEventListener(type, listener) { (listeners[type] = listeners[type] || []).push(listener); },
      querySelector(selector) { return elements[selector] || null; },
      querySelectorAll() { return []; },
      getElementById(id) { return elements["#" + id] || null; },
      adoptNode(node) { return node; },
      dispatchEvent(event) { dispatched.push(event.type + " " + JSON.stringify(event.detail.paths)); return true; },
    };
    if (page === "draw") elements["[data-draw]"] = new Element("DIV");
    const dispatched = [];
    globalThis.CustomEvent = class { constructor(type, init) { this.type = type; this.detail = init.detail; } };
    if (page === "busy") document.activeElement = new Element("INPUT", { value: "half a thought", inForm: true });
    globalThis.location = { href: "http://127.0.0.1:8642/note/work/roadmap.md" };
    globalThis.fetch = async (url) => { fetches.push(url); return { text: async () => "<main>fresh</main>" }; };
    globalThis.DOMParser = class {
      parseFromString() { return { title: "fresh", querySelector: (s) => (s === "main" ? new Element("FRESH-MAIN") : null) }; }
    };
    globalThis.EventSource = class {
      constructor(url) { this.url = url; this.listeners = {}; this.closed = false; sources.push(this); }
      addEventListener(type, listener) { this.listeners[type] = listener; }
      close() { this.closed = true; }
    };
    const fire = (type) => (listeners[type] || []).forEach((listener) => listener({}));
    const change = (paths) => sources[sources.length - 1].listeners.change({ data: JSON.stringify({ everything: false, paths }) });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 100));
    require(process.env.SCRIPT);
    (async () => {
      const log = [];
      const note = (step) => log.push({ step, fetches: fetches.length, replaced: replaced.slice(), title: document.title,
        notice: elements["#changed-on-disk"] ? !elements["#changed-on-disk"].hidden : null,
        streams: sources.map((s) => s.url + (s.closed ? " closed" : "")), dispatched: dispatched.slice() });
      note("loaded");
      change(["work/roadmap.md"]); await settle(); note("changed");
      if (page === "busy") { document.activeElement = null; fire("focusout"); await settle(); note("left the form"); }
      if (page === "note" || page === "draw") {
        document.hidden = true; fire("visibilitychange"); await settle(); note("hidden");
        document.hidden = false; fire("visibilitychange"); await settle(); note("shown");
      }
      console.log(JSON.stringify(log));
    })();
    """#

  /// A browser stand-in for the edit form's drafts: `PAGE` is `edit` (the form as loaded), `unsaved` (a refused
  /// save's form: the text typed, over the version now) or `saved` (the note page a save redirects to); `STORED` is
  /// local storage's content before the script runs, `TYPE` what is typed into the form afterwards (nothing when
  /// unset), `DISCARD` clicks "Discard it". Prints the form and the storage as one JSON object.
  private static let draftHarness = #"""
    "use strict";
    const page = process.env.PAGE;
    const store = new Map(Object.entries(JSON.parse(process.env.STORED || "{}")));
    globalThis.localStorage = {
      getItem: (key) => (store.has(key) ? store.get(key) : null),
      setItem: (key, value) => store.set(key, String(value)),
      removeItem: (key) => store.delete(key),
    };
    class Element {
      constructor(tagName, options = {}) {
        Object.assign(this, { tagName, hidden: false, value: "", dataset: {}, listeners: {} }, options);
      }
      addEventListener(type, listener) { this.listeners[type] = listener; }
      querySelector(selector) { return this.children[selector] || null; }
      closest() { return null; }
    }
    globalThis.HTMLElement = Element;
    const text = new Element("TEXTAREA", { value: page === "unsaved" ? "typed\n" : "file\n" });
    const version = new Element("INPUT", { value: page === "unsaved" ? "v2" : "v1" });
    const base = new Element("INPUT", { value: page === "unsaved" ? "YmFzZTI=" : "YmFzZTE=" });
    const elements = {};
    if (page !== "saved") {
      elements["form.edit[data-path]"] = new Element("FORM", {
        dataset: page === "unsaved" ? { path: "work/roadmap.md", unsaved: "1" } : { path: "work/roadmap.md" },
        children: { "textarea[name=text]": text, "input[name=version]": version, "input[name=base]": base },
      });
      elements["#draft-restored"] = new Element("P", { hidden: true });
      elements["#draft-discard"] = new Element("BUTTON");
    }
    const saved = page === "saved" ? [new Element("P", { dataset: { draftSaved: "work/roadmap.md" } })] : [];
    globalThis.document = {
      hidden: false, title: "", activeElement: null,
      addEventListener() {},
      querySelector(selector) { return elements[selector] || null; },
      querySelectorAll(selector) { return selector === "[data-draft-saved]" ? saved : []; },
      getElementById(id) { return elements["#" + id] || null; },
    };
    require(process.env.SCRIPT);
    if (process.env.DISCARD) elements["#draft-discard"].listeners.click({});
    if (process.env.TYPE !== undefined) {
      text.value = process.env.TYPE;
      text.listeners.input({});
    }
    const notice = elements["#draft-restored"];
    console.log(JSON.stringify({
      text: text.value, version: version.value, base: base.value, notice: notice ? !notice.hidden : null,
      stored: store.has("nb-draft:work/roadmap.md") ? JSON.parse(store.get("nb-draft:work/roadmap.md")) : null,
      others: [...store.keys()].filter((key) => key !== "nb-draft:work/roadmap.md"),
    }));
    """#

  private struct Draft: Codable, Equatable {
    var text: String
    var version: String
    var base: String
  }

  private struct DraftState: Decodable {
    var text: String
    var version: String
    var base: String
    var notice: Bool?
    var stored: Draft?
    var others: [String]
  }

  private func runDraft(page: String, stored: [String: Draft] = [:], type: String? = nil, discard: Bool = false)
    throws -> DraftState
  {
    let node = try ProcessRunner.resolve("node")
    let temp = try TemporaryDirectory(prefix: "nb-page-draft")
    let script = temp.url.appendingPathComponent("app.js")
    let harness = temp.url.appendingPathComponent("harness.js")
    try Data(try XCTUnwrap(WebTemplates.all["app.js"]).utf8).write(to: script)
    try Data(Self.draftHarness.utf8).write(to: harness)
    let storage = try stored.mapValues { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
    var environment = [
      "PAGE": page, "SCRIPT": script.path, "PATH": "/usr/bin:/bin",
      "STORED": String(decoding: try JSONEncoder().encode(storage), as: UTF8.self),
    ]
    if let type { environment["TYPE"] = type }
    if discard { environment["DISCARD"] = "1" }
    let result = try ProcessRunner.run(node, arguments: [harness.path], environment: environment, timeout: 30)
    XCTAssertEqual(result.status, 0, result.stderr)
    return try JSONDecoder().decode(DraftState.self, from: result.stdoutData)
  }

  private let key = "nb-draft:work/roadmap.md"

  func testTypingKeepsADraftWithTheVersionItWasTypedOver() throws {
    let fresh = try runDraft(page: "edit")
    XCTAssertNil(fresh.stored, "nothing typed, nothing kept")
    XCTAssertEqual(fresh.notice, false)
    let typed = try runDraft(page: "edit", type: "file\nmore\n")
    XCTAssertEqual(typed.stored, Draft(text: "file\nmore\n", version: "v1", base: "YmFzZTE="))
    // Typed back to the file's text: no draft left to restore.
    let undone = try runDraft(page: "edit", stored: [key: typed.stored!], type: "file\n")
    XCTAssertNil(undone.stored)
  }

  func testAReloadedFormGetsItsDraftBackOverTheDraftsOwnVersion() throws {
    // The file moved on (v2) since the draft was typed over v1: the draft comes back with v1 and its base, so saving
    // merges it with what changed.
    let draft = Draft(text: "file\nmore\n", version: "v0", base: "YmFzZTA=")
    let restored = try runDraft(page: "edit", stored: [key: draft, "nb-draft:other.md": draft])
    XCTAssertEqual(restored.text, "file\nmore\n")
    XCTAssertEqual(restored.version, "v0")
    XCTAssertEqual(restored.base, "YmFzZTA=")
    XCTAssertEqual(restored.notice, true)
    XCTAssertEqual(restored.stored, draft, "kept until the save lands")
    let discarded = try runDraft(page: "edit", stored: [key: draft], discard: true)
    XCTAssertEqual(discarded.text, "file\n")
    XCTAssertEqual(discarded.version, "v1")
    XCTAssertEqual(discarded.base, "YmFzZTE=")
    XCTAssertEqual(discarded.notice, false)
    XCTAssertNil(discarded.stored)
  }

  func testARefusedSavesTextIsTheDraftOverTheVersionShownNow() throws {
    let old = Draft(text: "typed\n", version: "v1", base: "YmFzZTE=")
    let page = try runDraft(page: "unsaved", stored: [key: old])
    XCTAssertEqual(page.text, "typed\n", "the form is not changed")
    XCTAssertEqual(page.notice, false)
    XCTAssertEqual(page.stored, Draft(text: "typed\n", version: "v2", base: "YmFzZTI="))
  }

  func testTheDraftIsDroppedOnceTheSaveLanded() throws {
    let draft = Draft(text: "file\nmore\n", version: "v1", base: "YmFzZTE=")
    let landed = try runDraft(page: "saved", stored: [key: draft, "nb-draft:other.md": draft])
    XCTAssertNil(landed.stored)
    XCTAssertEqual(landed.others, ["nb-draft:other.md"], "other notes' drafts stay")
  }

  /// A browser stand-in for the keyboard shortcuts: `KEYS` is a JSON list of key presses, each `[key, field]`
  /// (`field` true: typed into a text field); after each press it notes where the page went, whether the search
  /// box has focus and whether the shortcuts list shows. `EDIT` puts an Edit link on the page.
  private static let keysHarness = #"""
    "use strict";
    const listeners = {};
    class Element {
      constructor(tagName, options = {}) { Object.assign(this, { tagName, hidden: false, isContentEditable: false }, options); }
      getAttribute(name) { return this[name]; }
      focus() { focused = this.tagName; }
      select() {}
      closest() { return null; }
    }
    globalThis.HTMLElement = Element;
    let focused = null;
    const elements = {
      "#shortcuts": new Element("ASIDE", { hidden: true }),
      ".search input": new Element("INPUT"),
    };
    if (process.env.EDIT) elements['main a[href^="/edit/"]'] = new Element("A", { href: "/edit/work/roadmap.md" });
    globalThis.location = { href: "http://127.0.0.1:8642/note/work/roadmap.md" };
    globalThis.document = {
      hidden: false,
      addEventListener(type, listener) { (listeners[type] = listeners[type] || []).push(listener); },
      querySelector(selector) { return elements[selector] || null; },
      querySelectorAll() { return []; },
      getElementById(id) { return elements["#" + id] || null; },
    };
    require(process.env.SCRIPT);
    const log = [];
    for (const [key, field] of JSON.parse(process.env.KEYS)) {
      let prevented = false;
      const target = field ? new Element("TEXTAREA") : new Element("BODY");
      const event = { key, target, altKey: false, ctrlKey: false, metaKey: false, preventDefault() { prevented = true; } };
      (listeners.keydown || []).forEach((listener) => listener(event));
      log.push({ key, location: location.href, focused, help: !elements["#shortcuts"].hidden, prevented });
    }
    console.log(JSON.stringify(log));
    """#

  private struct Press: Decodable, Equatable {
    var key: String
    var location: String
    var focused: String?
    var help: Bool
    var prevented: Bool
  }

  private func press(_ keys: [(String, Bool)], edit: Bool = false) throws -> [Press] {
    let node = try ProcessRunner.resolve("node")
    let temp = try TemporaryDirectory(prefix: "nb-page-keys")
    let script = temp.url.appendingPathComponent("app.js")
    let harness = temp.url.appendingPathComponent("harness.js")
    try Data(try XCTUnwrap(WebTemplates.all["app.js"]).utf8).write(to: script)
    try Data(Self.keysHarness.utf8).write(to: harness)
    let list = keys.map { [$0.0, $0.1] as [Any] }
    var environment = [
      "SCRIPT": script.path, "PATH": "/usr/bin:/bin",
      "KEYS": String(decoding: try JSONSerialization.data(withJSONObject: list), as: UTF8.self),
    ]
    if edit { environment["EDIT"] = "1" }
    let result = try ProcessRunner.run(node, arguments: [harness.path], environment: environment, timeout: 30)
    XCTAssertEqual(result.status, 0, result.stderr)
    return try JSONDecoder().decode([Press].self, from: result.stdoutData)
  }

  func testQuestionMarkShowsTheShortcutsAndEscapeClosesThem() throws {
    let presses = try press([("?", false), ("Escape", false), ("?", false), ("?", false)])
    XCTAssertEqual(presses.map(\.help), [true, false, true, false])
    XCTAssertEqual(presses.map(\.prevented), [true, true, true, true])
  }

  func testShortcutsGoPlacesAndFocusTheSearch() throws {
    let start = "http://127.0.0.1:8642/note/work/roadmap.md"
    XCTAssertEqual(try press([("g", false), ("t", false)]).last?.location, "/tasks")
    XCTAssertEqual(try press([("g", false), ("i", false)]).last?.location, "/inbox")
    XCTAssertEqual(try press([("g", false), ("h", false)]).last?.location, "/")
    XCTAssertEqual(try press([("t", false)]).last?.location, start, "t alone is nothing")
    XCTAssertEqual(try press([("g", false), ("x", false), ("t", false)]).last?.location, start, "g waits for one key")
    XCTAssertEqual(try press([("e", false)], edit: true).last?.location, "/edit/work/roadmap.md")
    XCTAssertEqual(try press([("e", false)]).last?.prevented, false, "no note, nothing to edit")
    let search = try press([("/", false)])
    XCTAssertEqual(search.last?.focused, "INPUT")
    XCTAssertEqual(search.last?.prevented, true)
  }

  func testNoShortcutWhileTyping() throws {
    let presses = try press([("?", true), ("/", true), ("g", true), ("t", true), ("e", true)], edit: true)
    XCTAssertEqual(presses.map(\.help), [false, false, false, false, false])
    XCTAssertEqual(presses.map(\.prevented), [false, false, false, false, false])
    XCTAssertEqual(presses.last?.location, "http://127.0.0.1:8642/note/work/roadmap.md")
    XCTAssertNil(presses.last?.focused)
  }

  private struct Step: Decodable, Equatable {
    var step: String
    var fetches: Int
    var replaced: [String]
    var title: String
    var notice: Bool?
    var streams: [String]
    var dispatched: [String]
  }

  private func run(page: String) throws -> [Step] {
    let node: URL
    do {
      node = try ProcessRunner.resolve("node")
    } catch {
      // Not a skip: .ci/run installs nodejs, and a suite that did not run must not count as passed.
      XCTFail("no node on PATH to run the page script with: apt-get install nodejs")
      throw error
    }
    let temp = try TemporaryDirectory(prefix: "nb-page-script")
    let script = temp.url.appendingPathComponent("app.js")
    let harness = temp.url.appendingPathComponent("harness.js")
    try Data(try XCTUnwrap(WebTemplates.all["app.js"]).utf8).write(to: script)
    try Data(Self.harness.utf8).write(to: harness)
    let result = try ProcessRunner.run(
      node, arguments: [harness.path], environment: ["PAGE": page, "SCRIPT": script.path, "PATH": "/usr/bin:/bin"],
      timeout: 30)
    XCTAssertEqual(result.status, 0, result.stderr)
    return try JSONDecoder().decode([Step].self, from: result.stdoutData)
  }

  func testAPageRefetchesItselfAndSwapsItsMainPartIn() throws {
    let steps = try run(page: "note")
    XCTAssertEqual(steps.map(\.step), ["loaded", "changed", "hidden", "shown"])
    XCTAssertEqual(steps[0].streams, ["/events"], "subscribed on load")
    XCTAssertEqual(steps[0].fetches, 0)
    XCTAssertEqual(steps[1].fetches, 1)
    XCTAssertEqual(steps[1].replaced, ["FRESH-MAIN"], "the fresh main in place of the old")
    XCTAssertEqual(steps[1].title, "fresh")
    // A hidden tab gives its stream back; shown again, it subscribes anew and catches up once.
    XCTAssertEqual(steps[2].streams, ["/events closed"])
    XCTAssertEqual(steps[3].streams, ["/events closed", "/events"])
    XCTAssertEqual(steps[3].fetches, 2)
  }

  func testAnOpenEditFormIsToldNotReplaced() throws {
    let steps = try run(page: "edit")
    XCTAssertEqual(steps[0].notice, false)
    XCTAssertEqual(steps[1].notice, true, "the file it edits changed")
    XCTAssertEqual(steps[1].fetches, 0)
    XCTAssertEqual(steps[1].replaced, [])
  }

  func testAFormBeingTypedInWaitsUntilItIsLeft() throws {
    let steps = try run(page: "busy")
    XCTAssertEqual(steps[1].fetches, 0, "nothing replaced under the typing")
    XCTAssertEqual(steps[2].fetches, 1)
    XCTAssertEqual(steps[2].replaced, ["FRESH-MAIN"])
  }

  func testTheDrawPageIsToldOfChangesAndKeepsItsCanvas() throws {
    let steps = try run(page: "draw")
    XCTAssertEqual(steps[1].dispatched, [#"nb:change ["work/roadmap.md"]"#], "draw.js hears of the change")
    XCTAssertEqual(steps[1].fetches, 0, "the page is not fetched again under the drawing")
    XCTAssertEqual(steps[1].replaced, [])
    XCTAssertEqual(steps[3].dispatched.last, "nb:change []", "shown again, it catches up")
    XCTAssertEqual(steps[3].fetches, 0)
  }
}
