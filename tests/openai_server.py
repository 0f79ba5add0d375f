"""A loopback HTTP server speaking OpenAI's chat-completions protocol, for tests.

``ChatServer`` replies to ``POST /v1/chat/completions`` with ``reply(body, index)`` for each
choice; ``plan`` is a list of HTTP statuses to answer first (one per request, e.g.
``[429, 500]``), ``honour_n=False`` makes it answer one choice whatever ``n`` says (like
llama.cpp), ``delay`` sleeps before answering. It records every request body and the most
requests it had in flight at once.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ChatServer:
    def __init__(self, reply=None, *, plan=(), honour_n: bool = True, delay: float = 0.0,
                 retry_after_ms: int = 5):
        self.reply = reply or (lambda body, i: f"reply {i} to {body['messages'][-1]['content']}")
        self.plan = list(plan)
        self.honour_n = honour_n
        self.delay = delay
        self.retry_after_ms = retry_after_ms
        self.requests: list[dict] = []
        self.statuses: list[int] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(body)
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    status = server.plan.pop(0) if server.plan else 200
                    server.statuses.append(status)
                try:
                    if server.delay:
                        time.sleep(server.delay)
                    if not self.path.endswith("/chat/completions"):
                        status = 404
                    if status != 200:
                        payload = {"error": {"message": f"simulated {status}",
                                             "type": "test", "code": status}}
                        self._send(status, payload,
                                   {"retry-after-ms": str(server.retry_after_ms)})
                        return
                    n = body.get("n", 1) if server.honour_n else 1
                    choices = [{"index": i, "finish_reason": "stop",
                                "message": {"role": "assistant",
                                            "content": server.reply(body, i)}}
                               for i in range(n)]
                    self._send(200, {"id": "chatcmpl-test", "object": "chat.completion",
                                     "created": 0, "model": body.get("model"),
                                     "choices": choices,
                                     "usage": {"prompt_tokens": 7, "completion_tokens": 3 * n,
                                               "total_tokens": 7 + 3 * n}})
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _send(self, status, payload, headers=None):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever,
                                        kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
