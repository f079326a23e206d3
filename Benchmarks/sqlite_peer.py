#!/usr/bin/env python3
"""The SQLite side of Benchmarks/bench.py, run as a child process so that the harness itself never
loads SQLite's library or keeps a database open (either would keep part of the peer in the page
cache through the cold rows).

  sqlite_peer.py import PHOTOS DIR   durable import of a folder of JPEGs: image files + WAL rows;
                                     prints {"seconds": …}
  sqlite_peer.py build BIG           BIG/likes.db from BIG/records.jsonl (what the queries read)
  sqlite_peer.py families BIG        photos per colour family, as JSON
"""
import json
import math
import os
import sqlite3
import sys
import time

def family(hex_colour):
    """The colour family of the README's rule: OKLab from sRGB (Björn Ottosson's), then
    lightness, chroma and hue against the bounds."""
    if not hex_colour:
        return None
    try:
        value = int(hex_colour.strip().lstrip("#"), 16)
    except ValueError:
        return None

    def linear(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = linear(value >> 16), linear(value >> 8 & 255), linear(value & 255)
    l = math.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b)
    m = math.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b)
    s = math.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b)
    lightness = 0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s
    a = 1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s
    bb = 0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s
    chroma = math.hypot(a, bb)
    hue = math.degrees(math.atan2(bb, a)) % 360
    if chroma < 0.035:
        return "black" if lightness < 0.30 else "white" if lightness > 0.90 else "gray"
    if lightness < 0.22:
        return "black"
    if 20 <= hue < 100 and chroma < 0.13 and lightness < 0.70:
        return "brown"
    for bound, name in ((45, "red"), (75, "orange"), (110, "yellow"), (175, "green"), (215, "teal"), (285, "blue"), (320, "purple")):
        if hue < bound:
            return name
    return "magenta" if lightness >= 0.55 else "purple"


def durable_write(data, directory, name):
    """The raw floor's way: temporary file, fsync, rename, fsync of the directory."""
    temporary = os.path.join(directory, "." + name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, data)
    os.fsync(fd)
    os.close(fd)
    os.rename(temporary, os.path.join(directory, name))
    directory_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    os.fsync(directory_fd)
    os.close(directory_fd)


def import_photos(photos, peer_dir):
    """What an app does for each liked photo: the image written durably, then its row committed
    in a WAL database with synchronous=FULL."""
    os.makedirs(os.path.join(peer_dir, "images"), exist_ok=True)
    start = time.perf_counter()
    database = sqlite3.connect(os.path.join(peer_dir, "likes.db"), isolation_level=None)
    database.execute("PRAGMA journal_mode=WAL")
    database.execute("PRAGMA synchronous=FULL")
    database.execute("CREATE TABLE likes (id TEXT PRIMARY KEY, likedAt TEXT NOT NULL, file TEXT, bytes INTEGER, record TEXT)")
    database.execute("CREATE INDEX likes_by_date ON likes (likedAt)")
    for name in sorted(os.listdir(photos)):
        with open(os.path.join(photos, name), "rb") as handle:
            data = handle.read()
        durable_write(data, os.path.join(peer_dir, "images"), name)
        liked_at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".000Z"
        database.execute("INSERT OR REPLACE INTO likes VALUES (?, ?, ?, ?, ?)", (name[:-4], liked_at, "images/" + name, len(data), json.dumps({"id": name[:-4]})))
    database.close()
    print(json.dumps({"seconds": time.perf_counter() - start}))


def build(big):
    """The 100,000 records in an indexed table, with the colour's family and the date taken as
    columns (worked out when the row is written, as an app that filters by family or orders by
    date taken would keep them), and a membership table for the albums."""
    database = sqlite3.connect(os.path.join(big, "likes.db"))
    database.execute("PRAGMA journal_mode=WAL")
    database.execute("CREATE TABLE likes (id TEXT PRIMARY KEY, likedAt TEXT NOT NULL, family TEXT, record TEXT NOT NULL, takenAt TEXT)")
    with open(os.path.join(big, "records.jsonl")) as handle:
        database.executemany("INSERT INTO likes VALUES (?, ?, ?, ?, ?)",
                             ((r["id"], r["likedAt"], family((r.get("photo") or {}).get("color")), line, r.get("takenAt"))
                              for line in handle for r in [json.loads(line)]))
    database.execute("CREATE INDEX likes_by_date ON likes (likedAt)")
    database.execute("CREATE INDEX likes_by_taken ON likes (takenAt)")
    database.execute("CREATE TABLE members (album TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (album, id))")
    with open(os.path.join(big, "records.jsonl")) as handle:
        database.executemany("INSERT INTO members VALUES (?, ?)", ((album, r["id"]) for line in handle for r in [json.loads(line)] for album in r.get("albums", [])))
    database.commit()
    database.close()


def families(big):
    database = sqlite3.connect(os.path.join(big, "likes.db"))
    counts = {name: count for name, count in database.execute("SELECT family, count(*) FROM likes GROUP BY family") if name}
    database.close()
    print(json.dumps(counts))


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    {"import": import_photos, "build": build, "families": families}[command](*arguments)
