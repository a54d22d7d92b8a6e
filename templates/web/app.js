// nb serve's own script. Every page works without it; it adds keyboard shortcuts and live updates (the Draw page's
// canvas is draw.js).
"use strict";
// Keyboard shortcuts, listed by "?" (and on /shortcuts, without the script): "/" search, "e" edit, "g" then "h",
// "t" or "i" to go home, to the tasks or to the inbox, "Esc" closes the list. None while typing in a field.
(() => {
  const places = { h: "/", t: "/tasks", i: "/inbox" };
  // "g" waits this long for its second key.
  const chord = 1500;
  let after = 0;
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    const typing = target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
    if (typing || event.altKey || event.ctrlKey || event.metaKey) return;
    const help = document.getElementById("shortcuts");
    const waiting = after > 0 && Date.now() - after < chord;
    after = 0;
    if (waiting && places[event.key]) {
      event.preventDefault();
      location.href = places[event.key];
      return;
    }
    if (event.key === "Escape") {
      if (help && !help.hidden) {
        event.preventDefault();
        help.hidden = true;
      }
    } else if (event.key === "?") {
      if (help) {
        event.preventDefault();
        help.hidden = !help.hidden;
      }
    } else if (event.key === "/") {
      const search = document.querySelector(".search input");
      if (search) {
        event.preventDefault();
        search.focus();
        search.select();
      }
    } else if (event.key === "e") {
      const edit = document.querySelector('main a[href^="/edit/"]');
      if (edit) {
        event.preventDefault();
        location.href = edit.getAttribute("href");
      }
    } else if (event.key === "g") {
      after = Date.now();
    }
  });
})();

// Live updates: the server sends an event for every file that changes (an editor's save, another nb, a sync).
// A page showing notes fetches itself again and swaps its main part in; a page with a form being filled waits
// until the form is left; an open edit form is never replaced, it is told that its file changed.
(() => {
  if (typeof EventSource === "undefined") return;
  let refreshing = false;
  let pending = false;

  const busy = () => {
    const active = document.activeElement;
    if (!(active instanceof HTMLElement) || !active.closest("main form, header form")) return false;
    return /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName) && active.value !== "" && active.type !== "hidden";
  };

  const refresh = async () => {
    if (busy()) {
      pending = true;
      return;
    }
    if (refreshing) {
      pending = true;
      return;
    }
    refreshing = true;
    pending = false;
    try {
      const answer = await fetch(location.href, { credentials: "same-origin", headers: { Accept: "text/html" } });
      const page = new DOMParser().parseFromString(await answer.text(), "text/html");
      const fresh = page.querySelector("main");
      const main = document.querySelector("main");
      if (fresh && main && !busy()) {
        main.replaceWith(document.adoptNode(fresh));
        document.title = page.title;
      } else {
        pending = true;
      }
    } catch (error) {
      pending = true;
    } finally {
      refreshing = false;
    }
  };

  document.addEventListener("focusout", () => {
    if (pending) setTimeout(refresh, 50);
  });

  const editForm = () => document.querySelector("form.edit[data-path]");

  const changed = (event) => {
    let change;
    try {
      change = JSON.parse(event.data);
    } catch (error) {
      return;
    }
    // The Draw page keeps its canvas and what is being drawn: it reloads its own image (draw.js).
    document.dispatchEvent(new CustomEvent("nb:change", { detail: change }));
    if (document.querySelector("[data-draw]")) return;
    const form = editForm();
    if (form) {
      if (change.everything || change.paths.includes(form.dataset.path)) {
        const notice = document.getElementById("changed-on-disk");
        if (notice) notice.hidden = false;
      }
      return;
    }
    refresh();
  };

  // A browser keeps about six connections per server; a tab in the background gives its stream back and catches up
  // (one refresh) when it is shown again.
  let source = null;
  const listen = () => {
    source = new EventSource("/events");
    source.addEventListener("change", changed);
  };
  document.addEventListener("visibilitychange", () => {
    if (document.hidden && source) {
      source.close();
      source = null;
    } else if (!document.hidden && !source) {
      listen();
      if (document.querySelector("[data-draw]")) {
        document.dispatchEvent(new CustomEvent("nb:change", { detail: { everything: true, paths: [] } }));
      } else if (!editForm()) refresh();
    }
  });
  if (!document.hidden) listen();
})();

// Drafts: what is typed in an edit form stays in this browser's local storage until the save lands, so a closed
// tab, a crash or a refused save loses nothing. A draft keeps the version and base text it was typed over: brought
// back into the form, it is saved over those, and the server merges it with whatever changed since.
(() => {
  let storage = null;
  try {
    storage = globalThis.localStorage || null;
  } catch (error) {
    // Storage blocked by the browser's settings: the form still works, without drafts.
  }
  if (!storage || typeof document.querySelectorAll !== "function") return;
  const key = (path) => "nb-draft:" + path;
  // The note page a save redirects to: that note's draft has landed.
  for (const saved of document.querySelectorAll("[data-draft-saved]")) storage.removeItem(key(saved.dataset.draftSaved));

  const form = document.querySelector("form.edit[data-path]");
  if (!form) return;
  const text = form.querySelector("textarea[name=text]");
  const version = form.querySelector("input[name=version]");
  const base = form.querySelector("input[name=base]");
  if (!text || !version || !base) return;
  const name = key(form.dataset.path);
  // A refused save's page shows the text typed, not the file's: that text is the draft, over the version shown now.
  const unsaved = form.dataset.unsaved === "1";
  const loaded = { text: text.value, version: version.value, base: base.value };
  const store = () => {
    try {
      storage.setItem(name, JSON.stringify({ text: text.value, version: version.value, base: base.value }));
    } catch (error) {
      // Storage full: nothing to do but keep the text in the form.
    }
  };
  let draft = null;
  try {
    draft = JSON.parse(storage.getItem(name) || "null");
  } catch (error) {
    draft = null;
  }
  const valid = draft && typeof draft.text === "string" && typeof draft.version === "string" && typeof draft.base === "string";
  if (unsaved) {
    store();
  } else if (valid && draft.text !== text.value) {
    text.value = draft.text;
    version.value = draft.version;
    base.value = draft.base;
    const notice = document.getElementById("draft-restored");
    if (notice) notice.hidden = false;
    const discard = document.getElementById("draft-discard");
    if (discard) {
      discard.addEventListener("click", () => {
        text.value = loaded.text;
        version.value = loaded.version;
        base.value = loaded.base;
        storage.removeItem(name);
        if (notice) notice.hidden = true;
      });
    }
  } else if (valid) {
    storage.removeItem(name);
  }
  text.addEventListener("input", () => {
    if (!unsaved && text.value === loaded.text && version.value === loaded.version) {
      storage.removeItem(name);
    } else {
      store();
    }
  });
})();
