import Foundation
import NBTestSupport
import XCTest

@testable import NoteWeb

/// The Draw page's script (`templates/web/draw.js`, as compiled in) under Node: the parts that need no browser —
/// mapping the canvas to the page, the 2 s auto-save with fake timers, palm rejection, undo and redo, the eraser's
/// hit test. What the browser does with pointer events is for a browser test.
final class DrawScriptTests: XCTestCase {
  /// Runs `scenario` (JavaScript with `Draw`, `clock`, `sessionWith` and `settle` in scope; it must `return` a
  /// value) and decodes what it returns.
  private func run(_ scenario: String) throws -> Any {
    let node: URL
    do {
      node = try ProcessRunner.resolve("node")
    } catch {
      XCTFail("no node on PATH to run the page script with: apt-get install nodejs")
      throw error
    }
    let temp = try TemporaryDirectory(prefix: "nb-draw-script")
    let script = temp.url.appendingPathComponent("draw.js")
    let harness = temp.url.appendingPathComponent("harness.js")
    try Data(try XCTUnwrap(WebTemplates.all["draw.js"]).utf8).write(to: script)
    let program = """
      "use strict";
      const Draw = require(process.env.SCRIPT);
      // Fake timers: nothing happens until the test moves the clock.
      const clock = {
        now: 0, next: 1, queue: [],
        setTimeout(fn, delay) { const id = this.next++; this.queue.push({ id, at: this.now + delay, fn }); return id; },
        clearTimeout(id) { this.queue = this.queue.filter((t) => t.id !== id); },
        async advance(ms) {
          const end = this.now + ms;
          for (;;) {
            this.queue.sort((a, b) => a.at - b.at);
            const due = this.queue[0];
            if (!due || due.at > end) break;
            this.queue.shift();
            this.now = due.at;
            due.fn();
            await settle();
          }
          this.now = end;
          await settle();
        },
      };
      const settle = () => new Promise((resolve) => setImmediate(resolve));
      const memory = () => {
        const items = {};
        return { items, getItem: (k) => (k in items ? items[k] : null), setItem: (k, v) => { items[k] = String(v); },
          removeItem: (k) => { delete items[k]; } };
      };
      // A session whose requests are recorded and answered by `answer` (status, body).
      const sessionWith = (answer, storage = memory(), page = null) => {
        const posts = [];
        const session = new Draw.Session({ page, storage, key: "k", timers: clock,
          post: async (body) => { posts.push(JSON.parse(JSON.stringify(body))); return answer(body, posts.length); } });
        return { session, posts, storage };
      };
      const ok = (body) => ({ status: 200, body: { page: body.page || "p1", added: (body.strokes || []).map((s) => s.id) } });
      const stroke = (id, points = [{ x: 0, y: 0, t: 0 }, { x: 10, y: 0, t: 0.1 }]) => ({ id, ink: "pen", color: "1a1a1aff", nib: 2, points });
      (async () => {
      \(scenario)
      })().then((result) => console.log(JSON.stringify(result)), (error) => { console.error(error); process.exit(1); });
      """
    try Data(program.utf8).write(to: harness)
    let result = try ProcessRunner.run(
      node, arguments: [harness.path], environment: ["SCRIPT": script.path, "PATH": "/usr/bin:/bin"], timeout: 30)
    XCTAssertEqual(result.status, 0, result.stderr)
    return try JSONSerialization.jsonObject(with: result.stdoutData)
  }

  func testCanvasPixelsMapToThePagesViewBoxAtAnyDevicePixelRatio() throws {
    let result = try XCTUnwrap(
      try run(
        """
        const rect = { left: 10, top: 20, width: 384, height: 512 };
        const centre = Draw.toPage(10 + 192, 20 + 256, rect, [0, 0, 768, 1024]);
        const corner = Draw.toPage(10, 20, rect, [-16, -8, 100, 50]);
        const far = Draw.toPage(10 + 384, 20 + 512, rect, [-16, -8, 100, 50]);
        const backing = Draw.backing(rect, [-16, -8, 768, 1024], 2);
        // A page point drawn through the backing transform lands on the device pixel under the pointer.
        const [a, , , d, e, f] = backing.transform;
        const page = Draw.toPage(10 + 100, 20 + 50, rect, [-16, -8, 768, 1024]);
        return { centre, corner, far, size: [backing.width, backing.height],
          device: [Math.round((a * page.x + e) * 1000) / 1000, Math.round((d * page.y + f) * 1000) / 1000] };
        """) as? [String: Any])
    XCTAssertEqual(result["centre"] as? [String: Double], ["x": 384, "y": 512])
    XCTAssertEqual(result["corner"] as? [String: Double], ["x": -16, "y": -8])
    XCTAssertEqual(result["far"] as? [String: Double], ["x": 84, "y": 42])
    XCTAssertEqual(result["size"] as? [Int], [768, 1024], "backing store in device pixels")
    XCTAssertEqual(result["device"] as? [Double], [200, 100], "CSS pixel 100,50 at ratio 2")
  }

  func testAPenPointCarriesForceAndTiltAndAMousePointDoesNot() throws {
    let result = try XCTUnwrap(
      try run(
        """
        const rect = { left: 0, top: 0, width: 100, height: 100 };
        const frame = [0, 0, 200, 200];
        const pen = Draw.sample({ pointerType: "pen", clientX: 10, clientY: 20, pressure: 0.5, tiltX: 0, tiltY: 0,
          timeStamp: 1250 }, rect, frame, 1000);
        const leaning = Draw.sample({ pointerType: "pen", clientX: 10, clientY: 20, pressure: 0.25, tiltX: 45, tiltY: 0,
          timeStamp: 1000 }, rect, frame, 1000);
        const angled = Draw.sample({ pointerType: "pen", clientX: 0, clientY: 0, pressure: 1, altitudeAngle: 0.8,
          azimuthAngle: 2.5, tiltX: 10, tiltY: 10, timeStamp: 1000 }, rect, frame, 1000);
        const mouse = Draw.sample({ pointerType: "mouse", clientX: 10, clientY: 20, pressure: 0.5, timeStamp: 1500 },
          rect, frame, 1000);
        return { pen, leaning, angled, mouse };
        """) as? [String: [String: Double]])
    XCTAssertEqual(result["pen"], ["x": 20, "y": 40, "t": 0.25, "f": 1, "az": 0, "al": 1.571], "0.5 is a normal press")
    XCTAssertEqual(result["leaning"], ["x": 20, "y": 40, "t": 0, "f": 0.5, "az": 0, "al": 0.785])
    XCTAssertEqual(result["angled"], ["x": 0, "y": 0, "t": 0, "f": 2, "az": 2.5, "al": 0.8])
    XCTAssertEqual(result["mouse"], ["x": 20, "y": 40, "t": 0.5], "no pressure channel for a mouse")
  }

  func testABurstIsSavedInOneRequestTwoSecondsAfterThePenStops() throws {
    let result = try XCTUnwrap(
      try run(
        """
        const { session, posts, storage } = sessionWith(ok);
        const log = [];
        session.penDown(); session.add(stroke("a"));
        await clock.advance(1900); log.push(posts.length);
        session.penDown();                      // drawing again before the 2 s are up
        await clock.advance(5000); log.push(posts.length);   // the pen is still down: nothing is sent
        session.add(stroke("b"));
        log.push(JSON.parse(storage.getItem("k")).strokes.map((s) => s.id).join(","));
        await clock.advance(1999); log.push(posts.length);
        await clock.advance(1); log.push(posts.length);
        log.push(storage.getItem("k"));
        await clock.advance(10000); log.push(posts.length);
        return { log, first: posts[0] };
        """) as? [String: Any])
    let log = try XCTUnwrap(result["log"] as? [Any])
    XCTAssertEqual(log[0] as? Int, 0)
    XCTAssertEqual(log[1] as? Int, 0, "nothing while the pen is down")
    XCTAssertEqual(log[2] as? String, "a,b", "unsent strokes are kept in storage")
    XCTAssertEqual(log[3] as? Int, 0)
    XCTAssertEqual(log[4] as? Int, 1, "one request 2 s after the last stroke")
    XCTAssertTrue(log[5] is NSNull, "storage is cleared once saved")
    XCTAssertEqual(log[6] as? Int, 1, "nothing more to send")
    let first = try XCTUnwrap(result["first"] as? [String: Any])
    XCTAssertEqual((first["strokes"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, ["a", "b"])
    XCTAssertTrue(first["page"] is NSNull)
  }

  func testABurstThatNeverRestsIsSentInPiecesBetweenStrokes() throws {
    let result = try XCTUnwrap(
      try run(
        """
        const { session, posts } = sessionWith(ok);
        const long = (id) => stroke(id, Array.from({ length: 8000 }, (_, i) => ({ x: i % 500, y: i / 100, t: i / 240 })));
        session.penDown(); session.add(long("a"));
        session.penDown(); session.add(long("b"));
        await settle();
        const before = posts.length;
        session.penDown(); session.add(long("c"));  // 24 000 points: sent now, between strokes
        await settle();
        const during = posts.map((p) => p.strokes.map((s) => s.id).join(","));
        session.penDown(); session.add(stroke("d"));
        await clock.advance(2000);
        return { before, during, after: posts.map((p) => p.strokes.map((s) => s.id).join(",")) };
        """) as? [String: Any])
    XCTAssertEqual(result["before"] as? Int, 0)
    XCTAssertEqual(result["during"] as? [String], ["a,b,c"])
    XCTAssertEqual(result["after"] as? [String], ["a,b,c", "d"], "the rest after the pen rests")
  }

  func testAFailedSaveIsKeptAndTriedAgainARefusedOneIsDropped() throws {
    let result = try XCTUnwrap(
      try run(
        """
        let down = true;
        const flaky = sessionWith((body) => { if (down) throw new Error("offline"); return ok(body); });
        flaky.session.add(stroke("a"));
        await clock.advance(2000);
        const afterFailure = { posts: flaky.posts.length, kept: JSON.parse(flaky.storage.getItem("k")).strokes.length,
          message: flaky.session.message };
        down = false;
        await clock.advance(5000);
        const afterRetry = { posts: flaky.posts.length, kept: flaky.storage.getItem("k"), message: flaky.session.message,
          ids: flaky.posts[1].strokes.map((s) => s.id) };
        const refused = sessionWith(() => ({ status: 400, body: { error: "strokes[0]: points must be a list" } }));
        refused.session.add(stroke("b"));
        await clock.advance(2000);
        await clock.advance(60000);
        // A new visit finds what an earlier one could not send, and sends it after the quiet time.
        const storage = memory();
        storage.setItem("k", JSON.stringify({ page: "p9", strokes: [stroke("c")], erase: ["old"] }));
        const again = sessionWith(ok, storage);
        await clock.advance(2000);
        return { afterFailure, afterRetry, refused: { posts: refused.posts.length, message: refused.session.message,
          kept: refused.storage.getItem("k") }, reloaded: again.posts };
        """) as? [String: Any])
    let failure = try XCTUnwrap(result["afterFailure"] as? [String: Any])
    XCTAssertEqual(failure["posts"] as? Int, 1)
    XCTAssertEqual(failure["kept"] as? Int, 1)
    XCTAssertEqual(failure["message"] as? String, "Not saved yet: the server cannot be reached. Trying again.")
    let retry = try XCTUnwrap(result["afterRetry"] as? [String: Any])
    XCTAssertEqual(retry["posts"] as? Int, 2)
    XCTAssertEqual(retry["ids"] as? [String], ["a"], "the same stroke, the same id")
    XCTAssertTrue(retry["kept"] is NSNull)
    XCTAssertEqual(retry["message"] as? String, "Saved")
    let refused = try XCTUnwrap(result["refused"] as? [String: Any])
    XCTAssertEqual(refused["posts"] as? Int, 1, "a refused request is not sent again")
    XCTAssertEqual(refused["message"] as? String, "Not saved: strokes[0]: points must be a list")
    XCTAssertTrue(refused["kept"] is NSNull)
    let reloaded = try XCTUnwrap(result["reloaded"] as? [[String: Any]])
    XCTAssertEqual(reloaded.count, 1)
    XCTAssertEqual(reloaded.first?["page"] as? String, "p9")
    XCTAssertEqual(reloaded.first?["erase"] as? [String], ["old"])
    XCTAssertEqual((reloaded.first?["strokes"] as? [[String: Any]])?.first?["id"] as? String, "c")
  }

  func testOnceAPenIsSeenTouchScrollsAndAPalmStrokeIsDropped() throws {
    let result = try XCTUnwrap(
      try run(
        """
        const input = new Draw.Input();
        const steps = [];
        const down = (pointerType, pointerId, button = 0) => {
          const verdict = input.down({ pointerType, pointerId, button });
          steps.push(verdict.action + (verdict.cancelled ? " (dropped " + verdict.cancelled.pointerType + ")" : ""));
        };
        down("touch", 1);                         // no pen yet: a finger draws
        input.end({ pointerId: 1 });
        down("mouse", 2, 2);                      // a right click draws nothing
        down("touch", 3);                         // the palm lands first ...
        down("pen", 4);                           // ... then the pen: the palm's stroke is dropped
        steps.push(String(input.owns({ pointerId: 4 })) + " " + String(input.owns({ pointerId: 3 })));
        input.end({ pointerId: 4 });
        down("touch", 5);                         // from now on touch scrolls
        down("pen", 6);
        return steps;
        """) as? [String])
    XCTAssertEqual(
      result, ["draw", "ignore", "draw", "draw (dropped touch)", "true false", "scroll", "draw"])
  }

  func testUndoDropsAnUnsentStrokeAndErasesASavedOneRedoAddsACopy() throws {
    let result = try XCTUnwrap(
      try run(
        """
        let n = 0;
        const { session, posts } = sessionWith(ok);
        const history = new Draw.History(session, () => "new-" + (++n));
        const a = stroke("a"); session.add(a); history.drew(a);
        history.undo();                                  // not sent yet: simply dropped
        await clock.advance(3000);
        const b = stroke("b"); session.add(b); history.drew(b);
        await clock.advance(2000);                       // saved
        history.undo();                                  // saved: erased by the next request
        await clock.advance(2000);
        history.redo();                                  // erased on the server: back as a copy under a new id
        await clock.advance(2000);
        const erasedAction = { strokes: [stroke("new-1")], result: session.erase(["new-1"]) };
        history.erased(erasedAction.strokes, erasedAction.result);
        history.undo();                                  // the erase was not sent: taken back, nothing sent
        await clock.advance(2000);
        return posts.map((p) => ({ strokes: (p.strokes || []).map((s) => s.id), erase: p.erase || [] }));
        """) as? [[String: [String]]])
    XCTAssertEqual(
      result,
      [
        ["strokes": ["b"], "erase": []],
        ["strokes": [], "erase": ["b"]],
        ["strokes": ["new-1"], "erase": []],
      ])
  }

  func testTheEraserTouchesStrokesWithinTheirWidth() throws {
    let result = try XCTUnwrap(
      try run(
        """
        const nominal = { pen: 2, highlighter: 16 };
        const line = { id: "line", ink: "pen", points: [{ x: 0, y: 0 }, { x: 100, y: 0 }] };
        const wide = { id: "wide", ink: "highlighter", points: [{ x: 0, y: 50 }, { x: 100, y: 50 }] };
        const moved = { id: "moved", ink: "pen", transform: [1, 0, 0, 1, 0, 200], points: [{ x: 0, y: 0 }, { x: 100, y: 0 }] };
        const all = [line, wide, moved];
        return [
          Draw.hit(all, { x: 50, y: 1.4 }, 0.5, nominal),
          Draw.hit(all, { x: 50, y: 3 }, 0.5, nominal),
          Draw.hit(all, { x: 50, y: 42.5 }, 0.5, nominal),
          Draw.hit(all, { x: 50, y: 200 }, 0.5, nominal),
          Draw.hit(all, { x: 150, y: 0 }, 0.5, nominal),
          // A quick swipe from above the line to below it: no sample near it, but the path crosses it.
          Draw.hit(all, { x: 30, y: 20 }, 0.5, nominal, { x: 30, y: -20 }),
          // A swipe that passes beside the end of the line.
          Draw.hit(all, { x: 110, y: 20 }, 0.5, nominal, { x: 110, y: -20 }),
        ];
        """) as? [[String]])
    XCTAssertEqual(result, [["line"], [], ["wide"], ["moved"], [], ["line"], []])
  }

  func testStrokeIDsAreVersion7UUIDs() throws {
    let ids = try XCTUnwrap(
      try run(
        """
        return [Draw.newID(0x0193f6a28c01, (n) => new Uint8Array(n).fill(255)), Draw.newID(), Draw.newID()];
        """) as? [String])
    XCTAssertEqual(ids[0], "0193f6a2-8c01-7fff-bfff-ffffffffffff")
    XCTAssertNotEqual(ids[1], ids[2])
    for id in ids { XCTAssertNotNil(UUID(uuidString: id), id) }
  }

  /// The page itself, wired to a stand-in document: a canvas and its pointer events, the toolbar, storage, fetch,
  /// an image that loads at once. A pen stroke (with coalesced events) is posted 2 s after it ends, in the page's
  /// coordinates; a touch after the pen scrolls; Undo erases the saved stroke in the next request.
  private static let pageHarness = #"""
    "use strict";
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    const clock = {
      now: 0, next: 1, queue: [],
      setTimeout(fn, delay) { const id = this.next++; this.queue.push({ id, at: this.now + delay, fn }); return id; },
      clearTimeout(id) { this.queue = this.queue.filter((t) => t.id !== id); },
      async advance(ms) {
        const end = this.now + ms;
        for (;;) {
          this.queue.sort((a, b) => a.at - b.at);
          const due = this.queue[0];
          if (!due || due.at > end) break;
          this.queue.shift(); this.now = due.at; due.fn(); await settle();
        }
        this.now = end; await settle();
      },
    };
    class Node_ {
      constructor(tag, attrs = {}) {
        this.tagName = tag; this.dataset = attrs.dataset || {}; this.listeners = {}; this.children = attrs.children || [];
        this.attributes = {}; this.style = {}; this.hidden = false; this.disabled = false;
        this.classList = { items: new Set(), add: (c) => this.classList.items.add(c) };
      }
      addEventListener(type, fn) { (this.listeners[type] = this.listeners[type] || []).push(fn); }
      fire(type, event) { for (const fn of this.listeners[type] || []) fn(event); }
      setAttribute(name, value) { this.attributes[name] = value; }
      closest() { return this; }
      querySelector(selector) { return this.find(selector)[0] || null; }
      querySelectorAll(selector) { return this.find(selector); }
      find(selector) {
        const all = [];
        const walk = (node) => { for (const child of node.children) { all.push(child); walk(child); } };
        walk(this);
        return all.filter((node) => selector.split(",").some((one) => node.matches(one.trim())));
      }
      matches(selector) {
        if (selector === this.tagName.toLowerCase()) return true;
        const m = selector.match(/^\[data-([a-z]+)(?:="([^"]*)")?\]$/) || selector.match(/^\[(aria-pressed)="(true)"\]$/);
        if (!m) return false;
        if (m[1] === "aria-pressed") return this.attributes["aria-pressed"] === "true";
        const key = m[1];
        return key in this.dataset && (m[2] === undefined || this.dataset[key] === m[2]);
      }
    }
    const calls = [];
    const canvas = new Node_("CANVAS");
    canvas.width = 768; canvas.height = 1024;
    canvas.getContext = () => new Proxy({}, { get: (t, k) => (typeof k === "string" && /^[a-z]/.test(k) && !["strokeStyle","fillStyle","lineCap","lineJoin","lineWidth"].includes(k) ? (...args) => calls.push(k) : t[k]), set: (t, k, v) => { t[k] = v; return true; } });
    canvas.getBoundingClientRect = () => ({ left: 0, top: 100, width: 384, height: 512 });
    canvas.setPointerCapture = () => {};
    const image = new Node_("IMG");
    const sheet = new Node_("DIV", { children: [image, canvas], dataset: {
      draw: "", path: "work/sketch.md", inkPath: "work/sketch.ink.jsonl", pageId: "p1", pageIndex: "0", blank: "false",
      frame: "0 0 768 1024", version: "v1", action: "/draw/work/sketch.md", json: "/draw/work/sketch.md?page=0&format=json",
      svg: "/ink/work/sketch.md?page=0", nominal: "pen=2 pencil=1.5 highlighter=16", csrf: "c" } });
    const button = (dataset, pressed) => { const b = new Node_("BUTTON", { dataset }); if (pressed) b.setAttribute("aria-pressed", "true"); return b; };
    const tools = new Node_("DIV", { children: [button({ ink: "pen" }, true), button({ tool: "eraser" }), button({ color: "1a1a1aff" }, true),
      button({ color: "d1242fff" }), button({ width: "2" }, true), button({ width: "8" }), button({ command: "undo" }), button({ command: "redo" })] });
    tools.hidden = true;
    const status = new Node_("SPAN");
    const docListeners = {};
    globalThis.HTMLElement = Node_;
    globalThis.document = {
      querySelector: (s) => (s === "[data-draw]" ? sheet : s === "form.add-page" ? null : null),
      getElementById: (id) => (id === "draw-tools" ? tools : id === "draw-status" ? status : null),
      addEventListener: (type, fn) => { (docListeners[type] = docListeners[type] || []).push(fn); },
      createElement: (tag) => new Node_(tag.toUpperCase()),
    };
    const storage = {};
    const scrolled = [];
    globalThis.window = {
      setTimeout: clock.setTimeout.bind(clock), clearTimeout: clock.clearTimeout.bind(clock), devicePixelRatio: 2,
      localStorage: { getItem: (k) => storage[k] ?? null, setItem: (k, v) => { storage[k] = v; }, removeItem: (k) => { delete storage[k]; } },
      addEventListener() {}, scrollBy: (x, y) => scrolled.push([x, y]),
    };
    globalThis.location = { host: "127.0.0.1:8642" };
    const posts = [];
    const gets = [];
    let strokesOnServer = [];
    globalThis.fetch = async (url, options = {}) => {
      if (options.method === "POST") {
        const body = JSON.parse(options.body);
        posts.push({ url, headers: options.headers, body });
        strokesOnServer = strokesOnServer.concat(body.strokes || []).filter((s) => !(body.erase || []).includes(s.id));
        return { status: 200, ok: true, text: async () => JSON.stringify({ page: "p1", added: (body.strokes || []).map((s) => s.id), version: "v" + (posts.length + 1) }) };
      }
      gets.push(url);
      return { ok: true, status: 200, json: async () => ({ page: "p1", version: "v" + (posts.length + 1), blank: false, frame: [0, 0, 768, 1024], strokes: strokesOnServer.map((s) => Object.assign({ r: 1 }, s)) }) };
    };
    globalThis.Image = class { set src(value) { this._src = value; setImmediate(() => this.onload && this.onload()); } get src() { return this._src; } };
    require(process.env.SCRIPT);
    const pointer = (type, x, y, extra = {}) => Object.assign({ pointerType: "pen", pointerId: 1, button: 0, buttons: 1, clientX: x, clientY: y + 100,
      pressure: 0.5, tiltX: 0, tiltY: 0, timeStamp: clock.now, preventDefault() {} }, extra);
    (async () => {
      const out = {};
      await settle(); await settle();
      out.toolsShown = !tools.hidden;
      canvas.fire("pointerdown", pointer("pen", 10, 10));
      canvas.fire("pointermove", pointer("pen", 20, 10, { getCoalescedEvents: () => [pointer("pen", 15, 10, { pressure: 0.25 }), pointer("pen", 20, 10, { pressure: 0.75 })] }));
      canvas.fire("pointerup", pointer("pen", 20, 10));
      out.storedBeforeSave = JSON.parse(storage["nb-draw:work/sketch.md"]).strokes.length;
      // A palm: touch scrolls now.
      canvas.fire("pointerdown", pointer("touch", 50, 50, { pointerType: "touch", pointerId: 9 }));
      canvas.fire("pointermove", pointer("touch", 50, 30, { pointerType: "touch", pointerId: 9 }));
      canvas.fire("pointerup", pointer("touch", 50, 30, { pointerType: "touch", pointerId: 9 }));
      await clock.advance(1999);
      out.postsBefore = posts.length;
      await clock.advance(1);
      await settle(); await settle(); await settle();
      out.posts = posts.map((p) => ({ url: p.url, csrf: p.headers["X-NB-CSRF"], page: p.body.page, points: p.body.strokes[0].points, nib: p.body.strokes[0].nib }));
      out.scrolled = scrolled;
      out.stored = storage["nb-draw:work/sketch.md"] ?? null;
      out.image = image.src;
      out.status = status.textContent;
      // Undo the saved stroke: an erase 2 s later.
      tools.fire("click", { target: tools.children[6] });
      await clock.advance(2000); await settle(); await settle();
      out.undo = posts.slice(1).map((p) => p.body);
      out.undoDisabled = tools.children[6].disabled;
      // Choosing the highlighter takes the palette width nearest its own (16 of 2 and 8 here).
      tools.fire("click", { target: new Node_("BUTTON", { dataset: { ink: "highlighter" } }) });
      out.width = tools.children.filter((b) => b.attributes["aria-pressed"] === "true").map((b) => b.dataset.width).join("");
      out.redoDisabled = tools.children[7].disabled;
      console.log(JSON.stringify(out));
    })().catch((e) => { console.error(e); process.exit(1); });
    """#

  func testThePageTurnsPenEventsIntoOneSavedStrokeAndTouchIntoScrolling() throws {
    let node = try ProcessRunner.resolve("node")
    let temp = try TemporaryDirectory(prefix: "nb-draw-page")
    let script = temp.url.appendingPathComponent("draw.js")
    let harness = temp.url.appendingPathComponent("page.js")
    try Data(try XCTUnwrap(WebTemplates.all["draw.js"]).utf8).write(to: script)
    try Data(Self.pageHarness.utf8).write(to: harness)
    let result = try ProcessRunner.run(
      node, arguments: [harness.path], environment: ["SCRIPT": script.path, "PATH": "/usr/bin:/bin"], timeout: 30)
    XCTAssertEqual(result.status, 0, result.stderr)
    let out = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
    XCTAssertEqual(out["toolsShown"] as? Bool, true, "the toolbar shows once the script runs")
    XCTAssertEqual(out["storedBeforeSave"] as? Int, 1, "the unsent stroke is in localStorage")
    XCTAssertEqual(out["postsBefore"] as? Int, 0)
    let posts = try XCTUnwrap(out["posts"] as? [[String: Any]])
    XCTAssertEqual(posts.count, 1, "one request for the burst; the touch drew nothing")
    XCTAssertEqual(posts[0]["url"] as? String, "/draw/work/sketch.md")
    XCTAssertEqual(posts[0]["csrf"] as? String, "c")
    XCTAssertEqual(posts[0]["page"] as? String, "p1")
    XCTAssertEqual(posts[0]["nib"] as? Double, 2)
    // CSS pixels (10, 10), (15, 10), (20, 10) on a 384-pixel-wide canvas over a 768-point page.
    let points = try XCTUnwrap(posts[0]["points"] as? [[String: Double]])
    XCTAssertEqual(points.map { $0["x"] }, [20, 30, 40])
    XCTAssertEqual(points.map { $0["y"] }, [20, 20, 20])
    XCTAssertEqual(points.map { $0["f"] }, [1, 0.5, 1.5], "every coalesced sample with its own pressure")
    XCTAssertEqual(out["scrolled"] as? [[Int]], [[0, 20]], "the finger scrolls the page")
    XCTAssertTrue(out["stored"] is NSNull, "saved: nothing left in storage")
    XCTAssertEqual(out["image"] as? String, "/ink/work/sketch.md?page=0&v=v2", "the server's rendering, reloaded")
    XCTAssertEqual(out["status"] as? String, "Saved")
    let undo = try XCTUnwrap(out["undo"] as? [[String: Any]])
    XCTAssertEqual(undo.count, 1)
    XCTAssertEqual((undo.first?["erase"] as? [String])?.count, 1)
    XCTAssertEqual(out["undoDisabled"] as? Bool, true)
    XCTAssertEqual(out["redoDisabled"] as? Bool, false)
    XCTAssertEqual(out["width"] as? String, "8", "the highlighter's own width, as near as the palette has it")
  }
}
