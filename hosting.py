"""The site's security policy and the files that tell static hosts to send it (DR-002).

A ``<meta>`` policy does not reach a Web Worker, so the same policy must come as an
HTTP header: from the dev server (``serve.py``), ``_headers`` (Netlify, Cloudflare
Pages) and ``.htaccess`` (Apache). The README's nginx block repeats it by hand.
"""

from __future__ import annotations

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


def host_files() -> dict[str, str]:
    """The configuration files written beside the site, by output path."""
    return {"_headers": headers_file(), ".htaccess": htaccess()}


def headers_file() -> str:
    """Netlify's and Cloudflare Pages' header rules: the security headers on every path."""
    return "/*\n" + "".join(f"  {k}: {v}\n" for k, v in SECURITY_HEADERS.items())


def htaccess() -> str:
    """Apache configuration: the CSP header (a meta tag does not reach the worker) and MIME types."""
    lines = [
        "AddType application/wasm .wasm",
        "AddType text/javascript .mjs",
        "# Needs mod_headers (a2enmod headers): without it the worker runs without its policy (DR-002).",
        "<IfModule mod_headers.c>",
    ]
    lines += [f'  Header set {k} "{v}"' for k, v in SECURITY_HEADERS.items()]
    lines += [
        "</IfModule>",
        "# The site's own page for a missing path. Apache wants a path from the host's root:",
        "# under a sub-path, put it in front (ErrorDocument 404 /kd/404.html).",
        "ErrorDocument 404 /404.html",
    ]
    return "\n".join([*lines, ""])
