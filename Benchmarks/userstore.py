#!/usr/bin/env python3
"""Queries on stores built the way people build them, beside sqlite3 on an indexed table of the
same records (issues 37 and 54), at several collection sizes, and charts of cost against size and
against the changes made since the last like.

For each size N, three stores, each built through the `likes` binary as a user builds one:
  (a) "in use": ten `likes import` runs of N/10 JPEGs with an Unsplash photo object beside each (a
      description from a vocabulary, a colour, a photographer), then N/20 `likes note` commands and
      N/10 album memberships in 20 albums by `likes album add` of ten ids at a time, and nothing
      after: every note and album edit lies after the last like;
  (b) "in use, 50,000 more": (a) and then 50,000 more notes and album additions (three to one, on
      photos chosen at random), made by `likes-bench changes` in one process for speed (the journal
      lines are the ones `likes note` and `likes album add` write);
  (c) "restored": (a), then an export of one album, N/100 unlikes (that album's photos among them)
      and the export restored, which writes the journal anew, sorted: the store issue 37 measured.
The peer is the `sqlite3` command on a table of each store's records (its own `list --json`) with
an index on `likedAt` and the colour's family as a column (Benchmarks/sqlite_peer.py), and a
membership table for the albums. `--one-pass` measures the one-pass store of each size too
(`likes-bench build`).

Usage: userstore.py RELEASE_DIR WORKDIR [--one-pass] [SIZE ...]   (sizes default to 1000 10000 100000)
       userstore.py RELEASE_DIR WORKDIR --million [SIZE ...]
       userstore.py RELEASE_DIR WORKDIR --changes [SIZE]
       userstore.py RELEASE_DIR WORKDIR --cold-io [SIZE]
       userstore.py RELEASE_DIR WORKDIR --build-only [SIZE ...]
The second form measures flat cost up to a million photos on one-pass stores (a store of a
million built the user's way would take hours): the newest page, a search for a word every photo
has and for one none has, and one durable like (an image and its record) against sqlite3
inserting the record and the image (`readfile`) in one transaction; sizes default to 1000 10000
100000 1000000; it writes million.json and million-chart.txt. The third measures the newest page,
a colour page and a search page on the one-pass store of SIZE (default 10000) after 0, 1,000,
10,000 and 100,000 changes since its last like (`likes-bench changes`), each beside sqlite3 on the
same records; it writes changes.json and changes-chart.txt. The fourth builds stores (a), (b) and
(c) of each size and their tables (WORKDIR/user-SIZE-KEY/{store,likes.db,records.jsonl}), measures
nothing and stops: what Benchmarks/InProcess measures in one process.
Needs Pillow (python3-pil) for the one small JPEG the photos are made from; root for the cold
rows (the page cache emptied before each run) and for the warm rows' two states of `likes` in
the page cache (see `measure`); without root, one warm row each, in whatever state it is.
"""
import io
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time

from PIL import Image

MILLION = "--million" in sys.argv
COLD_IO = "--cold-io" in sys.argv
CHANGES = "--changes" in sys.argv
ONE_PASS = "--one-pass" in sys.argv
BUILD_ONLY = "--build-only" in sys.argv
ARGUMENTS = [argument for argument in sys.argv[1:] if argument not in ("--million", "--cold-io", "--changes", "--one-pass", "--build-only")]
RELEASE, WORK = ARGUMENTS[0], ARGUMENTS[1]
SIZES = [int(size) for size in ARGUMENTS[2:]] or (
    [1000, 10000, 100000, 1000000] if MILLION else [100000] if COLD_IO else [10000] if CHANGES else [1000, 10000, 100000])
MORE_CHANGES = 50000
LIKES = os.path.abspath(os.path.join(RELEASE, "likes"))
BENCH = os.path.abspath(os.path.join(RELEASE, "likes-bench"))
SQLITE = shutil.which("sqlite3")
PEER = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "sqlite_peer.py")]
ENV = {key: value for key, value in os.environ.items() if not key.startswith("LIKES_")}
CAN_DROP = os.geteuid() == 0
os.makedirs(WORK, exist_ok=True)

# Words of the descriptions: "sunset" in about a fifth of the photos (a common word), "lighthouse"
# in 1 % (a rare one), "zzz" in none.
COMMON, RARE, NONE = "sunset", "lighthouse", "zzz"
VOCABULARY = ("morning city street light window river mountain forest coffee table chair dog cat "
              "bridge road field flower garden beach wave cloud night lamp book market train").split()
FIRST = "Anna Ben Chloé Dmitri Emeka Fatima Goro Hana Ivan Júlia Kofi Lena Mateo Noor Olga Pablo".split()
LAST = "Smith Tanaka Müller García Okafor Ivanova Rossi Kim Nowak Silva Haddad Larsen".split()


def base_jpeg():
    """One small real JPEG (96x64, a gradient); each photo is it with a comment naming its number."""
    picture = Image.new("RGB", (96, 64))
    picture.putdata([(x * 2, y * 3, (x + y) % 256) for y in range(64) for x in range(96)])
    buffer = io.BytesIO()
    picture.save(buffer, "JPEG", quality=80)
    return buffer.getvalue()


BASE = base_jpeg()


def photo_bytes(number):
    comment = f"photo {number}".encode()
    return BASE[:2] + b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment + BASE[2:]


def metadata(number, rng):
    words = rng.sample(VOCABULARY, 4)
    if rng.random() < 0.2:
        words.insert(rng.randrange(5), COMMON)
    if number % 100 == 37:
        words.insert(rng.randrange(5), RARE)
    first, last = FIRST[rng.randrange(len(FIRST))], LAST[rng.randrange(len(LAST))]
    author = rng.randrange(2000)
    return {
        "id": f"u{number:07d}", "created_at": taken_at(number), "width": 96, "height": 64,
        "color": "#%06X" % rng.randrange(1 << 24), "description": " ".join(words).capitalize(),
        "alt_description": None, "urls": None,
        "links": {"html": f"https://unsplash.com/photos/u{number:07d}"},
        "user": {"name": f"{first} {last} {author}", "username": f"{first.lower()}{author}", "profile_image": None},
    }


def taken_at(number):
    """When photo `number` was taken, as its source says: a second of the ten years from 2014,
    scattered by a multiplicative hash so that the order taken is unlike the order liked (and no
    draw of the generator is spent: the stores are otherwise those issue 54 measured)."""
    seconds = (number * 2654435761) % (10 * 365 * 86400)
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1388534400 + seconds))


def likes(store, *arguments, check=True):
    result = subprocess.run([LIKES, "--store", store, *arguments], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    if check and result.returncode != 0:
        raise SystemExit(f"likes {' '.join(arguments[:3])} failed ({result.returncode}): {result.stderr.decode()[-400:]}")
    return result.stdout


def build_user_store(folder, size):
    """Store (a) of `size` photos, built as a user builds one; returns the seconds of each step."""
    rng = random.Random(size)
    store, steps = os.path.join(folder, "store"), {}
    start = time.perf_counter()
    for run_number in range(10):
        batch = os.path.join(folder, "batch")
        shutil.rmtree(batch, ignore_errors=True)
        os.makedirs(batch)
        for number in range(run_number * size // 10, (run_number + 1) * size // 10):
            with open(os.path.join(batch, f"u{number:07d}.jpg"), "wb") as handle:
                handle.write(photo_bytes(number))
            with open(os.path.join(batch, f"u{number:07d}.json"), "w") as handle:
                json.dump(metadata(number, rng), handle)
        likes(store, "import", batch)
        shutil.rmtree(batch)
    steps["import"] = time.perf_counter() - start
    ids = [f"u{number:07d}" for number in range(size)]
    start = time.perf_counter()
    for number in range(size // 20):
        words = rng.sample(VOCABULARY, 3) + ([COMMON] if number % 5 == 0 else [])
        likes(store, "note", rng.choice(ids), f"Note {number}: {' '.join(words)}")
    steps["notes"] = time.perf_counter() - start
    start = time.perf_counter()
    members = rng.sample(ids, size // 10)
    for offset in range(0, len(members), 10):
        likes(store, "album", "add", f"Album {offset // 10 % 20}", *members[offset:offset + 10])
    steps["albums"] = time.perf_counter() - start
    return steps


def copy_store(source, folder):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    shutil.copytree(os.path.join(source, "store"), os.path.join(folder, "store"), symlinks=True)
    # A derived file of the store it was copied from (another inode): never believed, written again.
    for name in ("likes.newest",):
        path = os.path.join(folder, "store", name)
        if os.path.exists(path):
            os.remove(path)


def more_changes(folder, count, seed):
    """Store (b): `count` notes and album additions after the last like."""
    start = time.perf_counter()
    subprocess.run([BENCH, "changes", os.path.join(folder, "store"), str(count), str(seed)], stdout=subprocess.DEVNULL, check=True, env=ENV)
    return {"changes": time.perf_counter() - start}


def restored(folder, size):
    """Store (c): an album exported, N/100 unlikes (that album's photos among them), the export restored."""
    rng = random.Random(size + 1)
    store = os.path.join(folder, "store")
    ids = [f"u{number:07d}" for number in range(size)]
    start = time.perf_counter()
    backup = os.path.join(folder, "backup")
    shutil.rmtree(backup, ignore_errors=True)
    likes(store, "export", backup, "--album", "Album 3")
    exported = json.loads(likes(store, "list", "--album", "Album 3", "--limit", str(size), "--json"))
    gone = [record["id"] for record in exported] + rng.sample(ids, max(1, size // 100 - len(exported)))
    for identifier in dict.fromkeys(gone):
        likes(store, "unlike", identifier, check=False)
    likes(store, "import", backup)
    shutil.rmtree(backup)
    return {"unlikes and restore": time.perf_counter() - start}


def peer_database(folder, store):
    """The store's records (its own `list --json`, without the cursors) in sqlite3's tables."""
    records = json.loads(likes(store, "list", "--limit", "10000000", "--json"))
    with open(os.path.join(folder, "records.jsonl"), "w") as handle:
        for record in records:
            record.pop("cursor", None)
            handle.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
    database = os.path.join(folder, "likes.db")
    if os.path.exists(database):
        os.remove(database)
    subprocess.run([*PEER, "build", folder], check=True)
    return len(records)


def spawn(command):
    start = time.perf_counter()
    pid = os.posix_spawn(command[0], command, ENV, file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise SystemExit(f"{command} failed with status {status}")
    return time.perf_counter() - start


def peak_mb(command):
    result = subprocess.run(["/usr/bin/time", "-f", "%M", *command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV, check=True)
    return int(result.stderr.decode().strip().splitlines()[-1]) / 1024


def warm_pair(ours, peer, repeat=15):
    """Medians of `repeat` runs of each, a new process each time, the two alternating."""
    spawn(ours), spawn(peer)
    times = ([], [])
    for _ in range(repeat):
        times[0].append(spawn(ours))
        times[1].append(spawn(peer))
    return statistics.median(times[0]), statistics.median(times[1])


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as handle:
        handle.write("3\n")


def cold_pair(ours, peer, repeat=5):
    times = ([], [])
    for _ in range(repeat):
        for side, command in enumerate((ours, peer)):
            drop_caches()
            times[side].append(spawn(command))
    return statistics.median(times[0]), statistics.median(times[1])


def page_of(where, join=""):
    return f"SELECT json_group_array(json(record)) FROM (SELECT record FROM likes {join} {where} ORDER BY likedAt DESC LIMIT 20)"


def queries(store, database, cursor, liked_at, family):
    """(name, our arguments, sqlite3's query, cold too?) of every query the issue names."""
    return [
        ("newest page", ["list", "--limit", "20", "--json"], page_of(""), True),
        ("newest page by date taken", ["list", "--by", "taken", "--limit", "20", "--json"],
         "SELECT json_group_array(json(record)) FROM (SELECT record FROM likes ORDER BY takenAt DESC LIMIT 20)", True),
        (f"search, a common word ({COMMON})", ["list", "--search", COMMON, "--limit", "20", "--json"], page_of(f"WHERE record LIKE '%{COMMON}%'"), True),
        (f"search, a rare word ({RARE}, 1 %)", ["list", "--search", RARE, "--limit", "20", "--json"], page_of(f"WHERE record LIKE '%{RARE}%'"), True),
        (f"search, no match ({NONE})", ["list", "--search", NONE, "--limit", "20", "--json"], page_of(f"WHERE record LIKE '%{NONE}%'"), True),
        (f"colour family ({family})", ["list", "--color", family, "--limit", "20", "--json"], page_of(f"WHERE family = '{family}'"), True),
        ("albums", ["albums", "--json"],
         "SELECT json_group_array(json_object('name', album, 'count', n, 'newest', newest)) FROM "
         "(SELECT album, count(*) AS n, max(likedAt) AS newest FROM members JOIN likes USING (id) GROUP BY album ORDER BY album)", False),
        ("album page (Album 7)", ["list", "--album", "Album 7", "--limit", "20", "--json"],
         page_of("WHERE album = 'Album 7'", "JOIN members USING (id)"), False),
        ("page after the middle, by cursor", ["list", "--after", cursor, "--limit", "20", "--json"], page_of(f"WHERE likedAt < '{liked_at}'"), False),
    ]


def installed_copy():
    """The `likes` measured, copied afresh as an install writes it (see `measure`)."""
    target = os.path.join(WORK, "installed", "likes")
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(LIKES, target + ".new")
    os.chmod(target + ".new", 0o755)
    os.replace(target + ".new", target)
    return target


def measure(label, store, folder, size):
    """Each query warm in two states of our executable, then cold.

    The page cache holds a file just written in large folios, and one read back by page faults
    (after a reboot, or here after the caches are emptied) in small ones, which cost more to map:
    a 17.5 MB `likes` runs a page of 20 about 0.35 ms slower in the second state. Each warm
    row is measured first on a fresh copy (`installed`, as after an install), then, the caches
    emptied, on the same copy read back (the main figures, as after a reboot); every cold row
    comes after, and leaves the second state again. sqlite3 is read back in both."""
    database = os.path.join(folder, "likes.db")
    listing = json.loads(likes(store, "list", "--offset", str(size // 2 - 1), "--limit", "1", "--json"))
    counts = json.loads(subprocess.run([*PEER, "families", folder], stdout=subprocess.PIPE, check=True).stdout)
    family = max(counts, key=lambda name: counts[name])
    plan = queries(store, database, listing[0]["cursor"], listing[0]["likedAt"], family)
    binary = installed_copy() if CAN_DROP else LIKES
    installed = {}
    if CAN_DROP:
        installed = {name: warm_pair([binary, "--store", store, *arguments], [SQLITE, database, query]) for name, arguments, query, _ in plan}
        drop_caches()
    rows = {}
    for name, arguments, query, cold in plan:
        ours, peer = [binary, "--store", store, *arguments], [SQLITE, database, query]
        warm = warm_pair(ours, peer)
        row = {"likesMs": warm[0] * 1000, "sqliteMs": warm[1] * 1000, "ratio": warm[0] / warm[1],
               "likesPeakMB": peak_mb(ours), "sqlitePeakMB": peak_mb(peer)}
        text = f"{warm[0] * 1000:.1f} vs {warm[1] * 1000:.1f} ms, {row['ratio']:.2f}x"
        if name in installed:
            ms = installed[name]
            row.update(installedLikesMs=ms[0] * 1000, installedSqliteMs=ms[1] * 1000, installedRatio=ms[0] / ms[1])
            text += f" (installed {ms[0] * 1000:.1f} vs {ms[1] * 1000:.1f} ms, {row['installedRatio']:.2f}x)"
        text += f", peak {row['likesPeakMB']:.1f} vs {row['sqlitePeakMB']:.1f} MB"
        if cold and CAN_DROP:
            cold_times = cold_pair(ours, peer)
            row.update(coldLikesMs=cold_times[0] * 1000, coldSqliteMs=cold_times[1] * 1000, coldRatio=cold_times[0] / cold_times[1])
            text += f"; cold {cold_times[0] * 1000:.1f} vs {cold_times[1] * 1000:.1f} ms, {row['coldRatio']:.2f}x"
        rows[name] = row
        print(f"  {label} {size:,}: {name}: {text}", flush=True)
    return rows


def chart(results, width=48, top=500):
    """Milliseconds of each query against the collection's size, ours beside sqlite3's, as bars
    on a logarithmic scale (0.5 ms to `top`) so that a flat cost shows as bars of one length."""
    low, high = math.log10(0.5), math.log10(top)
    ticks = [" "] * (width + 1)
    for value in [mark for mark in ("0.5", "1", "5", "10", "50", "100", "500", "1000", "5000") if float(mark) <= top]:
        place = round((math.log10(float(value)) - low) / (high - low) * width)
        place = min(place, width + 1 - len(value))
        ticks[place:place + len(value)] = list(value)
    lines = ["ms, log scale".ljust(21) + "".join(ticks), " " * 20 + "|" + "-" * width + "|"]
    for name in results["user"][str(SIZES[0])]:
        lines.append(name)
        for size in SIZES:
            row = results["user"][str(size)][name]
            for side, key, mark in (("likes  ", "likesMs", "#"), ("sqlite3", "sqliteMs", "=")):
                length = round((math.log10(max(row[key], 0.5)) - low) / (high - low) * width)
                lines.append(f"  {size:>9,} {side} |{mark * length}{' ' * (width - length)}| {row[key]:.1f}")
    return "\n".join(lines)


def one_pass_store(size):
    """The folder of the one-pass store of `size` (`likes-bench build`) and its peer database."""
    one_pass = os.path.join(WORK, f"one-pass-{size}")
    if not os.path.exists(os.path.join(one_pass, "likes.db")):
        shutil.rmtree(one_pass, ignore_errors=True)
        os.makedirs(one_pass)
        subprocess.run([BENCH, "build", os.path.join(one_pass, "store"), str(size), "2048"], stdout=subprocess.DEVNULL, check=True)
        peer_database(one_pass, os.path.join(one_pass, "store"))
    return one_pass


def like_pair(store, database, repeat=7):
    """Medians of `repeat` durable likes of a new photo, each beside sqlite3 inserting the same
    record and image in one transaction (after one of each not counted); taken back after."""
    image = os.path.join(WORK, "flat-like.jpg")
    with open(image, "wb") as handle:
        handle.write(photo_bytes(0))
    subprocess.run([SQLITE, database, "CREATE TABLE IF NOT EXISTS images (id TEXT PRIMARY KEY, jpeg BLOB NOT NULL)"], check=True)
    times = ([], [])
    for number in range(repeat + 1):
        identifier = f"flat{number:04d}"
        record = json.dumps({"id": identifier, "likedAt": "2030-01-01T00:00:00Z"})
        ours = [LIKES, "--store", store, "like", identifier, "--image", image]
        peer = [SQLITE, database, f"BEGIN; INSERT INTO likes VALUES ('{identifier}', '2030-01-01T00:00:00Z', NULL, '{record}'); "
                f"INSERT INTO images VALUES ('{identifier}', readfile('{image}')); COMMIT;"]
        for side, command in enumerate((ours, peer)):
            elapsed = spawn(command)
            if number > 0:
                times[side].append(elapsed)
    for number in range(repeat + 1):
        likes(store, "unlike", f"flat{number:04d}")
    subprocess.run([SQLITE, database, "DELETE FROM likes WHERE id LIKE 'flat%'; DELETE FROM images"], check=True)
    return statistics.median(times[0]), statistics.median(times[1])


def flat_cost():
    """The --million form: each size's one-pass store, the rows of the chart up to a million."""
    results = {}
    for size in SIZES:
        folder = one_pass_store(size)
        store, database = os.path.join(folder, "store"), os.path.join(folder, "likes.db")
        rows = {}
        for name, arguments, query in (
            ("newest page", ["list", "--limit", "20", "--json"], page_of("")),
            ("search, a word every photo has (benchmark)", ["list", "--search", "benchmark", "--limit", "20", "--json"],
             page_of("WHERE record LIKE '%benchmark%'")),
            (f"search, no match ({NONE})", ["list", "--search", NONE, "--limit", "20", "--json"], page_of(f"WHERE record LIKE '%{NONE}%'")),
        ):
            warm = warm_pair([LIKES, "--store", store, *arguments], [SQLITE, database, query])
            rows[name] = {"likesMs": warm[0] * 1000, "sqliteMs": warm[1] * 1000, "ratio": warm[0] / warm[1]}
        liked = like_pair(store, database)
        rows["one durable like"] = {"likesMs": liked[0] * 1000, "sqliteMs": liked[1] * 1000, "ratio": liked[0] / liked[1]}
        for name, row in rows.items():
            print(f"  one-pass {size:,}: {name}: {row['likesMs']:.1f} vs {row['sqliteMs']:.1f} ms, {row['ratio']:.2f}x", flush=True)
        results[str(size)] = rows
    with open(os.path.join(WORK, "million.json"), "w") as handle:
        json.dump(results, handle, indent=2)
    picture = chart({"user": results}, top=5000)
    with open(os.path.join(WORK, "million-chart.txt"), "w") as handle:
        handle.write(picture + "\n")
    print(picture)


def block_device(path):
    """The name of the disk that holds `path` in /proc/diskstats, and its queue in /sys."""
    device = os.stat(path).st_dev
    link = os.path.realpath(f"/sys/dev/block/{os.major(device)}:{os.minor(device)}")
    name = os.path.basename(link)
    queue = os.path.join(link, "queue") if os.path.isdir(os.path.join(link, "queue")) else os.path.join(os.path.dirname(link), "queue")
    return name, os.path.join(queue, "read_ahead_kb")


def disk_reads(name):
    """Reads completed and KB read so far on disk `name`."""
    with open("/proc/diskstats") as handle:
        for line in handle:
            fields = line.split()
            if fields[2] == name:
                return int(fields[3]), int(fields[5]) // 2
    raise SystemExit(f"no disk {name} in /proc/diskstats")


def executable_files(command):
    """The executable of `command` and, where it is linked dynamically, the loader's cache and
    the libraries it loads."""
    listing = subprocess.run(["ldd", command[0]], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    libraries = re.findall(r"(/\S+) \(0x", listing)
    return [command[0]] + (["/etc/ld.so.cache"] + libraries if libraries else [])


def cold_run(command, disk, warm_files=()):
    """One run of `command` after the page cache is emptied (but for `warm_files`, read in
    again): its reads from the disk, the KB they brought, and its time in ms."""
    drop_caches()
    for path in warm_files:
        with open(path, "rb") as handle:
            while handle.read(1 << 20):
                pass
    before = disk_reads(disk)
    elapsed = spawn(command)
    after = disk_reads(disk)
    return after[0] - before[0], after[1] - before[1], elapsed * 1000


def cold_io(size, repeat=5):
    """The --cold-io form (see the module's documentation)."""
    folder = os.path.join(WORK, f"user-{size}")
    store, database = os.path.join(folder, "store"), os.path.join(folder, "likes.db")
    disk, read_ahead = block_device(store)
    with open(read_ahead) as handle:
        usual = handle.read().strip()
    listing = json.loads(likes(store, "list", "--offset", str(size // 2 - 1), "--limit", "1", "--json"))
    counts = json.loads(subprocess.run([*PEER, "families", folder], stdout=subprocess.PIPE, check=True).stdout)
    plan = [("start (--version)", ["--version"], "", True)] + queries(store, database, listing[0]["cursor"], listing[0]["likedAt"],
                                                                    max(counts, key=lambda name: counts[name]))
    results = {"disk": disk, "readAheadKB": int(usual), "queries": {}}
    states = (("cold", usual, False), ("data cold", usual, True), ("cold at 128 KB read-ahead", "128", False))
    try:
        for name, arguments, query, cold in plan:
            if not cold:
                continue
            ours = [LIKES, *arguments] if query == "" else [LIKES, "--store", store, *arguments]
            peer = [SQLITE, "--version"] if query == "" else [SQLITE, database, query]
            row = {}
            for state, ahead, warm_executables in states:
                with open(read_ahead, "w") as handle:
                    handle.write(ahead + "\n")
                runs = ([], [])
                for _ in range(repeat):
                    for side, command in enumerate((ours, peer)):
                        runs[side].append(cold_run(command, disk, executable_files(command) if warm_executables else ()))
                row[state] = {side: {"reads": statistics.median(r[0] for r in taken), "KB": statistics.median(r[1] for r in taken),
                                     "ms": statistics.median(r[2] for r in taken)} for side, taken in zip(("likes", "sqlite3"), runs)}
                mine, theirs = row[state]["likes"], row[state]["sqlite3"]
                print(f"  {name}, {state}: {mine['reads']:.0f} reads, {mine['KB']:,.0f} KB, {mine['ms']:.1f} ms vs "
                      f"{theirs['reads']:.0f} reads, {theirs['KB']:,.0f} KB, {theirs['ms']:.1f} ms: {mine['ms'] / theirs['ms']:.2f}x", flush=True)
            results["queries"][name] = row
    finally:
        with open(read_ahead, "w") as handle:
            handle.write(usual + "\n")
    with open(os.path.join(WORK, "cold-io.json"), "w") as handle:
        json.dump(results, handle, indent=2)


def since_last_like(size, steps=(0, 1000, 10000, 100000)):
    """The --changes form: the one-pass store of `size`, then more and more changes after its last
    like; at each step the newest page, a colour page and a search page beside sqlite3."""
    source = one_pass_store(size)
    folder = os.path.join(WORK, f"changes-{size}")
    copy_store(source, folder)
    store = os.path.join(folder, "store")
    shutil.copyfile(os.path.join(source, "likes.db"), os.path.join(folder, "likes.db"))
    results, made = {}, 0
    for step in steps:
        if step > made:
            subprocess.run([BENCH, "changes", store, str(step - made), str(step)], stdout=subprocess.DEVNULL, check=True, env=ENV)
            made = step
            peer_database(folder, store)
        rows = {}
        for name, arguments, query in (
            ("newest page", ["list", "--limit", "20", "--json"], page_of("")),
            ("colour family (blue)", ["list", "--color", "blue", "--limit", "20", "--json"], page_of("WHERE family = 'blue'")),
            ("search, a word every photo has (benchmark)", ["list", "--search", "benchmark", "--limit", "20", "--json"],
             page_of("WHERE record LIKE '%benchmark%'")),
        ):
            warm = warm_pair([LIKES, "--store", store, *arguments], [SQLITE, os.path.join(folder, "likes.db"), query])
            rows[name] = {"likesMs": warm[0] * 1000, "sqliteMs": warm[1] * 1000, "ratio": warm[0] / warm[1]}
            print(f"  {size:,} photos, {step:,} changes since the last like: {name}: {warm[0] * 1000:.2f} vs {warm[1] * 1000:.2f} ms, "
                  f"{warm[0] / warm[1]:.2f}x", flush=True)
        results[str(step)] = rows
    with open(os.path.join(WORK, "changes.json"), "w") as handle:
        json.dump(results, handle, indent=2)
    global SIZES
    SIZES = list(steps)
    picture = chart({"user": results}, top=50)
    with open(os.path.join(WORK, "changes-chart.txt"), "w") as handle:
        handle.write(picture + "\n")
    print(picture)


if MILLION:
    flat_cost()
    sys.exit(0)
if CHANGES:
    since_last_like(SIZES[0])
    sys.exit(0)
if COLD_IO:
    if not CAN_DROP:
        raise SystemExit("--cold-io needs root: it empties the page cache and sets the disk's read-ahead")
    cold_io(SIZES[0])
    sys.exit(0)

STORES = (("a", "in use"), ("b", f"in use, {MORE_CHANGES:,} more"), ("c", "restored"))
results = {"user": {}, "inUseMore": {}, "restored": {}, "onePass": {}, "build": {}}
for size in SIZES:
    folders = {key: os.path.join(WORK, f"user-{size}-{key}") for key, _ in STORES}
    if not os.path.exists(os.path.join(folders["a"], "likes.db")):
        shutil.rmtree(folders["a"], ignore_errors=True)
        os.makedirs(folders["a"])
        steps = build_user_store(folders["a"], size)
        steps["photos"] = peer_database(folders["a"], os.path.join(folders["a"], "store"))
        results["build"][f"{size}-a"] = steps
        print(f"built store (a) of {size:,}: " + ", ".join(f"{k} {v:.1f}" for k, v in steps.items()), flush=True)
    for key, make in (("b", lambda folder: more_changes(folder, MORE_CHANGES, size)), ("c", lambda folder: restored(folder, size))):
        if not os.path.exists(os.path.join(folders[key], "likes.db")):
            copy_store(folders["a"], folders[key])
            steps = make(folders[key])
            steps["photos"] = peer_database(folders[key], os.path.join(folders[key], "store"))
            results["build"][f"{size}-{key}"] = steps
            print(f"built store ({key}) of {size:,}: " + ", ".join(f"{k} {v:.1f}" for k, v in steps.items()), flush=True)
    if BUILD_ONLY:
        continue
    for (key, label), part in zip(STORES, ("user", "inUseMore", "restored")):
        results[part][str(size)] = measure(f"({key}) {label}", os.path.join(folders[key], "store"), folders[key], size)
    if ONE_PASS:
        one_pass = one_pass_store(size)
        results["onePass"][str(size)] = measure("one-pass", os.path.join(one_pass, "store"), one_pass, size)
    folder = folders["a"]
    verify = [LIKES, "--store", os.path.join(folder, "store"), "verify"]
    purge = [LIKES, "--store", os.path.join(folder, "store"), "purge", "--dry-run"]
    find = ["/bin/sh", "-c", f"find '{os.path.join(folder, 'store')}' -type f | wc -l"]
    purge_times = warm_pair(purge, find, 5)
    results["user"][str(size)]["verify"] = {"seconds": spawn(verify), "peakMB": peak_mb(verify)}
    results["user"][str(size)]["purge --dry-run"] = {"likesMs": purge_times[0] * 1000, "findMs": purge_times[1] * 1000, "ratio": purge_times[0] / purge_times[1]}
    print(f"  (a) {size:,}: verify {results['user'][str(size)]['verify']}, purge --dry-run vs find: {purge_times[0] * 1000:.0f} vs {purge_times[1] * 1000:.0f} ms", flush=True)

if BUILD_ONLY:
    sys.exit(0)
with open(os.path.join(WORK, "userstore.json"), "w") as handle:
    json.dump(results, handle, indent=2)
picture = chart({"user": {size: {k: v for k, v in rows.items() if "sqliteMs" in v} for size, rows in results["user"].items()}})
with open(os.path.join(WORK, "chart.txt"), "w") as handle:
    handle.write(picture + "\n")
print(picture)
print(f"results in {os.path.join(WORK, 'userstore.json')}, the chart in {os.path.join(WORK, 'chart.txt')}")
