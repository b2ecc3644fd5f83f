"""serve: the local web page and its JSON API (the `[web]` extra)."""

import sys
from typing import Annotated

import typer

from blackhole.base.errors import InputError
from blackhole.cli.guard import user_errors


def serve(
    host: Annotated[str, typer.Option(
        help="The address to listen on; only this machine can reach the default. A Host "
             "header naming another host is refused.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(
        min=0, max=65535, help="The port to listen on (0: a free one, printed).")] = 8000,
    open_browser: Annotated[bool, typer.Option(
        "--open", help="Open the page in the browser.")] = False,
    workers: Annotated[int | None, typer.Option(
        min=1, help="Solves at once, each in its own process (default: the cores); one "
                    "more is answered 503 with Retry-After.", show_default=False)] = None,
) -> None:
    """Serve a local web page to look a deal up, solve it, step through its line, play it
    and certify it, and a JSON API whose answers are the --json of solve, best, hint,
    analyze and atlas. Ctrl-C stops it (exit 130)."""
    from blackhole.base.extras import require

    with user_errors():
        require("web", "starlette", "serve")
        require("web", "uvicorn", "serve")
        from blackhole.web.app import listen, open_to_network, serve, url_of

        if not host.strip():
            raise InputError("names no address", "--host", token=host)
        try:
            sock = listen(host, port)
        except InputError as error:  # the library names the field; the CLI the option
            raise InputError(error.detail, f"--{error.source}", None, error.token) from None
        url = url_of(sock)
        typer.echo(f"serving {url} (Ctrl-C stops)")
        sys.stdout.flush()
        if open_to_network(sock):
            typer.echo(f"warning: --host {host} opens the page and its API to the network: "
                       "anyone who can reach this machine can run solves on it", err=True)
        if open_browser:
            import webbrowser

            webbrowser.open(url)
        serve(sock, host, workers)
