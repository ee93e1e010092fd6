"""A fake OpenAI-compatible model server on 127.0.0.1, for browser tests of the real CORS path.

Route interception in the browser answers CORS by itself, so it cannot show that a
page's request survives a real preflight. This server runs ``http.server`` in a
thread on its own port: it answers the ``OPTIONS`` preflight with the
``Access-Control-Allow-*`` headers a local model server would send, and the
``POST /v1/chat/completions`` with a Chat Completions body whose content is the
answer a faithful model would give (built from the prompt it received). Every
request is recorded with its method, path, headers and body.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from explain_samples import answer_from_prompt

ALLOWED_HEADERS = "authorization, content-type"
USAGE = {"prompt_tokens": 2345, "completion_tokens": 321, "total_tokens": 2666}


@dataclass(frozen=True)
class Seen:
    """One request the server received."""

    method: str
    path: str
    headers: dict
    body: str


def faithful_reply(body: dict) -> dict:
    """A Chat Completions reply whose content answers the prompt in ``body`` from its own text."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": body.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": json.dumps(answer_from_prompt(user))},
                "finish_reason": "stop",
            }
        ],
        "usage": USAGE,
    }


class FakeProvider:
    """Use as ``with FakeProvider() as fake:``; ``fake.base_url`` goes in the page's Base URL field.

    ``reply`` gets each request's body and returns the reply's body, or (status, body) for an error.
    """

    def __init__(self, reply: Callable[[dict], dict] = faithful_reply) -> None:
        self.reply = reply
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self.port = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> FakeProvider:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def requests(self, method: str) -> list[Seen]:
        with self._lock:
            return [seen for seen in self.seen if seen.method == method]

    def _record(self, seen: Seen) -> None:
        with self._lock:
            self.seen.append(seen)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _cors(self) -> None:
                self.send_header("Access-Control-Allow-Origin", self.headers.get("Origin") or "*")
                self.send_header("Vary", "Origin")

            def do_OPTIONS(self) -> None:  # noqa: N802 (http.server's naming)
                fake._record(Seen("OPTIONS", self.path, {k.lower(): v for k, v in self.headers.items()}, ""))
                self.send_response(204)
                self._cors()
                # A wildcard would not cover Authorization: name the headers, as local servers do.
                self.send_header("Access-Control-Allow-Headers", ALLOWED_HEADERS)
                self.send_header("Access-Control-Allow-Methods", "POST, OPTIONS")
                self.send_header("Access-Control-Max-Age", "0")  # every test sees its own preflight
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8")
                fake._record(Seen("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if self.path != "/v1/chat/completions":
                    status, payload = 404, {"error": {"message": f"no route {self.path}"}}
                else:
                    answer = fake.reply(json.loads(body))  # a reply, or (status, body) for an error
                    status, payload = answer if isinstance(answer, tuple) else (200, answer)
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self._cors()
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (stdlib signature)
                pass

        return Handler


def varied_reply(wrong_every: int, fingerprint_after: int | None) -> Callable[[dict], dict]:
    """Replies that answer every ``wrong_every``-th request with one wrong claim (the count of visited
    nodes), and report system fingerprint fp_1, then fp_2 from request ``fingerprint_after`` on."""
    served = 0
    lock = threading.Lock()

    def reply(body: dict) -> dict:
        nonlocal served
        with lock:
            served += 1
            number = served
        payload = faithful_reply(body)
        if wrong_every and number % wrong_every == 0:
            claims = json.loads(payload["choices"][0]["message"]["content"])
            claims["nodes_visited"] += 1
            payload["choices"][0]["message"]["content"] = json.dumps(claims)
        if fingerprint_after is not None:
            payload["system_fingerprint"] = "fp_1" if number < fingerprint_after else "fp_2"
        return payload

    return reply


def main() -> None:
    """Serve on 127.0.0.1 as a process of its own: print the base URL, then answer until stopped."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--wrong-every", type=int, default=0, help="answer every Nth request with a wrong claim")
    parser.add_argument("--fingerprint-after", type=int, help="report fp_1, then fp_2 from request N on")
    args = parser.parse_args()
    fake = FakeProvider(varied_reply(args.wrong_every, args.fingerprint_after))
    print(fake.base_url, flush=True)
    fake._server.serve_forever()


if __name__ == "__main__":
    main()
