"""`blackhole serve`: the server runs as a real process on a free port, and its JSON API
answers as the CLI's --json does for the same deal; it refuses files, large bodies,
foreign Host headers and more solves than it has workers; a client that goes away takes
its solve with it; Ctrl-C stops it (exit 130). The page's own questions (a position's
legal moves, the games, a certificate's zip) answer from the same library. The page in a
browser is tests/test_web_browser.py."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from .helpers import blackhole, child_env, children, command, default_sigint, reference

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

HARD = "random:24:ranks=31"  # the look spends well over 10 s on it: a solve that lasts
VOLATILE = ("seconds", "stats")  # measured per run: they differ between any two runs


class Server:
    """`blackhole serve --port 0` in its own process, and requests to it."""

    def __init__(self, *args: str, bound: str = "127.0.0.1") -> None:
        self.process = subprocess.Popen(
            command("serve", "--port", "0", *args), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=child_env(), preexec_fn=default_sigint)
        first = self.process.stdout.readline()
        assert first.startswith(f"serving http://{bound}:"), \
            first + self.process.stderr.read()
        self.url = first.split()[1].rstrip("/")
        self.host = self.url.removeprefix("http://")

    def ask(self, path: str, query: dict[str, str] | list[tuple[str, str]] | None = None,
            body: bytes | None = None,
            headers: dict[str, str] | None = None,
            timeout: float = 60) -> tuple[int, dict[str, str], Any]:
        """(status, headers, the JSON document) of one request."""
        url = self.url + path + ("?" + urllib.parse.urlencode(query) if query else "")
        request = urllib.request.Request(url, data=body, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                status, got, raw = response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            status, got, raw = error.code, dict(error.headers), error.read()
        kind = got.get("content-type", "")
        return status, got, json.loads(raw) if kind.startswith("application/json") else raw

    def interrupt(self) -> subprocess.CompletedProcess:
        self.process.send_signal(signal.SIGINT)
        out, err = self.process.communicate(timeout=20)
        return subprocess.CompletedProcess(self.process.args, self.process.returncode, out,
                                           err)

    def stop(self) -> None:
        """Stop it as Ctrl-C does (so that it stops its workers), else kill it."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()
        self.process.stderr.close()


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server("--workers", "2")
    yield running
    running.stop()


def _steady(data: dict) -> dict:
    return {key: value for key, value in data.items() if key not in VOLATILE}


@pytest.mark.parametrize(("question", "args", "query"), [
    ("solve", ["pysol:2", "--backend", "look"], {"deal": "pysol:2", "backend": "look"}),
    ("solve", ["pysol:25", "--backend", "look"], {"deal": "pysol:25", "backend": "look"}),
    ("solve", ["pysol:2", "--after", "2S 3H"],
     {"deal": "pysol:2", "after": "2S 3H", "timeout": "30"}),
    ("best", ["pysol:25", "--backend", "look"], {"deal": "pysol:25", "backend": "look"}),
    ("hint", ["pysol:2", "--after", "2S"], {"deal": "pysol:2", "after": "2S"}),
    ("analyze", ["pysol:2", "--line", "2S 3S"], {"deal": "pysol:2", "line": "2S 3S"}),
    # Worm Hole's cell: parks and the cell's card as moves, tokens as `after` takes them
    ("hint", ["pysol:148:worm-hole", "--after", "park:AH KC AC 2S"],
     {"deal": "pysol:148:worm-hole", "after": "park:AH KC AC 2S"}),
    ("analyze", ["pysol:105:unstable-worm-hole", "--line", "park:5C KC AH"],
     {"deal": "pysol:105:unstable-worm-hole", "line": "park:5C KC AH"}),
    ("solve", ["pysol:4:worm-hole", "--backend", "look"],
     {"deal": "pysol:4:worm-hole", "backend": "look"}),
    ("atlas", ["pysol:25"], {"deal": "pysol:25"}),
    ("atlas", ["pysol:2:all-in-a-row"], {"deal": "pysol:2:all-in-a-row"}),
])
def test_each_answer_is_the_clis_json(server, question, args, query) -> None:
    cli = blackhole(question, *args, "--json")
    status, headers, data = server.ask(f"/api/{question}", query)
    assert status == 200, data
    assert _steady(data) == _steady(json.loads(cli.stdout))
    assert headers["x-blackhole-exit"] == str(cli.returncode)
    assert set(data) == set(json.loads(cli.stdout))


def test_a_posted_board_or_json_is_answered_as_stdin_is(server) -> None:
    board = blackhole("deal", "pysol:2").stdout
    as_json = blackhole("deal", "pysol:2", "--after", "2S", "--format", "json").stdout
    for text in (board, as_json):
        cli = blackhole("solve", "-", "--backend", "look", "--json", stdin=text)
        status, _, data = server.ask("/api/solve", {"backend": "look"}, text.encode())
        assert status == 200 and data["deal"] == "-"
        assert _steady(data) == _steady(json.loads(cli.stdout))
    status, _, data = server.ask("/api/deal", body=board.encode())
    assert status == 200
    assert data == json.loads(blackhole("deal", "pysol:2", "--format", "json").stdout)


def test_bad_input_is_the_clis_one_line_message(server) -> None:
    for question, spec in (("solve", "pysol:abc"), ("best", "random:1:ranks=999"),
                           ("atlas", "pysol:0")):
        cli = blackhole(question, spec, "--json")
        status, _, data = server.ask(f"/api/{question}", {"deal": spec})
        assert cli.returncode == 2 and status == 400
        assert data == {"error": cli.stderr.strip().removeprefix("error: "), "exit": 2}
    status, _, data = server.ask("/api/solve", {"deal": "pysol:2", "after": "KH QC"})
    assert status == 400 and "move 2 is illegal" in data["error"]
    status, _, data = server.ask("/api/solve", body=b"this is no deal\n")
    assert status == 400 and data["error"].startswith("<stdin>")
    status, _, data = server.ask("/api/solve", {"deal": "pysol:2", "timeout": "-1"})
    assert status == 400 and data["error"].startswith("timeout:")
    status, _, data = server.ask("/api/solve", {"deal": "pysol:2", "solver_cmd": "rm"})
    assert status == 400 and data["error"].startswith("solver_cmd:")
    status, _, data = server.ask("/api/nothing", {"deal": "pysol:2"})
    assert status == 404 and "unknown question" in data["error"]


@pytest.mark.parametrize("query", [
    {"deal": "/etc/passwd"}, {"deal": "tests"}, {"deal": "-"}, {"deal": "@specs.txt"},
    {"deal": "examples/worked-example.board"},
    {"deal": "pysol:2", "after": "@/etc/passwd"},
])
def test_a_spec_naming_a_file_is_refused(server, query) -> None:
    status, _, data = server.ask("/api/solve", query)
    assert status == 400 and "reads no files" in data["error"] and data["exit"] == 2


def test_an_oversized_body_is_413(server) -> None:
    """Refused from its Content-Length, before the body is read; one sent in chunks is
    cut where it passes the limit."""
    for chunked in (False, True):
        connection = http.client.HTTPConnection(server.host, timeout=30)
        connection.putrequest("POST", "/api/solve")
        if chunked:
            connection.putheader("Transfer-Encoding", "chunked")
            connection.endheaders()
            piece = b"x" * 100_000
            for _ in range(11):
                with contextlib.suppress(OSError):  # it may stop reading at the limit
                    connection.send(b"%x\r\n%s\r\n" % (len(piece), piece))
        else:
            connection.putheader("Content-Length", "1000001")
            connection.endheaders()
        response = connection.getresponse()
        data = json.loads(response.read())
        connection.close()
        assert response.status == 413 and "larger than 1000000 bytes" in data["error"]


def test_a_foreign_host_or_origin_is_refused(server) -> None:
    port = server.host.rpartition(":")[2]
    for host in ("evil.example", f"evil.example:{port}", "localhost.evil.example"):
        status, _, data = server.ask("/api/atlas", {"deal": "pysol:2"}, headers={"Host": host})
        assert status == 400 and "Host" in data["error"]
    for host in (f"localhost:{port}", server.host, f"[::1]:{port}"):
        status, _, data = server.ask("/api/atlas", {"deal": "pysol:2"}, headers={"Host": host})
        assert status == 200 and data["won"] is True
    for origin in ("https://evil.example", "null"):  # another site's page
        status, _, data = server.ask("/api/solve", {"deal": "pysol:2"}, b"",
                                     headers={"Origin": origin})
        assert status == 403 and "Origin" in data["error"]
    status, _, data = server.ask("/api/atlas", {"deal": "pysol:2"},
                                 headers={"Origin": server.url})
    assert status == 200 and data["won"] is True


def test_only_the_pages_own_origin_may_ask(server) -> None:
    """An Origin must be the page's own exactly (scheme, host and port), and a browser's
    Sec-Fetch-Site must say same-origin or none, on a GET and on a text/plain POST alike;
    a request with neither header (curl, a script) is served."""
    port = server.host.rpartition(":")[2]
    board = blackhole("deal", "pysol:2").stdout.encode()
    asks = (({"deal": "pysol:2", "backend": "look"}, None, {}),
            ({"backend": "look"}, board, {"Content-Type": "text/plain"}))
    for origin in ("http://203.0.113.5", "http://0.0.0.0", "http://localhost:9999",
                   "http://127.0.0.1:1", "http://[::1]:8080", "http://localhost.",
                   f"http://localhost:{port}", f"https://{server.host}", "null"):
        for query, body, headers in asks:
            status, _, data = server.ask("/api/solve", query, body,
                                         {**headers, "Origin": origin})
            assert status == 403 and data["exit"] == 2, (origin, data)
            assert data["error"] == f"Origin: this server answers only its own page " \
                                    f"({server.url}): {origin!r}"
    for site in ("cross-site", "same-site"):
        for query, body, headers in asks:
            status, _, data = server.ask("/api/solve", query, body,
                                         {**headers, "Sec-Fetch-Site": site})
            assert status == 403 and data["exit"] == 2
            assert data["error"].startswith("Sec-Fetch-Site:") and site in data["error"]
    status, _, data = server.ask("/api/atlas", {"deal": "pysol:2"},
                                 headers={"Sec-Fetch-Site": "cross-site",
                                          "Origin": server.url})
    assert status == 403 and data["error"].startswith("Sec-Fetch-Site:")
    for own in ({"Origin": server.url, "Sec-Fetch-Site": "same-origin"},
                {"Sec-Fetch-Site": "none"}, {}):
        for query, body, headers in asks:
            status, _, data = server.ask("/api/solve", query, body, {**headers, **own})
            assert status == 200 and data["verdict"] == "solved", (own, data)
    status, _, data = server.ask("/api/atlas", {"deal": "pysol:2"},
                                 headers={"Host": f"localhost:{port}",
                                          "Origin": f"http://localhost:{port}"})
    assert status == 200 and data["won"] is True
    # A link from another site opens the page (a navigation starts no work); its
    # questions to the API are then the page's own.
    for path in ("/", "/static/app.js"):
        status, _, raw = server.ask(path, headers={"Sec-Fetch-Site": "cross-site"})
        assert status == 200 and raw, path


def test_every_response_forbids_framing_sniffing_and_others_scripts(server) -> None:
    """The page, its files, the answers and every refusal carry the same headers; the page
    has no script or style of its own inline, which the policy would block."""
    for path, query, headers, expected in (
            ("/", None, {}, 200), ("/static/app.js", None, {}, 200),
            ("/static/entry.js", None, {}, 200),
            ("/favicon.ico", None, {}, 200), ("/api/atlas", {"deal": "pysol:2"}, {}, 200),
            ("/api/atlas", {"deal": "pysol:0"}, {}, 400), ("/api/nothing", None, {}, 404),
            ("/nothing", None, {}, 404), ("/", None, {"Host": "evil.example"}, 400),
            ("/api/atlas", {"deal": "pysol:2"}, {"Origin": "https://evil.example"}, 403)):
        status, got, _ = server.ask(path, query, headers=headers)
        assert status == expected, (path, headers)
        assert got["x-content-type-options"] == "nosniff"
        assert got["x-frame-options"] == "DENY"
        policy = [rule.strip() for rule in got["content-security-policy"].split(";")]
        assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
        assert not [rule for rule in policy if "unsafe" in rule or "*" in rule]
    _, _, page = server.ask("/")
    assert re.findall(rb"<script\b[^>]*>", page) == [b'<script src="/static/app.js">',
                                                     b'<script src="/static/entry.js">']
    assert not re.search(rb"<style|\s(style|on[a-z]+)=", page, re.IGNORECASE)


def test_the_favicon_is_the_packages(server) -> None:
    """The page links its icon, and /favicon.ico (where a browser looks unasked) is it."""
    from blackhole.web.app import STATIC

    status, _, page = server.ask("/")
    assert b'<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in page
    icon = (STATIC / "favicon.svg").read_bytes()
    assert icon.startswith(b"<svg ") and icon.rstrip().endswith(b"</svg>")
    for path in ("/favicon.ico", "/static/favicon.svg"):
        status, headers, raw = server.ask(path)
        assert status == 200 and headers["content-type"] == "image/svg+xml"
        assert raw == icon


def test_a_repeated_parameter_is_refused_by_name(server) -> None:
    from blackhole.base.errors import InputError
    from blackhole.web.api import check

    status, _, data = server.ask("/api/solve", [("deal", "/etc/passwd"), ("deal", "pysol:2")])
    assert status == 400
    assert data == {"error": "deal: given more than once (give each parameter once)",
                    "exit": 2}
    status, _, data = server.ask("/api/solve", [("deal", "pysol:2"), ("backend", "look"),
                                                ("timeout", "5"), ("backend", "look")])
    assert status == 400 and data["error"].startswith("backend: given more than once")
    with pytest.raises(InputError) as refused:
        check("hint", [("timeout", "1"), ("deal", "pysol:2"), ("timeout", "60")], None)
    assert refused.value.source == "timeout"
    assert check("hint", [("deal", "pysol:2"), ("timeout", "1")], None).timeout == 1


def test_a_client_gone_mid_upload_ends_its_request_without_a_traceback() -> None:
    """A body cut off by a closed connection ends the request quietly; the server goes on
    answering. Bound to loopback, the server gives no warning."""
    lone = Server()
    try:
        host, _, port = lone.host.rpartition(":")
        for _ in range(2):
            with socket.create_connection((host, int(port)), timeout=10) as connection:
                connection.sendall(b"POST /api/solve HTTP/1.1\r\nHost: " +
                                   lone.host.encode() + b"\r\nContent-Length: 5000\r\n"
                                   b"\r\n" + b"x" * 100)
                time.sleep(0.2)
        time.sleep(0.5)
        status, _, data = lone.ask("/api/atlas", {"deal": "pysol:2"})
        assert status == 200 and data["won"] is True
        done = lone.interrupt()
        assert done.returncode == 130 and done.stderr == "interrupted\n", done.stderr
    finally:
        lone.stop()


def test_a_host_open_to_the_network_is_warned_of() -> None:
    opened = Server("--host", "0.0.0.0", bound="0.0.0.0")
    try:
        status, _, data = opened.ask("/api/atlas", {"deal": "pysol:2"})
        assert status == 200 and data["won"] is True
        done = opened.interrupt()
        assert done.returncode == 130
        assert done.stderr.splitlines() == [
            "warning: --host 0.0.0.0 opens the page and its API to the network: anyone who "
            "can reach this machine can run solves on it", "interrupted"]
    finally:
        opened.stop()


def test_the_page_is_served_from_the_package(server) -> None:
    status, headers, page = server.ask("/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert b"/static/app.js" in page and b"http" not in page.replace(b"http-equiv", b"")
    for name in ("app.js", "entry.js", "style.css"):
        status, _, text = server.ask(f"/static/{name}")
        assert status == 200 and b"http" not in text


def test_a_busy_pool_answers_503_and_ctrl_c_stops_the_server() -> None:
    """One worker: a long solve takes it, a second solve is refused at once with
    Retry-After while the atlas still answers; Ctrl-C during the solve ends with 130."""
    busy = Server("--workers", "1")
    try:
        status, _, data = busy.ask("/api/solve", {"deal": "pysol:2", "backend": "look"})
        assert status == 200 and data["verdict"] == "solved"  # the worker has started
        slow: dict[str, Any] = {}
        thread = threading.Thread(target=lambda: slow.update(zip(
            ("status", "headers", "data"),
            busy.ask("/api/solve", {"deal": HARD, "backend": "look", "timeout": "6"}),
            strict=True)))
        thread.start()
        time.sleep(0.5)
        began = time.monotonic()
        status, headers, data = busy.ask("/api/solve", {"deal": HARD, "backend": "look"})
        assert status == 503 and headers["retry-after"].isdigit(), data
        status, _, data = busy.ask("/api/atlas", {"deal": "pysol:837"})
        assert status == 200 and data["won"] is False
        assert time.monotonic() - began < 2  # neither waited for the solve
        with ThreadPoolExecutor(32) as run:  # 200 atlas requests at once beside it
            answers = list(run.map(lambda n: busy.ask("/api/atlas", {"deal": f"pysol:{n}"}),
                                   range(1, 201)))
        assert thread.is_alive()  # all answered while the solve still ran
        assert [status for status, _, _ in answers] == [200] * 200
        verdicts = reference()
        assert [data["won"] for _, _, data in answers] == \
            [verdicts[n]["verdict"] == "solved" for n in range(1, 201)]
        thread.join(timeout=20)
        assert slow["status"] == 200 and slow["data"]["verdict"] == "unknown"
        assert slow["headers"]["x-blackhole-exit"] == "3"
        # Ctrl-C while a solve runs: the server and its worker stop at once
        thread = threading.Thread(target=lambda: busy.ask(
            "/api/solve", {"deal": HARD, "backend": "look", "timeout": "50"}))
        thread.start()
        time.sleep(0.5)
        family = children(busy.process.pid)
        family += [pid for child in family for pid in children(child)]
        began = time.monotonic()
        done = busy.interrupt()
        assert done.returncode == 130 and done.stderr.strip().endswith("interrupted")
        assert "Traceback" not in done.stderr and "ERROR" not in done.stderr
        assert time.monotonic() - began < 10
        thread.join(timeout=20)
        assert len(family) >= 2  # the worker and the process that started it
        while _alive(family) and time.monotonic() - began < 15:
            time.sleep(0.1)
        assert not _alive(family)  # no worker left solving
    finally:
        busy.stop()


def _alive(pids: list[int]) -> list[int]:
    found = []
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        found.append(pid)
    return found


def test_a_port_in_use_is_exit_2(server) -> None:
    port = server.host.rpartition(":")[2]
    done = blackhole("serve", "--port", port, timeout=30)
    assert done.returncode == 2 and "cannot listen there" in done.stderr


def test_the_host_check() -> None:
    from blackhole.web.app import allowed_host

    assert allowed_host("127.0.0.1:8000", "127.0.0.1")
    assert allowed_host("LOCALHOST", "127.0.0.1")
    assert allowed_host("myhost:80", "myhost")
    assert allowed_host("[::1]:8000", "127.0.0.1")
    assert allowed_host("192.168.1.9:8000", "0.0.0.0")  # an address, not a name
    assert not allowed_host("attacker.example:8000", "127.0.0.1")
    assert not allowed_host("", "127.0.0.1")
    assert not allowed_host("127.0.0.1.nip.io", "127.0.0.1")


def test_every_limit_is_capped() -> None:
    from blackhole.web.api import SERVER_TIMEOUT, check

    assert check("solve", {"deal": "pysol:2"}, None).timeout == SERVER_TIMEOUT
    assert check("solve", {"deal": "pysol:2", "timeout": "1e9"}, None).timeout \
        == SERVER_TIMEOUT
    assert check("hint", {"deal": "pysol:2", "timeout": "2.5"}, None).timeout == 2.5


def _family(pid: int) -> set[int]:
    """The processes `pid` started, and theirs."""
    found = set(children(pid))
    return found | {grandchild for child in found for grandchild in children(child)}


def test_a_closed_request_stops_its_solve_and_frees_its_worker() -> None:
    """A client that goes away (a closed tab, an aborted fetch) takes its solve with it:
    the worker is killed at once and the only place in the pool is free again."""
    lone = Server("--workers", "1")
    try:
        status, _, data = lone.ask("/api/solve", {"deal": "pysol:2", "backend": "look"})
        assert status == 200 and data["verdict"] == "solved"
        before = _family(lone.process.pid)
        connection = http.client.HTTPConnection(lone.host, timeout=30)
        connection.request("GET", "/api/solve?" + urllib.parse.urlencode(
            {"deal": HARD, "backend": "look", "timeout": "50"}))
        began = time.monotonic()
        while not (_family(lone.process.pid) - before) and time.monotonic() - began < 10:
            time.sleep(0.05)
        solving = _family(lone.process.pid) - before
        assert solving  # the solve's own process
        status, _, data = lone.ask("/api/solve", {"deal": "pysol:2", "backend": "look"})
        assert status == 503  # it holds the one worker
        connection.close()  # the tab is closed
        began = time.monotonic()
        while _alive(list(solving)) and time.monotonic() - began < 10:
            time.sleep(0.05)
        assert not _alive(list(solving))
        assert time.monotonic() - began < 3
        status, _, data = lone.ask("/api/solve", {"deal": "pysol:2", "backend": "look"})
        assert status == 200 and data["verdict"] == "solved"
    finally:
        lone.stop()


@pytest.mark.parametrize(("spec", "after"), [
    ("pysol:3", ""), ("pysol:3", "KD AH 2C"), ("pysol:5:golf", ""), ("pysol:2:all-in-a-row", ""),
    ("pysol:148:worm-hole", "park:AH KC AC 2S"), ("pysol:148:worm-hole", "park:AH KC AC 2S AH"),
    ("pysol:148:unstable-worm-hole", "park:AH KC AC 2S AH"),
])
def test_a_position_gives_its_layout_and_legal_moves_from_the_rules(server, spec,
                                                                    after) -> None:
    """The layout (with the cell's card and the parks in Worm Hole) and the legal moves
    (a park or the cell's card with its `"kind"`) are the rules engine's."""
    from blackhole.model.formats import moves_json
    from blackhole.model.positions import load_position
    from blackhole.model.rules import initial_state, legal_moves, outcome

    status, _, data = server.ask("/api/position", {"deal": spec, "after": after})
    assert status == 200, data
    args = ["--after", after] if after else []
    assert data["layout"] == json.loads(
        blackhole("deal", spec, *args, "--format", "json").stdout)
    position = load_position(spec, after or None)
    state = initial_state(position.deal)
    assert data["legal"] == moves_json(legal_moves(position.deal, state))
    assert (data["moved"], data["of"]) == (position.moved, position.of)
    assert data["outcome"] == outcome(position.deal, state).value
    assert data["game"] == position.deal.game.name
    assert [("park:" if move.get("kind") == "park" else "") + move["card"]
            for move in data["after"]] == after.split()


def test_the_games_come_from_the_games_table(server) -> None:
    from blackhole.atlas import shipped_games
    from blackhole.model.games import DEFAULT_GAME, VARIANTS

    status, _, data = server.ask("/api/games")
    assert status == 200
    assert [game["name"] for game in data["games"]] == list(VARIANTS)  # every game
    assert {"worm-hole", "unstable-worm-hole"} <= {game["name"] for game in data["games"]
                                                   if game["pysol"]}
    assert {game["name"] for game in data["games"] if game["atlas"]} == set(shipped_games())
    assert {"black-hole", "all-in-a-row", "golf"} <= set(shipped_games())
    assert data["engines"] == ["auto", "look", "sat", "cpsat"]
    assert data["default"] == DEFAULT_GAME.name


@pytest.mark.parametrize(("query", "verdict", "code"), [
    ({"deal": "pysol:1"}, "has no solution", "1"),
    ({"deal": "pysol:3", "after": "KD AH"}, "is solvable", "0"),
])
def test_certify_gives_a_zip_that_verify_accepts(server, tmp_path, query, verdict,
                                                 code) -> None:
    import io
    import zipfile

    status, headers, raw = server.ask("/api/certify", query)
    assert status == 200 and headers["content-type"] == "application/zip"
    assert headers["x-blackhole-exit"] == code
    name = headers["content-disposition"].split('filename="')[1].rstrip('"')
    assert name == "certificate-" + query["deal"].replace(":", "-") + ".zip"
    zipfile.ZipFile(io.BytesIO(raw)).extractall(tmp_path)
    done = blackhole("verify", str(tmp_path / name.removesuffix(".zip")))
    assert done.returncode == 0 and done.stdout.startswith("VERIFIED") and \
        verdict in done.stdout, done.stdout + done.stderr
    status, _, data = server.ask("/api/certify", {"deal": "tests"})
    assert status == 400 and "reads no files" in data["error"]


def test_a_posted_deal_is_certified_too(server, tmp_path) -> None:
    import io
    import zipfile

    board = blackhole("deal", "pysol:1").stdout
    status, headers, raw = server.ask("/api/certify", body=board.encode())
    assert status == 200 and headers["x-blackhole-exit"] == "1"
    zipfile.ZipFile(io.BytesIO(raw)).extractall(tmp_path)
    done = blackhole("verify", str(tmp_path / "certificate"))
    assert done.returncode == 0 and "has no solution" in done.stdout, done.stdout
