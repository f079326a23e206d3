#!/usr/bin/env python3
"""A small HTTP server on 127.0.0.1 for the download tests of `likes`.

Serves the files of one folder with answers a real server may give: a photo, a redirect, a 404,
a 500, an answer too slow to wait for, a body cut short, and a PNG sent as image/jpeg. It prints
the port it listens on, and stops when its standard input closes or after five minutes.
"""
import http.server
import os
import sys
import threading
import time

ROOT = sys.argv[1]
PNG = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + b"\x00\x00\x00\rIHDR" + bytes(17)


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send_body(self, body, content_type="image/jpeg", length=None):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)

    def file(self, name):
        path = os.path.join(ROOT, os.path.basename(name))
        with open(path, "rb") as handle:
            return handle.read()

    def do_GET(self):
        parts = self.path.strip("/").split("/", 1)
        kind, name = parts[0], (parts[1] if len(parts) > 1 else "")
        if kind == "photos":
            self.send_body(self.file(name))
        elif kind == "redirect":
            self.send_response(302)
            self.send_header("Location", "/photos/" + name)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif kind == "redirect-twice":
            self.send_response(301)
            self.send_header("Location", "/redirect/" + name)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif kind == "slow":
            time.sleep(4)
            self.send_body(self.file(name))
        elif kind == "cut":
            body = self.file(name)
            self.send_body(body[: len(body) // 2], length=len(body))
            self.wfile.flush()
            self.close_connection = True
        elif kind == "png":
            self.send_body(PNG)
        elif kind == "error":
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.send_response(404)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "9")
            self.end_headers()
            self.wfile.write(b"not found")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)


def stop_when_stdin_closes():
    sys.stdin.read()
    server.shutdown()


threading.Thread(target=stop_when_stdin_closes, daemon=True).start()
timer = threading.Timer(300, server.shutdown)
timer.daemon = True
timer.start()
server.serve_forever()
