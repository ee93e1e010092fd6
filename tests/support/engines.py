"""One small page interface over three engines, so a browser scenario is written once and run in each.

Chromium is driven by Playwright (conftest.py's browser). Debian's Firefox ESR is driven by
puppeteer-core over WebDriver BiDi through ``firefox_bridge.mjs`` (Playwright's
Firefox channel fails on ESR). WebKit is Debian's MiniBrowser under
``WebKitWebDriver`` through Selenium's classic WebDriver, on an Xvfb display
(MiniBrowser has no headless mode). Classic WebDriver has no console events, so a
WebKit page reports ``console`` as ``None`` (DR-002).

Every ``evaluate`` source is a JavaScript function expression taking one JSON
argument; it may return a Promise.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIREFOX = "/usr/bin/firefox-esr"
WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
XVFB = "/usr/bin/Xvfb"
ENGINES = ("chromium", "firefox", "webkit")
VIEWPORT = (1300, 1000)

# Violations reach the console, where each backend collects it with the rest.
REPORT_POLICY_VIOLATIONS = """() => document.addEventListener("securitypolicyviolation", (e) =>
  console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`))"""

SET_VALUE = """([selector, value]) => {
  const element = document.querySelector(selector);
  element.value = value;
  element.dispatchEvent(new Event("input", { bubbles: true }));
  element.dispatchEvent(new Event("change", { bubbles: true }));
}"""

# Everything the site may have stored for this origin: both web storages and every IndexedDB record.
STORAGE_DUMP = """async () => {
  const records = [];
  for (const { name } of await indexedDB.databases()) {
    const db = await new Promise((ok, fail) => { const r = indexedDB.open(name);
      r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
    for (const store of db.objectStoreNames) {
      const rows = await new Promise((ok, fail) => { const r = db.transaction(store).objectStore(store).getAll();
        r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
      records.push({ database: name, store, rows });
    }
    db.close();
  }
  return JSON.stringify({ localStorage: { ...localStorage }, sessionStorage: { ...sessionStorage },
    indexedDB: records });
}"""


class EnginePage:
    """A browser tab or window; subclasses provide the driver calls, this class the shared helpers."""

    def goto(self, url: str) -> None:
        raise NotImplementedError

    def reload(self) -> None:
        raise NotImplementedError

    def wait_for(self, selector: str, timeout: float = 90) -> None:
        """Wait until an element matching ``selector`` exists."""
        raise NotImplementedError

    def click(self, selector: str) -> None:
        raise NotImplementedError

    def click_at(self, x: float, y: float) -> None:
        """A real mouse click at viewport coordinates."""
        raise NotImplementedError

    def evaluate(self, source: str, arg: object = None) -> object:
        raise NotImplementedError

    def new_window(self) -> EnginePage:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    @property
    def console(self) -> list[str] | None:
        """Console messages, page errors and CSP violations so far; None where the engine cannot report them."""
        raise NotImplementedError

    def fill(self, selector: str, value: str) -> None:
        self.evaluate(SET_VALUE, [selector, value])

    select = fill

    def text(self, selector: str) -> str:
        return self.evaluate("(s) => document.querySelector(s).textContent.trim()", selector)

    def attribute(self, selector: str, name: str) -> str | None:
        return self.evaluate("([s, n]) => document.querySelector(s).getAttribute(n)", [selector, name])

    def value(self, selector: str) -> str:
        return self.evaluate("(s) => document.querySelector(s).value", selector)

    def count(self, selector: str) -> int:
        return self.evaluate("(s) => document.querySelectorAll(s).length", selector)

    def storage(self) -> str:
        """This origin's localStorage, sessionStorage and IndexedDB records, as one JSON text."""
        return self.evaluate(STORAGE_DUMP)


# --------------------------------------------------------------------------- Chromium


class ChromiumContext:
    """A Playwright context in conftest's Chromium; its pages share storage and Web Locks, like a window's tabs."""

    def __init__(self, browser) -> None:
        self.context = browser.new_context(viewport=dict(zip(("width", "height"), VIEWPORT, strict=True)))
        self.context.add_init_script(f"({REPORT_POLICY_VIOLATIONS})()")
        self.version = browser.version

    def new_page(self) -> ChromiumPage:
        return ChromiumPage(self, self.context.new_page())

    def quit(self) -> None:
        self.context.close()


class ChromiumPage(EnginePage):
    def __init__(self, engine: ChromiumContext, page) -> None:
        self.engine, self.page = engine, page
        self._console: list[str] = []
        page.on("console", lambda m: self._console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: self._console.append(f"pageerror: {e}"))
        page.on("worker", lambda w: w.on("console", lambda m: self._console.append(f"{m.type}: {m.text}")))

    def goto(self, url: str) -> None:
        self.page.goto(url)

    def reload(self) -> None:
        self.page.reload()

    def wait_for(self, selector: str, timeout: float = 90) -> None:
        self.page.wait_for_selector(selector, state="attached", timeout=timeout * 1000)

    def click(self, selector: str) -> None:
        self.page.click(selector)

    def click_at(self, x: float, y: float) -> None:
        self.page.mouse.click(x, y)

    def evaluate(self, source: str, arg: object = None) -> object:
        return self.page.evaluate(source, arg)

    def new_window(self) -> ChromiumPage:
        return self.engine.new_page()

    def close(self) -> None:
        self.page.close()

    @property
    def console(self) -> list[str]:
        return list(self._console)


# --------------------------------------------------------------------------- Firefox


class FirefoxBridge:
    """The node process that holds Firefox; requests and answers are JSON lines."""

    def __init__(self, profile: Path, log: Path) -> None:
        self._log = log.open("wb")
        self.process = subprocess.Popen(
            ["node", str(REPO / "tests" / "support" / "firefox_bridge.mjs"), FIREFOX, str(profile),
             REPORT_POLICY_VIOLATIONS],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, cwd=REPO)
        self._buffer = b""
        self._next_id = 1
        self.version = self.request("version", None, timeout=120)

    def request(self, op: str, page: int | None, *args: object, timeout: float = 120) -> object:
        request_id, self._next_id = self._next_id, self._next_id + 1
        self.process.stdin.write(json.dumps({"id": request_id, "op": op, "page": page, "args": args}).encode() + b"\n")
        self.process.stdin.flush()
        answer = json.loads(self._read_line(timeout))
        assert answer["id"] == request_id
        if not answer["ok"]:
            raise RuntimeError(f"Firefox {op}: {answer['error']}")
        return answer["value"]

    def _read_line(self, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        fd = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError(f"Firefox gave no answer within {timeout} s")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError(f"the Firefox bridge exited; see {self._log.name}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def new_page(self) -> FirefoxPage:
        return FirefoxPage(self, self.request("newPage", None))

    def quit(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()
        self._log.close()


class FirefoxPage(EnginePage):
    def __init__(self, bridge: FirefoxBridge, page_id: int) -> None:
        self.bridge, self.page_id = bridge, page_id

    def _call(self, op: str, *args: object, timeout: float = 120) -> object:
        return self.bridge.request(op, self.page_id, *args, timeout=timeout)

    def goto(self, url: str) -> None:
        self._call("goto", url)

    def reload(self) -> None:
        self._call("reload")

    def wait_for(self, selector: str, timeout: float = 90) -> None:
        self._call("waitFor", selector, timeout * 1000, timeout=timeout + 30)

    def click(self, selector: str) -> None:
        self._call("click", selector)

    def click_at(self, x: float, y: float) -> None:
        self._call("clickAt", x, y)

    def evaluate(self, source: str, arg: object = None) -> object:
        return self._call("evaluate", source, arg)

    def new_window(self) -> FirefoxPage:
        return self.bridge.new_page()

    def close(self) -> None:
        self._call("close")

    @property
    def console(self) -> list[str]:
        return self._call("console")


# --------------------------------------------------------------------------- WebKit


class Xvfb:
    """A virtual X display on the first free display number (Xvfb picks it and writes it to a pipe)."""

    def __init__(self) -> None:
        read_end, write_end = os.pipe()
        self.process = subprocess.Popen(
            [XVFB, "-displayfd", str(write_end), "-screen", "0", "1600x1200x24", "-nolisten", "tcp"],
            pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            number = pipe.readline().strip()
        if not number:
            self.process.kill()
            raise RuntimeError("Xvfb did not start")
        self.display = f":{number.decode()}"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


ASYNC_WRAPPER = """const done = arguments[arguments.length - 1];
Promise.resolve().then(() => (%s)(arguments[0])).then(
  (value) => done({ ok: true, value: value === undefined ? null : value }),
  (error) => done({ ok: false, error: String(error && error.message || error) }));"""


class WebKitDriver:
    """MiniBrowser through WebKitWebDriver on its own Xvfb display."""

    def __init__(self, log: Path) -> None:
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.service import Service

        self.xvfb = Xvfb()
        options = webdriver.WebKitGTKOptions()
        options.binary_location = MINIBROWSER
        options.add_argument("--automation")
        # An explicit driver path: Selenium Manager never looks for (or downloads) a driver.
        service = Service(executable_path=WEBKIT_DRIVER, log_output=str(log),
                          env={**os.environ, "DISPLAY": self.xvfb.display})
        try:
            with warnings.catch_warnings():
                # Selenium 4.51's own WebKitGTK driver passes an argument its RemoteConnection deprecates.
                warnings.filterwarnings("ignore", "setting remote_server_addr in RemoteConnection", DeprecationWarning)
                self.driver = webdriver.WebKitGTK(options=options, service=service)
        except Exception:
            self.xvfb.stop()
            raise
        self.driver.set_script_timeout(120)
        self.driver.set_window_size(*VIEWPORT)
        self.version = self.driver.capabilities.get("browserVersion", "")
        # The first window stays open and blank: closing a session's last window ends the session.
        self.blank_window = self.driver.current_window_handle

    def new_page(self) -> WebKitPage:
        # A new window, not a tab: WebKit stalls on some calls to a tab in the background.
        self.driver.switch_to.new_window("window")
        self.driver.set_window_size(*VIEWPORT)
        return WebKitPage(self, self.driver.current_window_handle)

    def quit(self) -> None:
        try:
            self.driver.quit()
        finally:
            self.xvfb.stop()


class WebKitPage(EnginePage):
    def __init__(self, engine: WebKitDriver, handle: str) -> None:
        self.engine, self.handle = engine, handle

    @property
    def driver(self):
        if self.engine.driver.current_window_handle != self.handle:
            self.engine.driver.switch_to.window(self.handle)
        return self.engine.driver

    def goto(self, url: str) -> None:
        self.driver.get(url)

    def reload(self) -> None:
        self.driver.refresh()

    def wait_for(self, selector: str, timeout: float = 90) -> None:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.wait import WebDriverWait

        WebDriverWait(self.driver, timeout, poll_frequency=0.1).until(
            lambda driver: driver.find_elements(By.CSS_SELECTOR, selector),
            message=f"no {selector} within {timeout} s")

    def click(self, selector: str) -> None:
        from selenium.webdriver.common.by import By

        # WebKit loses a click on an element at the viewport's bottom edge: centre it first.
        element = self.driver.find_element(By.CSS_SELECTOR, selector)
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        element.click()

    def click_at(self, x: float, y: float) -> None:
        from selenium.webdriver.common.actions.action_builder import ActionBuilder

        actions = ActionBuilder(self.driver)
        actions.pointer_action.move_to_location(round(x), round(y))
        actions.pointer_action.click()
        actions.perform()

    def evaluate(self, source: str, arg: object = None) -> object:
        answer = self.driver.execute_async_script(ASYNC_WRAPPER % source, arg)
        if not answer["ok"]:
            raise RuntimeError(f"WebKit evaluate: {answer['error']}")
        return answer["value"]

    def new_window(self) -> WebKitPage:
        return self.engine.new_page()

    def close(self) -> None:
        self.driver.close()
        self.engine.driver.switch_to.window(self.engine.blank_window)

    @property
    def console(self) -> None:
        return None


Engine = ChromiumContext | FirefoxBridge | WebKitDriver


def launch(name: str, workdir: Path, chromium=None) -> Engine:
    """Start engine ``name``; Chromium is conftest's Playwright browser, the others keep their files in ``workdir``."""
    if name == "chromium":
        return ChromiumContext(chromium)
    if name == "firefox":
        profile = workdir / "firefox-profile"
        profile.mkdir()
        return FirefoxBridge(profile, workdir / "firefox-bridge.log")
    if name == "webkit":
        return WebKitDriver(workdir / "webkit-driver.log")
    raise ValueError(name)
