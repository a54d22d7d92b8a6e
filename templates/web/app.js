// nb serve's own script. Every page works without it; it adds keyboard shortcuts and live updates (the Draw page's
// canvas is draw.js).
"use strict";
document.addEventListener("keydown", (event) => {
  const target = event.target;
  const typing = target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  if (typing || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key === "/") {
    const search = document.querySelector(".search input");
    if (search) {
      event.preventDefault();
      search.focus();
      search.select();
    }
  }
});

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
