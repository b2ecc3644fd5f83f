"""`blackhole serve`: a local web page and a JSON API over the library (the `[web]`
extra: Starlette on uvicorn).

`api` turns a request into the CLI's `--json` document, with the same library calls,
and answers the page's own questions (a position's legal moves from the rules engine,
the games from the games table, a certificate as a zip, the slots of a deal entered card
by card and the deal they compose); `app` is the ASGI app (the
page, the API, the Host check, the body limit and the bounded pool, where each solve
runs in a process of its own, killed when its client goes away) and the server.
`static/` holds the page's own HTML, CSS and JavaScript: it draws what the API answers
and holds no rules of its own; nothing is fetched from elsewhere.
"""
