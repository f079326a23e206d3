"""`likes sync`, measured: the figures of BENCHMARKS.md's sync section.

    sync.py RELEASE_DIR WORK [--big N] [--small N]

RELEASE_DIR holds the release `likes` and `likes-bench`; WORK a few GB free. On a store of
`--small` photos (10,000) built by likes-bench: the first sync against `likes export` of the same
store, per photo. On a store of `--big` photos (100,000): the first sync against `likes export`,
each into a fresh ext4 file system (see FreshFilesystem; needs root), medians of alternating
pairs, and a second device's first sync from that folder (every photo merged) against `export`,
alternating into fresh file systems, then one killed half way and finished by the next sync; a quiet sync against
`likes list --limit 20 --json`, alternated 15 times, medians; one like, one note and one unlike,
each then synced: time, peak memory and what it wrote into the folder. Then churn: two devices
(the small store and a copy synced from the folder), 20 rounds of 100 unlikes and 100 new likes
of distinct JPEGs on the first with a sync on each side, and the folder's size against the
store's. Prints one line per figure and a JSON document at the end.
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time


def run(command, check=True):
    started = time.time()
    result = subprocess.run(["/usr/bin/time", "-f", "%M", *command], capture_output=True, text=True)
    elapsed = time.time() - started
    if check and result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.strip()[-400:]}")
    peak = int(result.stderr.strip().splitlines()[-1]) / 1024
    return elapsed, peak, result.stdout


class FreshFilesystem:
    """A new ext4 file system (a loop file of 4 GB under WORK, mounted at WORK/fresh) for one
    timed run that writes 100,000 files: on a file system where earlier runs deleted as many,
    ext4 scans the recently deleted inodes on every file created (`recently_deleted`, up to half
    of such a run in `perf`, and more for whichever run came first after a removal), so the
    first sync and `export` are each timed on one that never held a file. Needs root."""

    def __init__(self, work):
        self.image = os.path.join(work, "fresh.img")
        self.mount = os.path.join(work, "fresh")

    def __enter__(self):
        os.makedirs(self.mount, exist_ok=True)
        subprocess.run(["umount", self.mount], stderr=subprocess.DEVNULL)
        with open(self.image, "wb") as handle:
            handle.truncate(4 << 30)
        subprocess.run(["mkfs.ext4", "-q", "-F", self.image], check=True)
        subprocess.run(["mount", "-o", "loop", self.image, self.mount], check=True)
        subprocess.run(["sync"])
        return self.mount

    def __exit__(self, *_):
        subprocess.run(["umount", self.mount], check=True)
        os.remove(self.image)


def first_sync_against_export(likes, store, work, pairs):
    """The store's first sync into an empty folder against `likes export` of it, each on a fresh
    file system, alternating, the store's pages warm: medians of `pairs` pairs and the peaks."""
    with FreshFilesystem(work) as mount:
        run([likes, "--store", store, "export", os.path.join(mount, "warm")])
    synced, exported = [], []
    for _ in range(pairs):
        shutil.rmtree(os.path.join(store, "sync"), ignore_errors=True)
        with FreshFilesystem(work) as mount:
            os.makedirs(os.path.join(mount, "folder"))
            synced.append(run([likes, "--store", store, "sync", os.path.join(mount, "folder")])[:2])
        with FreshFilesystem(work) as mount:
            exported.append(run([likes, "--store", store, "export", os.path.join(mount, "export")])[:2])
    return (statistics.median(t for t, _ in synced), max(p for _, p in synced), statistics.median(t for t, _ in exported),
            max(p for _, p in exported))


def leaving_folder_as_it_was(folder):
    """Removes, once the block ends, the directory of each device that announced itself in the
    folder meanwhile: a device that joins writes its own, and a folder that gained one with each
    run would cost the next join a look into each (an image is looked for in every device's)."""
    class Guard:
        def __enter__(self):
            self.before = set(os.listdir(folder))

        def __exit__(self, *_):
            for name in set(os.listdir(folder)) - self.before:
                shutil.rmtree(os.path.join(folder, name))
    return Guard()


def join_against_export(likes, store, folder, work, pairs):
    """A new device's first sync from the folder (every photo merged) against `likes export` of
    the store the folder holds, each into a fresh file system, alternating: medians and peaks."""
    joined, exported = [], []
    for _ in range(pairs):
        with FreshFilesystem(work) as mount, leaving_folder_as_it_was(folder):
            joined.append(run([likes, "--store", os.path.join(mount, "joining"), "sync", folder])[:2])
        with FreshFilesystem(work) as mount:
            exported.append(run([likes, "--store", store, "export", os.path.join(mount, "export")])[:2])
    return (statistics.median(t for t, _ in joined), max(p for _, p in joined), statistics.median(t for t, _ in exported),
            max(p for _, p in exported))


def join_killed_and_finished(likes, folder, work, fraction, expected):
    """A join killed (SIGKILL) `fraction` of the way through its time, then the next sync: what
    that sync took and its peak, and whether the store then verifies and holds each of the
    `expected` photos once (its listing's ids, all distinct, and its count)."""
    with FreshFilesystem(work) as mount, leaving_folder_as_it_was(folder):
        joining = os.path.join(mount, "joining")
        whole, _, _ = run([likes, "--store", os.path.join(mount, "timed"), "sync", folder])
        shutil.rmtree(os.path.join(mount, "timed"))
        started = time.time()
        process = subprocess.Popen([likes, "--store", joining, "sync", folder], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            process.wait(timeout=whole * fraction)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        killed_after = time.time() - started
        finished, peak, _ = run([likes, "--store", joining, "sync", folder])
        ids = [record["id"] for record in json.loads(run([likes, "--store", joining, "list", "--json"])[2])]
        verified = run([likes, "--store", joining, "verify"], check=False)
        return {"killedAfter": killed_after, "finishSeconds": finished, "finishPeakMB": peak, "photos": len(ids),
                "distinct": len(set(ids)), "expected": expected, "verifies": "problem" not in verified[2]}


def size_of(path):
    total = 0
    for directory, _, names in os.walk(path):
        for name in names:
            total += os.lstat(os.path.join(directory, name)).st_size
    return total


def files_of(path):
    found = {}
    for directory, _, names in os.walk(path):
        for name in names:
            full = os.path.join(directory, name)
            found[os.path.relpath(full, path)] = os.lstat(full).st_size
    return found


def jpeg(path, seed):
    """A small distinct JPEG: what a new like brings."""
    from PIL import Image

    generator = random.Random(seed)
    image = Image.new("RGB", (96, 64))
    image.putdata([(generator.randrange(256), generator.randrange(256), generator.randrange(256)) for _ in range(96 * 64)])
    image.save(path, "JPEG", quality=80)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("release")
    parser.add_argument("work")
    parser.add_argument("--big", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=10_000)
    arguments = parser.parse_args()
    likes = os.path.join(arguments.release, "likes")
    bench = os.path.join(arguments.release, "likes-bench")
    work = arguments.work
    os.makedirs(work, exist_ok=True)
    figures = {}

    def report(name, text, **values):
        print(f"{name}: {text}", flush=True)
        figures[name] = values

    # The first sync of the small store, against an export of it.
    small = os.path.join(work, "small")
    shutil.rmtree(small, ignore_errors=True)
    os.makedirs(os.path.join(small, "folder"))
    run([bench, "build", os.path.join(small, "store"), str(arguments.small), "2048"])
    synced, synced_peak, exported, exported_peak = first_sync_against_export(likes, os.path.join(small, "store"), work, 3)
    # The folder the churn below starts from.
    shutil.rmtree(os.path.join(small, "store", "sync"), ignore_errors=True)
    run([likes, "--store", os.path.join(small, "store"), "sync", os.path.join(small, "folder")])
    report(
        f"first sync of {arguments.small:,} photos",
        f"{synced:.1f} s ({synced / arguments.small * 1000:.2f} ms a photo, {synced_peak:.0f} MB peak) against export's {exported:.1f} s "
        f"({exported / arguments.small * 1000:.2f} ms a photo, {exported_peak:.0f} MB): {synced / exported:.2f}x",
        seconds=synced, exportSeconds=exported, ratio=synced / exported, peakMB=synced_peak)

    # The big store: first sync, quiet sync against list, one like, note and unlike.
    big = os.path.join(work, "big-sync")
    store, folder = os.path.join(big, "store"), os.path.join(big, "folder")
    if not os.path.exists(os.path.join(big, "built")):
        shutil.rmtree(big, ignore_errors=True)
        os.makedirs(big)
        run([bench, "build", store, str(arguments.big), "2048"])
        open(os.path.join(big, "built"), "w").close()
    shutil.rmtree(folder, ignore_errors=True)
    first, first_peak, export_time, export_peak = first_sync_against_export(likes, store, work, 2)
    # The folder the runs below use, on WORK's own file system.
    shutil.rmtree(os.path.join(store, "sync"), ignore_errors=True)
    os.makedirs(folder)
    run([likes, "--store", store, "sync", folder])
    report(
        f"first sync of {arguments.big:,} photos",
        f"{first:.1f} s, {first_peak:.0f} MB peak, against export's {export_time:.1f} s, {export_peak:.0f} MB peak: {first / export_time:.2f}x",
        seconds=first, peakMB=first_peak, exportSeconds=export_time, exportPeakMB=export_peak, ratio=first / export_time)
    # A second device's first sync, which merges every photo from the folder, against export;
    # then one killed part way and finished by the next sync.
    joined, joined_peak, export_time, export_peak = join_against_export(likes, store, folder, work, 2)
    report(
        f"a new device's first sync from a folder of {arguments.big:,} photos",
        f"{joined:.1f} s, {joined_peak:.0f} MB peak, against export's {export_time:.1f} s, {export_peak:.0f} MB peak: "
        f"{joined / export_time:.2f}x (targets <= 64 MB, <= 2x)", seconds=joined, peakMB=joined_peak, exportSeconds=export_time,
        exportPeakMB=export_peak, ratio=joined / export_time)
    killed = join_killed_and_finished(likes, folder, work, 0.5, arguments.big)
    report(
        "a join killed half way, then the next sync",
        f"killed after {killed['killedAfter']:.1f} s; the next sync {killed['finishSeconds']:.1f} s, {killed['finishPeakMB']:.0f} MB peak; "
        f"{killed['photos']:,} photos listed ({killed['distinct']:,} distinct, of {killed['expected']:,}), "
        f"{'verifies' if killed['verifies'] else 'DOES NOT VERIFY'}", **killed)
    quiet, listed, quiet_peaks = [], [], []
    for _ in range(15):
        elapsed, peak, _ = run([likes, "--store", store, "sync", folder])
        quiet.append(elapsed)
        quiet_peaks.append(peak)
        listed.append(run([likes, "--store", store, "list", "--limit", "20", "--json"])[0])
    ratio = statistics.median(quiet) / statistics.median(listed)
    report(
        f"quiet sync at {arguments.big:,}",
        f"{statistics.median(quiet) * 1000:.1f} ms against list --limit 20's {statistics.median(listed) * 1000:.1f} ms: {ratio:.2f}x "
        f"(target <= 2x), {max(quiet_peaks):.1f} MB peak", ms=statistics.median(quiet) * 1000, listMs=statistics.median(listed) * 1000,
        ratio=ratio)
    photo = os.path.join(work, "one-like.jpg")
    jpeg(photo, 1)
    for name, command in (
        ("one like", ["like", "sync-bench-new", "--image", photo]),
        ("one note", ["note", "sync-bench-new", "a note"]),
        ("one unlike", ["unlike", "sync-bench-new"]),
    ):
        run([likes, "--store", store, *command])
        before = files_of(folder)
        elapsed, peak, _ = run([likes, "--store", store, "sync", folder])
        after = files_of(folder)
        written = {path: size for path, size in after.items() if before.get(path) != size}
        removed = sorted(os.path.basename(path) for path in before if path not in after)
        report(
            f"{name}, then a sync, at {arguments.big:,}",
            f"{elapsed * 1000:.0f} ms, {peak:.0f} MB peak; wrote {sum(written.values()):,} bytes in {len(written)} files "
            f"({', '.join(sorted(os.path.basename(path) for path in written))})" + (f", removed {', '.join(removed)}" if removed else ""),
            ms=elapsed * 1000, peakMB=peak, bytesWritten=sum(written.values()), files=sorted(written), removed=removed)

    # Churn between two devices: the folder's size against the store's.
    laptop = os.path.join(small, "store")
    phone = os.path.join(small, "phone")
    shutil.rmtree(phone, ignore_errors=True)
    run([likes, "--store", phone, "sync", os.path.join(small, "folder")])
    images = os.path.join(work, "churn")
    os.makedirs(images, exist_ok=True)
    generator = random.Random(34)
    liked = [f"bench-{n}" for n in range(arguments.small)]
    started = time.time()
    for round_number in range(20):
        for victim in generator.sample(liked, 100):
            run([likes, "--store", laptop, "unlike", victim])
            liked.remove(victim)
        for n in range(100):
            name = f"churn-{round_number}-{n}"
            path = os.path.join(images, name + ".jpg")
            jpeg(path, round_number * 1000 + n)
            run([likes, "--store", laptop, "like", name, "--image", path])
            os.remove(path)
            liked.append(name)
        for side in (laptop, phone, laptop):
            run([likes, "--store", side, "sync", os.path.join(small, "folder")])
    folder_bytes = size_of(os.path.join(small, "folder"))
    store_bytes = size_of(os.path.join(laptop, "images"))
    whole_store = size_of(laptop)
    kept = size_of(os.path.join(laptop, "sync")) + size_of(os.path.join(laptop, "thumbnails"))
    counts = json.loads(run([likes, "--store", phone, "stats", "--json"])[2])
    report(
        "the folder after churn",
        f"20 rounds of 100 unlikes and 100 likes ({time.time() - started:.0f} s): the folder {folder_bytes / 1e6:.1f} MB against the "
        f"store's images {store_bytes / 1e6:.1f} MB ({folder_bytes / store_bytes:.2f}x) and the whole store's {whole_store / 1e6:.1f} MB "
        f"({(whole_store - kept) / 1e6:.1f} MB without its thumbnails and sync state); the phone holds {counts['count']:,} photos",
        folderBytes=folder_bytes, storeImageBytes=store_bytes, storeBytes=whole_store, ratio=folder_bytes / store_bytes)
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
