// nb serve's Draw page: pen, touch and mouse on a canvas over the page as nb ink render draws it.
//
// Strokes are the ink model's (InkKit): points in the page's coordinates (points, the rendering's viewBox), time in
// seconds since the stroke began, force with 1 a normal press (Pointer Events' 0.5, what a pressed mouse reports, is
// 1; so pressure × 2), azimuth and altitude in radians. A burst of strokes is held here, and in localStorage so a
// reload loses nothing, until the pen has rested for 2 s; then one POST adds it, which the server makes one commit.
// Undo of a stroke not yet sent drops it; of one already saved, erases it (a later commit); undoing an erase adds the
// strokes back under new ids, as ids are never reused.
"use strict";
(() => {
  const Draw = {};

  /// The quiet time after the last stroke before a burst is saved, and before a failed save is tried again.
  Draw.quiet = 2000;
  Draw.retry = 5000;
  /// A burst that never rests is sent once it holds this many points, between two strokes: a request stays far
  /// below the server's body limit.
  Draw.burstPoints = 20000;
  /// The renderer's thinning: force 0 draws 1 − 0.5 of a nib, force 1 all of it, force 3 or more 2 of it.
  Draw.thinning = 0.5;

  /// Client coordinates to the page's: `rect` is where the canvas is on screen (CSS pixels), `frame` the page's
  /// viewBox [minX, minY, width, height].
  Draw.toPage = (clientX, clientY, rect, frame) => ({
    x: frame[0] + ((clientX - rect.left) * frame[2]) / rect.width,
    y: frame[1] + ((clientY - rect.top) * frame[3]) / rect.height,
  });

  /// The canvas's backing size in device pixels, and the transform that draws page coordinates into it.
  Draw.backing = (rect, frame, ratio) => {
    const width = Math.max(1, Math.round(rect.width * ratio));
    const height = Math.max(1, Math.round(rect.height * ratio));
    const sx = width / frame[2];
    const sy = height / frame[3];
    return { width, height, transform: [sx, 0, 0, sy, -frame[0] * sx, -frame[1] * sy] };
  };

  /// A pointer's pressure as the ink model's force; null when the device has none (mouse, most touch screens).
  Draw.force = (event) => (event.pointerType === "pen" ? Math.min(Math.max(event.pressure || 0, 0), 1) * 2 : null);

  /// A pen's tilt as azimuth and altitude (radians, as PencilKit and the ink model have them): from
  /// azimuthAngle/altitudeAngle where the browser has them, else from tiltX/tiltY (degrees) as Pointer Events 3
  /// converts them.
  Draw.angles = (event) => {
    if (typeof event.altitudeAngle === "number" && typeof event.azimuthAngle === "number") {
      return { az: event.azimuthAngle, al: event.altitudeAngle };
    }
    const tx = ((event.tiltX || 0) * Math.PI) / 180;
    const ty = ((event.tiltY || 0) * Math.PI) / 180;
    if (tx === 0 && ty === 0) return { az: 0, al: Math.PI / 2 };
    const half = Math.PI / 2;
    let az = 0;
    if (tx === 0) az = ty > 0 ? half : 3 * half;
    else if (ty === 0) az = tx < 0 ? Math.PI : 0;
    else if (Math.abs(tx) === half || Math.abs(ty) === half) az = 0;
    else {
      az = Math.atan2(Math.tan(ty), Math.tan(tx));
      if (az < 0) az += 2 * Math.PI;
    }
    let al;
    if (Math.abs(tx) === half || Math.abs(ty) === half) al = 0;
    else if (tx === 0) al = half - Math.abs(ty);
    else if (ty === 0) al = half - Math.abs(tx);
    else al = Math.atan(1 / Math.sqrt(Math.tan(tx) ** 2 + Math.tan(ty) ** 2));
    return { az, al };
  };

  const round = (value, places) => Math.round(value * places) / places;

  /// One point of a stroke from a pointer event: page position to 1/100 pt, time to the ms, and for a pen force
  /// and tilt.
  Draw.sample = (event, rect, frame, start) => {
    const at = Draw.toPage(event.clientX, event.clientY, rect, frame);
    const point = { x: round(at.x, 100), y: round(at.y, 100), t: round(Math.max(0, event.timeStamp - start) / 1000, 1000) };
    const force = Draw.force(event);
    if (force !== null) {
      const tilt = Draw.angles(event);
      point.f = round(force, 1000);
      point.az = round(tilt.az, 1000);
      point.al = round(tilt.al, 1000);
    }
    return point;
  };

  /// The diameter a nib draws at a force, as the renderer draws it (InkPalette.diameter).
  Draw.diameter = (nib, force) => {
    const f = Math.min(Math.max(Number.isFinite(force) ? force : 1, 0), 3);
    return nib * (1 + Draw.thinning * (f - 1));
  };

  /// A stroke's points after its transform, each with the diameter drawn there.
  Draw.geometry = (stroke, nominal) => {
    const t = stroke.transform || [1, 0, 0, 1, 0, 0];
    const scale = Math.sqrt(Math.abs(t[0] * t[3] - t[1] * t[2])) || 1;
    const base = stroke.nib || nominal[stroke.ink] || 2;
    return stroke.points.map((p) => ({
      x: t[0] * p.x + t[2] * p.y + t[4],
      y: t[1] * p.x + t[3] * p.y + t[5],
      d: (p.w !== undefined ? p.w : stroke.nib || "f" in p ? Draw.diameter(base, p.f) : base) * scale,
    }));
  };

  const segmentDistance = (p, a, b) => {
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const length = dx * dx + dy * dy;
    const k = length === 0 ? 0 : Math.min(Math.max(((p.x - a.x) * dx + (p.y - a.y) * dy) / length, 0), 1);
    return Math.hypot(p.x - (a.x + k * dx), p.y - (a.y + k * dy));
  };

  const cross = (o, a, b) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);

  /// The distance between segments ab and cd: 0 where they cross.
  const segmentsDistance = (a, b, c, d) => {
    const d1 = cross(c, d, a);
    const d2 = cross(c, d, b);
    const d3 = cross(a, b, c);
    const d4 = cross(a, b, d);
    if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return 0;
    return Math.min(segmentDistance(a, c, d), segmentDistance(b, c, d), segmentDistance(c, a, b), segmentDistance(d, a, b));
  };

  /// The ids of the strokes the eraser touches, moving from `from` to `point` (or resting at `point`): nearer to a
  /// stroke's centreline than its half width plus `tolerance` (page units). The path between two samples counts, so
  /// a quick swipe does not jump over a stroke.
  Draw.hit = (strokes, point, tolerance, nominal, from = point) => {
    const ids = [];
    for (const stroke of strokes) {
      const points = Draw.geometry(stroke, nominal);
      const reach = (index) => points[index].d / 2 + tolerance;
      let touched = points.length === 1 && segmentDistance(points[0], from, point) <= reach(0);
      for (let i = 1; !touched && i < points.length; i++) {
        touched = segmentsDistance(from, point, points[i - 1], points[i]) <= Math.max(reach(i - 1), reach(i));
      }
      if (touched) ids.push(stroke.id);
    }
    return ids;
  };

  /// A new stroke id: a version-7 UUID (time-ordered), as nb mints them.
  Draw.newID = (now = Date.now(), random = (n) => {
    const bytes = new Uint8Array(n);
    if (globalThis.crypto && crypto.getRandomValues) crypto.getRandomValues(bytes);
    else for (let i = 0; i < n; i++) bytes[i] = Math.floor(Math.random() * 256);
    return bytes;
  }) => {
    const bytes = random(16);
    for (let i = 0; i < 6; i++) bytes[i] = Math.floor(now / 2 ** (8 * (5 - i))) & 0xff;
    bytes[6] = 0x70 | (bytes[6] & 0x0f);
    bytes[8] = 0x80 | (bytes[8] & 0x3f);
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };

  /// Who may draw: pen, mouse and touch draw until a pen has been seen; from then on touch scrolls (a palm resting
  /// on the screen draws nothing), and a touch stroke under way when the pen arrives is dropped.
  Draw.Input = class {
    constructor() {
      this.penSeen = false;
      this.active = null;
    }

    /// What a pointerdown does: "draw" (it starts a stroke), "scroll", or "ignore"; `cancelled` when it dropped a
    /// touch stroke under way.
    down(event) {
      let cancelled = null;
      if (event.pointerType === "pen") {
        this.penSeen = true;
        if (this.active && this.active.pointerType === "touch") {
          cancelled = this.active;
          this.active = null;
        }
      }
      if (event.pointerType === "touch" && this.penSeen) return { action: "scroll", cancelled };
      if (event.pointerType === "mouse" && event.button !== 0) return { action: "ignore", cancelled };
      if (this.active) return { action: "ignore", cancelled };
      this.active = { pointerId: event.pointerId, pointerType: event.pointerType };
      return { action: "draw", cancelled };
    }

    /// Whether an event belongs to the stroke under way.
    owns(event) {
      return this.active !== null && this.active.pointerId === event.pointerId;
    }

    /// The stroke under way ended (lifted or cancelled).
    end(event) {
      if (this.owns(event)) this.active = null;
    }

    /// Any pen event (hovering too) is a pen seen.
    saw(event) {
      if (event.pointerType === "pen") this.penSeen = true;
    }
  };

  /// The burst being drawn and its saving: strokes and erasures wait here (and in `storage`) until the pen has
  /// rested for `Draw.quiet` ms, then go in one request; a request that fails for a reason that may pass (no
  /// network, a server error) is tried again later, one the server refused is dropped and said so.
  Draw.Session = class {
    constructor({ page, post, storage, key, timers, onChange }) {
      this.page = page;
      this.post = post;
      this.storage = storage;
      this.key = key;
      this.timers = timers;
      this.onChange = onChange || (() => {});
      this.strokes = [];
      this.erasing = [];
      this.sending = null;
      this.timer = null;
      this.drawing = false;
      this.message = "";
      this.restore();
    }

    /// Strokes and erasures kept by an earlier visit that never heard back; sent after the quiet time.
    restore() {
      if (!this.storage) return;
      try {
        const kept = JSON.parse(this.storage.getItem(this.key) || "null");
        if (kept && Array.isArray(kept.strokes) && Array.isArray(kept.erase)) {
          if (kept.strokes.length) this.page = kept.page === undefined ? this.page : kept.page;
          this.strokes = kept.strokes;
          this.erasing = kept.erase;
          if (this.waiting()) this.schedule(Draw.quiet);
        }
      } catch (error) {
        this.storage.removeItem(this.key);
      }
    }

    persist() {
      if (!this.storage) return;
      const strokes = (this.sending ? this.sending.strokes : []).concat(this.strokes);
      const erase = (this.sending ? this.sending.erase : []).concat(this.erasing);
      try {
        if (strokes.length || erase.length) {
          this.storage.setItem(this.key, JSON.stringify({ page: this.page, strokes, erase }));
        } else {
          this.storage.removeItem(this.key);
        }
      } catch (error) {
        // Storage full or off: the strokes are still held in memory until saved.
      }
    }

    /// How many changes are not saved yet.
    waiting() {
      return this.strokes.length + this.erasing.length + (this.sending ? this.sending.strokes.length + this.sending.erase.length : 0);
    }

    schedule(delay) {
      if (this.timer !== null) this.timers.clearTimeout(this.timer);
      this.timer = this.timers.setTimeout(() => {
        this.timer = null;
        this.flush();
      }, delay);
    }

    /// The pen is down: nothing is saved while it draws.
    penDown() {
      this.drawing = true;
      if (this.timer !== null) this.timers.clearTimeout(this.timer);
      this.timer = null;
    }

    /// The pen lifted without a stroke to keep (cancelled, or an eraser that touched nothing).
    penUp() {
      this.drawing = false;
      if (this.waiting() && !this.sending) this.schedule(Draw.quiet);
    }

    /// A finished stroke.
    add(stroke) {
      this.drawing = false;
      this.strokes.push(stroke);
      this.persist();
      const points = this.strokes.reduce((sum, s) => sum + s.points.length, 0);
      if (points >= Draw.burstPoints && !this.sending) this.flush();
      else this.schedule(Draw.quiet);
      this.onChange();
    }

    /// Takes back a stroke not sent yet; whether it was one.
    drop(id) {
      const index = this.strokes.findIndex((stroke) => stroke.id === id);
      if (index < 0) return false;
      this.strokes.splice(index, 1);
      this.persist();
      this.onChange();
      return true;
    }

    /// Erases strokes: one not sent yet is dropped, any other is erased by the next request. Returns, per id,
    /// "dropped" or "erased".
    erase(ids) {
      const result = {};
      for (const id of ids) {
        if (this.drop(id)) result[id] = "dropped";
        else {
          if (!this.erasing.includes(id)) this.erasing.push(id);
          result[id] = "erased";
        }
      }
      this.drawing = false;
      this.persist();
      this.schedule(Draw.quiet);
      this.onChange();
      return result;
    }

    /// Takes back an erasure not sent yet; whether it was one.
    unerase(id) {
      const index = this.erasing.indexOf(id);
      if (index < 0) return false;
      this.erasing.splice(index, 1);
      this.persist();
      this.onChange();
      return true;
    }

    /// Sends what waits now, in one request (unless one is under way: then after it).
    async flush(options = {}) {
      if (this.timer !== null) this.timers.clearTimeout(this.timer);
      this.timer = null;
      if (this.sending || (!this.strokes.length && !this.erasing.length)) return;
      const batch = { strokes: this.strokes, erase: this.erasing };
      this.strokes = [];
      this.erasing = [];
      this.sending = batch;
      this.message = "Saving…";
      this.onChange();
      const body = { page: this.page };
      if (batch.strokes.length) body.strokes = batch.strokes;
      if (batch.erase.length) body.erase = batch.erase;
      let answer;
      try {
        answer = await this.post(body, options);
      } catch (error) {
        answer = { status: 0, body: { error: "the server cannot be reached" } };
      }
      this.sending = null;
      const status = answer.status;
      if (status >= 200 && status < 300) {
        if (answer.body && answer.body.page !== undefined && batch.strokes.length) this.page = answer.body.page;
        this.message = "Saved";
        this.persist();
        this.onChange(answer.body);
        if ((this.strokes.length || this.erasing.length) && !this.drawing) this.schedule(Draw.quiet);
        return;
      }
      const reason = (answer.body && answer.body.error) || `the server answered ${status}`;
      if (status === 0 || status >= 500 || status === 403 || status === 429) {
        // May pass: kept (here and in storage) and tried again; a 403 (a restarted server) after a reload.
        this.strokes = batch.strokes.concat(this.strokes);
        this.erasing = batch.erase.concat(this.erasing);
        this.persist();
        this.message =
          status === 403
            ? `Not saved: ${reason}. Kept in this browser; reload the page from the address nb serve printed.`
            : `Not saved yet: ${reason}. Trying again.`;
        if (status !== 403) this.schedule(Draw.retry);
      } else {
        this.persist();
        this.message = `Not saved: ${reason}`;
      }
      this.onChange();
    }
  };

  /// Undo and redo over a session: each action is a stroke drawn or strokes erased.
  Draw.History = class {
    constructor(session, newID = Draw.newID) {
      this.session = session;
      this.newID = newID;
      this.done = [];
      this.undone = [];
    }

    drew(stroke) {
      this.done.push({ kind: "draw", stroke });
      this.undone = [];
    }

    erased(strokes, result) {
      if (!strokes.length) return;
      this.done.push({ kind: "erase", strokes, result });
      this.undone = [];
    }

    /// Puts a stroke back: the same id when it never reached the server, else a copy under a new id.
    restore(stroke, how) {
      if (how === "dropped") {
        this.session.add(stroke);
        return stroke;
      }
      if (this.session.unerase(stroke.id)) return stroke;
      const copy = Object.assign({}, stroke, { id: this.newID() });
      delete copy.r;
      this.session.add(copy);
      return copy;
    }

    undo() {
      const action = this.done.pop();
      if (!action) return false;
      if (action.kind === "draw") {
        action.how = this.session.drop(action.stroke.id) ? "dropped" : (this.session.erase([action.stroke.id]), "erased");
      } else {
        action.strokes = action.strokes.map((stroke) => this.restore(stroke, action.result[stroke.id]));
      }
      this.undone.push(action);
      return true;
    }

    redo() {
      const action = this.undone.pop();
      if (!action) return false;
      if (action.kind === "draw") {
        action.stroke = this.restore(action.stroke, action.how);
      } else {
        action.result = this.session.erase(action.strokes.map((stroke) => stroke.id));
      }
      this.done.push(action);
      return true;
    }
  };

  if (typeof module === "object" && module.exports) module.exports = Draw;
  if (typeof document === "undefined") return;
  const sheet = document.querySelector("[data-draw]");
  if (!sheet) return;

  // MARK: - The page

  const canvas = sheet.querySelector("canvas");
  const context = canvas.getContext("2d");
  const tools = document.getElementById("draw-tools");
  const status = document.getElementById("draw-status");
  const nominal = {};
  for (const pair of sheet.dataset.nominal.split(" ")) {
    const [name, width] = pair.split("=");
    nominal[name] = Number(width);
  }
  let frame = sheet.dataset.frame.split(" ").map(Number);
  let imageStrokes = [];
  const local = new Map();
  const erasedHere = new Set();
  const choice = { ink: "pen", color: "1a1a1aff", width: 2, eraser: false };
  const input = new Draw.Input();
  let stroke = null;
  let erasing = null;
  let start = 0;
  let scrollFrom = null;

  const post = async (body, options) => {
    const answer = await fetch(sheet.dataset.action, {
      method: "POST",
      credentials: "same-origin",
      keepalive: Boolean(options.keepalive),
      headers: { "Content-Type": "application/json", "X-NB-CSRF": sheet.dataset.csrf, Accept: "application/json" },
      body: JSON.stringify(body),
    });
    let parsed = null;
    const text = await answer.text();
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      parsed = { error: text.trim().split("\n")[0] };
    }
    return { status: answer.status, body: parsed };
  };

  let storage = null;
  try {
    storage = window.localStorage;
  } catch (error) {
    storage = null;
  }
  const session = new Draw.Session({
    page: sheet.dataset.pageId === "" ? null : sheet.dataset.pageId,
    post,
    storage,
    // Storage is per origin (the port too): a server started on another port finds nothing kept here.
    key: "nb-draw:" + sheet.dataset.path,
    timers: window,
    onChange: (saved) => {
      showState();
      if (saved) reload();
      else paint();
    },
  });
  const history = new Draw.History(session);
  for (const kept of session.strokes) local.set(kept.id, kept);
  for (const id of session.erasing) erasedHere.add(id);

  const showState = () => {
    const waiting = session.waiting();
    // For a browser test (and a curious reader): how many changes wait, and the rendering's version shown.
    sheet.dataset.waiting = String(waiting);
    let text = session.message;
    if (waiting && !session.sending && !/^Not saved/.test(text)) text = waiting === 1 ? "1 change to save" : `${waiting} changes to save`;
    if (status) status.textContent = text;
    tools.querySelector('[data-command="undo"]').disabled = history.done.length === 0;
    tools.querySelector('[data-command="redo"]').disabled = history.undone.length === 0;
  };

  const rect = () => canvas.getBoundingClientRect();

  const resize = () => {
    const box = rect();
    if (!box.width || !box.height) return;
    const backing = Draw.backing(box, frame, window.devicePixelRatio || 1);
    if (canvas.width !== backing.width) canvas.width = backing.width;
    if (canvas.height !== backing.height) canvas.height = backing.height;
    paint();
  };

  const colorOf = (s) => {
    const hex = s.color || "000000ff";
    const alpha = parseInt(hex.slice(6, 8) || "ff", 16) / 255;
    const translucent = s.ink === "marker" || s.ink === "highlighter";
    const opacity = translucent && alpha === 1 ? 0.35 : alpha;
    return `rgba(${parseInt(hex.slice(0, 2), 16)}, ${parseInt(hex.slice(2, 4), 16)}, ${parseInt(hex.slice(4, 6), 16)}, ${opacity})`;
  };

  // The strokes drawn here until the server's rendering has them: a close likeness, replaced by the real thing.
  const paintStroke = (s) => {
    const points = Draw.geometry(s, nominal);
    context.strokeStyle = colorOf(s);
    context.fillStyle = colorOf(s);
    context.lineCap = "round";
    context.lineJoin = "round";
    if (points.length === 1) {
      context.beginPath();
      context.arc(points[0].x, points[0].y, points[0].d / 2, 0, 2 * Math.PI);
      context.fill();
      return;
    }
    for (let i = 1; i < points.length; i++) {
      context.beginPath();
      context.lineWidth = (points[i - 1].d + points[i].d) / 2;
      context.moveTo(points[i - 1].x, points[i - 1].y);
      context.lineTo(points[i].x, points[i].y);
      context.stroke();
    }
  };

  const paint = () => {
    const backing = Draw.backing(rect(), frame, window.devicePixelRatio || 1);
    context.setTransform(1, 0, 0, 1, 0, 0);
    context.clearRect(0, 0, canvas.width, canvas.height);
    context.setTransform(...backing.transform);
    for (const s of local.values()) if (!erasedHere.has(s.id)) paintStroke(s);
    if (stroke) paintStroke(stroke);
  };

  const layout = () => {
    const image = sheet.querySelector("img");
    if (image) {
      image.width = frame[2];
      image.height = frame[3];
    }
    resize();
  };

  // The server's rendering of the page (what nb ink render draws), less the strokes erased here and not saved yet.
  let loading = 0;
  const reload = async () => {
    const ticket = ++loading;
    let data;
    try {
      const answer = await fetch(sheet.dataset.json, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (!answer.ok) return;
      data = await answer.json();
    } catch (error) {
      return;
    }
    if (ticket !== loading) return;
    const hidden = [...erasedHere].filter((id) => data.strokes.some((s) => s.id === id));
    const source = `${sheet.dataset.svg}&v=${encodeURIComponent(data.version)}` + (hidden.length ? `&hide=${hidden.map(encodeURIComponent).join(",")}` : "");
    const apply = () => {
      if (ticket !== loading) return;
      sheet.dataset.version = data.version;
      frame = data.frame;
      if (!data.blank) {
        if (data.page !== session.page && !session.waiting()) session.page = data.page;
        let image = sheet.querySelector("img");
        const blank = sheet.querySelector(".blank-page");
        if (!image) {
          image = document.createElement("img");
          image.alt = "Handwriting";
          if (blank) blank.replaceWith(image);
          else sheet.insertBefore(image, canvas);
        }
        image.src = source;
      }
      imageStrokes = data.strokes;
      const shown = new Set(data.strokes.map((s) => s.id));
      for (const id of [...local.keys()]) if (shown.has(id)) local.delete(id);
      for (const id of [...erasedHere]) if (!shown.has(id) && !session.erasing.includes(id)) erasedHere.delete(id);
      layout();
    };
    if (data.blank) return apply();
    // Loaded first and swapped in whole, so the page never flickers to nothing.
    const next = new Image();
    next.onload = apply;
    next.onerror = apply;
    next.src = source;
  };

  let eraserAt = null;
  const eraserHits = (event) => {
    const box = rect();
    const at = Draw.toPage(event.clientX, event.clientY, box, frame);
    const from = eraserAt || at;
    eraserAt = at;
    // Six CSS pixels of reach around the eraser's tip, in page units.
    const tolerance = (6 * frame[2]) / box.width;
    const candidates = imageStrokes.concat([...local.values()]).filter((s) => !erasedHere.has(s.id));
    return Draw.hit(candidates, at, tolerance, nominal, from).map((id) => candidates.find((s) => s.id === id));
  };

  const samples = (event) => {
    const list = typeof event.getCoalescedEvents === "function" ? event.getCoalescedEvents() : [];
    return list.length ? list : [event];
  };

  canvas.addEventListener("pointerover", (event) => input.saw(event));
  canvas.addEventListener("pointerdown", (event) => {
    const verdict = input.down(event);
    if (verdict.cancelled && stroke) {
      stroke = null;
      session.penUp();
      paint();
    }
    if (verdict.action === "scroll") {
      scrollFrom = { pointerId: event.pointerId, x: event.clientX, y: event.clientY };
      return;
    }
    if (verdict.action !== "draw") return;
    event.preventDefault();
    try {
      canvas.setPointerCapture(event.pointerId);
    } catch (error) {
      // A pointer the browser no longer knows: the stroke still follows its events over the canvas.
    }
    session.penDown();
    start = event.timeStamp;
    // The pen's eraser end, or the eraser tool.
    if (choice.eraser || (event.buttons & 32) !== 0) {
      erasing = [];
      eraserAt = null;
      for (const hit of eraserHits(event)) if (!erasing.includes(hit)) erasing.push(hit);
      return;
    }
    stroke = {
      id: Draw.newID(),
      ink: choice.ink,
      color: choice.color,
      nib: choice.width,
      created: Date.now(),
      points: [Draw.sample(event, rect(), frame, start)],
    };
    paint();
  });
  canvas.addEventListener("pointermove", (event) => {
    input.saw(event);
    if (scrollFrom && scrollFrom.pointerId === event.pointerId) {
      window.scrollBy(scrollFrom.x - event.clientX, scrollFrom.y - event.clientY);
      scrollFrom = { pointerId: event.pointerId, x: event.clientX, y: event.clientY };
      return;
    }
    if (!input.owns(event)) return;
    event.preventDefault();
    if (erasing) {
      for (const sample of samples(event)) for (const hit of eraserHits(sample)) if (!erasing.includes(hit)) erasing.push(hit);
      for (const hit of erasing) erasedHere.add(hit.id);
      paint();
      return;
    }
    if (!stroke) return;
    const box = rect();
    for (const sample of samples(event)) stroke.points.push(Draw.sample(sample, box, frame, start));
    paint();
  });
  const finish = (event, keep) => {
    if (scrollFrom && scrollFrom.pointerId === event.pointerId) scrollFrom = null;
    if (!input.owns(event)) return;
    input.end(event);
    if (erasing) {
      const hits = keep ? erasing : [];
      if (!keep) for (const hit of erasing) if (!session.erasing.includes(hit.id)) erasedHere.delete(hit.id);
      erasing = null;
      if (!hits.length) {
        session.penUp();
        paint();
        return;
      }
      for (const hit of hits) erasedHere.add(hit.id);
      history.erased(hits, session.erase(hits.map((hit) => hit.id)));
      reload();
      return;
    }
    const done = stroke;
    stroke = null;
    if (!keep || !done) {
      session.penUp();
      paint();
      return;
    }
    local.set(done.id, done);
    history.drew(done);
    session.add(done);
  };
  canvas.addEventListener("pointerup", (event) => finish(event, true));
  canvas.addEventListener("pointercancel", (event) => finish(event, false));

  // Undo and redo change what is shown: the strokes they bring back or take away.
  const step = (forward) => {
    if (!(forward ? history.redo() : history.undo())) return;
    local.clear();
    erasedHere.clear();
    for (const s of session.strokes) local.set(s.id, s);
    if (session.sending) for (const s of session.sending.strokes) local.set(s.id, s);
    for (const id of session.erasing) erasedHere.add(id);
    if (session.sending) for (const id of session.sending.erase) erasedHere.add(id);
    showState();
    reload();
  };

  tools.addEventListener("click", (event) => {
    const button = event.target.closest ? event.target.closest("button") : null;
    if (!button) return;
    const press = (selector) => {
      for (const other of tools.querySelectorAll(selector)) other.setAttribute("aria-pressed", String(other === button));
    };
    if (button.dataset.ink || button.dataset.tool) {
      press("[data-ink], [data-tool]");
      choice.eraser = button.dataset.tool === "eraser";
      if (button.dataset.ink) {
        choice.ink = button.dataset.ink;
        // Each ink starts at the palette width nearest its own (a highlighter is broad, a pencil fine).
        const widths = [...tools.querySelectorAll("[data-width]")];
        const goal = nominal[choice.ink] || 2;
        const nearest = widths.reduce((best, b) =>
          !best || Math.abs(Number(b.dataset.width) - goal) < Math.abs(Number(best.dataset.width) - goal) ? b : best, null);
        if (nearest) {
          for (const other of widths) other.setAttribute("aria-pressed", String(other === nearest));
          choice.width = Number(nearest.dataset.width);
        }
      }
    } else if (button.dataset.color) {
      press("[data-color]");
      choice.color = button.dataset.color;
    } else if (button.dataset.width) {
      press("[data-width]");
      choice.width = Number(button.dataset.width);
    } else if (button.dataset.command) {
      step(button.dataset.command === "redo");
    }
  });
  for (const swatch of tools.querySelectorAll("[data-color]")) swatch.style.backgroundColor = "#" + swatch.dataset.color.slice(0, 6);
  for (const pressed of tools.querySelectorAll('[aria-pressed="true"]')) {
    if (pressed.dataset.color) choice.color = pressed.dataset.color;
    if (pressed.dataset.width) choice.width = Number(pressed.dataset.width);
    if (pressed.dataset.ink) choice.ink = pressed.dataset.ink;
  }

  document.addEventListener("keydown", (event) => {
    if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
    if (event.target instanceof HTMLElement && /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName)) return;
    const key = event.key.toLowerCase();
    if (key === "z" || key === "y") {
      event.preventDefault();
      step(key === "y" || event.shiftKey);
    }
  });

  // Another browser, an editor or a sync changed the note or its ink: the page shows it without a reload.
  document.addEventListener("nb:change", (event) => {
    const change = event.detail || {};
    if (change.everything || (change.paths || []).some((path) => path === sheet.dataset.path || path === sheet.dataset.inkPath)) {
      reload();
    }
  });

  // Leaving the page sends what waits at once (it is also in storage, should that fail).
  window.addEventListener("pagehide", () => session.flush({ keepalive: true }));
  const addPage = document.querySelector("form.add-page");
  if (addPage) {
    addPage.addEventListener("submit", async (event) => {
      if (!session.waiting()) return;
      event.preventDefault();
      await session.flush();
      if (!session.waiting()) addPage.submit();
    });
  }

  if (typeof ResizeObserver === "function") new ResizeObserver(resize).observe(canvas);
  else window.addEventListener("resize", resize);
  tools.hidden = false;
  sheet.classList.add("live");
  showState();
  resize();
  reload();
})();
