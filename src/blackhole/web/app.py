"""The local web app: the page, the JSON API (`blackhole.web.api`), and the server.

Safe by default: it binds 127.0.0.1 unless told otherwise; a request whose Host header
names neither the bound host, a localhost name nor an IP address is refused (400), which
stops DNS rebinding (a page of another site that resolves its name to this server), and
a request from another site's page is refused (403: an Origin other than the page's own,
or a browser's Sec-Fetch-Site saying it is cross-site); every response forbids framing,
type sniffing and any script or style not the page's own (`PAGE_HEADERS`);
bodies over 1 MB are refused (413); every limit is capped (`api.SERVER_TIMEOUT`); the
solving questions run in a pool of at most `workers` processes, and a request beyond it
is answered 503 with Retry-After at once, never queued; a solve whose client goes away
(a closed tab) is killed at once; the atlas, the page, a position's legal moves and
entering a deal card by card answer in the server's own threads, so a long solve never
blocks them.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import multiprocessing
import os
import socket
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from blackhole.base import children
from blackhole.base.errors import InputError, InternalError
from blackhole.base.exits import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_UNKNOWN, EXIT_USAGE
from blackhole.web import api

STATIC = Path(__file__).parent / "static"
LOCAL_NAMES = frozenset({"localhost", "localhost.", "ip6-localhost"})
RETRY_AFTER_SECONDS = 5  # what a 503 asks a client to wait
_GRACE_SECONDS = 5.0  # a worker's answer may come this long after its capped limit
# What a browser's Sec-Fetch-Site may say of a request served: from the page itself, or
# from no page (typed in, a bookmark).
OWN_SITE = frozenset({"same-origin", "none"})
API_PREFIX = "/api/"  # the questions: another site's page may ask none of them
# Sent with every response: the page runs only its own files, no site may frame it, and
# no answer is read as another type than the one it names.
PAGE_HEADERS = (
    (b"content-security-policy", b"default-src 'self'; base-uri 'none'; "
                                 b"form-action 'self'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
)


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def allowed_host(header: str, bound: str) -> bool:
    """Whether a request's Host header names this server: the host it is bound to, a
    localhost name, or an IP address (a literal address is no DNS name to rebind)."""
    name = header.strip().lower()
    if name.startswith("["):  # [::1]:8000
        name = name[1:].partition("]")[0]
    elif name.count(":") == 1:
        name = name.partition(":")[0]
    if not name:
        return False
    if name in LOCAL_NAMES or name == bound.strip("[]").lower():
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def foreign(host: str, origins: list[str], sites: list[str]) -> str | None:
    """Why a request addressed to `host` (its Host header, already allowed) comes from
    another site's page, or None. Its Origin headers must each be exactly the page's own
    origin, `http://` and `host`; its Sec-Fetch-Site headers (a browser's word on where
    it comes from) each in OWN_SITE. A request with neither (curl, a script) is served."""
    own = "http://" + host.strip().lower()
    for origin in origins:
        if origin.strip().lower() != own:
            return f"Origin: this server answers only its own page ({own}): {origin[:80]!r}"
    for site in sites:
        if site.strip().lower() not in OWN_SITE:
            return f"Sec-Fetch-Site: this server answers only its own page ({own}): " \
                   f"{site[:80]!r}"
    return None


def _json(data: dict, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON answer written as the CLI's `--json` writes it (one line)."""
    return Response(json.dumps(data) + "\n", status_code=status, headers=headers,
                    media_type="application/json")


def _error(status: int, message: str, headers: dict[str, str] | None = None,
           code: int = EXIT_USAGE) -> Response:
    """An error's one line, with the exit code the CLI would give (`api.Answer`)."""
    return _json({"error": message, "exit": code}, status, headers)


def _closed() -> Response:
    """The answer to a client that went away: nobody reads it."""
    return _error(499, "the client closed the request", code=EXIT_INTERRUPTED)


class HostCheck:
    """ASGI middleware: refuse a request whose Host names another host (400), or a
    question to the API (API_PREFIX, where work starts) that comes from another site's
    page (403, `foreign`); send PAGE_HEADERS with every response, a refusal's too."""

    def __init__(self, app: Any, bound: str) -> None:
        self.app, self.bound = app, bound

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()),
                                                  *PAGE_HEADERS]}
            await send(message)

        def named(name: bytes) -> list[str]:
            return [value.decode("latin-1") for key, value in scope["headers"]
                    if key == name]

        hosts, response = named(b"host"), None
        if len(hosts) != 1 or not allowed_host(hosts[0], self.bound):
            shown = hosts[0] if hosts else ""
            response = _error(400, f"Host: this server answers only to {self.bound} "
                                   f"and localhost: {shown[:80]!r}")
        elif scope["path"].startswith(API_PREFIX) and (
                why := foreign(hosts[0], named(b"origin"), named(b"sec-fetch-site"))):
            response = _error(403, why)  # the page itself may be linked to from anywhere
        answer = self.app if response is None else response
        await answer(scope, receive, send_with_headers)


class Pool:
    """At most `size` solves at once, each in a process of its own started for it; one
    more is refused (`run` gives None), never queued. A solve whose client goes away
    (its tab closed, its fetch aborted), that overruns its limit, or that the server
    stops is killed with everything it started, and frees its place at once. Each solve
    keeps its temp files in a folder of its own that the pool removes once its process
    has ended, as the process may be killed before it could clean up. A solve's process
    ends with the server, however the server ends (`children.end_with_owner`)."""

    def __init__(self, size: int) -> None:
        self.size, self.running, self.stopping = size, 0, False
        self._processes: set[Any] = set()
        self._context = multiprocessing.get_context("forkserver")
        # each solve's process is forked from one that has the library loaded already
        self._context.set_forkserver_preload(list(_PRELOAD))
        # Each solve's process ends when this end closes: with this process.
        self._lifeline, self._lifeline_end = self._context.Pipe(duplex=False)

    async def run(self, request: api.Request,
                  gone: Callable[[], Awaitable[bool]] | None = None) -> api.Answer | None:
        """The worker's answer, or None when every worker is busy. `gone` says whether
        the client has gone away; then the solve is killed and ClientGone raised.
        A worker that died or overran its limit raises BrokenProcessPool."""
        if self.running >= self.size or self.stopping:
            return None
        scratch = children.make_folder()
        self.running += 1
        reader, writer = self._context.Pipe(duplex=False)
        process = self._context.Process(
            target=_work, args=(request, writer, str(scratch), self._lifeline), daemon=True)
        loop = asyncio.get_running_loop()
        ready = asyncio.Event()
        try:
            process.start()
            self._processes.add(process)
            writer.close()
            loop.add_reader(reader.fileno(), ready.set)
            deadline = loop.time() + request.timeout + _GRACE_SECONDS
            while not ready.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(ready.wait(), _WATCH_SECONDS)
                if ready.is_set():
                    break
                if self.stopping or loop.time() > deadline:
                    raise BrokenProcessPool("the solve was stopped")
                if gone is not None and await gone():
                    raise ClientGone
            loop.remove_reader(reader.fileno())
            try:
                return await asyncio.to_thread(reader.recv)
            except (EOFError, OSError):  # it died (killed, out of memory) unanswered
                raise BrokenProcessPool("the worker stopped without an answer") from None
        finally:
            with contextlib.suppress(ValueError, OSError):
                loop.remove_reader(reader.fileno())
            reader.close()
            _kill(process)
            self._processes.discard(process)
            self.running -= 1
            await asyncio.to_thread(self._reap, process, scratch)

    @staticmethod
    def _reap(process: Any, scratch: Path) -> None:
        """Wait (up to 2 s) for a killed solve's process to end; then remove its folder."""
        process.join(2)
        children.remove_folder(scratch)

    def stop(self) -> None:
        """The server is stopping: stop every solve now, and start none."""
        self.stopping = True
        self.close()

    def close(self) -> None:
        """Stop every running solve at once."""
        for process in list(self._processes):
            _kill(process)


class ClientGone(Exception):
    """The client of a solve went away (its tab closed, its fetch aborted)."""


# What a solve's process has loaded before it starts: the library's answers.
_PRELOAD = ("blackhole.web.api", "blackhole.answers",
            "blackhole.questions.pipeline", "blackhole.questions.best",
            "blackhole.questions.advice", "blackhole.model.positions", "blackhole.backends.auto",
            "blackhole.atlas")
_WATCH_SECONDS = 0.25  # how often a waiting solve asks whether its client is still there


def _work(request: api.Request, answer_to: Any, scratch: str, lifeline: Any) -> None:
    """A solve's process: its own process group (so that killing the group stops what it
    starts too; a solver binary in a session of its own dies with this process,
    `blackhole.base.children`), its temp files in the pool's folder `scratch`, its end tied to
    the server's (`lifeline`), the answer sent back through the pipe."""
    os.setpgrp()
    tempfile.tempdir = scratch
    children.end_with_owner(lifeline.fileno())
    lifeline.close()
    answer_to.send(api.answer(request))
    answer_to.close()


def _kill(process: Any) -> None:
    """Kill a solve's process and its process group (harmless once it has ended)."""
    if process.pid is None or process.exitcode is not None:
        return  # not started, or ended and reaped: its pid may be another's by now
    children.kill_tree(process.pid)  # the process alone until it has made its group


async def _body(request: Request) -> str | None:
    """The request's body as text (None when empty); over the limit it raises _TooLarge,
    and ClientGone when the client goes away before it is all sent."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > api.MAX_BODY_BYTES:
        raise _TooLarge
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > api.MAX_BODY_BYTES:
                raise _TooLarge
            chunks.append(chunk)
    except ClientDisconnect:
        raise ClientGone from None
    if not size:
        return None
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("the body is not UTF-8 text", "body") from None


class _TooLarge(Exception):
    pass


def create_app(host: str = "127.0.0.1", pool: Pool | None = None,
               cap: float = api.SERVER_TIMEOUT) -> Any:
    """The ASGI app for a server bound to `host`, solving in `pool` (default: as many
    processes as cores), with every limit capped at `cap` seconds."""
    pool = pool or Pool(default_workers())

    async def question(request: Request) -> Response:
        name = request.path_params["question"]
        try:
            body = await _body(request) if request.method == "POST" else None
            checked = api.check(name, request.query_params.multi_items(), body, cap)
        except _TooLarge:
            return _error(413, f"body: larger than {api.MAX_BODY_BYTES} bytes")
        except ClientGone:
            return _closed()
        except InputError as error:
            return _error(404 if error.source == "path" else 400, error.describe())
        if checked.question in api.SOLVING:
            try:
                found = await pool.run(checked, request.is_disconnected)
            except ClientGone:
                return _closed()
            except BrokenProcessPool:
                if pool.stopping:
                    return _error(503, "the server is stopping", code=EXIT_INTERRUPTED)
                return _json({"error": "internal error: the worker stopped without an "
                                       "answer", "exit": EXIT_INTERNAL}, 500)
            if found is None and pool.stopping:
                return _error(503, "the server is stopping", code=EXIT_INTERRUPTED)
            if found is None:
                return _error(503, f"busy: all {pool.size} workers are solving; retry "
                                   f"after {RETRY_AFTER_SECONDS} s",
                              {"Retry-After": str(RETRY_AFTER_SECONDS)}, EXIT_UNKNOWN)
        else:
            found = await run_in_threadpool(api.answer, checked)
        headers = {"X-Blackhole-Exit": str(found.exit_code)}
        if found.content is not None:
            headers["Content-Disposition"] = f'attachment; filename="{found.filename}"'
            return Response(found.content, found.status, headers, api.ZIP_TYPE)
        return _json(found.data, found.status, headers)

    async def games(request: Request) -> Response:
        return _json(await run_in_threadpool(api.games))

    async def entry(request: Request) -> Response:  # entering a deal card by card
        name = request.url.path.removeprefix(API_PREFIX)
        found = await run_in_threadpool(api.entry, name, request.query_params.multi_items())
        return _json(found.data, found.status, {"X-Blackhole-Exit": str(found.exit_code)})

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def icon(request: Request) -> Response:  # where a browser looks unasked
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:
            pool.close()

    app = Starlette(routes=[
        Route("/", page),
        Route("/favicon.ico", icon),
        Route(f"{API_PREFIX}games", games),
        *(Route(API_PREFIX + name, entry) for name in api.ENTRY_PARAMETERS),
        Route(API_PREFIX + "{question}", question, methods=["GET", "POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ], lifespan=lifespan)
    return HostCheck(app, host)


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: a free one); an address that cannot be
    bound is an InputError naming it."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.socket(family, socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        why = getattr(error, "strerror", None) or error
        raise InputError(f"cannot listen there ({why})", "host", token=host) from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        raise InputError(f"cannot listen there ({error.strerror})", "port",
                         token=f"{host}:{port}") from None
    return sock


def url_of(sock: socket.socket) -> str:
    """The page's address on a listening socket."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def open_to_network(sock: socket.socket) -> bool:
    """Whether a listening socket takes connections from other machines: it is bound to
    an address that is not loopback (0.0.0.0 and :: take them on every interface)."""
    address = sock.getsockname()[0].partition("%")[0]
    return not ipaddress.ip_address(address).is_loopback


def serve(sock: socket.socket, host: str, workers: int | None = None) -> None:
    """Serve the app on a listening socket until a signal stops it. Ctrl-C ends it with
    KeyboardInterrupt once the workers are stopped (uvicorn raises the signal again after
    its shutdown; where it does not, this does)."""
    import uvicorn

    pool = Pool(workers or default_workers())

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            pool.stop()  # a running solve ends now, its request answered 503
            super().handle_exit(sig, frame)

    config = uvicorn.Config(create_app(host, pool), log_level="warning", access_log=False,
                            proxy_headers=False, timeout_graceful_shutdown=2,
                            lifespan="on")
    server = Server(config)
    server.run(sockets=[sock])
    if not server.started:
        raise InternalError("the web server stopped before it started")
    raise KeyboardInterrupt
