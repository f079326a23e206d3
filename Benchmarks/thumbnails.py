#!/usr/bin/env python3
"""Thumbnails (issue 16): `likes thumbnail` of 12- and 24-megapixel photos, baseline and
progressive, against libjpeg-turbo's `djpeg -scale 1/8 | cjpeg`, alternating, median of 15 each.

Usage: thumbnails.py LIKES WORKDIR   (needs Debian's libjpeg-turbo-progs and python3-pil; the photos
are made by Tests/Tools/thumbnail_quality.py, mosaics of the bundled sample photos)
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

from PIL import Image

LIKES, WORK = sys.argv[1], sys.argv[2]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
photos = os.path.join(WORK, "thumbnail-photos")
shutil.rmtree(photos, ignore_errors=True)
subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "Tests/Tools/thumbnail_quality.py"), "make", photos], check=True)


def timed(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


results = {}
for name in ("12mp-420", "12mp-progressive", "24mp-420", "24mp-progressive"):
    source = os.path.join(photos, name + ".jpg")
    peer_command = ["/bin/sh", "-c", f"djpeg -scale 1/8 '{source}' | cjpeg > '{os.path.join(WORK, 'peer.jpg')}'"]
    timed(peer_command)
    # The same size as the peer's (its 1/8 decode): `--size N` gives a long side of exactly N,
    # and a default of 512 would make ours decode at 1/4 and shrink where the peer stops at 1/8.
    with Image.open(os.path.join(WORK, "peer.jpg")) as made:
        long_side = max(made.size)
    ours_command = [LIKES, "thumbnail", source, "--output", os.path.join(WORK, "ours.jpg"), "--size", str(long_side)]
    timed(ours_command)
    ours, peer = [], []
    for _ in range(15):
        ours.append(timed(ours_command))
        peer.append(timed(peer_command))
    figures = {"likesMs": statistics.median(ours) * 1000, "djpegCjpegMs": statistics.median(peer) * 1000,
               "bytes": os.path.getsize(source)}
    figures["ratio"] = figures["likesMs"] / figures["djpegCjpegMs"]
    results[name] = figures
    print(f"11 likes thumbnail {name} ({figures['bytes'] / 1e6:.1f} MB): likes {figures['likesMs']:.1f} ms, "
          f"djpeg -scale 1/8 | cjpeg {figures['djpegCjpegMs']:.1f} ms, ratio {figures['ratio']:.2f}x (target <= 1x for baseline)", flush=True)
with open(os.path.join(WORK, "thumbnails.json"), "w") as handle:
    json.dump(results, handle, indent=2)
