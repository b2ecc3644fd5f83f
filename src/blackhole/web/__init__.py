"""`blackhole serve`: a local web page and a JSON API over the library (the `[web]`
extra: Starlette on uvicorn).

`api` turns a request into the CLI's `--json` document, with the same library calls;
`app` is the ASGI app (the page, the API, the Host check, the body limit and the bounded
pool of solving workers) and the server. `static/` holds the page's own HTML, CSS and
JavaScript: nothing is fetched from elsewhere.
"""
