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
import os
import sqlite3
import sys
import time

FAMILIES = [("black", 0x000000), ("white", 0xFFFFFF), ("gray", 0x808080), ("yellow", 0xFFD700), ("orange", 0xFF8C00), ("red", 0xDC143C),
            ("purple", 0x800080), ("magenta", 0xFF00FF), ("green", 0x228B22), ("teal", 0x008080), ("blue", 0x1E90FF), ("brown", 0x8B4513)]


def family(hex_colour):
    """SPEC §8: the nearest reference colour by squared RGB distance, the first of equals."""
    if not hex_colour:
        return None
    value = int(hex_colour.strip().lstrip("#"), 16)
    channels = lambda v: (v >> 16, v >> 8 & 255, v & 255)
    red, green, blue = channels(value)
    return min(FAMILIES, key=lambda f: sum((a - b) ** 2 for a, b in zip((red, green, blue), channels(f[1]))))[0]


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
    """The 100,000 records in an indexed table, with the colour's family as a column (worked out
    when the row is written, as an app that filters by family would keep it), and a membership
    table for the albums."""
    database = sqlite3.connect(os.path.join(big, "likes.db"))
    database.execute("PRAGMA journal_mode=WAL")
    database.execute("CREATE TABLE likes (id TEXT PRIMARY KEY, likedAt TEXT NOT NULL, family TEXT, record TEXT NOT NULL)")
    with open(os.path.join(big, "records.jsonl")) as handle:
        database.executemany("INSERT INTO likes VALUES (?, ?, ?, ?)",
                             ((r["id"], r["likedAt"], family((r.get("photo") or {}).get("color")), line) for line in handle for r in [json.loads(line)]))
    database.execute("CREATE INDEX likes_by_date ON likes (likedAt)")
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
