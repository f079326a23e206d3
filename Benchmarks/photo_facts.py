#!/usr/bin/env python3
"""What reading a photo's facts costs (issue 50): the pixels' mean colour added to a like of a 12-
and a 24-megapixel photo (the same like with a source colour given, which skips it, as the peer),
and `likes import` of a person's photos with this build against an earlier one (no facts, no
colour), alternating.

Usage: photo_facts.py LIKES OLD_LIKES WORKDIR   (needs python3-pil; photos are mosaics of the
bundled samples, made by Tests/Tools/thumbnail_quality.py, and crops of them)
"""
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

from PIL import Image

LIKES, OLD, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
photos = os.path.join(WORK, "fact-photos")
if not os.path.exists(os.path.join(photos, "24mp-420.jpg")):
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "Tests/Tools/thumbnail_quality.py"), "make", photos], check=True)


def timed(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


results = {}
meta = os.path.join(WORK, "coloured.json")
with open(meta, "w") as handle:
    json.dump({"id": "x", "color": "#60544D"}, handle)
for name in ("12mp-420", "24mp-420", "12mp-progressive"):
    source = os.path.join(photos, name + ".jpg")
    store = os.path.join(WORK, "fact-store")
    shutil.rmtree(store, ignore_errors=True)
    measured, skipped = [], []
    for index in range(12):
        measured.append(timed([LIKES, "--store", store, "like", f"m{index}", "--image", source]))
        skipped.append(timed([LIKES, "--store", store, "like", f"s{index}", "--image", source, "--meta", meta]))
    figures = {"likeMs": statistics.median(measured[1:]) * 1000, "likeWithSourceColourMs": statistics.median(skipped[1:]) * 1000}
    figures["colourMs"] = figures["likeMs"] - figures["likeWithSourceColourMs"]
    results[f"colour {name}"] = figures
    print(f"colour of a {name} photo: a like {figures['likeMs']:.1f} ms, with a source colour {figures['likeWithSourceColourMs']:.1f} ms: "
          f"{figures['colourMs']:.1f} ms for the colour", flush=True)

# A person's photos: 2,000 crops of the mosaic at phone-screenshot sizes (about 640 px), and
# 60 of the 12-megapixel mosaics, each a distinct file.
people = os.path.join(WORK, "people-photos")
if not os.path.exists(people):
    os.makedirs(people)
    mosaic = Image.open(os.path.join(photos, "12mp-420.jpg")).convert("RGB")
    generator = random.Random(11)
    for index in range(2000):
        x, y = generator.randrange(0, 4000 - 960), generator.randrange(0, 3000 - 720)
        mosaic.crop((x, y, x + 960, y + 720)).resize((640, 480)).save(os.path.join(people, f"p{index:04d}.jpg"), quality=85)
big = os.path.join(WORK, "people-12mp")
if not os.path.exists(big):
    os.makedirs(big)
    data = open(os.path.join(photos, "12mp-420.jpg"), "rb").read()
    for index in range(60):
        # Distinct bytes, the same picture: a comment segment after SOI names the copy.
        comment = f"copy {index}".encode()
        with open(os.path.join(big, f"b{index:02d}.jpg"), "wb") as handle:
            handle.write(data[:2] + b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment + data[2:])
for label, folder, count in (("2,000 photos of 640x480", people, 2000), ("60 photos of 12 MP", big, 60)):
    ours, old = [], []
    for _ in range(3):
        for build, times in ((LIKES, ours), (OLD, old)):
            store = os.path.join(WORK, "import-store")
            shutil.rmtree(store, ignore_errors=True)
            os.sync()
            times.append(timed([build, "--store", store, "import", folder]))
    figures = {"likesSeconds": statistics.median(ours), "earlierSeconds": statistics.median(old)}
    figures["ratio"] = figures["likesSeconds"] / figures["earlierSeconds"]
    results[f"import {label}"] = figures
    print(f"import of {label}: this build {figures['likesSeconds']:.2f} s ({count / figures['likesSeconds']:.0f}/s), "
          f"the earlier one {figures['earlierSeconds']:.2f} s, ratio {figures['ratio']:.2f}x", flush=True)
with open(os.path.join(WORK, "photo_facts.json"), "w") as handle:
    json.dump(results, handle, indent=2)
