"""A small Chrome DevTools Protocol client over --remote-debugging-pipe.

Drives a headless chromium (Debian's /usr/bin/chromium, or $CHROMIUM) with
nothing but the Python 3.11 standard library: no pip or npm package.

Why a pipe and not a websocket:

- the standard library has no websocket client, and writing one (HTTP
  upgrade, framing, masking, fragmentation) is more code than this whole
  file;
- there is no port to choose, race for or leak, and no HTTP /json/version
  discovery step: chromium reads commands on its fd 3 and writes replies
  and events on its fd 4, each message one JSON text ended by a NUL byte;
- no other local process can connect to the browser and drive it;
- when this process goes away the pipe closes, so the browser notices.

Lifetime: chromium runs in its own session and process group with a fresh
temporary --user-data-dir. Browser.close(), the end of a `with` block, an
exception, normal interpreter exit (atexit) and SIGTERM/SIGINT/SIGHUP to
this process all kill the whole group (SIGKILL after a short grace) and
remove the profile. (Signal handlers are set by the first Browser made in
the main thread; a signal this process ignores stays ignored.) If this
process is SIGKILLed, chromium still exits when its pipe closes, but the
temporary profile stays.

Chromium 156 notes: the smooth-scroll animation that keys such as End or
PageDown start runs on after the key's reply, so --disable-smooth-scrolling
is added to the flags to keep clicks and hovers after key presses on target.
Debian's /usr/bin/chromium is a shell script that execs the real binary, so
the pid, the process group and fds 3/4 carry through; it also adds its own
flags (from /etc/chromium.d) ahead of ours.

    from cdp import Browser
    with Browser() as b:
        page = b.new_page(1280, 900)
        page.goto("file:///tmp/x.html")
        page.click_selector("button")
        page.wait_for("document.title == 'clicked'")
        page.key("ArrowRight")
        page.screenshot("/tmp/x.png", full_page=True)
        print(page.requests, page.console, page.errors, page.dialogs)

Public API:
    Browser(path=None, timeout=30)      context manager; .close(); .version()
        .new_page(width=1280, height=900) -> Page
        .send(method, params=None, session_id=None, timeout=None) -> dict
        .pid, .user_data_dir
    Page.goto(url, timeout=30)
    Page.eval(expr, await_promise=False) -> value
    Page.wait_for(expr, timeout=10) -> value
    Page.mouse_move(x, y); Page.click(x, y)
    Page.hover_selector(css); Page.click_selector(css) -> (x, y)
    Page.key(name)
    Page.screenshot(path, full_page=False) -> path
    Page.send(method, params=None, timeout=None) -> dict
    Page.close()
    Page.requests, Page.console, Page.errors, Page.dialogs   (recordings)
    CDPError > BrowserExited, JSError; TimeoutError on every wait.
"""

from __future__ import annotations

import atexit
import base64
import fcntl
import json
import math
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

__all__ = ["Browser", "Page", "CDPError", "BrowserExited", "JSError",
           "MAX_MESSAGE", "FLAGS"]

MAX_MESSAGE = 256 * 1024 * 1024   # one CDP message, either way
DEFAULT_CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless=new",
    "--remote-debugging-pipe",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--metrics-recording-only",
    "--mute-audio",
    "--hide-scrollbars",
    # Not in the usual lists, but needed for repeatable input: without it a
    # key such as End, Home, PageDown or an arrow starts a smooth-scroll
    # animation on the compositor that goes on after the key event's reply
    # (and after a later scrollIntoView), so the next hover or click lands
    # on whatever has scrolled under the pointer.
    "--disable-smooth-scrolling",
]
_GRACE = 2.0        # seconds chromium gets to exit on its own at close()
_POLL = 0.5         # longest condition wait before re-checking the process


class CDPError(Exception):
    """A CDP command failed, or the browser or page can no longer be used."""


class BrowserExited(CDPError):
    """chromium is gone (exited, crashed, killed or closed)."""


class JSError(CDPError):
    """JavaScript evaluated in the page threw; the message is its text."""


# ---------------------------------------------------------------- cleanup
# Every Browser whose chromium may be running, so that exit and signals can
# kill it. Plain set operations are atomic under the GIL; no lock, so that a
# signal handler can never deadlock on one its own thread holds.
_live: set = set()
_atexit_registered = False
_signals_hooked = False
_prev_handlers: dict = {}


def _install_hooks():
    """atexit once; signal handlers once, from the main thread (the only
    one allowed to set them: a Browser made in another thread before any in
    the main thread relies on atexit, and on chromium exiting when its pipe
    closes). Signals that are ignored (nohup, background jobs) stay so."""
    global _atexit_registered, _signals_hooked
    if not _atexit_registered:
        _atexit_registered = True
        atexit.register(_at_exit)
    if _signals_hooked or (threading.current_thread()
                           is not threading.main_thread()):
        return
    _signals_hooked = True
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        try:
            prev = signal.getsignal(sig)
            if prev == signal.SIG_IGN or prev is None:
                continue   # ignored, or set outside Python: leave it be
            _prev_handlers[sig] = prev
            signal.signal(sig, _on_signal)
        except (ValueError, OSError):
            pass


def _at_exit():
    for b in list(_live):
        if b._owner_pid == os.getpid():
            try:
                b.close()
            except Exception:
                b._abandon(0)


def _on_signal(signum, frame):
    for b in list(_live):
        if b._owner_pid == os.getpid():
            b._abandon(0.5)
    prev = _prev_handlers.get(signum)
    if callable(prev):
        prev(signum, frame)   # SIGINT's default raises KeyboardInterrupt
    elif prev == signal.SIG_IGN:
        return
    else:                     # SIG_DFL: die of the signal, as without us
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


def _proc_entries():
    """(pid, state, pgrp, cmdline bytes) of each process we can see."""
    me = os.getpid()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        rest = stat[stat.rfind(b")") + 2:].split()
        if len(rest) < 3:
            continue
        yield int(name), rest[0].decode(), int(rest[2]), cmd


def _stragglers(pgid, marker: bytes):
    """Live (not zombie) processes in group pgid, or of our user with
    marker in their command line."""
    out = []
    uid = os.getuid()
    for pid, state, pgrp, cmd in _proc_entries():
        if state in ("Z", "X"):
            continue
        if pgrp == pgid or (marker in cmd and _owner(pid) == uid):
            out.append(pid)
    return out


def _owner(pid):
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


def _kill_tree(proc, pgid, marker: bytes, grace: float):
    """SIGTERM chromium's group, wait up to grace, SIGKILL whatever is left
    (the group, and any process of ours with our unique --user-data-dir in
    its command line), then wait until none of them is alive."""
    if grace > 0 and proc.poll() is None:
        try:
            os.killpg(pgid, signal.SIGTERM)
        except OSError:
            pass
        end = time.monotonic() + grace
        while time.monotonic() < end and _stragglers(pgid, marker):
            time.sleep(0.02)
    end = time.monotonic() + 5
    while True:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
        left = _stragglers(pgid, marker)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if not left or time.monotonic() > end:
            break
        time.sleep(0.02)
    try:
        proc.wait(timeout=2)   # reap our direct child
    except subprocess.TimeoutExpired:
        pass


# ---------------------------------------------------------------- browser
class Browser:
    """A headless chromium driven over --remote-debugging-pipe.

    path: the chromium binary (default $CHROMIUM, else /usr/bin/chromium).
    timeout: seconds allowed for startup and, by default, for each command.
    """

    def __init__(self, path: str | None = None, timeout: float = 30):
        self.path = path or os.environ.get("CHROMIUM") or DEFAULT_CHROMIUM
        self.timeout = timeout
        self._owner_pid = os.getpid()
        self._cv = threading.Condition()
        self._wlock = threading.Lock()
        self._next_id = 0
        self._responses: dict = {}
        self._ignored: set = set()
        self._pages: dict = {}
        self._dead: str | None = None   # why the browser can't be used
        self._closed = False
        self._abandoned = False
        self._killed = False     # group killed: never signal that pgid again
        self.proc: subprocess.Popen | None = None
        self._pgid = None
        self._reader = None
        self._w = self._r = None
        self._tmpdir = tempfile.mkdtemp(prefix="cdp-chromium-")
        self.user_data_dir = os.path.join(self._tmpdir, "profile")
        self._log_path = os.path.join(self._tmpdir, "chromium.log")
        # every chromium process of ours has this in its command line
        self._marker = f"--user-data-dir={self.user_data_dir}".encode()
        self._version = None
        try:
            os.mkdir(self.user_data_dir)
            self._start()
            self._version = self.send("Browser.getVersion", timeout=timeout)
        except BaseException:
            self._closed = True   # no graceful close for a failed start
            self._teardown()
            raise

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<Browser pid={self.pid} dir={self._tmpdir}>"

    def _start(self):
        _install_hooks()
        to_r, to_w = os.pipe()        # we write, chromium reads on fd 3
        from_r, from_w = os.pipe()    # chromium writes on fd 4, we read
        # Close-on-exec copies of chromium's ends at fds >= 10, so that the
        # dup2 onto 3 and 4 in the child cannot clobber one with the other.
        child_in = fcntl.fcntl(to_r, fcntl.F_DUPFD_CLOEXEC, 10)
        child_out = fcntl.fcntl(from_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_r)
        os.close(from_w)
        self._w, self._r = to_w, from_r

        def child_fds():
            # dup2 clears close-on-exec: exactly fds 3 and 4 survive exec
            # (with stdio; everything Python opened is close-on-exec).
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)
            signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)

        argv = [self.path, *FLAGS, f"--user-data-dir={self.user_data_dir}",
                "about:blank"]
        log = open(self._log_path, "wb")
        # Hold SIGTERM/SIGINT/SIGHUP until self.proc is set, so our handler
        # never runs with chromium started but unknown to it.
        old_mask = signal.pthread_sigmask(
            signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
        try:
            _live.add(self)
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                close_fds=False, preexec_fn=child_fds,
                start_new_session=True)
            self._pgid = self.proc.pid   # setsid: group id == its pid
        except OSError as e:
            _live.discard(self)
            raise CDPError(f"cannot start chromium {self.path!r}: {e}") from e
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
            log.close()
            os.close(child_in)
            os.close(child_out)
        self._reader = threading.Thread(target=self._read_loop,
                                        name="cdp-reader", daemon=True)
        self._reader.start()

    # ------------------------------------------------------------ reading
    def _read_loop(self):
        buf = bytearray()
        scanned = 0      # buf[:scanned] holds no NUL
        why = None
        try:
            while True:
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    break
                buf += chunk
                pos = 0
                while True:
                    end = buf.find(b"\0", max(pos, scanned))
                    if end < 0:
                        break
                    if end - pos > MAX_MESSAGE:
                        raise CDPError(
                            f"chromium sent a message of {end - pos} bytes, "
                            f"over the {MAX_MESSAGE}-byte cap")
                    self._dispatch(json.loads(buf[pos:end]))
                    pos = end + 1
                if pos:
                    del buf[:pos]
                scanned = len(buf)
                if len(buf) > MAX_MESSAGE:
                    raise CDPError(
                        f"chromium is sending a message over the "
                        f"{MAX_MESSAGE}-byte cap (read {len(buf)} bytes "
                        f"without its end)")
        except Exception as e:   # oversize, bad JSON, read error
            why = f"CDP pipe failed: {e}"
            if self.proc:
                try:
                    os.killpg(self._pgid, signal.SIGKILL)
                except OSError:
                    pass
        with self._cv:
            if self._dead is None:
                self._dead = why or "EOF"
            self._cv.notify_all()

    def _dispatch(self, msg):
        if "id" in msg:
            with self._cv:
                if msg["id"] in self._ignored:
                    self._ignored.discard(msg["id"])
                else:
                    self._responses[msg["id"]] = msg
                    self._cv.notify_all()
            return
        method = msg.get("method", "")
        params = msg.get("params") or {}
        if method == "Target.detachedFromTarget":
            page = self._pages.get(params.get("sessionId"))
            if page:
                page._gone = "page was closed or detached"
                with self._cv:
                    self._cv.notify_all()
            return
        page = self._pages.get(msg.get("sessionId"))
        if page is not None:
            page._on_event(method, params)

    def _exit_message(self):
        """Why the browser is unusable, with chromium's exit code."""
        if self._closed:
            return "browser was closed"
        if self._abandoned:
            return ("chromium was killed because this process got a signal "
                    "or is exiting")
        code = None
        if self.proc:
            try:
                code = self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        if code is None:
            text = "chromium closed its CDP pipe but is still running"
        elif code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = str(-code)
            text = f"chromium exited: killed by signal {name} (code {code})"
        else:
            text = f"chromium exited with code {code}"
        if self._dead not in (None, "EOF", "closed"):
            text = f"{self._dead}; {text}"   # what made us give up on it
        try:   # the last lines of its output, less the usual dbus noise
            with open(self._log_path, "rb") as f:
                f.seek(0, 2)
                f.seek(max(0, f.tell() - 16384))
                lines = f.read().decode("utf-8", "replace").splitlines()[1:]
            tail = [x for x in lines if x.strip() and "dbus" not in x][-8:]
            if tail:
                text += "; its output ends with:\n" + "\n".join(tail)
        except OSError:
            pass
        return text

    def _check_alive_locked(self):
        if self._dead is None and self.proc and self.proc.poll() is not None:
            self._dead = "EOF"   # exited, though a helper holds the pipe
        if self._dead is not None:
            raise BrowserExited(self._exit_message())

    # ------------------------------------------------------------ writing
    def _post(self, method, params=None, session_id=None):
        with self._cv:
            if self._dead is not None:
                raise BrowserExited(self._exit_message())
            self._next_id += 1
            msg_id = self._next_id
        msg = {"id": msg_id, "method": method, "params": params or {}}
        if session_id:
            msg["sessionId"] = session_id
        data = json.dumps(msg).encode() + b"\0"
        if len(data) > MAX_MESSAGE:
            raise CDPError(f"{method}: message of {len(data)} bytes is over "
                           f"the {MAX_MESSAGE}-byte cap")
        try:
            with self._wlock:
                view = memoryview(data)
                while view:
                    view = view[os.write(self._w, view):]
        except OSError as e:   # EPIPE: chromium stopped reading
            with self._cv:
                if self._dead is None:
                    self._dead = f"write failed: {e}"
            raise BrowserExited(self._exit_message()) from e
        return msg_id

    def _post_nowait(self, method, params=None, session_id=None):
        """Send a command whose reply nobody will wait for (used from the
        reader thread, which must never wait for a reply itself)."""
        try:
            msg_id = self._post(method, params, session_id)
        except CDPError:
            return
        with self._cv:
            if self._responses.pop(msg_id, None) is None:
                self._ignored.add(msg_id)

    def send(self, method: str, params: dict | None = None,
             session_id: str | None = None, timeout: float | None = None):
        """Send one CDP command and return its result dict.

        Raises CDPError with chromium's message when the command fails,
        BrowserExited when chromium is gone, TimeoutError after timeout
        seconds (default: the Browser's timeout)."""
        timeout = self.timeout if timeout is None else timeout
        msg_id = self._post(method, params, session_id)
        deadline = time.monotonic() + timeout
        with self._cv:
            while msg_id not in self._responses:
                try:
                    self._check_alive_locked()
                except BrowserExited:
                    self._ignored.add(msg_id)
                    raise
                left = deadline - time.monotonic()
                if left <= 0:
                    self._ignored.add(msg_id)
                    raise TimeoutError(
                        f"{method}: no reply from chromium in {timeout}s")
                self._cv.wait(min(left, _POLL))
            resp = self._responses.pop(msg_id)
        if "error" in resp:
            err = resp["error"]
            text = f"{method}: {err.get('message')} (code {err.get('code')})"
            if err.get("data"):
                text += f": {err['data']}"
            raise CDPError(text)
        return resp.get("result") or {}

    # ------------------------------------------------------------ public
    def version(self) -> str:
        """The product string of Browser.getVersion, e.g. 'Chrome/156.0...'."""
        if self._version is None:
            self._version = self.send("Browser.getVersion")
        return self._version.get("product", "")

    def new_page(self, width: int = 1280, height: int = 900) -> "Page":
        """Open a new about:blank tab of width x height CSS pixels, attached
        with a flat session, Page/Runtime/Network/Log enabled."""
        tid = self.send("Target.createTarget",
                        {"url": "about:blank"})["targetId"]
        sid = self.send("Target.attachToTarget",
                        {"targetId": tid, "flatten": True})["sessionId"]
        page = Page(self, tid, sid)
        self._pages[sid] = page
        try:
            for domain in ("Page", "Runtime", "Network", "Log"):
                page.send(f"{domain}.enable")
            page.send("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height,
                       "deviceScaleFactor": 1, "mobile": False})
        except BaseException:
            page.close()
            raise
        return page

    def close(self):
        """Close chromium: Browser.close, a short grace, then SIGKILL of its
        whole process group; remove the profile. Safe to call twice."""
        if self._closed:
            return
        try:
            if self.proc and self.proc.poll() is None and self._dead is None:
                try:
                    self.send("Browser.close", timeout=_GRACE)
                except (CDPError, TimeoutError):
                    pass
                try:
                    self.proc.wait(timeout=_GRACE)
                except subprocess.TimeoutExpired:
                    pass
        finally:
            self._closed = True
            self._teardown()

    def _teardown(self):
        with self._cv:
            if self._dead is None:
                self._dead = "closed"
            self._cv.notify_all()
        self._kill(0)
        _live.discard(self)
        if self._w is not None:
            os.close(self._w)
            self._w = None
        if self._reader is not None:
            self._reader.join(5)
        # Close our read end only once the reader is done with it, so it can
        # never read from a reused descriptor number.
        if self._r is not None and not (self._reader and
                                        self._reader.is_alive()):
            os.close(self._r)
            self._r = None
        shutil.rmtree(self._tmpdir, ignore_errors=True)

    def _kill(self, grace):
        if self.proc and not self._killed:
            _kill_tree(self.proc, self._pgid, self._marker, grace)
            self._killed = True

    def _abandon(self, grace):
        """Emergency kill from a signal handler or atexit: no locks, no
        protocol, just the process group and the profile."""
        self._abandoned = True
        self._kill(grace)
        if self._dead is None:
            self._dead = "killed on signal or exit"
        _live.discard(self)
        shutil.rmtree(self._tmpdir, ignore_errors=True)


# ---------------------------------------------------------------- page
_KEYS = {  # name: (key, code, windowsVirtualKeyCode, text)
    "ArrowLeft": ("ArrowLeft", "ArrowLeft", 37, ""),
    "ArrowUp": ("ArrowUp", "ArrowUp", 38, ""),
    "ArrowRight": ("ArrowRight", "ArrowRight", 39, ""),
    "ArrowDown": ("ArrowDown", "ArrowDown", 40, ""),
    "Enter": ("Enter", "Enter", 13, "\r"),
    "Escape": ("Escape", "Escape", 27, ""),
    "Tab": ("Tab", "Tab", 9, ""),
    "Home": ("Home", "Home", 36, ""),
    "End": ("End", "End", 35, ""),
    "PageUp": ("PageUp", "PageUp", 33, ""),
    "PageDown": ("PageDown", "PageDown", 34, ""),
    "Backspace": ("Backspace", "Backspace", 8, ""),
    "Delete": ("Delete", "Delete", 46, ""),
    "Space": (" ", "Space", 32, " "),
}
# US layout: printable punctuation -> (code, virtual key code, needs shift)
_PUNCT = {
    " ": ("Space", 32, False),
    "-": ("Minus", 189, False), "_": ("Minus", 189, True),
    "=": ("Equal", 187, False), "+": ("Equal", 187, True),
    "[": ("BracketLeft", 219, False), "{": ("BracketLeft", 219, True),
    "]": ("BracketRight", 221, False), "}": ("BracketRight", 221, True),
    "\\": ("Backslash", 220, False), "|": ("Backslash", 220, True),
    ";": ("Semicolon", 186, False), ":": ("Semicolon", 186, True),
    "'": ("Quote", 222, False), '"': ("Quote", 222, True),
    ",": ("Comma", 188, False), "<": ("Comma", 188, True),
    ".": ("Period", 190, False), ">": ("Period", 190, True),
    "/": ("Slash", 191, False), "?": ("Slash", 191, True),
    "`": ("Backquote", 192, False), "~": ("Backquote", 192, True),
}
_SHIFTED_DIGITS = ")!@#$%^&*("   # index = the digit under it


def _key_def(name):
    """(key, code, vk, text, modifiers) for a key name or one character."""
    if name in _KEYS:
        key, code, vk, text = _KEYS[name]
        return key, code, vk, text, 0
    if len(name) != 1 or not name.isprintable():
        raise ValueError(f"unknown key {name!r}: use one of "
                         f"{', '.join(_KEYS)} or a single printable character")
    ch = name
    if "a" <= ch <= "z":
        return ch, f"Key{ch.upper()}", ord(ch.upper()), ch, 0
    if "A" <= ch <= "Z":
        return ch, f"Key{ch}", ord(ch), ch, 8
    if "0" <= ch <= "9":
        return ch, f"Digit{ch}", ord(ch), ch, 0
    if ch in _SHIFTED_DIGITS:
        d = str(_SHIFTED_DIGITS.index(ch))
        return ch, f"Digit{d}", ord(d), ch, 8
    if ch in _PUNCT:
        code, vk, shift = _PUNCT[ch]
        return ch, code, vk, ch, 8 if shift else 0
    return ch, "", 0, ch, 0   # other characters: text only


def _exception_text(details):
    exc = details.get("exception") or {}
    if exc.get("description"):
        return exc["description"]
    text = details.get("text") or "exception"
    if "value" in exc:
        return f"{text} {exc['value']!r}"
    return text


def _remote_value(obj):
    if "value" in obj:
        return obj["value"]
    u = obj.get("unserializableValue")
    if u is None:
        return None
    if u.endswith("n"):
        return int(u[:-1])                   # BigInt
    return {"NaN": math.nan, "Infinity": math.inf,
            "-Infinity": -math.inf, "-0": -0.0}.get(u, u)


def _arg_text(arg):
    if "value" in arg:
        v = arg["value"]
        return v if isinstance(v, str) else json.dumps(v)
    return str(arg.get("unserializableValue") or arg.get("description")
               or arg.get("type", ""))


class Page:
    """One tab, attached with a flat session. Created by Browser.new_page().

    Recordings, appended as events arrive:
      requests: every URL of Network.requestWillBeSent (the document too);
      console:  (level, text) from console.* calls and Log entries;
      errors:   uncaught exception texts, and console/Log entries at 'error';
      dialogs:  messages of alert/confirm/prompt/beforeunload dialogs, each
                dismissed at once (accept=False).
    """

    def __init__(self, browser: Browser, target_id: str, session_id: str):
        self.browser = browser
        self.target_id = target_id
        self.session_id = session_id
        self.requests: list[str] = []
        self.console: list[tuple[str, str]] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self._main_loader = None     # loaderId of the main frame's document
        self._loaded_loader = None   # ... whose load event has fired
        self._gone: str | None = None

    def __repr__(self):
        return f"<Page {self.target_id}>"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------ events
    def _on_event(self, method, p):   # runs in the reader thread
        b = self.browser
        if method == "Network.requestWillBeSent":
            self.requests.append(p.get("request", {}).get("url", ""))
        elif method == "Runtime.consoleAPICalled":
            level = p.get("type", "log")
            text = " ".join(_arg_text(a) for a in p.get("args", []))
            self.console.append((level, text))
            if level in ("error", "assert"):
                self.errors.append(text)
        elif method == "Log.entryAdded":
            e = p.get("entry", {})
            level, text = e.get("level", "info"), e.get("text", "")
            self.console.append((level, text))
            if level == "error":
                self.errors.append(text)
        elif method == "Runtime.exceptionThrown":
            self.errors.append(_exception_text(p.get("exceptionDetails", {})))
        elif method == "Page.javascriptDialogOpening":
            self.dialogs.append(p.get("message", ""))
            b._post_nowait("Page.handleJavaScriptDialog", {"accept": False},
                           self.session_id)
        elif method == "Page.frameNavigated":
            frame = p.get("frame", {})
            if not frame.get("parentId"):
                with b._cv:
                    self._main_loader = frame.get("loaderId")
        elif method == "Page.loadEventFired":
            with b._cv:
                self._loaded_loader = self._main_loader
                b._cv.notify_all()
        elif method == "Inspector.targetCrashed":
            with b._cv:
                self._gone = "page crashed"
                b._cv.notify_all()

    def _wait(self, ready, timeout, what):
        """Block (on the browser's condition, no spinning) until ready()."""
        b = self.browser
        deadline = time.monotonic() + timeout
        with b._cv:
            while not ready():
                b._check_alive_locked()
                if self._gone:
                    raise CDPError(f"{what}: {self._gone}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(
                        f"timed out after {timeout}s waiting for {what}")
                b._cv.wait(min(left, _POLL))

    # ------------------------------------------------------------ commands
    def send(self, method: str, params: dict | None = None,
             timeout: float | None = None) -> dict:
        """Send a CDP command on this page's session."""
        if self._gone:
            raise CDPError(f"{method}: {self._gone}")
        return self.browser.send(method, params, self.session_id, timeout)

    def goto(self, url: str, timeout: float = 30):
        """Navigate and wait for the new document's load event."""
        res = self.send("Page.navigate", {"url": url}, timeout=timeout)
        if res.get("errorText"):
            raise CDPError(f"navigation to {url} failed: {res['errorText']}")
        loader = res.get("loaderId")
        if not loader:
            return   # same-document navigation (#fragment): no load event
        self._wait(lambda: self._loaded_loader == loader, timeout,
                   f"the load event of {url}")

    def eval(self, expr: str, await_promise: bool = False,
             timeout: float | None = None):
        """Evaluate expr in the page and return its value (JSON-able values
        come back as Python values; DOM nodes and functions as None or {}).
        Raises JSError with the exception's text if it throws."""
        res = self.send("Runtime.evaluate",
                        {"expression": expr, "returnByValue": True,
                         "awaitPromise": await_promise, "userGesture": True},
                        timeout=timeout)
        if "exceptionDetails" in res:
            raise JSError(_exception_text(res["exceptionDetails"]))
        return _remote_value(res.get("result") or {})

    def wait_for(self, expr: str, timeout: float = 10):
        """Evaluate expr every ~20 ms until it is truthy; return its value.
        A throw counts as not yet; TimeoutError names expr (and the last
        error, if any)."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            try:
                value = self.eval(expr, timeout=max(0.1, deadline
                                                    - time.monotonic()))
                if value:
                    return value
                last = None
            except BrowserExited:
                raise
            except (CDPError, TimeoutError) as e:
                last = e
            if time.monotonic() >= deadline:
                msg = f"timed out after {timeout}s waiting for: {expr}"
                if last is not None:
                    msg += f" (last error: {last})"
                raise TimeoutError(msg)
            time.sleep(0.02)

    # ------------------------------------------------------------ mouse
    def _mouse(self, kind, x, y, button="none", buttons=0, clicks=0):
        self.send("Input.dispatchMouseEvent",
                  {"type": kind, "x": x, "y": y, "button": button,
                   "buttons": buttons, "clickCount": clicks})

    def mouse_move(self, x: float, y: float):
        """Move the mouse to viewport CSS pixel (x, y)."""
        self._mouse("mouseMoved", x, y)

    def click(self, x: float, y: float):
        """Left click at (x, y): move there, press, release (clickCount 1)."""
        self._mouse("mouseMoved", x, y)
        self._mouse("mousePressed", x, y, "left", 1, 1)
        self._mouse("mouseReleased", x, y, "left", 0, 1)

    def _centre(self, css):
        # Scroll the element to the middle, then re-measure after a frame
        # until it stops moving (a page's own smooth scroll, a late layout).
        js = """(async () => {
          const el = document.querySelector(%s);
          if (!el) return null;
          const frame = () => new Promise(r => {
            requestAnimationFrame(() => r()); setTimeout(r, 50); });
          let last = null;
          for (let i = 0; i < 20; i++) {
            el.scrollIntoView({block: 'center', inline: 'center',
                               behavior: 'instant'});
            const r = el.getBoundingClientRect();
            const now = [r.left + r.width / 2, r.top + r.height / 2,
                         r.width, r.height];
            if (last && now.every((v, j) => v === last[j])) return now;
            last = now;
            await frame();
          }
          return last;
        })()""" % json.dumps(css)
        got = self.eval(js, await_promise=True)
        if got is None:
            raise CDPError(f"no element matches selector {css!r}")
        x, y, w, h = got
        if w <= 0 or h <= 0:
            raise CDPError(f"element {css!r} has no size ({w}x{h})")
        return x, y

    def hover_selector(self, css: str):
        """Scroll the first match of css to the middle of the viewport
        (scrollIntoView, block and inline 'center') and move the mouse to
        its centre; return the (x, y) used. CDPError if nothing matches."""
        x, y = self._centre(css)
        self.mouse_move(x, y)
        return x, y

    def click_selector(self, css: str):
        """Scroll the first match of css to the middle of the viewport and
        click its centre; return the (x, y) used. CDPError if nothing
        matches."""
        x, y = self._centre(css)
        self.click(x, y)
        return x, y

    # ------------------------------------------------------------ keys
    def key(self, name: str):
        """Press and release one key: ArrowLeft/Right/Up/Down, Enter,
        Escape, Tab, Home, End, PageUp, PageDown, Backspace, Delete, Space,
        or a single printable character (upper case and shifted symbols
        carry the Shift modifier)."""
        key, code, vk, text, mods = _key_def(name)
        down = {"type": "keyDown" if text else "rawKeyDown", "key": key,
                "code": code, "windowsVirtualKeyCode": vk,
                "nativeVirtualKeyCode": vk, "modifiers": mods}
        if text:
            down["text"] = down["unmodifiedText"] = text
        self.send("Input.dispatchKeyEvent", down)
        self.send("Input.dispatchKeyEvent",
                  {"type": "keyUp", "key": key, "code": code,
                   "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk,
                   "modifiers": mods})

    # ------------------------------------------------------------ capture
    def screenshot(self, path: str, full_page: bool = False):
        """Write a PNG of the viewport (or the whole page) to path."""
        params = {"format": "png"}
        if full_page:
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            params["captureBeyondViewport"] = True
            params["clip"] = {"x": 0, "y": 0,
                              "width": math.ceil(size["width"]),
                              "height": math.ceil(size["height"]),
                              "scale": 1}
        data = base64.b64decode(self.send("Page.captureScreenshot",
                                          params)["data"])
        with open(path, "wb") as f:
            f.write(data)
        return path

    def close(self):
        """Close this tab (no-op if the browser is already gone)."""
        b = self.browser
        if self._gone is None and b._dead is None:
            try:
                b.send("Target.closeTarget", {"targetId": self.target_id})
            except (CDPError, TimeoutError):
                pass
        self._gone = self._gone or "page was closed"
        b._pages.pop(self.session_id, None)
