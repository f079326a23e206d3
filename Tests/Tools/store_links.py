"""Links and changed bytes planted in a store never lead a command or a page outside it.

    store_links.py --likes BIN --samples DIR

For each of a photo's files (its image, its photographer's picture, its thumbnail, its record),
planted two ways (a symbolic link to a file outside the store, whose bytes carry a marker; and,
for the images, the file's own bytes changed at the same size, carrying the marker), it runs every
command that reads the store (list, show, stats, verify, export, purge --dry-run, repair
--dry-run, albums, a note, an update, unlike, repair) and every route of `likes serve` that reads
a photo's files (the image, the thumbnail, the photo, the listing, the zip of a selection, unlike
and its undo), and checks: the marker is in no output, no HTTP body, no export and no new file of
the store; the file outside is unchanged; `verify` names the damage (but for a thumbnail, which is derived:
the first reader that names it makes it anew, and verify then passes); and after `repair` the store
verifies with the marker still nowhere but where it was planted.

Prints `ok   NAME` or `FAIL NAME: why` per check and `store-links: N passed, M failed`; exits 1
when anything failed.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gallery_http import Checks, Gallery  # noqa: E402

MARKER = b"OUTSIDE-THE-STORE-7f3a"


def jpeg_with_marker(template):
    """`template` (a JPEG) with a comment segment after SOI holding the marker: still a JPEG."""
    comment = MARKER + b" " * 64
    return template[:2] + b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment + template[2:]


def changed_in_place(original):
    """`original` with the marker written over bytes of its scan, two thirds in: the same size,
    still a JPEG by its markers, but not the bytes liked."""
    at = len(original) * 2 // 3
    return original[:at] + MARKER + original[at + len(MARKER):]


class Store:
    def __init__(self, likes, samples, top):
        self.likes, self.samples, self.top = likes, samples, top
        self.store = os.path.join(top, "store")

    def run(self, *args):
        return subprocess.run([self.likes, "--store", self.store, *args], capture_output=True, timeout=60)

    def listing(self):
        return {record["id"]: record for record in json.loads(self.run("list", "--json").stdout)}

    def fill(self):
        s = lambda name: os.path.join(self.samples, name)  # noqa: E731
        self.run("like", "p", "--image", s("rocket.jpg"), "--user-image", s("chelsea.jpg"), "--note", "the target", "--album", "Trip")
        self.run("like", "q", "--image", s("coffee.jpg"), "--album", "Trip")
        records = self.listing()
        return records["p"]

    def all_bytes(self, folder):
        """Every regular file's bytes below `folder`, links not followed."""
        found = []
        for root, _, files in os.walk(folder):
            for name in files:
                path = os.path.join(root, name)
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                with open(path, "rb") as handle:
                    found.append((path, handle.read()))
        return found


def plant(store, record, kind, way, outside_path):
    """Replaces the photo's `kind` file with a link to `outside_path`, or changes its bytes."""
    if kind == "images folder":
        # The whole folder a link to one outside holding the same names, marked.
        target = os.path.join(store.store, "images")
        os.mkdir(outside_path)
        for name in os.listdir(target):
            with open(os.path.join(target, name), "rb") as handle:
                original = handle.read()
            with open(os.path.join(outside_path, name), "wb") as handle:
                handle.write(jpeg_with_marker(original))
        shutil.rmtree(target)
        os.symlink(outside_path, target)
        return target
    if kind == "record":
        target = os.path.join(store.store, "records", "p.json")
    elif kind == "thumbnail":
        target = record["thumbnail"]["file"]
    else:
        target = record["image" if kind == "image" else "userImage"]["file"]
    with open(target, "rb") as handle:
        original = handle.read()
    if kind == "record":
        # A record of p, note marked: what anything that followed the link would show.
        data = json.loads(original)
        data["note"] = MARKER.decode()
        payload = json.dumps(data).encode()
    else:
        payload = changed_in_place(original) if way == "changed" else jpeg_with_marker(original)
    if way == "link":
        with open(outside_path, "wb") as handle:
            handle.write(payload)
        os.remove(target)
        os.symlink(outside_path, target)
    else:
        with open(target, "wb") as handle:
            handle.write(payload)
    return target


def check_case(checks, likes, samples, kind, way):
    top = tempfile.mkdtemp(prefix="likes-links-")
    name = f"{kind} {'linked outside the store' if way == 'link' else 'changed in place'}"
    leaks = []
    try:
        store = Store(likes, samples, top)
        record = store.fill()
        outside = os.path.join(top, "outside.bin")
        planted = plant(store, record, kind, way, outside)
        outside_before = (
            sorted((path, data) for path, data in store.all_bytes(outside)) if os.path.isdir(outside)
            else open(outside, "rb").read() if way == "link" else None)

        def look(label, data):
            if MARKER in data:
                leaks.append(label)

        for args in [["list", "--json"], ["list"], ["show", "p", "--json"], ["show", "p"], ["stats", "--json"], ["albums", "--json"],
                     ["purge", "--dry-run", "--json"], ["repair", "--dry-run", "--json"], ["list", "--search", "target", "--json"]]:
            result = store.run(*args)
            look(" ".join(args), result.stdout + result.stderr)
        verify = store.run("verify", "--json")
        look("verify", verify.stdout + verify.stderr)
        if kind == "thumbnail":
            # A thumbnail is derived: the first reader that names it (show) checks it and makes it
            # anew, never following the link, so verify then finds nothing wrong.
            checks.check(f"{name}: the first reader made it anew, and verify passes",
                         verify.returncode == 0 and not os.path.islink(planted) and os.path.isfile(planted), verify.stdout.decode()[:300])
        else:
            checks.check(f"{name}: verify names the damage", verify.returncode == 1, verify.stdout.decode()[:300])
        export = os.path.join(top, "export")
        result = store.run("export", export, "--json")
        look("export", result.stdout + result.stderr)
        for path, data in store.all_bytes(export) if os.path.isdir(export) else []:
            look(f"export file {os.path.basename(path)}", data)
        if kind in ("image", "userImage", "record", "images folder"):
            checks.check(f"{name}: export leaves the photo out and says so (exit 1)", result.returncode == 1, result.stderr.decode()[:300])

        gallery = Gallery(likes, store.store)
        try:
            for path in ["/image?id=p", "/thumbnail?id=p", "/api/photo?id=p", "/api/photos", "/api/albums", "/image?id=q"]:
                status, _, body = gallery.request("GET", path)
                look(f"GET {path} ({status})", body)
            status, _, body = gallery.request("GET", "/image?id=p", headers={"Range": "bytes=0-99999"})
            look(f"GET /image?id=p with a range ({status})", body)
            status, _, body = gallery.post("/download", [("id", "p"), ("id", "q")])
            look(f"POST /download ({status})", body)
            if kind == "image":
                checks.check(f"{name}: the zip of a selection holding it is refused", status == 409, f"{status} {body[:200]!r}")
            status, _, body = gallery.post("/api/unlike", [("id", "p")])
            look(f"POST /api/unlike ({status})", body)
            if kind in ("image", "userImage"):
                checks.check(f"{name}: the gallery does not unlike what it could not bring back", status == 409, f"{status} {body[:200]!r}")
            status, _, body = gallery.post("/api/undo", [("id", "p")])
            look(f"POST /api/undo ({status})", body)
        finally:
            gallery.stop()
        for path, data in store.all_bytes(store.store):
            if path != planted:
                look(f"the store's file {os.path.relpath(path, store.store)}", data)

        # Commands that change the store: an update, a note, the repair; then the store verifies.
        for args in [["note", "q", "still here"], ["like", "q", "--image", os.path.join(samples, "retina.jpg")], ["repair", "--json"]]:
            result = store.run(*args)
            look(" ".join(args), result.stdout + result.stderr)
        after = store.run("verify", "--json")
        checks.check(f"{name}: after repair the store verifies", after.returncode == 0, after.stdout.decode()[:300])
        for path, data in store.all_bytes(store.store):
            if MARKER in data and not (way == "changed" and "/damaged/" in path):
                leaks.append(f"after repair, the store's file {os.path.relpath(path, store.store)}")
        if way == "link":
            now = sorted(store.all_bytes(outside)) if os.path.isdir(outside) else open(outside, "rb").read()
            checks.check(f"{name}: what is outside is unchanged", now == outside_before)
        checks.check(f"{name}: its bytes reached no output, page, zip, export or store file", not leaks, f"{leaks[:6]}")
    finally:
        shutil.rmtree(top, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--likes", required=True)
    parser.add_argument("--samples", required=True)
    arguments = parser.parse_args()
    likes = os.path.abspath(arguments.likes)
    samples = os.path.abspath(arguments.samples)
    checks = Checks()
    for kind in ["image", "userImage", "thumbnail", "record", "images folder"]:
        for way in ["link", "changed"] if kind in ("image", "userImage") else ["link"]:
            check_case(checks, likes, samples, kind, way)
    print(f"store-links: {checks.passed} passed, {checks.failed} failed")
    sys.exit(1 if checks.failed else 0)


if __name__ == "__main__":
    main()
