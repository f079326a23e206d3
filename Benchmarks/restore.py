#!/usr/bin/env python3
"""Restore (issue 20): `likes import` of an export of 10,000 photos into an empty store, against
`likes import` of the same 10,000 JPEGs as plain files into an empty store, both durable, in the
same run; each twice, alternating, and the faster of each kept.

The photos are the bundled chelsea.jpg (27 KB, 451x300, a real JPEG, so both make or take a
thumbnail) with a comment segment naming its number, so that each is distinct.

Usage: restore.py LIKES WORKDIR   (about 1.5 GB free)
"""
import json
import os
import shutil
import subprocess
import sys
import time

LIKES, WORK = sys.argv[1], sys.argv[2]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
COUNT = 10_000
ENV = dict(os.environ, LIKES_DURABILITY="full")
os.makedirs(WORK, exist_ok=True)

with open(os.path.join(ROOT, "Samples/photos/chelsea.jpg"), "rb") as handle:
    original = handle.read()
photos = os.path.join(WORK, "restore-photos")
shutil.rmtree(photos, ignore_errors=True)
os.makedirs(photos)
for index in range(COUNT):
    comment = f"likes benchmark photo {index}".encode()
    segment = bytes([0xFF, 0xFE, (len(comment) + 2) >> 8, (len(comment) + 2) & 0xFF]) + comment
    with open(os.path.join(photos, f"p{index:05d}.jpg"), "wb") as handle:
        handle.write(original[:2] + segment + original[2:])


def timed(*arguments):
    os.sync()
    start = time.perf_counter()
    subprocess.run([LIKES, *arguments], check=True, stdout=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - start


source = os.path.join(WORK, "restore-source")
export = os.path.join(WORK, "restore-export")
imports, restores = [], []
for round_number in range(2):
    shutil.rmtree(source, ignore_errors=True)
    imports.append(timed("--store", source, "import", photos))
    if round_number == 0:
        shutil.rmtree(export, ignore_errors=True)
        timed("--store", source, "export", export)
    target = os.path.join(WORK, "restore-target")
    shutil.rmtree(target, ignore_errors=True)
    restores.append(timed("--store", target, "import", export))
    count = json.loads(subprocess.run([LIKES, "--store", target, "stats", "--json"], check=True, capture_output=True, env=ENV).stdout)["count"]
    if count != COUNT:
        raise SystemExit(f"the restore holds {count} photos, not {COUNT}")
    print(f"round {round_number + 1}: import {imports[-1]:.2f} s, restore {restores[-1]:.2f} s", flush=True)

best_import, best_restore = min(imports), min(restores)
result = {
    "photos": COUNT,
    "importSeconds": best_import,
    "restoreSeconds": best_restore,
    "importMsPerPhoto": 1000 * best_import / COUNT,
    "restoreMsPerPhoto": 1000 * best_restore / COUNT,
    "ratio": best_restore / best_import,
}
print(
    f"20 restore of 10,000 x 27 KB: restore {result['restoreMsPerPhoto']:.3f} ms/photo, import {result['importMsPerPhoto']:.3f} ms/photo, "
    f"ratio {result['ratio']:.2f} (target <= 1.0)"
)
with open(os.path.join(WORK, "restore.json"), "w") as handle:
    json.dump(result, handle, indent=1)
