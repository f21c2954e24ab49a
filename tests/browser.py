"""Headless Chromium driven over the Chrome DevTools Protocol, for the web client's
end-to-end tests: no extra dependency (aiohttp's WebSocket client speaks CDP's JSON).

Why not a library: the ``playwright`` package downloads its own browsers (not possible
here and not the Debian ``chromium`` CI has), ``pyppeteer`` is unmaintained, and
Selenium needs ``chromium-driver`` besides. What the tests need from CDP is small:
open a page, evaluate JavaScript, click (real mouse events at an element's centre), type,
add a script that runs before the page's own (and with one, set the tab's clock to a
test's virtual one: ``Page.set_clock``), collect console errors and uncaught exceptions,
and take screenshots.

The browser is the system's (``/usr/bin/chromium``, or ``BELOT_CHROMIUM``); the flags are
those that work as root in a container: --headless --no-sandbox --disable-gpu
--disable-quic --no-first-run --disable-background-networking --disable-component-update
--disable-sync, a fresh --user-data-dir, and --remote-debugging-port=0 (Chromium picks a
port and prints the browser's WebSocket address on stderr).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import re
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any

import aiohttp

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--remote-debugging-port=0",
)


def chromium_path(
    environ: Mapping[str, str] = os.environ,
    default: str = "/usr/bin/chromium",
    which: Callable[[str], str | None] = shutil.which,
) -> Path | None:
    """The browser to drive: ``BELOT_CHROMIUM``, else Debian's ``/usr/bin/chromium``, else
    ``chromium`` on the PATH; None when there is none (the browser tests then skip)."""
    for candidate in (environ.get("BELOT_CHROMIUM"), default, which("chromium")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None


#: Keys that are not a letter: DOM key -> (code, Windows virtual key, text typed).
KEYS: dict[str, tuple[str, int, str]] = {
    "Enter": ("Enter", 13, "\r"),
    " ": ("Space", 32, " "),
    "ArrowLeft": ("ArrowLeft", 37, ""),
    "ArrowUp": ("ArrowUp", 38, ""),
    "ArrowRight": ("ArrowRight", 39, ""),
    "ArrowDown": ("ArrowDown", 40, ""),
    "Tab": ("Tab", 9, ""),
    "?": ("Slash", 191, "?"),
}


class CdpError(Exception):
    """A CDP command answered with an error, or the page threw."""


class Browser:
    def __init__(self, proc: asyncio.subprocess.Process, ws: Any, http: Any, profile: Path):
        self.proc = proc
        self.ws = ws
        self.http = http
        self.profile = profile
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._listeners: dict[str, list[Any]] = {}
        self._reader = asyncio.create_task(self._read())

    async def send(self, method: str, params: dict[str, Any] | None = None,
                   session: str | None = None) -> Any:  # fmt: skip
        msg_id = next(self._ids)
        message: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        await self.ws.send_str(json.dumps(message))
        return await asyncio.wait_for(future, 60)

    async def _read(self) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                continue
            data = json.loads(msg.data)
            if "id" in data:
                future = self._pending.pop(data["id"], None)
                if future is not None and not future.done():
                    if "error" in data:
                        future.set_exception(CdpError(f"{data['error']}"))
                    else:
                        future.set_result(data.get("result", {}))
            else:
                for listener in self._listeners.get(data.get("sessionId", ""), []):
                    listener(data["method"], data.get("params", {}))
        for future in self._pending.values():
            if not future.done():
                future.set_exception(CdpError("the browser closed the connection"))

    async def new_context(self) -> str:
        """A separate browser context: its own cookies and storage (another person)."""
        reply = await self.send("Target.createBrowserContext", {"disposeOnDetach": True})
        context: str = reply["browserContextId"]
        return context

    async def new_page(
        self, width: int = 1400, height: int = 1000, context: str | None = None
    ) -> Page:
        params: dict[str, Any] = {"url": "about:blank"}
        if context is not None:
            params["browserContextId"] = context
        target = await self.send("Target.createTarget", params)
        attached = await self.send(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}
        )
        page = Page(self, attached["sessionId"], target["targetId"])
        self._listeners.setdefault(page.session, []).append(page._on_event)
        for domain in ("Page", "Runtime"):
            await page.send(f"{domain}.enable")
        await page.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        return page

    async def close(self) -> None:
        """Ask the browser to close, then make sure: every step has a time limit."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.send("Browser.close"), 5)
        # Stop reading before closing the socket: aiohttp's close() waits for a reader
        # busy in another task to hand over, which it may never do once the browser has
        # closed its end.
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), 5)
        await self.http.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.proc.wait(), 10)
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    def __init__(self, browser: Browser, session: str, target: str) -> None:
        self.browser = browser
        self.session = session
        self.target = target
        self.errors: list[str] = []  # console errors and uncaught exceptions
        self.console: list[str] = []
        self._clock_script: str | None = None

    def send(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return self.browser.send(method, params, self.session)

    def _on_event(self, method: str, params: dict[str, Any]) -> None:
        if method == "Runtime.exceptionThrown":
            d = params["exceptionDetails"]
            self.errors.append(d.get("exception", {}).get("description") or d.get("text", ""))
        elif method == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            self.console.append(f"{params['type']}: {text}")
            if params["type"] == "error":
                self.errors.append(text)

    async def close(self) -> None:
        await self.browser.send("Target.closeTarget", {"targetId": self.target})

    async def add_init_script(self, source: str) -> str:
        """Run ``source`` in every document before the page's own scripts; returns the
        script's identifier."""
        reply = await self.send("Page.addScriptToEvaluateOnNewDocument", {"source": source})
        identifier: str = reply["identifier"]
        return identifier

    async def set_clock(self, virtual_ms: float, real_ms: float, speed: float) -> None:
        """Set the tab's clock (web/js/clock.js) to a test's virtual one: at wall-clock
        ``real_ms`` it read ``virtual_ms`` and it runs ``speed`` times as fast. It holds
        from now on in this document and in every later one (before the page's own
        scripts run); a later call replaces it."""
        clock = json.dumps({"virtual_ms": virtual_ms, "real_ms": real_ms, "speed": speed})
        source = f"globalThis.__BELOT_TEST_CLOCK__ = {clock};"
        if self._clock_script is not None:
            await self.send(
                "Page.removeScriptToEvaluateOnNewDocument", {"identifier": self._clock_script}
            )
        self._clock_script = await self.add_init_script(source)
        await self.evaluate(source)

    async def goto(self, url: str) -> None:
        await self.send("Page.navigate", {"url": url})
        await self.wait_for("document.readyState === 'complete'")

    async def reload(self) -> None:
        await self.send("Page.reload", {"ignoreCache": False})
        await asyncio.sleep(0.1)
        await self.wait_for("document.readyState === 'complete'")

    async def evaluate(self, expression: str) -> Any:
        reply = await self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in reply:
            d = reply["exceptionDetails"]
            raise CdpError(d.get("exception", {}).get("description") or d.get("text"))
        return reply["result"].get("value")

    async def wait_for(self, expression: str, timeout: float = 20.0, poll: float = 0.05) -> Any:
        """The expression's value once truthy; raises TimeoutError saying which."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        # An element found counts as true (returned by value, a node would be {}).
        wrapped = f"((v) => (v instanceof Node ? true : v))({expression})"
        while True:
            with contextlib.suppress(CdpError):
                value = await self.evaluate(wrapped)
                if value:
                    return value
            if loop.time() > deadline:
                raise TimeoutError(f"waited {timeout} s for: {expression}")
            await asyncio.sleep(poll)

    async def click(self, selector: str, timeout: float = 10.0) -> None:
        """A real mouse click at the centre of the first element ``selector`` finds, once
        that centre is where the previous poll found it and the element is what the point
        hits (a click computed before the page moved its links, or under a panel that
        opened, lands on something else: a player would have aimed again)."""
        sel = json.dumps(selector)
        # The page keeps the last aim: a point is returned only when it is the same twice.
        point = await self.wait_for(
            f"""(() => {{
              const el = document.querySelector({sel});
              const last = window.__belotAim;
              window.__belotAim = null;
              if (!el) return null;
              el.scrollIntoView({{block: 'center', inline: 'center'}});
              const r = el.getBoundingClientRect();
              if (!r.width || !r.height) return null;
              const x = r.x + r.width / 2, y = r.y + r.height / 2;
              const hit = document.elementFromPoint(x, y);
              if (!hit || !el.contains(hit)) return null;
              const aim = {sel} + ' ' + x + ' ' + y;
              if (last === aim) return [x, y];  // (and the aim is forgotten: null above)
              window.__belotAim = aim;
              return null;
            }})()""",
            timeout,
        )
        x, y = point
        await self.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
        for kind in ("mousePressed", "mouseReleased"):
            await self.send(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
            )

    async def set_viewport(
        self, width: int, height: int, mobile: bool = False, scale: float = 1
    ) -> None:
        """Show the page as a screen of that size (``mobile``: a phone's, whose scroll
        bars take no room and whose page's meta viewport applies; ``scale``: device pixels
        a CSS pixel, 2 on most phones)."""
        await self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile},
        )

    async def press(self, key: str, code: str | None = None) -> None:
        """Press and release one key as a keyboard would: ``key`` is a DOM key name
        ("Enter", " ", "ArrowLeft", "c"); ``code``, the key's place when the layout is
        not a US one (a Russian layout types "с" at ``KeyC``)."""
        code, vk, text = KEYS.get(key) or (
            (code, ord(code[-1]), key) if code else (f"Key{key.upper()}", ord(key.upper()), key)
        )
        down: dict[str, Any] = {"type": "keyDown", "key": key, "code": code}
        down |= {"windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk}
        if text:
            down["text"] = text
        await self.send("Input.dispatchKeyEvent", down)
        up = {k: v for k, v in down.items() if k != "text"} | {"type": "keyUp"}
        await self.send("Input.dispatchKeyEvent", up)

    async def type(self, selector: str, text: str) -> None:
        """Focus the field, clear it and type ``text`` into it."""
        await self.click(selector)
        await self.evaluate(f"document.querySelector({json.dumps(selector)}).value = ''")
        await self.send("Input.insertText", {"text": text})

    async def select(self, selector: str, value: str) -> None:
        """Choose ``value`` in a <select>, as a person's choice would (change event)."""
        await self.evaluate(
            f"""(() => {{
              const el = document.querySelector({json.dumps(selector)});
              el.value = {json.dumps(value)};
              el.dispatchEvent(new Event('change', {{bubbles: true}}));
            }})()"""
        )

    async def screenshot(self, path: Path, full_page: bool = True) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            metrics = await self.send("Page.getLayoutMetrics")
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            params["clip"] = {
                "x": 0,
                "y": 0,
                "width": size["width"],
                "height": size["height"],
                "scale": 1,
            }
        shot = await self.send("Page.captureScreenshot", params)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path


#: How much nicer than the tests a foreground browser runs (``chromium(foreground=True)``).
FOREGROUND_NICE = -10


def _in_front(pid: int) -> None:
    """Give the browser's processes (a session of their own, so one scheduling group:
    Linux's autogroup, which shares the CPU between sessions before it looks at a
    process's nice value) a higher weight than the tests', as a desktop gives the window
    in front; unchanged where the system refuses (no right to raise a priority, or no
    autogroup)."""
    with contextlib.suppress(OSError):
        Path(f"/proc/{pid}/autogroup").write_text(str(FOREGROUND_NICE), encoding="utf-8")


@contextlib.asynccontextmanager
async def chromium(executable: Path, *, foreground: bool = False) -> AsyncIterator[Browser]:
    """Start the browser with a fresh profile; closes it (and its processes) on exit.
    ``foreground``: the browser runs at a higher priority than the tests beside it, as
    the window in front of a player does beside what runs behind it (a test that times
    the page, tests/integration/test_web_motion.py, measures the page, not the other
    tests on this machine's two cores)."""
    profile = Path(tempfile.mkdtemp(prefix="belot-chromium-"))
    proc = await asyncio.create_subprocess_exec(
        str(executable),
        *FLAGS,
        f"--user-data-dir={profile}",
        "about:blank",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=foreground,
    )
    if foreground:
        _in_front(proc.pid)
    assert proc.stderr is not None
    url = None
    seen: list[str] = []
    try:
        async with asyncio.timeout(30):
            while url is None:
                line = (await proc.stderr.readline()).decode(errors="replace")
                if not line:
                    raise RuntimeError(f"chromium exited: {''.join(seen)[-2000:]}")
                seen.append(line)
                m = re.search(r"DevTools listening on (ws://\S+)", line)
                if m:
                    url = m.group(1)
    except BaseException:
        proc.kill()
        await proc.wait()
        shutil.rmtree(profile, ignore_errors=True)
        raise
    # Keep reading stderr so that the browser never blocks on a full pipe.
    drain = asyncio.create_task(_drain(proc.stderr))
    http = aiohttp.ClientSession()
    ws = await http.ws_connect(url, max_msg_size=0)
    browser = Browser(proc, ws, http, profile)
    try:
        yield browser
    finally:
        await browser.close()
        drain.cancel()


async def _drain(stream: asyncio.StreamReader) -> None:
    with contextlib.suppress(Exception):
        while await stream.readline():
            pass
