"""What every browser scenario needs: a repository made with the built nb, `nb serve` on 127.0.0.1, and headless
Chromium driven through Selenium with Debian's chromedriver.

Nothing here reaches beyond 127.0.0.1: Chromium's host resolver maps every other name to nothing, and Selenium is
given the driver's path, so its manager never looks one up.
"""

import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = os.environ.get("NB_CHROMIUM", "/usr/lib/chromium/chromium")
CHROMEDRIVER = os.environ.get("NB_CHROMEDRIVER", "/usr/bin/chromedriver")


class Failure(AssertionError):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def equal(actual, expected, message=""):
    if actual != expected:
        raise Failure(f"{message}: expected {expected!r}, got {actual!r}" if message else f"{expected!r} != {actual!r}")


class Repository:
    """A repository in a temporary directory, with a home of its own so no user setting leaks in."""

    def __init__(self, binary):
        self.binary = binary
        self.work = tempfile.mkdtemp(prefix="nb-browser-")
        self.home = os.path.join(self.work, "home")
        self.root = os.path.join(self.work, "notes")
        os.makedirs(self.home)
        with open(os.path.join(self.home, ".gitconfig"), "w") as config:
            config.write("[user]\n\tname = Browser Test\n\temail = browser@example.invalid\n")
        self.env = {
            "HOME": self.home,
            "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "NO_COLOR": "1",
            "LC_ALL": "C.UTF-8",
            "TERM": "dumb",
            "GIT_CONFIG_NOSYSTEM": "1",
            "NB_DEVICE": "browser-test",
            "NB_DIR": self.root,
        }
        self.nb("init", self.root)

    def nb(self, *args, stdin=None, expect=0):
        result = subprocess.run(
            [self.binary, *args], env=self.env, cwd=self.home, input=stdin, capture_output=True, text=True,
            timeout=120)
        if expect is not None and result.returncode != expect:
            raise Failure(f"nb {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
        return result.stdout

    def git(self, *args):
        """The real git CLI: the independent oracle of what nb committed."""
        result = subprocess.run(
            ["git", "-C", self.root, *args], env=self.env, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise Failure(f"git {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
        return result.stdout

    def commits(self):
        return int(self.git("rev-list", "--count", "HEAD").strip())

    def read(self, path):
        with open(os.path.join(self.root, path), encoding="utf-8") as file:
            return file.read()

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as file:
            file.write(text)

    def serve(self, *extra):
        return Server(self, list(extra))

    def remove(self):
        shutil.rmtree(self.work, ignore_errors=True)


class Server:
    """`nb serve --port 0 --json`, stopped with SIGTERM."""

    def __init__(self, repository, extra):
        self.process = subprocess.Popen(
            [repository.binary, "serve", "--port", "0", "--json", *extra], env=repository.env, cwd=repository.home,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ready, _, _ = select.select([self.process.stdout], [], [], 60)
        line = self.process.stdout.readline().decode() if ready else ""
        if not line:
            self.process.kill()
            raise Failure(f"nb serve printed no line: {self.process.stderr.read().decode()}")
        answer = json.loads(line)
        self.url, self.port, self.token = answer["url"], answer["port"], answer["token"]
        self.base = f"http://127.0.0.1:{self.port}"

    def request(self, path, method="GET", body=None, headers=None, cookie=True):
        """A request made outside the browser, to see exactly what the server answers."""
        headers = dict(headers or {})
        if cookie:
            headers.setdefault("Cookie", f"nb_token_{self.port}={self.token}")
        request = urllib.request.Request(self.base + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.read().decode(errors="replace")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def browser(width=1100, height=900, mobile=False):
    """Headless Chromium, started from its own binary (not Debian's /usr/bin wrapper, which adds flags of its own)."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in [
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        # Every name but 127.0.0.1 resolves to nothing: Chromium looks up Google's hosts at start otherwise.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-features=Translate,MediaRouter,OptimizationHints",
        f"--window-size={width},{height}", "--force-device-scale-factor=1", "--hide-scrollbars",
    ]:
        options.add_argument(flag)
    if mobile:
        options.add_experimental_option("mobileEmulation", {
            "deviceMetrics": {"width": width, "height": height, "pixelRatio": 2.0, "touch": True}})
    service = Service(executable_path=CHROMEDRIVER)
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(30)
    return driver


def wait(driver, condition, seconds=10, message="condition"):
    try:
        # Live pages swap their content in: an element found a moment ago may be gone (stale) on the next look.
        return WebDriverWait(
            driver, seconds, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException,)
        ).until(lambda d: condition(d))
    except Exception as error:
        try:
            shown = driver.find_element(By.TAG_NAME, "body").text[:800]
        except Exception:
            shown = "(unreadable)"
        raise Failure(
            f"timed out after {seconds} s waiting for {message}; page: {driver.current_url}\n{shown}") from error


def log_in(driver, server):
    """Opens the printed URL, as a person pasting it would: the token becomes the cookie and leaves the address."""
    driver.get(server.url)
    wait(driver, lambda d: d.current_url == server.base + "/", message="the token to leave the address")


def text(driver, selector):
    """The rendered text of the first element `selector` finds, read in one step (a live page may swap it)."""
    value = driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", selector)
    if value is None:
        raise Failure(f"nothing matches {selector} on {driver.current_url}")
    return value


def screenshot(driver, name):
    """Saved under $NB_SCREENSHOTS when set: the README's pictures are taken by these tests."""
    directory = os.environ.get("NB_SCREENSHOTS")
    if directory:
        os.makedirs(directory, exist_ok=True)
        driver.save_screenshot(os.path.join(directory, name + ".png"))


def until(condition, seconds=10, message="condition"):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise Failure(f"timed out after {seconds} s waiting for {message}")
