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
