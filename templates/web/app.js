// nb serve's own script. Every page works without it; it only adds keyboard shortcuts.
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
