"""The browser scenarios of `nb serve`, one function each; run.py runs one by name. Each checks what a person sees
in a real browser and, with the git CLI and the files as the oracle, what the repository holds afterwards."""

import http.server
import json
import os
import re
import subprocess
import threading
import urllib.parse

from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from harness import Failure, check, equal, log_in, screenshot, text, until, wait


def _at(driver, path):
    """Whether the page shown is `path`, whatever its query (a save's redirect says ?saved=…)."""
    return urllib.parse.urlsplit(driver.current_url).path == path


def _element_text_contains(selector, needle):
    def condition(driver):
        texts = driver.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0]), e => e.innerText);", selector)
        return any(needle in value for value in texts)
    return condition


def browse(repo, server, driver):
    """The notebook tree, a notebook and a note, by clicking as a person would."""
    repo.nb("add", "Roadmap", "--notebook", "work/projects", "--tags", "planning,q3", "--content",
            "The quarterly plan. See [[Goals]].\n\n| step | owner |\n|---|---|\n| draft | me |\n\n"
            "- [ ] write it\n- [x] outline it\n\n~~old plan~~ and https://example.invalid/x")
    repo.nb("add", "Goals", "--notebook", "work", "--content", "Ship it. Back to [[Roadmap]].")
    repo.nb("add", "Groceries", "--notebook", "home", "--content", "Milk")
    log_in(driver, server)
    tree = text(driver, "main")
    for name in ["work", "projects", "home", "Roadmap", "Goals", "Groceries"]:
        check(name in tree, f"home page lacks {name}: {tree}")
    screenshot(driver, "home")
    driver.find_element(By.LINK_TEXT, "work").click()
    wait(driver, lambda d: _at(d, "/notebook/work"), message="the work notebook")
    listed = text(driver, "main")
    check("Goals" in listed and "Groceries" not in listed, f"notebook page: {listed}")
    driver.get(server.base + "/notebook/work/projects")
    driver.find_element(By.LINK_TEXT, "Roadmap").click()
    wait(driver, lambda d: _at(d, "/note/work/projects/roadmap.md"), message="the note page")
    equal(text(driver, "h1.note-title"), "Roadmap", "note title")
    body = driver.find_element(By.CSS_SELECTOR, ".body")
    check(body.find_elements(By.CSS_SELECTOR, "table td"), "the table is rendered as a table")
    check(len(body.find_elements(By.CSS_SELECTOR, "input[type=checkbox]")) == 2, "the task list has checkboxes")
    check(body.find_elements(By.CSS_SELECTOR, "del"), "strikethrough is rendered")
    check(body.find_elements(By.CSS_SELECTOR, "a[href='https://example.invalid/x']"), "a bare URL is a link")
    chips = text(driver, ".chips")
    check("#planning" in chips and "#q3" in chips, f"tags as chips: {chips}")
    screenshot(driver, "note")
    # The wiki link goes to the linked note, whose backlinks name this one.
    body.find_element(By.LINK_TEXT, "Goals").click()
    wait(driver, lambda d: _at(d, "/note/work/goals.md"), message="the linked note")
    check("Roadmap" in text(driver, ".backlinks"), "Goals' backlinks list Roadmap")


def edit_and_save(repo, server, driver):
    """The edit form saves exactly as `nb edit` does: one commit, `updated` stamped."""
    path = repo.nb("add", "Plan", "--content", "first line").split()[0]
    before = repo.commits()
    log_in(driver, server)
    driver.get(server.base + "/note/" + path)
    driver.find_element(By.LINK_TEXT, "Edit").click()
    area = wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "textarea#text"), message="the edit form")
    area.send_keys(Keys.CONTROL, Keys.END)
    area.send_keys("added in the browser\n")
    screenshot(driver, "edit")
    driver.find_element(By.CSS_SELECTOR, "form.edit button[type=submit]").click()
    wait(driver, lambda d: _at(d, "/note/" + path), message="the note after saving")
    check("added in the browser" in text(driver, ".body"), "the saved text shows")
    equal(repo.commits(), before + 1, "one commit for the save")
    file = repo.read(path)
    check(file.endswith("first line\nadded in the browser\n"),
          f"the file holds the typed text: {file!r}")
    equal(repo.git("status", "--porcelain"), "", "nothing left uncommitted")
    check("updated:" in file, "updated is stamped")
    diff = repo.git("show", "--format=", "HEAD", "--", path)
    check("+added in the browser" in diff, f"git shows the line added: {diff}")


def _vim(repo, path, commands):
    """A real editor saving the file: vim in ex mode, as a person's :s and :wq would."""
    subprocess.run(["vim", "-es", "-u", "NONE", "-i", "NONE", "-c", commands, "-c", "wq", os.path.join(repo.root, path)],
                   env=repo.env, check=True, timeout=60, stdin=subprocess.DEVNULL)


def edit_while_vim_changes(repo, server, driver):
    """vim saves the same line while the form is open: the page says so, the save is refused with both versions
    shown, and neither the typed text nor vim's is lost."""
    path = repo.nb("add", "Shared", "--content", "the line").split()[0]
    log_in(driver, server)
    driver.get(server.base + "/edit/" + path)
    area = driver.find_element(By.CSS_SELECTOR, "textarea#text")
    area.send_keys(Keys.CONTROL, Keys.END)
    area.send_keys(" typed in the browser")
    _vim(repo, path, "%s/the line/the line from vim/")
    repo.nb("save")
    # The open form is told, not overwritten.
    wait(driver, lambda d: d.find_element(By.ID, "changed-on-disk").is_displayed(), message="the changed notice")
    check("typed in the browser" in driver.find_element(By.CSS_SELECTOR, "textarea#text").get_attribute("value"),
          "the typed text stays in the form")
    commits = repo.commits()
    driver.find_element(By.CSS_SELECTOR, "form.edit button[type=submit]").click()
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "section.current"), message="both versions")
    check("the line from vim" in text(driver, "section.current"), "the file as vim left it is shown")
    check("typed in the browser" in driver.find_element(By.CSS_SELECTOR, "textarea#text").get_attribute("value"),
          "the typed text is still in the form")
    equal(repo.commits(), commits, "nothing committed")
    check("the line from vim" in repo.read(path), "vim's line is in the file")


def edit_merged_with_vim(repo, server, driver):
    """vim saves another part of the note while the form is open: the save merges both, as a sync would, in one
    commit; nothing typed in either place is lost."""
    path = repo.nb("add", "Merged", "--content", "first line\nmiddle line\nlast line").split()[0]
    log_in(driver, server)
    driver.get(server.base + "/edit/" + path)
    area = driver.find_element(By.CSS_SELECTOR, "textarea#text")
    area.send_keys(Keys.CONTROL, Keys.END)
    area.send_keys("typed in the browser\n")
    _vim(repo, path, "%s/first line/first line, changed in vim/")
    repo.nb("save")
    wait(driver, lambda d: d.find_element(By.ID, "changed-on-disk").is_displayed(), message="the changed notice")
    commits = repo.commits()
    driver.find_element(By.CSS_SELECTOR, "form.edit button[type=submit]").click()
    wait(driver, lambda d: _at(d, "/note/" + path), message="the note after the merged save")
    file = repo.read(path)
    check("first line, changed in vim\nmiddle line\nlast line\ntyped in the browser\n" in file,
          f"both edits are in the file: {file!r}")
    equal(repo.commits(), commits + 1, "one commit for the merged save")
    equal(repo.git("status", "--porcelain"), "", "nothing left uncommitted")
    shown = text(driver, ".body")
    check("changed in vim" in shown and "typed in the browser" in shown, f"the page shows both: {shown}")


def live_add(repo, server, driver):
    """A note added in a terminal appears on an open page without a reload."""
    repo.nb("add", "Existing", "--content", "x")
    log_in(driver, server)
    driver.execute_script("window.__sameDocument = 'kept';")
    check("Arrived from a terminal" not in text(driver, "main"), "not there yet")
    repo.nb("add", "Arrived from a terminal", "--content", "y")
    wait(driver, _element_text_contains("main", "Arrived from a terminal"), seconds=5, message="the new note")
    equal(driver.execute_script("return window.__sameDocument;"), "kept", "the page was not reloaded")


def tick_task(repo, server, driver):
    """Ticking a task on the tasks page is `nb task done`: one commit, the note's status done."""
    repo.nb("task", "add", "Ship the beta", "--project", "work", "--due", "today")
    repo.nb("task", "add", "Someday", "--project", "home")
    before = repo.commits()
    log_in(driver, server)
    driver.find_element(By.LINK_TEXT, "Tasks").click()
    wait(driver, _element_text_contains("#today", "Ship the beta"), message="the task under Today")
    screenshot(driver, "tasks")
    driver.find_element(By.CSS_SELECTOR, "button[aria-label='Done: Ship the beta']").click()
    wait(driver, lambda d: "Ship the beta" not in d.find_element(By.CSS_SELECTOR, "main").text,
         message="the task to leave the list")
    equal(repo.commits(), before + 1, "one commit for the tick")
    listed = repo.nb("task", "list", "--done", "--json")
    check("Ship the beta" in listed, f"nb task list --done has it: {listed}")
    changed = repo.git("show", "--name-only", "--format=", "HEAD").split()
    equal(len(changed), 1, "the tick changed one file")
    check(re.search(r"^status: done$", repo.read(changed[0]), re.M), "status: done in the file")


def file_inbox(repo, server, driver):
    """Capture from the box on every page, then file the item from the inbox page."""
    repo.nb("notebook", "create", "reading")
    log_in(driver, server)
    box = driver.find_element(By.CSS_SELECTOR, "form.capture input[name=text]")
    box.send_keys("Read the SQLite file format paper")
    box.send_keys(Keys.ENTER)
    wait(driver, lambda d: "/inbox" in d.current_url, message="the inbox after capturing")
    wait(driver, _element_text_contains("ul.inbox", "Read the SQLite file format paper"), message="the item")
    screenshot(driver, "inbox")
    captured = [line for line in repo.git("ls-files").split() if line.startswith("inbox/") and line.endswith(".md")]
    equal(len(captured), 1, "one captured file")
    before = repo.commits()
    item = driver.find_element(By.CSS_SELECTOR, "ul.inbox li")
    item.find_element(By.CSS_SELECTOR, "form.correct select option[value='reading']").click()
    item.find_element(By.CSS_SELECTOR, "form.correct button[type=submit]").click()
    wait(driver, _element_text_contains("main", "Nothing waits in the inbox"), message="an empty inbox")
    equal(repo.commits(), before + 1, "one commit for filing")
    files = repo.git("ls-files").split()
    moved = [name for name in files if name.startswith("reading/") and name.endswith(".md")]
    equal(len(moved), 1, f"the item is in reading/: {files}")
    check(re.search(r"^status: filed$", repo.read(moved[0]), re.M), "status: filed")


def search(repo, server, driver):
    repo.nb("add", "Quarterly plan", "--tags", "planning", "--content", "numbers for the quarterly review")
    repo.nb("add", "Other", "--content", "nothing to see")
    log_in(driver, server)
    box = driver.find_element(By.CSS_SELECTOR, "form.search input[name=q]")
    box.send_keys("quarterly")
    box.send_keys(Keys.ENTER)
    wait(driver, lambda d: "/search" in d.current_url, message="the results")
    results = text(driver, "main")
    check("Quarterly plan" in results and "Other" not in results, f"results: {results}")
    marks = [element.text.lower() for element in driver.find_elements(By.CSS_SELECTOR, "main mark")]
    check("quarterly" in marks, f"the match is highlighted: {marks}")
    screenshot(driver, "search")
    # A filter of the query language, and a query it cannot read.
    driver.get(server.base + "/search?q=tag%3Aplanning")
    check("Quarterly plan" in text(driver, "main"), "tag: filter")
    driver.get(server.base + "/search?q=%28unclosed")
    check("(" in text(driver, "main") or "error" in text(driver, "main").lower(), "a bad query is explained")


def history_restore(repo, server, driver):
    """A note's history, a version's diff, and restoring it as a new commit."""
    path = repo.nb("add", "Diary", "--content", "version one").split()[0]
    first = repo.read(path)
    repo.nb("edit", path, "--content", "version two")
    log_in(driver, server)
    driver.get(server.base + "/note/" + path)
    driver.find_element(By.LINK_TEXT, "History").click()
    wait(driver, lambda d: "/history/" in d.current_url, message="the history page")
    oldest = repo.git("log", "--format=%H", "--", path).split()[-1]
    driver.get(server.base + f"/history/{path}?commit={oldest}&against=current")
    page = text(driver, "main")
    check("version one" in page and "version two" in page, f"the diff shows both: {page}")
    screenshot(driver, "history")
    before = repo.commits()
    driver.find_element(By.CSS_SELECTOR, f"form input[name=commit][value='{oldest}']").find_element(
        By.XPATH, "./ancestor::form").find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(driver, lambda d: _at(d, "/note/" + path), message="the note after restoring")
    check("version one" in text(driver, ".body"), "the restored text shows")
    equal(repo.commits(), before + 1, "restoring is one new commit")
    body = lambda text: text.split("---\n", 2)[-1]
    equal(body(repo.read(path)), body(first), "the body is the first version's")


ATTACKS = """<script>window.__pwned = 'script'; localStorage.setItem('pwned', 'script'); alert(1)</script>

<img src="x" onerror="window.__pwned = 'onerror'; localStorage.setItem('pwned', 'onerror'); alert(2)">

[click me](javascript:window.__pwned='javascript-link';alert(3))

[data](data:text/html,<script>alert(4)</script>)

<iframe src="javascript:alert(5)"></iframe>

<svg><script>window.__pwned = 'inline-svg'</script></svg>

![picture](evil.svg)

[[evil.svg]] and [the page](evil.html)
"""

EVIL_SVG = """<svg xmlns="http://www.w3.org/2000/svg" onload="localStorage.setItem('pwned','svg-onload')">
<script>localStorage.setItem('pwned', 'svg-script'); alert(6)</script><rect width="10" height="10"/></svg>
"""

EVIL_HTML = "<script>localStorage.setItem('pwned', 'html-attachment'); alert(7)</script>"


def _no_dialog(driver):
    try:
        alert = driver.switch_to.alert
        message = alert.text
        alert.dismiss()
        raise Failure(f"a dialog opened: {message}")
    except NoAlertPresentException:
        pass


def attacks(repo, server, driver):
    """A note full of attacks, opened, edited and followed in the real browser, runs nothing."""
    # nb add refuses a "/" in a title; another editor writes one all the same.
    title = "</title><script>window.__pwned='title'</script>"
    path = "evil/attack.md"
    repo.write(path, f"---\ntitle: \"{title}\"\ntags: [\"<b>x</b>\"]\n---\n" + ATTACKS)
    repo.write("evil/evil.svg", EVIL_SVG)
    repo.write("evil/evil.html", EVIL_HTML)
    repo.nb("save")
    log_in(driver, server)
    driver.get(server.base + "/note/" + path)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "h1.note-title"), message="the note")
    _no_dialog(driver)
    # The attacks are shown as text, never run.
    check("<script>" in text(driver, ".body"), "raw HTML is shown as text")
    equal(text(driver, "h1.note-title"), title, "the title is text")
    hrefs = [a.get_attribute("href") or "" for a in driver.find_elements(By.CSS_SELECTOR, ".body a")]
    check(not any(href.lower().startswith(("javascript:", "data:")) for href in hrefs), f"no script links: {hrefs}")
    for name in ["click me", "data"]:
        driver.get(server.base + "/note/" + path)
        driver.find_element(By.LINK_TEXT, name).click()
        _no_dialog(driver)
    # The attachments are downloads, never pages of this origin.
    for name in ["evil.svg", "evil.html"]:
        driver.get(server.base + "/file/evil/" + name)
        _no_dialog(driver)
    driver.get(server.base + "/edit/" + path)
    _no_dialog(driver)
    driver.get(server.base + "/search?q=pwned")
    _no_dialog(driver)
    driver.get(server.base + "/")
    _no_dialog(driver)
    equal(driver.execute_script("return window.__pwned === undefined ? null : window.__pwned;"), None, "page global")
    equal(driver.execute_script("return localStorage.getItem('pwned');"), None, "nothing ran on nb's origin")


class _EvilSite(http.server.BaseHTTPRequestHandler):
    """Another web page on this machine (another port is another origin) that tries to write into the notes."""

    target = ""

    def do_GET(self):
        page = f"""<!doctype html><title>evil</title>
<form id="f" method="post" action="{self.target}/capture"><input name="text" value="written by another site">
<input name="csrf" value="guessed"></form>
<script>
fetch("{self.target}/capture", {{method: "POST", credentials: "include", mode: "no-cors",
  headers: {{"Content-Type": "application/x-www-form-urlencoded"}}, body: "text=fetched+by+another+site"}})
  .finally(() => {{ document.title = "fetched"; document.getElementById("f").submit(); }});
</script>"""
        body = page.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def cross_origin(repo, server, driver):
    """Another page on this machine, in the same browser that holds nb's cookie, cannot write a note."""
    before = repo.commits()
    log_in(driver, server)
    _EvilSite.target = server.base
    evil = http.server.HTTPServer(("127.0.0.1", 0), _EvilSite)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        driver.get(f"http://127.0.0.1:{evil.server_address[1]}/")
        # The form posts to nb after the fetch settles; nb answers with its refusal page.
        wait(driver, lambda d: d.current_url.startswith(server.base), message="the form to reach nb")
        check("Forbidden" in text(driver, "body") or "403" in driver.title + text(driver, "body"),
              f"nb refused the post: {text(driver, 'body')}")
    finally:
        evil.shutdown()
    equal(repo.commits(), before, "nothing committed")
    equal([name for name in repo.git("ls-files").split() if name.startswith("inbox/") and name.endswith(".md")], [],
          "nothing captured")


def phone(repo, server, driver):
    """At phone width (and in the dark theme) the pages fit the screen: nothing scrolls sideways."""
    repo.nb("add", "A note with a rather long title to wrap on a small screen", "--notebook", "work/projects",
            "--content", "Some text, and `a long piece of code that should scroll inside its own box not the page`")
    log_in(driver, server)
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme",
                                                                         "value": "dark"}]})
    for path in ["/", "/notebook/work/projects", "/note/work/projects/" + repo.git("ls-files", "work").split()[0]
                 .split("/")[-1], "/tasks", "/inbox", "/search?q=note"]:
        driver.get(server.base + path)
        width = driver.execute_script("return document.documentElement.scrollWidth;")
        inner = driver.execute_script("return window.innerWidth;")
        check(width <= inner, f"{path} is {width} px wide on a {inner} px screen")
    background = driver.execute_script("return getComputedStyle(document.body).backgroundColor;")
    check(background not in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)"), f"the dark theme applies: {background}")
    driver.get(server.base + "/")
    screenshot(driver, "phone-dark")


def _sidecar_strokes(repo, path):
    """The strokes of a note's ink sidecar, with their point channels decoded from deltas (the format article)."""
    strokes = []
    for line in repo.read(path).splitlines()[1:]:
        record = json.loads(line)
        if record.get("k") != "s":
            continue
        for channel in ["x", "y", "f"]:
            values, total = [], 0
            for delta in record.get(channel, []):
                total += delta
                values.append(total)
            record[channel] = values
        strokes.append(record)
    return strokes


def draw(repo, server, driver):
    """A pen stroke with pressure on the canvas: one commit 2 s after the pen rests, the sidecar holds a stroke whose
    points carry that pressure, and the page shows exactly what `nb ink render` renders."""
    path = repo.nb("add", "Sketch", "--content", "a drawing").split()[0]
    before = repo.commits()
    log_in(driver, server)
    driver.get(server.base + "/note/" + path)
    driver.find_element(By.LINK_TEXT, "Draw").click()
    canvas = wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#draw-sheet canvas"), message="the canvas")
    pen = PointerInput(interaction.POINTER_PEN, "pen")
    actions = ActionBuilder(driver, mouse=pen)
    actions.pointer_action.move_to(canvas, -120, -80)
    actions.pointer_action.pointer_down(pressure=0.8, tilt_x=30, tilt_y=10)
    for step in range(1, 13):
        actions.pointer_action.move_to(canvas, -120 + step * 20, -80 + step * 12, pressure=0.8, tilt_x=30, tilt_y=10)
    actions.pointer_action.pointer_up()
    actions.perform()
    # Saved once the pen has rested 2 s: nothing waits, and the page shows the server's new version.
    wait(driver, lambda d: d.find_element(By.ID, "draw-sheet").get_attribute("data-waiting") == "0"
         and d.find_element(By.ID, "draw-sheet").get_attribute("data-version") not in ("", None)
         and repo.commits() == before + 1, seconds=15, message="the stroke to be saved")
    screenshot(driver, "draw")
    equal(repo.commits(), before + 1, "one commit for the burst")
    changed = repo.git("show", "--name-only", "--format=", "HEAD").split()
    sidecars = [name for name in changed if name.endswith(".ink.jsonl")]
    equal(len(sidecars), 1, f"the commit holds the sidecar: {changed}")
    check(path in changed, "and the note, whose updated is stamped")
    strokes = _sidecar_strokes(repo, sidecars[0])
    equal(len(strokes), 1, "one stroke")
    forces = strokes[0]["f"]
    check(len(forces) >= 5, f"the stroke has its points: {strokes[0]}")
    # Pointer Events' pressure 0.8 is the ink model's force 1.6 (pressure × 2), stored × 1000.
    check(all(abs(force - 1600) <= 2 for force in forces), f"every point carries the pen's pressure: {forces}")
    xs = strokes[0]["x"]
    check(max(xs) - min(xs) > 100 * 100, f"the stroke spans the canvas: {xs}")
    # The page's picture is nb ink render's, byte for byte.
    source = wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#draw-sheet img").get_attribute("src"),
                  message="the page's image")
    status, shown = server.request(source.replace(server.base, ""))
    equal(status, 200, "the page's image")
    rendered = repo.nb("ink", "render", path)
    equal(shown, rendered, "the page shows what nb ink render renders")


def sync_button(repo, server, driver):
    """The home page's sync state and its Sync button: exactly nb sync, the remote gets the commits."""
    bare = os.path.join(repo.work, "remote.git")
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", bare], env=repo.env, check=True, timeout=60)
    repo.nb("remote", "add", "origin", bare)
    repo.nb("add", "Travels", "--content", "to sync")
    log_in(driver, server)
    state = text(driver, "#sync")
    check("main" in state, f"the branch is shown: {state}")
    screenshot(driver, "home-sync")
    driver.find_element(By.CSS_SELECTOR, "#sync button[type=submit]").click()
    wait(driver, lambda d: "Travels" in subprocess.run(
        ["git", "--git-dir", bare, "log", "--format=%s", "--name-only", "main"], env=repo.env, capture_output=True,
        text=True).stdout or "travels" in subprocess.run(
        ["git", "--git-dir", bare, "ls-tree", "-r", "--name-only", "main"], env=repo.env, capture_output=True,
        text=True).stdout, seconds=30, message="the remote to hold the note")
    equal(repo.git("rev-parse", "HEAD"),
          subprocess.run(["git", "--git-dir", bare, "rev-parse", "main"], env=repo.env, capture_output=True,
                         text=True).stdout, "the remote's main is this device's HEAD")


def shortcuts(repo, server, driver):
    """`?` lists the keys; `g t` goes to the tasks, `/` to the search box; nothing fires while typing."""
    log_in(driver, server)
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys("?")
    wait(driver, lambda d: d.find_element(By.ID, "shortcuts").is_displayed(), message="the list of keys")
    check("g t" in text(driver, "#shortcuts") or "g</kbd> <kbd>t" in driver.page_source, "the list names g t")
    body.send_keys(Keys.ESCAPE)
    wait(driver, lambda d: not d.find_element(By.ID, "shortcuts").is_displayed(), message="Esc to close it")
    # Typed into the capture box, the same keys are text.
    box = driver.find_element(By.CSS_SELECTOR, "form.capture input[name=text]")
    box.send_keys("gt?")
    equal(box.get_attribute("value"), "gt?", "keys typed in a field stay text")
    check(_at(driver, "/"), "and go nowhere")
    box.send_keys(Keys.ESCAPE)
    driver.execute_script("document.activeElement.blur()")
    driver.find_element(By.TAG_NAME, "body").send_keys("g", "t")
    wait(driver, lambda d: _at(d, "/tasks"), message="g t to open the tasks")
    driver.find_element(By.TAG_NAME, "body").send_keys("/")
    wait(driver, lambda d: d.switch_to.active_element.get_attribute("name") == "q", message="/ to focus the search")


SCENARIOS = {
    "browse": (browse, {}),
    "edit_and_save": (edit_and_save, {}),
    "edit_while_vim_changes": (edit_while_vim_changes, {}),
    "edit_merged_with_vim": (edit_merged_with_vim, {}),
    "live_add": (live_add, {}),
    "tick_task": (tick_task, {}),
    "file_inbox": (file_inbox, {}),
    "search": (search, {}),
    "history_restore": (history_restore, {}),
    "attacks": (attacks, {}),
    "cross_origin": (cross_origin, {}),
    "draw": (draw, {}),
    "sync_button": (sync_button, {}),
    "shortcuts": (shortcuts, {}),
    "phone": (phone, {"width": 390, "height": 844, "mobile": True}),
}
