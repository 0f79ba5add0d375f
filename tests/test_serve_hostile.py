"""``serve`` closes idle and malformed connections within its request timeout (issue 32
item 9): it held a connection that sent nothing for 15 s and more, and a header line
without a colon left the client waiting for an answer that never came."""

from __future__ import annotations

import socket
import time

import pytest

from kb.mirror import MirrorKB
from kb.sparql_server import running_server


@pytest.fixture(scope="module")
def server(demo_mirror_path):
    base = MirrorKB(demo_mirror_path)
    with running_server(base, timeout=5, request_timeout=2) as srv:
        yield srv
    base.close()


def exchange(server, *chunks: bytes, pause: float = 0.0, wait: float = 30) -> tuple[bytes, float]:
    """Send ``chunks`` (``pause`` s apart), then read until the server closes; return what
    came and the seconds from the first byte sent to the close."""
    host, port = server.server_address[:2]
    sock = socket.create_connection((host, port), timeout=wait)
    started = time.monotonic()
    data = b""
    try:
        for chunk in chunks:
            sock.sendall(chunk)
            time.sleep(pause)
        while True:
            got = sock.recv(65536)
            if not got:
                break
            data += got
    except (ConnectionResetError, BrokenPipeError):
        pass
    finally:
        sock.close()
    return data, time.monotonic() - started


def test_a_connection_that_sends_nothing_is_closed_at_the_request_timeout(server):
    data, seconds = exchange(server)
    assert data == b"" and 1.5 < seconds < 3.5


def test_an_idle_keep_alive_connection_is_closed_at_the_request_timeout(server):
    data, seconds = exchange(server, b"GET /sparql?query=ASK%7B%7D HTTP/1.1\r\nHost: x\r\n\r\n")
    assert data.startswith(b"HTTP/1.1 200") and seconds < 4.0


def test_a_request_sent_one_byte_at_a_time_is_cut_at_the_request_timeout(server):
    data, seconds = exchange(server, *[bytes([b]) for b in b"GET /sparql?query=ASK HTTP/1.1"],
                             pause=0.3)
    assert seconds < 12 and b"200" not in data      # 30 bytes x 0.3 s: past the 2 s


@pytest.mark.parametrize("request_bytes", [
    b"GET /sparql?query=ASK%7B%7D HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n",
    b"POST /sparql HTTP/1.1\r\nno colon\r\nContent-Type: application/sparql-query\r\n"
    b"Content-Length: 5\r\n\r\nASK{}",
])
def test_a_header_line_without_a_colon_is_answered_400_at_once(server, request_bytes):
    data, seconds = exchange(server, request_bytes)
    assert data.startswith(b"HTTP/1.1 400") and b"Name: value" in data
    assert seconds < 1.0                           # answered and closed, not left waiting


def test_the_server_still_answers_after_all_that(server):
    data, _ = exchange(server, b"GET /sparql?query=ASK%7B%7D HTTP/1.1\r\nHost: x\r\n"
                               b"Connection: close\r\n\r\n")
    assert data.startswith(b"HTTP/1.1 200") and b"true" in data
