"""Debian's chromium, headless, driven through selenium (python3-selenium)
and chromedriver (chromium-driver, built from the same Debian source as
chromium, so the two versions always match). Run with /usr/bin/python3,
Debian's python, which has python3-selenium.

A thin layer over WebDriver that the page test and the page bench share:
a Browser holds one chromium and one blank tab; each Page is a fresh tab
with a viewport of 1280 x 900 CSS pixels, and records what the page did:

    requests  every URL the tab asked for (chromedriver's performance log:
              Network.requestWillBeSent), the document itself included;
    console   (level, text) of each console message, uncaught exception,
              CSP violation or network error (the browser log, which
              names no tab: one Page is open at a time), level one of
              severe, warning, info, debug;
    dialogs   the text of each alert, confirm or prompt (performance log:
              Page.javascriptDialogOpening); WebDriver dismisses each one
              (unhandledPromptBehavior "dismiss"), so none blocks the test.

Everything here is plain WebDriver (execute_script, element click, the
actions API for hover and keys, screenshots, window size, the two logs):
no raw DevTools command is sent. A full-page screenshot grows the window to
the page's height, takes the shot and gives the old size back.

Lifetime: chromedriver is started with a parent-death signal and speaks to
chromium on a pipe, so even a SIGKILLed test leaves neither running (only
the temporary profile); quit_on_sigterm() makes a SIGTERM quit both and
remove the profile."""
import ctypes
import json
import os
import shutil
import signal
import sys
import tempfile

from selenium import webdriver
from selenium.common.exceptions import (JavascriptException, TimeoutException,
                                        UnexpectedAlertPresentException)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = [
    "--headless=new",
    # chromedriver talks to chromium on a pipe, not a port: when
    # chromedriver goes, chromium sees the pipe close and exits
    "--remote-debugging-pipe",
    # root has no sandbox, and a container often has no user namespaces
    # for it; the pages opened are our own files
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--mute-audio",
    "--hide-scrollbars",
    # without it a key such as End or an arrow starts a smooth-scroll
    # animation that goes on after the key's reply, so the next hover or
    # click lands on whatever has scrolled under the pointer
    "--disable-smooth-scrolling",
]
KEYS = {"ArrowLeft": Keys.ARROW_LEFT, "ArrowRight": Keys.ARROW_RIGHT,
        "ArrowUp": Keys.ARROW_UP, "ArrowDown": Keys.ARROW_DOWN,
        "Enter": Keys.ENTER, "Escape": Keys.ESCAPE, "Home": Keys.HOME,
        "End": Keys.END, "Tab": Keys.TAB}


def missing(chromium):
    """Why no browser test can run here (None when one can)."""
    for path, pkg in ((chromium, "chromium"),
                      (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            return f"{path} not found (Debian's {pkg}: scripts/deps.sh)"
    return None


def _die_with_parent():
    """In chromedriver before exec: SIGTERM when this process dies, even of
    SIGKILL (prctl PR_SET_PDEATHSIG), and chromium goes with it (the pipe)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)


def quit_on_sigterm():
    """SIGTERM (a timeout, CI cancelling) ends the test through its finally
    blocks, so chromedriver and chromium are quit, not left behind."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))


class Browser:
    def __init__(self, chromium, width=1280, height=900, script=True):
        self.profile = tempfile.mkdtemp(prefix="graveyard-chromium-")
        opts = webdriver.ChromeOptions()
        opts.binary_location = chromium
        for flag in FLAGS + [f"--user-data-dir={self.profile}",
                             f"--window-size={width},{height}"]:
            opts.add_argument(flag)
        if not script:
            # the pages' own scripts off (a reader without JavaScript, or a
            # first paint before the script ran); WebDriver's execute_script
            # still runs, so a test can read the page it drew
            opts.add_experimental_option(
                "prefs",
                {"profile.managed_default_content_settings.javascript": 2})
        opts.set_capability("goog:loggingPrefs",
                            {"browser": "ALL", "performance": "ALL"})
        opts.set_capability("unhandledPromptBehavior", "dismiss")
        try:
            service = Service(CHROMEDRIVER,
                              popen_kw={"preexec_fn": _die_with_parent})
            self.driver = webdriver.Chrome(service=service, options=opts)
        except BaseException:
            shutil.rmtree(self.profile, ignore_errors=True)
            raise
        try:
            self._setup(width, height)
        except BaseException:
            self.close()
            raise

    def _setup(self, width, height):
        d = self.driver
        d.set_page_load_timeout(60)
        d.set_script_timeout(30)
        # --window-size is the outer window: grow it by what the browser's
        # frame takes, so that the viewport is width x height
        inner = d.execute_script("return [innerWidth, innerHeight]")
        d.set_window_size(2 * width - inner[0], 2 * height - inner[1])
        self.size = (width, height)
        self.home = d.current_window_handle

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def version(self):
        c = self.driver.capabilities
        drv = c.get("chrome", {}).get("chromedriverVersion", "?").split()[0]
        return (f"{c.get('browserName')} {c.get('browserVersion')}, "
                f"chromedriver {drv}")

    def new_page(self):
        self.driver.switch_to.new_window("tab")
        return Page(self, self.driver.current_window_handle)

    def close(self):
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    """One tab; goto, eval, wait_for, hover, click, key, screenshot."""

    def __init__(self, browser, handle):
        self.b, self.d, self.handle = browser, browser.driver, handle
        self._requests, self._console, self._dialogs = [], [], []
        self._drain()   # what came before this tab is not its own

    def _drain(self):
        for e in self.d.get_log("performance"):
            msg = json.loads(e["message"])
            if msg.get("webview") != self.handle:
                continue
            m, p = msg["message"]["method"], msg["message"].get("params", {})
            if m == "Network.requestWillBeSent":
                self._requests.append(p.get("request", {}).get("url", ""))
            elif m == "Page.javascriptDialogOpening":
                self._dialogs.append(p.get("message", ""))
        for e in self.d.get_log("browser"):
            self._console.append((e["level"].lower(), e["message"]))

    @property
    def requests(self):
        self._drain()
        return self._requests

    @property
    def console(self):
        self._drain()
        return self._console

    @property
    def dialogs(self):
        self._drain()
        return self._dialogs

    def _do(self, command, *args):
        """A dialog that opens while a command runs fails that command even
        under "dismiss"; the performance log has recorded it, and the same
        command again finds it dismissed."""
        try:
            return command(*args)
        except UnexpectedAlertPresentException:
            return command(*args)

    def goto(self, url):
        """Navigate and wait for the load event."""
        self._do(self.d.get, url)

    def eval(self, expr):
        """The value of a JavaScript expression in the page (JSON values as
        Python's; a throw raises selenium's JavascriptException)."""
        return self._do(self.d.execute_script, f"return ({expr})")

    def wait_for(self, expr, timeout=10):
        """Evaluate expr every 20 ms until it is truthy and return it; a
        throw counts as not yet; TimeoutError after timeout seconds."""
        try:
            return WebDriverWait(self.d, timeout, 0.02, (JavascriptException,)
                                 ).until(lambda _: self.eval(expr))
        except TimeoutException:
            raise TimeoutError(f"timed out after {timeout}s waiting for: "
                               f"{expr}") from None

    def _centred(self, css):
        el = self.d.find_element(By.CSS_SELECTOR, css)
        self.d.execute_script("arguments[0].scrollIntoView({block: 'center',"
                              " inline: 'center', behavior: 'instant'})", el)
        return el

    def hover_selector(self, css):
        el = self._centred(css)
        self._do(ActionChains(self.d).move_to_element(el).perform)

    def click_selector(self, css):
        """WebDriver's element click: at the element's centre, and an error
        if another element would take the click."""
        self._do(self._centred(css).click)

    def key(self, name):
        """Press and release one key in the focused element."""
        self._do(ActionChains(self.d).send_keys(KEYS[name]).perform)

    def screenshot(self, path, full_page=False):
        """A PNG of the viewport, or of the whole page: the window grown to
        the page's height for the shot, then set back."""
        if not full_page:
            return self.d.get_screenshot_as_file(path)
        h = self.b.size[1]
        outer = self.d.get_window_size()
        tall = self.eval("document.documentElement.scrollHeight")
        self.d.set_window_size(outer["width"],
                               outer["height"] - h + max(h, tall))
        try:
            return self.d.get_screenshot_as_file(path)
        finally:
            self.d.set_window_size(outer["width"], outer["height"])

    def close(self):
        self.d.close()
        self.d.switch_to.window(self.b.home)
