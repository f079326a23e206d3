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

Favorites: `GET /unsplash/users/USER/likes` lists LIKES photos (the 30 of user-likes.json, then
copies under new ids and image addresses), 30 a page, with X-Total; the user `nobody` does not
exist and `empty` has no likes. Flickr's `flickr.favorites.getPublicList` lists LIKES favorites of
7478087@N06 (user name `markustrois`; `10000000@N00` has none), `date_faved` going down, and
`getInfo`/`getSizes` answer for each of them from its entry.

The hourly limit, on demand: `POST /control?unsplash=N&flickr=M` leaves N (M) API requests before
Unsplash answers 403 with X-Ratelimit-Remaining 0 (Flickr: HTTP 429), each answer saying what is
left; `POST /control?fail_tracking=K` makes the next K download-tracking requests answer 500;
`POST /control?likes=N` sets LIKES (75 by default); `POST /control?image_delay=S` delays images.
"""
import http.server
import json
import os
import sys
import threading
from urllib.parse import parse_qs, urlsplit

FIXTURES, SAMPLES, LOG = sys.argv[1:4]
lock = threading.Lock()
control = {"unsplash": None, "flickr": None, "fail_tracking": 0, "likes": 75, "image_delay": 0.0}
FLICKR_USER = "7478087@N06"


def spend(source):
    """Takes one request from the source's budget: (allowed, remaining after it), or (True, None) without a limit."""
    with lock:
        left = control[source]
        if left is None:
            return True, None
        if left <= 0:
            return False, 0
        control[source] = left - 1
        return True, left - 1


def unsplash_likes(me):
    """The listing of LIKES photos: the recorded 30, then copies with ids and image addresses of their own."""
    base = json.loads(fixture("unsplash/user-likes.json"))
    photos = []
    for index in range(control["likes"]):
        photo = json.loads(json.dumps(base[index % len(base)]))
        if index >= len(base):
            old = photo["id"]
            new = ("c%03d" % index + old)[:11]
            photo["id"] = new
            for name in list(photo["links"]):
                photo["links"][name] = photo["links"][name].replace(old, new)
            for name in list(photo["urls"]):
                photo["urls"][name] = photo["urls"][name].split("?")[0] + "-c%d" % index
            photo["_replay"] = True
        photos.append(photo)
    text = json.dumps(photos)
    return json.loads(text.replace("https://images.unsplash.com/", me + "/images/unsplash/"))


def flickr_favorites(me):
    """The favorites of FLICKR_USER: the recorded 29, then copies with ids of their own, older each."""
    recorded = json.loads(fixture("flickr/favorites-getPublicList.json"))["photos"]["photo"]
    entries = []
    for index in range(control["likes"]):
        entry = json.loads(json.dumps(recorded[index % len(recorded)]))
        if index >= len(recorded):
            old = entry["id"]
            entry["id"] = str(int(old) + (index // len(recorded)) * 10**10)
            for key in [k for k in entry if k.startswith("url_")]:
                entry[key] = entry[key].replace(old, entry["id"])
            entry["date_faved"] = str(1700000000 - index * 60)
            entry["_replay"] = True
        entries.append(entry)
    text = json.dumps(entries)
    return json.loads(text.replace("https://live.staticflickr.com/", me + "/images/flickr/")
                      .replace("https://farm9.staticflickr.com/", me + "/images/flickr/"))


def flickr_info(entry):
    return {"photo": {"id": entry["id"], "license": str(entry.get("license", "0")),
                      "owner": {"nsid": entry["owner"], "username": entry.get("ownername", ""), "realname": ""},
                      "title": {"_content": entry.get("title", "")}, "description": entry.get("description", {"_content": ""}),
                      "urls": {"url": [{"type": "photopage", "_content": "https://www.flickr.com/photos/%s/%s/" % (entry["owner"], entry["id"])}]}},
            "stat": "ok"}


def flickr_sizes(entry):
    sizes = []
    for suffix, label in [("t", "Thumbnail"), ("s", "Small"), ("m", "Medium"), ("l", "Large")]:
        if "url_" + suffix in entry:
            sizes.append({"label": label, "width": entry.get("width_" + suffix, 100), "height": entry.get("height_" + suffix, 100),
                          "source": entry["url_" + suffix], "media": "photo"})
    return {"sizes": {"size": sizes}, "stat": "ok"}


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

    def do_POST(self):
        parts = urlsplit(self.path)
        query = parse_qs(parts.query, keep_blank_values=True)
        if parts.path != "/control":
            return self.answer(404, "not found", "text/plain")
        with lock:
            for name, values in query.items():
                if name in ("unsplash", "flickr"):
                    control[name] = None if values[0] == "" else int(values[0])
                elif name == "image_delay":
                    control[name] = float(values[0])
                elif name in control:
                    control[name] = int(values[0])
        return self.answer(200, json.dumps(control))

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

        if parts.path.startswith("/images/") and control["image_delay"]:
            import time
            time.sleep(control["image_delay"])
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
            allowed, remaining = spend("unsplash")
            limit_headers = {} if remaining is None else {"X-Ratelimit-Limit": "50", "X-Ratelimit-Remaining": str(remaining)}
            if not allowed:
                return self.answer(403, '{"errors":["Rate Limit Exceeded"]}', headers=limit_headers)
            if rest.startswith("/users/") and rest.endswith("/likes"):
                user = rest[len("/users/"):-len("/likes")]
                if user == "nobody":
                    return self.answer(404, '{"errors":["Couldn\'t find User"]}', headers=limit_headers)
                photos = [] if user == "empty" else unsplash_likes(me)
                page = int((query.get("page") or ["1"])[0])
                per_page = int((query.get("per_page") or ["10"])[0])
                chunk = photos[(page - 1) * per_page:page * per_page]
                headers = dict(limit_headers, **{"X-Total": str(len(photos)), "X-Per-Page": str(per_page)})
                return self.answer(200, json.dumps(chunk), headers=headers)
            if rest.endswith("/download"):
                with lock:
                    failing = control["fail_tracking"] > 0
                    if failing:
                        control["fail_tracking"] -= 1
                if failing:
                    return self.answer(500, '{"errors":["Internal error"]}', headers=limit_headers)
                return self.answer(200, '{"url":"' + me + '/images/unsplash/photo.jpg"}', headers=limit_headers)
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
            allowed, _ = spend("flickr")
            if not allowed:
                return self.answer(429, "Too Many Requests", "text/plain")
            method = (query.get("method") or [""])[0]
            photo_id = (query.get("photo_id") or [""])[0]
            if method == "flickr.people.findByUsername":
                if query.get("username") == ["markustrois"]:
                    return self.answer(200, fixture("flickr/people-findByUsername.json"))
                return self.answer(200, fixture("flickr/error-user-not-found.json"))
            if method == "flickr.favorites.getPublicList":
                user = (query.get("user_id") or [""])[0]
                if user not in (FLICKR_USER, "10000000@N00"):
                    return self.answer(200, fixture("flickr/error-user-not-found.json"))
                entries = flickr_favorites(me) if user == FLICKR_USER else []
                page = int((query.get("page") or ["1"])[0])
                per_page = int((query.get("per_page") or ["100"])[0])
                pages = max(1, (len(entries) + per_page - 1) // per_page)
                body = {"photos": {"page": page, "pages": pages, "perpage": per_page, "total": str(len(entries)),
                                   "photo": entries[(page - 1) * per_page:page * per_page]}, "stat": "ok"}
                return self.answer(200, json.dumps(body))
            if photo_id and photo_id != "8436466166" and method in ("flickr.photos.getInfo", "flickr.photos.getSizes"):
                found = [e for e in flickr_favorites(me) if e["id"] == photo_id]
                if found:
                    body = flickr_info(found[0]) if method == "flickr.photos.getInfo" else flickr_sizes(found[0])
                    return self.answer(200, json.dumps(body))
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
