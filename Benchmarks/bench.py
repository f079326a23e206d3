#!/usr/bin/env python3
"""The benchmarks of BENCHMARKS.md: each figure is measured in one run beside its peer.

Peers: the raw floor (the same JPEG bytes written durably with no records) and SQLite (metadata
rows in a WAL database with synchronous=FULL beside the same image files), as photo apps do.
Usage: bench.py RELEASE_DIR WORKDIR
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

RELEASE, WORK = sys.argv[1], sys.argv[2]
LIKES = os.path.join(RELEASE, "likes")
BENCH = os.path.join(RELEASE, "likes-bench")
os.makedirs(WORK, exist_ok=True)
ENV = dict(os.environ, LIKES_DURABILITY="full")


def made_up_jpeg(seed, size):
    """A structurally complete baseline JPEG of `size` bytes whose scan depends on `seed`."""
    head = bytes([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]) + b"JFIF" + bytes([0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
    head += bytes([0xFF, 0xC0, 0x00, 0x11, 0x08, 0x0B, 0xB8, 0x0F, 0xA0, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x00, 0x03, 0x11, 0x00])
    head += bytes([0xFF, 0xDA, 0x00, 0x0C, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3F, 0x00])
    body = bytearray(os.urandom(size - len(head) - 2))
    body = body.replace(b"\xff", b"\x00")
    return head + bytes(body) + bytes([0xFF, 0xD9])


def run(command, **kwargs):
    """Runs a command once; returns (seconds, peak RSS in KiB, stdout)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, **kwargs)
    stdout, stderr = process.communicate()
    _, status, usage = os.wait4(process.pid, 0) if process.returncode is None else (0, 0, None)
    elapsed = time.perf_counter() - start
    if process.returncode not in (0,):
        raise SystemExit(f"{command} failed ({process.returncode}): {stderr.decode()[-500:]}")
    return elapsed, usage.ru_maxrss if usage else None, stdout


def peak_rss(command):
    """Peak RSS in KiB, by GNU time: a child of this (large) Python process would report the
    parent's size, since Linux carries the high-water mark across vfork and exec."""
    result = subprocess.run(["/usr/bin/time", "-f", "%M", *command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV, check=True)
    return int(result.stderr.decode().strip().splitlines()[-1])


def timed(command, repeat):
    """Median wall time over `repeat` runs (after one warm-up), and the peak RSS of one more."""
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, check=True)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        pid = os.posix_spawn(command[0], command, ENV, file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
        _, status = os.waitpid(pid, 0)
        times.append(time.perf_counter() - start)
        if status != 0:
            raise SystemExit(f"{command} failed with status {status}")
    return statistics.median(times), peak_rss(command)


def drop_caches():
    """Empties the page cache (root only), so that the next run reads its files from the disk."""
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as handle:
        handle.write("3\n")


def cold_pair(ours, peer, repeat):
    """Median wall times of `ours` and `peer`, each run after the page cache was emptied, the two
    alternating so that the disk's drift falls on both."""
    times = ([], [])
    for _ in range(repeat):
        for side, command in enumerate((ours, peer)):
            drop_caches()
            start = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, check=True)
            times[side].append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])


# The SQLite side runs in a child process (Benchmarks/sqlite_peer.py): this harness never loads
# SQLite's library nor holds a connection, which would keep part of the peer in the page cache
# through the cold rows.
PEER = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "sqlite_peer.py")]
FAMILY_NAMES = ["black", "white", "gray", "yellow", "orange", "red", "purple", "magenta", "green", "teal", "blue", "brown"]


results = {}


def report(name, text, **figures):
    results[name] = figures
    print(f"{name}: {text}", flush=True)


# Every timed write starts from a file system with nothing dirty: a flush (ours is syncfs on
# Linux) would otherwise also pay for what the setup wrote.
os.sync()

# 1. Durable like of a 200 KB JPEG against the raw floor, interleaved in one process.
directory = os.path.join(WORK, "w1")
shutil.rmtree(directory, ignore_errors=True)
os.makedirs(directory)
w1 = json.loads(run([BENCH, "like-vs-floor", directory, "200", str(200 * 1024)])[2])
report("1 durable like, 200 KB", f"like {w1['likeMedianMs']:.2f} ms, floor {w1['floorMedianMs']:.2f} ms, ratio {w1['ratioMedian']:.2f}x (target <= 1.3x)", **w1)

# 1f. The same on a FUSE file system, where a store is flushed file by file (syncfs reaches no
# FUSE server): bindfs, a FUSE passthrough that hands every fsync down to ext4 below it, as sshfs,
# gocryptfs or rclone hand theirs to their backends. The floor is written on the same mount.
if shutil.which("bindfs") and os.geteuid() == 0:
    below = os.path.join(WORK, "w1f-below")
    mount = os.path.join(WORK, "w1f")
    for folder in (below, mount):
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
    run(["bindfs", below, mount])
    try:
        os.sync()
        w1f = json.loads(run([BENCH, "like-vs-floor", mount, "200", str(200 * 1024)])[2])
        flush = json.loads(run([os.path.join(RELEASE, "likes"), "--store", os.path.join(mount, "store"), "stats", "--json"])[2])
        w1f["flush"] = flush["flush"]
        report("1f durable like on FUSE (bindfs), 200 KB", f"like {w1f['likeMedianMs']:.2f} ms, floor {w1f['floorMedianMs']:.2f} ms, ratio {w1f['ratioMedian']:.2f}x, flushed with {w1f['flush']}", **w1f)
    finally:
        subprocess.run(["fusermount3", "-u", mount], check=False)
else:
    print("1f skipped: needs bindfs (apt-get install bindfs) and root for the FUSE mount")

# 2. Import of 2,000 distinct 20 KB JPEGs into an empty store, against SQLite + image files.
photos = os.path.join(WORK, "w2-photos")
shutil.rmtree(photos, ignore_errors=True)
os.makedirs(photos)
for index in range(2000):
    with open(os.path.join(photos, f"photo{index:04d}.jpg"), "wb") as handle:
        handle.write(made_up_jpeg(index, 20 * 1024))
store = os.path.join(WORK, "w2-store")
shutil.rmtree(store, ignore_errors=True)
os.sync()
ours = run([LIKES, "--store", store, "import", photos])[0]
peer_dir = os.path.join(WORK, "w2-sqlite")
shutil.rmtree(peer_dir, ignore_errors=True)
os.makedirs(os.path.join(peer_dir, "images"))
os.sync()
peer = json.loads(run([*PEER, "import", photos, peer_dir])[2])["seconds"]
report("2 import 2,000 x 20 KB", f"likes {2000 / ours:.0f} photos/s, SQLite peer {2000 / peer:.0f} photos/s, throughput ratio {peer / ours:.2f} (target >= 1.0)",
       likesSeconds=ours, sqliteSeconds=peer, ratio=peer / ours)

# A store of 100,000 favorites (2 KB images), built with relaxed durability, and the same
# records in an indexed SQLite table.
big = os.path.join(WORK, "big")
if not os.path.exists(os.path.join(big, "likes.db")):
    shutil.rmtree(big, ignore_errors=True)
    os.makedirs(big)
    built = json.loads(run([BENCH, "build", os.path.join(big, "store"), "100000", "2048", os.path.join(big, "records.jsonl")])[2])
    run([*PEER, "build", big])
    print(f"built the 100,000 store in {built['seconds']:.1f} s", flush=True)
big_store = os.path.join(big, "store")

# 3. A cold process listing the newest 20 as JSON, against sqlite3 answering the same query.
ours, ours_peak = timed([LIKES, "--store", big_store, "list", "--limit", "20", "--json"], 30)
query = "SELECT json_group_array(json(record)) FROM (SELECT record FROM likes ORDER BY likedAt DESC LIMIT 20)"
peer, peer_peak = timed([shutil.which("sqlite3"), os.path.join(big, "likes.db"), query], 30)
report("3 cold list --limit 20 --json at 100k", f"likes {ours * 1000:.1f} ms ({ours_peak / 1024:.1f} MB peak), sqlite3 {peer * 1000:.1f} ms ({peer_peak / 1024:.1f} MB), ratio {ours / peer:.2f}x (target <= 1.5x, <= 30 MB)",
       likesMs=ours * 1000, sqliteMs=peer * 1000, ratio=ours / peer, likesPeakMB=ours_peak / 1024)


def page_of(where):
    return f"SELECT json_group_array(json(record)) FROM (SELECT record FROM likes {where} ORDER BY likedAt DESC LIMIT 20)"


# 8-9. Queries answered by the catalog, newest 20 as JSON, warm (median of 15) and with the page
# cache emptied before each run (median of 5), against sqlite3 on the same records: search by a
# LIKE scan of the record's JSON; colour family by the family column.
counts = dict.fromkeys(FAMILY_NAMES, 0)
counts.update(json.loads(run([*PEER, "families", big])[2]))
rare = min((name for name in counts if counts[name] >= 20), key=lambda name: counts[name])
common = max(counts, key=lambda name: counts[name])
queries = [
    ("8a search, one word matching none", ["--search", "zzz"], page_of("WHERE record LIKE '%zzz%'")),
    ("8b search, two words, the second matching none", ["--search", "photo zzz"], page_of("WHERE record LIKE '%photo%' AND record LIKE '%zzz%'")),
    ("8c search, two words, a few photos match", ["--search", "number 4242"], page_of("WHERE record LIKE '%number%' AND record LIKE '%4242%'")),
]
for label, name in (("9a colour family, the commonest", common), ("9b colour family, the rarest", rare)):
    queries.append((f"{label} ({name}, {counts[name]:,} photos)", ["--color", name], page_of(f"WHERE family = '{name}'")))
can_drop = os.geteuid() == 0
for label, arguments, query in queries:
    ours_command = [LIKES, "--store", big_store, "list", *arguments, "--limit", "20", "--json"]
    peer_command = [shutil.which("sqlite3"), os.path.join(big, "likes.db"), query]
    warm_ours, _ = timed(ours_command, 15)
    warm_peer, _ = timed(peer_command, 15)
    figures = dict(warmLikesMs=warm_ours * 1000, warmSqliteMs=warm_peer * 1000, warmRatio=warm_ours / warm_peer)
    text = f"warm likes {warm_ours * 1000:.1f} ms, sqlite3 {warm_peer * 1000:.1f} ms, ratio {warm_ours / warm_peer:.2f}x"
    if can_drop:
        cold_ours, cold_peer = cold_pair(ours_command, peer_command, 5)
        figures.update(coldLikesMs=cold_ours * 1000, coldSqliteMs=cold_peer * 1000, coldRatio=cold_ours / cold_peer)
        text += f"; cold likes {cold_ours * 1000:.1f} ms, sqlite3 {cold_peer * 1000:.1f} ms, ratio {cold_ours / cold_peer:.2f}x"
    report(label, text + " (target <= 2x)", **figures)
if not can_drop:
    print("cold runs skipped: emptying the page cache needs root")

# 10. The page after the photo at position 50,000, by its cursor, against SQLite's keyset query.
listing = json.loads(run([LIKES, "--store", big_store, "list", "--limit", "50000", "--json"])[2])
cursor, liked_at = listing[-1]["cursor"], listing[-1]["likedAt"]
ours, _ = timed([LIKES, "--store", big_store, "list", "--after", cursor, "--limit", "20", "--json"], 30)
peer, _ = timed([shutil.which("sqlite3"), os.path.join(big, "likes.db"), page_of(f"WHERE likedAt < '{liked_at}'")], 30)
offset, _ = timed([LIKES, "--store", big_store, "list", "--offset", "50000", "--limit", "20", "--json"], 10)
report("10 page at position 50,000 by cursor", f"likes {ours * 1000:.1f} ms, sqlite3 keyset {peer * 1000:.1f} ms, ratio {ours / peer:.2f}x (target <= 2x); by --offset {offset * 1000:.1f} ms",
       likesMs=ours * 1000, sqliteMs=peer * 1000, ratio=ours / peer, offsetMs=offset * 1000)

# 4. like + unlike at 100,000 against the same at 1,000, interleaved in four rounds of 50 pairs
# each, so that the disk's drift during the run falls on both sides alike.
small = os.path.join(WORK, "small-store")
shutil.rmtree(small, ignore_errors=True)
run([BENCH, "build", small, "1000", "2048"])
os.sync()
small_rounds, big_rounds = [], []
for _ in range(4):
    small_rounds.append(json.loads(run([BENCH, "like-unlike", small, "50"])[2])["pairMedianMs"])
    big_rounds.append(json.loads(run([BENCH, "like-unlike", big_store, "50"])[2])["pairMedianMs"])
at_small, at_big = statistics.median(small_rounds), statistics.median(big_rounds)
report("4 like+unlike, 100k vs 1k", f"{at_big:.2f} ms vs {at_small:.2f} ms, ratio {at_big / at_small:.2f}x (target <= 1.2x)",
       bigMs=at_big, smallMs=at_small, ratio=at_big / at_small)
run([LIKES, "--store", big_store, "purge"])  # the churn's journal lines, compacted

# 5. purge --dry-run at 100,000 against listing the store's files.
ours, _ = timed([LIKES, "--store", big_store, "purge", "--dry-run"], 5)
peer, _ = timed(["/bin/sh", "-c", f"find '{big_store}' -type f | wc -l"], 5)
report("5 purge --dry-run at 100k", f"likes {ours * 1000:.0f} ms, find | wc -l {peer * 1000:.0f} ms, ratio {ours / peer:.2f}x (target <= 2x)", likesMs=ours * 1000, findMs=peer * 1000, ratio=ours / peer)

# 7. Albums at 100,000 (20 albums of 500 photos): the album list, and one album's newest 20,
# each from a cold process, against sqlite3 answering the same from a membership table.
ours, ours_peak = timed([LIKES, "--store", big_store, "albums", "--json"], 10)
query = ("SELECT json_group_array(json_object('name', album, 'count', n, 'newest', newest)) FROM "
         "(SELECT album, count(*) AS n, max(likedAt) AS newest FROM members JOIN likes USING (id) GROUP BY album ORDER BY album)")
peer, _ = timed([shutil.which("sqlite3"), os.path.join(big, "likes.db"), query], 10)
report("7a albums at 100k", f"likes {ours * 1000:.1f} ms ({ours_peak / 1024:.1f} MB peak), sqlite3 {peer * 1000:.1f} ms, ratio {ours / peer:.2f}x (target <= 2x)",
       likesMs=ours * 1000, sqliteMs=peer * 1000, ratio=ours / peer, likesPeakMB=ours_peak / 1024)
ours, _ = timed([LIKES, "--store", big_store, "list", "--album", "Album 7", "--limit", "20", "--json"], 10)
query = ("SELECT json_group_array(json(record)) FROM (SELECT record FROM likes JOIN members USING (id) "
         "WHERE album = 'Album 7' ORDER BY likedAt DESC LIMIT 20)")
peer, _ = timed([shutil.which("sqlite3"), os.path.join(big, "likes.db"), query], 10)
report("7b list --album --limit 20 at 100k", f"likes {ours * 1000:.1f} ms, sqlite3 {peer * 1000:.1f} ms, ratio {ours / peer:.2f}x (report)",
       likesMs=ours * 1000, sqliteMs=peer * 1000, ratio=ours / peer)

# 6. Open + verify of 100,000 favorites.
ours, peak = timed([LIKES, "--store", big_store, "verify"], 1)
report("6 verify at 100k", f"{ours:.2f} s, {peak / 1024:.0f} MB peak (target <= 50 MB)", seconds=ours, peakMB=peak / 1024)

with open(os.path.join(WORK, "results.json"), "w") as handle:
    json.dump(results, handle, indent=2)
print(f"results in {os.path.join(WORK, 'results.json')}")
