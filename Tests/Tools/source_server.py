#!/usr/bin/env python3
"""A stand-in for Unsplash's and Flickr's APIs on 127.0.0.1, for the tests of `likes unsplash` and
`likes flickr`: it replays the real recorded answers of Tests/Fixtures (their image addresses
pointed at itself) and logs every request it gets.

    source_server.py FIXTURES SAMPLES LOG

Unsplash is under /unsplash, Flickr's REST endpoint is /flickr/rest, images (the sample photos)
under /images/NAME. Failures on demand: the search `ratelimited` gets a 403 with
X-Ratelimit-Remaining: 0, the key `badkey` is refused, the photo `missing` does not exist, the
photo `brokenimage` points at an image that is not there. Each request is appended to LOG as one
JSON line: {"method", "path", "query": {name: [values]}, "headers": {lowercase name: value}}.
It prints its port, and stops when its standard input closes.
"""
import http.server
import json
import os
import sys
import threading
from urllib.parse import parse_qs, urlsplit

FIXTURES, SAMPLES, LOG = sys.argv[1:4]
lock = threading.Lock()


def fixture(path):
    with open(os.path.join(FIXTURES, path), encoding="utf-8") as handle:
        return handle.read()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, content_type="application/json", headers=None):
        data = body if isinstance(body, bytes) else body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        parts = urlsplit(self.path)
        query = parse_qs(parts.query, keep_blank_values=True)
        with lock, open(LOG, "a") as log:
            log.write(json.dumps({"method": "GET", "path": parts.path, "query": query,
                                  "headers": {k.lower(): v for k, v in self.headers.items()}}) + "\n")
        me = f"http://127.0.0.1:{self.server.server_port}"

        def pointed(text):
            return (text.replace("https://images.unsplash.com/", me + "/images/unsplash/")
                    .replace("https://farm9.staticflickr.com/", me + "/images/flickr/")
                    .replace("https://live.staticflickr.com/", me + "/images/flickr/"))

        if parts.path.startswith("/images/"):
            name = {"unsplash": "coffee.jpg", "flickr": "rocket.jpg"}.get(parts.path.split("/")[2])
            if parts.path.startswith("/images/unsplash/profile"):
                name = "chelsea.jpg"
            if "missing" in parts.path or name is None:
                return self.answer(404, "not found", "text/plain")
            with open(os.path.join(SAMPLES, name), "rb") as handle:
                return self.answer(200, handle.read(), "image/jpeg")

        if parts.path.startswith("/unsplash/"):
            if self.headers.get("Authorization") == "Client-ID badkey":
                return self.answer(401, '{"errors":["OAuth error: The access token is invalid"]}')
            rest = parts.path[len("/unsplash"):]
            if rest == "/search/photos":
                if query.get("query") == ["ratelimited"]:
                    return self.answer(403, '{"errors":["Rate Limit Exceeded"]}', headers={"X-Ratelimit-Remaining": "0"})
                return self.answer(200, pointed(fixture("unsplash/search-photos.json")), headers={"X-Ratelimit-Remaining": "49"})
            if rest.endswith("/download"):
                return self.answer(200, '{"url":"' + me + '/images/unsplash/photo.jpg"}')
            if rest.startswith("/photos/"):
                photo_id = rest[len("/photos/"):]
                if photo_id == "missing":
                    return self.answer(404, '{"errors":["Couldn\'t find Photo"]}')
                photo = json.loads(pointed(fixture("unsplash/photo.json")))
                # The profile picture by its own name, so that it is told from the photo.
                for size in photo["user"]["profile_image"]:
                    photo["user"]["profile_image"][size] = me + "/images/unsplash/profile-" + size + ".jpg"
                if photo_id == "brokenimage":
                    photo["id"] = photo_id
                    photo["urls"]["regular"] = me + "/images/unsplash/missing.jpg"
                    photo["links"]["download_location"] = "https://api.unsplash.com/photos/brokenimage/download"
                elif photo_id != photo["id"]:
                    # A photo of the recorded search, as its own answer.
                    found = [r for r in json.loads(pointed(fixture("unsplash/search-photos.json")))["results"] if r["id"] == photo_id]
                    if not found:
                        return self.answer(404, '{"errors":["Couldn\'t find Photo"]}')
                    photo = found[0]
                    for size in photo["user"]["profile_image"]:
                        photo["user"]["profile_image"][size] = me + "/images/unsplash/profile-" + size + ".jpg"
                return self.answer(200, json.dumps(photo))
            return self.answer(404, '{"errors":["Not found"]}')

        if parts.path == "/flickr/rest":
            if query.get("api_key") == ["badkey"]:
                return self.answer(200, fixture("flickr/error-invalid-api-key.json"))
            method = (query.get("method") or [""])[0]
            photo_id = (query.get("photo_id") or [""])[0]
            if photo_id and photo_id != "8436466166":
                return self.answer(200, '{"stat":"fail","code":1,"message":"Photo \\"' + photo_id + '\\" not found (invalid ID)"}')
            body = {"flickr.photos.search": "flickr/search-photos.json", "flickr.photos.getInfo": "flickr/getInfo-8436466166.json",
                    "flickr.photos.getSizes": "flickr/getSizes-8436466166.json",
                    "flickr.photos.licenses.getInfo": "flickr/licenses-getInfo.json"}.get(method)
            if body is None:
                return self.answer(200, fixture("flickr/error-method-not-found.json"))
            return self.answer(200, pointed(fixture(body)))
        return self.answer(404, "not found", "text/plain")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_port, flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
server.shutdown()
