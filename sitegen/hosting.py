"""The site's security policy, caching and compression, and the files that tell static hosts (DR-002).

A ``<meta>`` policy does not reach a Web Worker, so the same policy must come as an
HTTP header: from the dev server (``serve``), ``_headers`` (Netlify, Cloudflare
Pages) and ``.htaccess`` (Apache). The README's nginx block repeats it by hand.
"""

from __future__ import annotations

import re

# The one Content-Security-Policy of the site (DR-002). Sent as a <meta> tag on every
# page and, because a meta policy does not reach a Web Worker, as an HTTP header.
CSP_DIRECTIVES = (
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "connect-src 'self' https://api.anthropic.com https://api.openai.com http://127.0.0.1:* http://localhost:*",
    "img-src 'self' data:",
    "style-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
)
CSP = "; ".join(CSP_DIRECTIVES)
# frame-ancestors is ignored (with a console warning) in a meta tag: header only.
CSP_HEADER = CSP + "; frame-ancestors 'none'"
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP_HEADER,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


# A file whose URL names its content never changes: Pyodide under its version's folder, and
# every file a page asks for with its content hash (?v=…). The rest is revalidated each time.
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
VERSIONED_URL = re.compile(r"/pyodide/\d[^/]*/|[?&]v=[0-9a-f]{12}(&|$)")
# Files named only by their path: every request carries the hash (DR-002), so _headers may mark them.
VERSIONED_FOLDERS = ("/pyodide/*", "/app/*", "/wheels/*")
# JSON lines (the evaluation page's demo log, sitegen.demo_log) have no registered type: the dev server and
# Apache send this one. A host that knows no type for them sends its default, which the page's fetch reads too.
JSON_LINES_TYPE = "application/x-ndjson"
# What a host must compress (gzip or brotli): the runtime, the modules, JSON, pages and style.
COMPRESSED_TYPES = ("application/wasm", "text/javascript", "application/javascript", "application/json",
                    JSON_LINES_TYPE, "text/css", "text/html")
# The same files by name: the build writes a gzip copy beside each (compression.py).
COMPRESSED_SUFFIXES = (".wasm", ".mjs", ".js", ".json", ".jsonl", ".css", ".html")


def cache_control(url: str) -> str:
    """The Cache-Control header for a request to ``url`` (its path and query)."""
    return IMMUTABLE if VERSIONED_URL.search(url) else REVALIDATE


def host_files() -> dict[str, str]:
    """The configuration files written beside the site, by output path."""
    return {"_headers": headers_file(), ".htaccess": htaccess()}


def headers_file() -> str:
    """Netlify's and Cloudflare Pages' header rules: the security headers on every path, and
    long-lived caching for the folders only ever asked for by version or hash (rules cannot
    match a query). Both hosts compress on their own."""
    rules = "/*\n" + "".join(f"  {k}: {v}\n" for k, v in SECURITY_HEADERS.items())
    return rules + "".join(f"{folder}\n  Cache-Control: {IMMUTABLE}\n" for folder in VERSIONED_FOLDERS)


def htaccess() -> str:
    """Apache configuration: the CSP header (a meta tag does not reach the worker), caching,
    compression and MIME types."""
    lines = [
        "AddType application/wasm .wasm",
        "AddType text/javascript .mjs",
        f"AddType {JSON_LINES_TYPE} .jsonl",
        "# Needs mod_headers (a2enmod headers): without it the worker runs without its policy (DR-002).",
        "<IfModule mod_headers.c>",
    ]
    lines += [f'  Header set {k} "{v}"' for k, v in SECURITY_HEADERS.items()]
    lines += [
        "  # Pyodide's version folder and every ?v=<content hash> URL never change (DR-002).",
        '  <If "%{REQUEST_URI} =~ m#/pyodide/[0-9][^/]*/# || %{QUERY_STRING} =~ /(^|&)v=[0-9a-f]{12}(&|$)/">',
        f'    Header set Cache-Control "{IMMUTABLE}"',
        "  </If>",
        "  <Else>",
        f'    Header set Cache-Control "{REVALIDATE}"',
        "  </Else>",
        "</IfModule>",
        "# Needs mod_deflate: pyodide.asm.wasm goes from 9.6 MB to 3.5 MB (DR-002).",
        "<IfModule mod_deflate.c>",
        f"  AddOutputFilterByType DEFLATE {' '.join(COMPRESSED_TYPES)}",
        "</IfModule>",
        "# The site's own page for a missing path. Apache wants a path from the host's root:",
        "# under a sub-path, put it in front (ErrorDocument 404 /kd/404.html).",
        "ErrorDocument 404 /404.html",
    ]
    return "\n".join([*lines, ""])
