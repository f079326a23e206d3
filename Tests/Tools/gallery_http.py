"""Every rule of `likes serve` over HTTP, against the real binary on a real store.

    gallery_http.py --likes BIN --samples DIR

Starts `likes serve --port 0` on a store of the sample photos (plus hostile ids and notes),
reads its one line, and checks: the token (none, wrong, in the query, the cookie it is exchanged
for, Bearer); the Host (foreign names and ports refused, localhost taken); changes only by POST,
never with a foreign Origin or from a cross-site fetch, the store unchanged when refused; paths
and ids that try to leave the store, in every encoding; the security headers; malformed and slow
requests; a thousand random requests; ranges, ETag and immutable caching of images; a like made by
another process arriving on the event stream within a second; unlike and undo; the zip of a
selection, byte for byte; and a clean stop on SIGTERM and SIGINT with exit 0.

Prints `ok   NAME` or `FAIL NAME: why` per check and `gallery-http: N passed, M failed`; exits 1
when anything failed.
"""

import argparse
import http.client
import io
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

HOSTILE_ID = '<img src=x onerror="alert(1)">'
SLASH_ID = "a/../../b"


class Gallery:
    def __init__(self, likes, store, options=("--port", "0")):
        self.likes = likes
        self.store = store
        self.process = subprocess.Popen(
            [likes, "--store", store, "serve", *options], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline().strip()
        match = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{64})", line)
        if not match:
            self.process.kill()
            raise RuntimeError(f"the first line is not the address: {line!r} {self.process.stderr.read()[:300]}")
        self.line = line
        self.port = int(match.group(1))
        self.token = match.group(2)
        self.host = f"127.0.0.1:{self.port}"

    def request(self, method, path, headers=None, body=None, host=None, auth=True, timeout=10):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        sent = {"Host": host or self.host}
        if auth:
            sent["Authorization"] = f"Bearer {self.token}"
        sent.update(headers or {})
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in sent.items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data

    def post(self, path, fields, headers=None, auth=True):
        body = "&".join(f"{quote(k)}={quote(v)}" for k, v in fields).encode()
        sent = {"Content-Type": "application/x-www-form-urlencoded", "Origin": f"http://{self.host}"}
        sent.update(headers or {})
        return self.request("POST", path, sent, body, auth=auth)

    def stop(self, signal_number=signal.SIGTERM):
        self.process.send_signal(signal_number)
        try:
            status = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return None, ""
        return status, self.process.stdout.read()


def quote(text):
    from urllib.parse import quote as q

    return q(text, safe="")


def listing(likes, store):
    result = subprocess.run([likes, "--store", store, "list", "--json"], capture_output=True, text=True)
    return json.loads(result.stdout)


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, condition, why=""):
        if condition:
            self.passed += 1
            print(f"ok   {name}")
        else:
            self.failed += 1
            print(f"FAIL {name}: {why}")
        sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--likes", required=True)
    parser.add_argument("--samples", required=True)
    arguments = parser.parse_args()
    likes = os.path.abspath(arguments.likes)
    top = tempfile.mkdtemp(prefix="likes-gallery-http-")
    store = os.path.join(top, "store")
    checks = Checks()
    try:
        subprocess.run([likes, "--store", store, "import", arguments.samples], check=True, capture_output=True)
        subprocess.run(
            [likes, "--store", store, "like", HOSTILE_ID, "--image", os.path.join(arguments.samples, "coffee.jpg"),
             "--note", "</textarea><script>alert(2)</script>", "--album", "<b>bold</b>"], check=True, capture_output=True)
        subprocess.run(
            [likes, "--store", store, "like", SLASH_ID, "--image", os.path.join(arguments.samples, "rocket.jpg")],
            check=True, capture_output=True)
        gallery = Gallery(likes, store)
        run_checks(checks, gallery, likes, store, arguments.samples)
        busy = subprocess.run([likes, "--store", store, "serve", "--port", str(gallery.port)], capture_output=True, text=True, timeout=10)
        lines = busy.stderr.strip().splitlines()
        checks.check("a port in use: one line naming it and what to do, exit 74, nothing on stdout",
                     busy.returncode == 74 and busy.stdout == "" and len(lines) == 1 and str(gallery.port) in lines[0] and "--port" in lines[0],
                     f"{busy.returncode} {busy.stderr!r}")
        # A page of photos is kept while the store stays the same, and never past a change.
        def newest():
            status, _, body = gallery.request("GET", "/api/photos?limit=5")
            return [photo["id"] for photo in json.loads(body)["photos"]] if status == 200 else None
        before = newest()
        subprocess.run([likes, "--store", store, "like", "cache-check", "--image", os.path.join(arguments.samples, "chelsea.jpg")],
                       check=True, capture_output=True)
        liked = newest()
        subprocess.run([likes, "--store", store, "note", "cache-check", "seen"], check=True, capture_output=True)
        status, _, body = gallery.request("GET", "/api/photos?limit=5")
        noted = json.loads(body)["photos"][0].get("note") if status == 200 else None
        subprocess.run([likes, "--store", store, "unlike", "cache-check"], check=True, capture_output=True)
        checks.check("a page of photos asked again after a change shows the change at once (like, note, unlike)",
                     before == newest() and liked[0] == "cache-check" and noted == "seen" and "cache-check" not in before,
                     f"{before} {liked} {noted}")
        # With an event stream open, as a page keeps one.
        stream = socket.create_connection(("127.0.0.1", gallery.port))
        stream.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{gallery.port}\r\nAuthorization: Bearer {gallery.token}\r\n\r\n".encode())
        stream.recv(1024)
        began = time.monotonic()
        status, rest = gallery.stop(signal.SIGTERM)
        took = time.monotonic() - began
        stream.close()
        checks.check("SIGTERM stops it with exit 0 and nothing more on stdout", status == 0 and rest == "", f"{status} {rest!r}")
        checks.check("SIGTERM stops it within 0.5 s, an event stream open", took < 0.5, f"{took:.3f} s")
        again = Gallery(likes, store)
        status, _ = again.stop(signal.SIGINT)
        checks.check("SIGINT stops it with exit 0", status == 0, f"{status}")
        token_checks(checks, likes, store, again)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    print(f"gallery-http: {checks.passed} passed, {checks.failed} failed")
    sys.exit(1 if checks.failed else 0)


def token_checks(checks, likes, store, earlier):
    """The token is kept in the store (mode 0600): every serve gives the same address, its port
    too while free, so a bookmark works; --new-token replaces it and the old one is refused."""
    check = checks.check
    first = Gallery(likes, store, ())
    first.stop()
    second = Gallery(likes, store, ())
    status, _, _ = second.request("GET", "/api/photos")
    second.stop()
    mode = os.stat(os.path.join(store, "access-token")).st_mode & 0o777
    check("the token is kept in the store, readable by its owner alone (0600)", mode == 0o600 and earlier.token == first.token, f"{mode:o}")
    check("the next serve gives the same address, port and token, so a bookmark works", second.line == first.line and status == 200,
          f"{first.line} then {second.line}")
    renewed = Gallery(likes, store, ("--new-token",))
    old = renewed.token
    renewed.token = first.token
    refused, _, _ = renewed.request("GET", "/api/photos")
    renewed.token = old
    served, _, _ = renewed.request("GET", "/api/photos")
    renewed.stop()
    check("--new-token replaces it: the old token is refused (403), the new one served",
          old != first.token and refused == 403 and served == 200 and renewed.port != first.port, f"{refused} {served}")
    with open(os.path.join(store, "access-token")) as handle:
        check("...and it is the one kept", handle.read() == old)
    verify = subprocess.run([likes, "--store", store, "verify"], capture_output=True, text=True)
    check("verify counts the kept token as the store's own, no orphan", verify.returncode == 0 and "orphan" not in verify.stdout,
          verify.stdout[-200:])


def run_checks(checks, gallery, likes, store, samples):
    check = checks.check
    before = listing(likes, store)

    # A slow client, opened first and judged last: it must be answered 408 and cut off.
    slow = socket.create_connection(("127.0.0.1", gallery.port))
    slow.sendall(f"GET / HTTP/1.1\r\nHost: {gallery.host}\r\n".encode())
    slow_started = time.time()

    # The token.
    for path in ["/", "/api/photos", "/image?id=coffee", "/events", "/albums"]:
        status, _, _ = gallery.request("GET", path, auth=False)
        check(f"no token: {path} is refused", status == 403, f"{status}")
    status, _, _ = gallery.request("GET", "/?token=" + "0" * 64, auth=False)
    check("a wrong token in the query is refused", status == 403, f"{status}")
    status, _, _ = gallery.request("GET", "/", {"Authorization": "Bearer " + "0" * 64}, auth=False)
    check("a wrong Bearer token is refused", status == 403, f"{status}")
    status, _, _ = gallery.request("GET", "/", {"Cookie": f"likes-{gallery.port}={'0' * 64}"}, auth=False)
    check("a wrong cookie is refused", status == 403, f"{status}")
    status, headers, _ = gallery.request("GET", f"/?token={gallery.token}", auth=False)
    cookie = headers.get("set-cookie", "")
    check(
        "the token in the query is exchanged for an HttpOnly, SameSite=Strict cookie and a redirect without it",
        status == 303 and headers.get("location") == "/" and "HttpOnly" in cookie and "SameSite=Strict" in cookie
        and gallery.token in cookie, f"{status} {headers}")
    status, headers, body = gallery.request("GET", "/", {"Cookie": cookie.split(";")[0]}, auth=False)
    check("the cookie opens the favorites page", status == 200 and b"<main>" in body and "text/html" in headers.get("content-type", ""),
          f"{status}")
    policy = headers.get("content-security-policy", "")
    check("a strict content security policy on every page",
          "default-src 'none'" in policy and "script-src 'self'" in policy and "frame-ancestors 'none'" in policy, policy)
    check("no sniffing, no referrer sent elsewhere", headers.get("x-content-type-options") == "nosniff" and headers.get("referrer-policy") == "same-origin",
          f"{headers}")
    status, _, _ = gallery.request("GET", "/api/photos", {"Cookie": cookie.split(";")[0].replace(f"likes-{gallery.port}", "likes-1")},
                                   auth=False)
    check("another gallery's cookie name opens nothing", status == 403, f"{status}")

    # The Host.
    for host in ["evil.example", f"evil.example:{gallery.port}", "127.0.0.1", f"127.0.0.1:{gallery.port + 1}", f"127.0.0.2:{gallery.port}",
                 f"[::1]:{gallery.port}"]:
        status, _, _ = gallery.request("GET", "/api/photos", host=host)
        check(f"Host {host} is refused", status == 403, f"{status}")
    status, _, _ = gallery.request("GET", "/api/photos", host=f"localhost:{gallery.port}")
    check("Host localhost:PORT is served", status == 200, f"{status}")

    # Changes: POST only, our Origin only, the store unchanged when refused.
    for name, headers in [("a foreign Origin", {"Origin": "http://evil.example"}), ("Origin null", {"Origin": "null"}),
                          ("another port's Origin", {"Origin": f"http://127.0.0.1:{gallery.port + 1}"}),
                          ("a cross-site fetch", {"Sec-Fetch-Site": "cross-site"})]:
        status, _, _ = gallery.post("/api/unlike", [("id", "coffee")], headers)
        check(f"a change with {name} is refused", status == 403, f"{status}")
    status, _, _ = gallery.post("/api/unlike", [("id", "coffee")], auth=False)
    check("a change without the token is refused", status == 403, f"{status}")
    with open(os.path.join(samples, "chelsea.jpg"), "rb") as handle:
        dropped = handle.read()
    for name, headers, auth in [("a foreign Origin", {"Origin": "http://evil.example"}, True), ("no token", {}, False),
                                ("a cross-site fetch", {"Sec-Fetch-Site": "cross-site"}, True)]:
        status, _, _ = gallery.request("POST", "/api/like?name=dropped.jpg", {"Content-Type": "image/jpeg", **headers}, dropped, auth=auth)
        check(f"a dropped photo with {name} is refused", status == 403, f"{status}")
    for method in ["GET", "PUT", "DELETE", "PATCH"]:
        status, headers, _ = gallery.request(method, "/api/unlike?id=coffee")
        check(f"{method} changes nothing: 405, Allow: POST", status == 405 and headers.get("allow") == "POST", f"{status} {headers}")
    # Without the token a changing request is refused before its path or method is looked at.
    for method, path in [("PUT", "/"), ("DELETE", "/api/photos"), ("POST", "/search"), ("PATCH", "/no-such-path"), ("POST", "/api/unlike")]:
        status, _, _ = gallery.request(method, path, auth=False)
        check(f"{method} {path} without the token: 403", status == 403, f"{status}")
    # With it, every known path names what it answers to.
    for method, path, allow in [("POST", "/", "GET, HEAD"), ("PUT", "/photo", "GET, HEAD"), ("POST", "/search", "GET, HEAD"),
                                ("DELETE", "/api/photos", "GET, HEAD"), ("POST", "/image", "GET, HEAD"), ("POST", "/events", "GET, HEAD"),
                                ("POST", "/static/gallery.js", "GET, HEAD"), ("GET", "/download", "POST"), ("PUT", "/api/note", "POST"),
                                ("GET", "/api/source-like", "POST")]:
        status, headers, _ = gallery.request(method, path)
        check(f"{method} {path}: 405, Allow: {allow}", status == 405 and headers.get("allow") == allow, f"{status} {headers.get('allow')}")
    status, _, _ = gallery.request("PUT", "/no-such-path")
    check("an unknown path is 404 whatever the method", status == 404, f"{status}")
    check("the store is unchanged after every refused change", listing(likes, store) == before, "it changed")

    # Nothing outside the store, whatever the path or id says.
    for path in ["/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/static/..%2f..%2f..%2fetc%2fpasswd",
                 "/static/%252e%252e/%252e%252e/etc/passwd", "/..%5c..%5cetc%5cpasswd", "/image?id=../../../../etc/passwd",
                 "/image?id=%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/image?id=/etc/passwd", "/thumbnail?id=..%2f..%2flikes.lock",
                 "/image?id=%00", "/image?id=%C0%AE%C0%AE%2Fetc", "/image?file=/etc/passwd", "/static/gallery.js/../../../etc/passwd",
                 "//etc/passwd", "/image?id=coffee/../../likes.journal"]:
        status, _, body = gallery.request("GET", path)
        check(f"{path} serves no file of the system or the store's own", status in (400, 404) and b"root:" not in body
              and b"likes-journal" not in body, f"{status} {body[:80]!r}")
    status, _, body = gallery.request("GET", "/image?id=" + quote(SLASH_ID))
    with open(os.path.join(samples, "rocket.jpg"), "rb") as handle:
        rocket = handle.read()
    check("an id with slashes is a photo id, not a path: its own image", status == 200 and body == rocket, f"{status}")

    # Pages name photos by title, description or id, with sizes as `likes show` prints them.
    status, _, body = gallery.request("GET", "/api/photo?id=coffee")
    shown = json.loads(body) if status == 200 else {}
    show = subprocess.run([likes, "--store", store, "show", "coffee"], capture_output=True, text=True).stdout
    check("a photo's size as `likes show` prints it, and no store file name",
          shown.get("size", "?") in show and "fileName" not in shown and "~" not in shown.get("name", "~"), f"{shown.get('size')} {shown.get('name')}")
    status, _, body = gallery.request("GET", "/api/albums")
    covered = [album for album in (json.loads(body) if status == 200 else []) if album.get("cover")]
    status, headers, _ = gallery.request("GET", covered[0]["cover"]["thumbnail"]) if covered else (0, {}, b"")
    check("an album's cover is cached for good", status == 200 and "immutable" in headers.get("cache-control", ""),
          f"{status} {headers.get('cache-control')} {len(covered)} covers")

    # Store text reaches pages only as JSON data; the HTML shell carries none of it.
    status, _, body = gallery.request("GET", "/")
    check("the favorites page holds no store text", HOSTILE_ID.encode() not in body and b"alert" not in body, body[:200])
    status, headers, body = gallery.request("GET", "/api/photo?id=" + quote(HOSTILE_ID))
    photo = json.loads(body) if status == 200 else {}
    check("the API gives the hostile id and note back as data, as JSON",
          headers.get("content-type", "").startswith("application/json") and photo.get("id") == HOSTILE_ID
          and photo.get("note") == "</textarea><script>alert(2)</script>", f"{status} {body[:200]!r}")

    # Malformed requests get a 4xx; the server goes on.
    for raw in [b"GARBAGE\r\n\r\n", b"GET / HTTP/9.9\r\nHost: x\r\n\r\n", b"GET / HTTP/1.1\r\n\r\n",
                b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nX: \x01\r\n\r\n",
                b"POST /api/note HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                b"POST /api/note HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n"]:
        with socket.create_connection(("127.0.0.1", gallery.port), timeout=5) as raw_socket:
            raw_socket.sendall(raw)
            answer = raw_socket.recv(200)
        check(f"malformed {raw[:24]!r} gets a 4xx or 5xx", re.match(rb"HTTP/1\.1 [45]\d\d ", answer) is not None, f"{answer[:60]!r}")

    # A thousand random requests, half with the token: the store is as it was, and it still serves.
    generator = random.Random(20261124)
    paths = ["/", "/photo?id=coffee", "/albums", "/api/photos", "/api/photo?id=rocket", "/api/albums", "/image?id=chelsea",
             "/thumbnail?id=retina", "/rendition?id=retina&side=700", "/api/unlike", "/api/undo", "/api/note", "/api/album", "/api/album/cover", "/download", "/nope", "/static/gallery.css",
             "/api/like?name=x.jpg", "/api/months", "/api/ids"]
    answered = 0
    for index in range(1000):
        method = generator.choice(["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "GE T", "get"])
        path = generator.choice(paths)
        if generator.random() < 0.3:
            path += generator.choice(["?id=", "?id=%", "?id=%zz", "?id=coffee&id=rocket", "/..", "%00", "?after=garbage", "?limit=-5",
                                      "?color=%23zzzzzz", "?search=" + "%ff" * 3])
        headers = {}
        if generator.random() < 0.5:
            headers["Authorization"] = f"Bearer {gallery.token}"
            if method == "POST":
                headers["Origin"] = generator.choice(["http://evil.example", "null", "http://127.0.0.1:1"])
        if generator.random() < 0.2:
            headers["Range"] = generator.choice(["bytes=0-0", "bytes=-1", "bytes=999999999-", "bytes=5-2", "lines=1-2"])
        body = bytes(generator.randrange(256) for _ in range(generator.randrange(0, 64))) if generator.random() < 0.3 else None
        try:
            with socket.create_connection(("127.0.0.1", gallery.port), timeout=5) as raw_socket:
                head = f"{method} {path} HTTP/1.1\r\nHost: {gallery.host}\r\nConnection: close\r\n"
                head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
                if body is not None:
                    head += f"Content-Length: {len(body)}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                raw_socket.sendall(head.encode() + b"\r\n" + (body or b""))
                if raw_socket.recv(12).startswith(b"HTTP/1.1 "):
                    answered += 1
        except OSError:
            pass
    check("a thousand random requests are all answered", answered == 1000, f"{answered} answered")
    check("...and leave the store as it was", listing(likes, store) == before, "it changed")
    status, _, _ = gallery.request("GET", "/api/photos")
    check("...and it still serves", status == 200, f"{status}")

    # Images: ranges, ETag, immutable when versioned.
    with open(os.path.join(samples, "coffee.jpg"), "rb") as handle:
        coffee = handle.read()
    photo = json.loads(gallery.request("GET", "/api/photo?id=coffee")[2])
    status, headers, body = gallery.request("GET", photo["image"], {"Range": "bytes=100-199"})
    check("a range of the full image: 206 and those bytes", status == 206 and body == coffee[100:200]
          and headers.get("content-range") == f"bytes 100-199/{len(coffee)}", f"{status} {headers.get('content-range')}")
    status, headers, body = gallery.request("GET", photo["image"])
    check("the versioned image is immutable, image/jpeg, byte for byte",
          status == 200 and body == coffee and "immutable" in headers.get("cache-control", "") and headers.get("content-type") == "image/jpeg",
          f"{status} {headers}")
    status, _, body = gallery.request("GET", photo["image"], {"If-None-Match": headers.get("etag", "")})
    check("its ETag gets a 304 without a body", status == 304 and body == b"", f"{status}")
    status, headers, body = gallery.request("HEAD", photo["thumbnail"])
    check("HEAD of a thumbnail: its length, no body", status == 200 and body == b"" and int(headers.get("content-length", "0")) > 0, f"{status}")
    status, _, body = gallery.request("GET", photo["thumbnail"])
    check("the thumbnail is a JPEG", status == 200 and body[:2] == b"\xff\xd8", f"{status}")

    # Renditions: a 1411-pixel photo has one between its 353-pixel thumbnail and itself.
    retina = json.loads(gallery.request("GET", "/api/photo?id=retina")[2])
    check("a photo names its renditions, each at most twice the size below it",
          [r["width"] for r in retina.get("renditions", [])] == [706] and retina["thumbnailWidth"] == 353, f"{retina.get('renditions')}")
    status, headers, body = gallery.request("GET", retina["renditions"][0]["url"])
    check("a rendition is a JPEG of its size, made on first use, immutable under its version",
          status == 200 and body[:2] == b"\xff\xd8" and headers.get("x-likes-image") == "rendition 706x706"
          and "immutable" in headers.get("cache-control", ""), f"{status} {headers}")
    for query, kind in (("side=200", "thumbnail 353x353"), ("side=707", "original 1411x1411"), ("side=706", "rendition 706x706")):
        status, headers, _ = gallery.request("GET", f"/rendition?id=retina&{query}")
        check(f"/rendition?{query} gives the smallest image that covers it ({kind})", status == 200 and headers.get("x-likes-image") == kind,
              f"{status} {headers.get('x-likes-image')}")
    for query, expected in (("id=retina", 400), ("id=retina&side=0", 400), ("id=retina&side=x", 400), ("id=nobody&side=500", 404)):
        status, _, _ = gallery.request("GET", "/rendition?" + query)
        check(f"/rendition?{query}: {expected}", status == expected, f"{status}")

    # Live: a like by another process arrives on the event stream within a second.
    events = socket.create_connection(("127.0.0.1", gallery.port), timeout=5)
    events.sendall(f"GET /events HTTP/1.1\r\nHost: {gallery.host}\r\nAuthorization: Bearer {gallery.token}\r\n\r\n".encode())
    received = b""
    while b"event: ready" not in received:
        received += events.recv(4096)
    subprocess.run([likes, "--store", store, "like", "from-elsewhere", "--image", os.path.join(samples, "astronaut.jpg")], check=True,
                   capture_output=True)
    liked = time.time()
    while b'"id":"from-elsewhere"' not in received and time.time() - liked < 5:
        received += events.recv(4096)
    delay = time.time() - liked
    check("a like by another process arrives on the event stream within 1 s", b'"id":"from-elsewhere"' in received and delay < 1.0,
          f"{delay:.2f} s")
    events.close()

    # An album's cover chosen through the page's API, under the rules of every change.
    subprocess.run([likes, "--store", store, "album", "add", "Covers", "coffee", "chelsea"], check=True, capture_output=True)

    def covers_album():
        shown = subprocess.run([likes, "--store", store, "albums", "--json"], capture_output=True, text=True).stdout
        return next((a for a in json.loads(shown) if a["name"] == "Covers"), {})
    status, _, _ = gallery.post("/api/album/cover", [("name", "Covers"), ("id", "chelsea")], {"Origin": "http://evil.example"})
    refused = status == 403 and covers_album().get("coverChosen") is False
    status, _, body = gallery.post("/api/album/cover", [("name", "Covers"), ("id", "chelsea")])
    answered = json.loads(body) if status == 200 else {}
    check("an album's cover is chosen through the page's API (a foreign Origin refused), answered with the album",
          refused and answered.get("coverChosen") is True and answered.get("cover", {}).get("id") == "chelsea"
          and covers_album()["cover"]["id"] == "chelsea", f"{refused} {status} {body[:120]!r}")
    missing, _, _ = gallery.post("/api/album/cover", [("name", "No such album"), ("id", "chelsea")])
    outside, _, _ = gallery.post("/api/album/cover", [("name", "Covers"), ("id", "rocket")])
    check("a cover of an album that does not exist, or a photo not in it: 404, nothing changed",
          missing == 404 and outside == 404 and covers_album()["cover"]["id"] == "chelsea", f"{missing} {outside}")

    # Unlike and undo: the photo comes back whole.
    before_unlike = {record["id"]: record for record in listing(likes, store)}
    status, _, _ = gallery.post("/api/unlike", [("id", "chelsea")])
    gone = "chelsea" not in {record["id"] for record in listing(likes, store)}
    status_undo, _, body = gallery.post("/api/undo", [("id", "chelsea")])
    back = {record["id"]: record for record in listing(likes, store)}.get("chelsea")
    with open(back["image"]["file"], "rb") if back else io.BytesIO() as handle:
        image_back = handle.read()
    with open(os.path.join(samples, "chelsea.jpg"), "rb") as handle:
        chelsea = handle.read()
    check("unlike, then undo: gone, then back in its place with its date, note, albums, cover, metadata and image",
          status == 200 and gone and status_undo == 200 and back is not None and back["note"] == before_unlike["chelsea"]["note"]
          and back["likedAt"] == before_unlike["chelsea"]["likedAt"]
          and [r["id"] for r in listing(likes, store)] == list(before_unlike)
          and back["albums"] == before_unlike["chelsea"]["albums"] and back["photo"] == before_unlike["chelsea"]["photo"] and image_back == chelsea
          and back.get("covers") == before_unlike["chelsea"].get("covers") == ["Covers"],
          f"{status} {gone} {status_undo} {body[:100]!r}")

    # The zip of a selection.
    status, headers, body = gallery.post("/download", [("id", "coffee"), ("id", HOSTILE_ID), ("id", "no-such-photo")])
    ok = status == 200 and headers.get("content-type") == "application/zip"
    names = []
    if ok:
        archive = zipfile.ZipFile(io.BytesIO(body))
        ok = archive.testzip() is None
        names = archive.namelist()
        ok = ok and len(names) == 3 and "index.html" in names and archive.read(names[0]) == coffee and archive.read(names[1]) == coffee
        sheet = archive.read("index.html").decode()
        ok = ok and "<img src=x" not in sheet and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in sheet and "<script>" not in sheet
    check("a zip of the checked photos: their JPEGs byte for byte and an escaped contact sheet", ok, f"{status} {names}")

    # The months of the listing and the ids of Select all, against `likes list`.
    listed = listing(likes, store)
    status, _, body = gallery.request("GET", "/api/months?utcOffset=0")
    months = json.loads(body) if status == 200 else []
    check("the months of the listing count every photo, newest month first, the first with no cursor",
          sum(month["count"] for month in months) == len(listed) and months and "after" not in months[0]
          and (months[0]["year"], months[0]["month"]) == tuple(map(int, listed[0]["likedAt"][:7].split("-"))), f"{status} {months}")
    status, _, body = gallery.request("GET", "/api/months?utcOffset=99999999")
    check("an offset past 18 hours is refused", status == 400, f"{status}")
    status, _, body = gallery.request("GET", "/api/ids")
    check("Select all's ids are the listing's, in its order", status == 200 and json.loads(body)["ids"] == [r["id"] for r in listed], f"{status}")

    # The slow client.
    slow.settimeout(15)
    answer = b""
    try:
        while True:
            chunk = slow.recv(4096)
            if not chunk:
                break
            answer += chunk
    except OSError:
        pass
    waited = time.time() - slow_started
    check("a request that does not arrive gets 408 and is closed", answer.startswith(b"HTTP/1.1 408 "), f"{answer[:40]!r} after {waited:.1f} s")

    # Idle and half-sent connections are closed within a few seconds, while others are served.
    idle = socket.create_connection(("127.0.0.1", gallery.port))
    half = socket.create_connection(("127.0.0.1", gallery.port))
    half.sendall(f"GET / HTTP/1.1\r\nHost: {gallery.host}\r\n".encode())
    started = time.time()
    closed = {}
    served = 0
    for connection in (idle, half):
        connection.setblocking(False)
    while time.time() - started < 12 and len(closed) < 2:
        status, _, _ = gallery.request("GET", "/api/photos")
        served += status == 200
        for name, connection in (("idle", idle), ("half-sent", half)):
            if name in closed:
                continue
            try:
                while True:
                    data = connection.recv(4096)
                    if not data:
                        closed[name] = time.time() - started
                        break
            except BlockingIOError:
                pass
        time.sleep(0.1)
    check("an idle and a half-sent connection are closed within a few seconds while others are served",
          len(closed) == 2 and max(closed.values()) < 6.5 and served >= 20, f"closed {closed}, {served} served")


if __name__ == "__main__":
    main()
