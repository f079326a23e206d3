#!/usr/bin/env python3
"""Renditions (issue 50): each rendition of a 12- and a 24-megapixel photo (baseline and
progressive, with Exif and an ICC profile, as cameras write them), made by `likes thumbnail
--size SIDE` (the store's rendition path: the codec's decode at the DCT scale at or above SIDE,
box resize, upright, baseline encode with the profile) against libjpeg-turbo making a JPEG of
the same size from the same file: `djpeg -scale M/8` (the smallest M that covers it), `pamscale`
to the size, `cjpeg`. Pairs alternate, median of 9 each; peak memory of ours from /usr/bin/time.

Usage: renditions.py LIKES WORKDIR   (needs Debian's libjpeg-turbo-progs, netpbm, python3-pil)
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

LIKES, WORK = sys.argv[1], sys.argv[2]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
photos = os.path.join(WORK, "rendition-photos")
shutil.rmtree(photos, ignore_errors=True)
subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "Tests/Tools/thumbnail_quality.py"), "make", photos], check=True)


def camera_segments():
    """An Exif block (orientation 1, make, model) and the ICC profile of one of Pillow's test
    photos, in two APP2 chunks: what a camera's file carries before its frame."""
    tiff = b"MM\x00\x2a\x00\x00\x00\x08" + (2).to_bytes(2, "big")
    tiff += b"\x01\x0f\x00\x02\x00\x00\x00\x04Cam\x00" + b"\x01\x12\x00\x03\x00\x00\x00\x01\x00\x01\x00\x00" + b"\x00\x00\x00\x00"
    app1 = b"Exif\x00\x00" + tiff
    segments = b"\xff\xe1" + (len(app1) + 2).to_bytes(2, "big") + app1
    with open(os.path.join(ROOT, "Tests/Fixtures/jpeg/pillow/icc_profile_big.jpg"), "rb") as handle:
        data = handle.read()
    # The fixture's own APP2 segments, as they are.
    index = 2
    while data[index] == 0xFF and data[index + 1] != 0xDA:
        length = int.from_bytes(data[index + 2:index + 4], "big")
        if data[index + 1] == 0xE2 and data[index + 4:index + 16] == b"ICC_PROFILE\x00":
            segments += data[index:index + 2 + length]
        index += 2 + length
    return segments


SEGMENTS = camera_segments()


def with_camera_segments(path):
    with open(path, "rb") as handle:
        data = handle.read()
    with open(path, "wb") as handle:
        handle.write(data[:2] + SEGMENTS + data[2:])


def ladder(width, height):
    """The rendition sides likes makes: twice the thumbnail's long side, doubled while shorter."""
    long = max(width, height)
    scale = next(m for m in (1, 2, 4, 8) if -(-long * m // 8) >= 256)
    thumbnail = min(-(-long * scale // 8), 512)
    sides, side = [], 2 * thumbnail
    while side < long:
        sides.append(side)
        side *= 2
    return sides


def timed(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def peak_kb(command):
    run = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, check=True, capture_output=True, text=True)
    return int(run.stderr.strip().splitlines()[-1])


results = {}
for name, size in (("12mp-420", (4000, 3000)), ("12mp-progressive", (4000, 3000)), ("24mp-420", (6000, 4000)),
                   ("24mp-progressive", (6000, 4000))):
    source = os.path.join(photos, name + ".jpg")
    with_camera_segments(source)
    for side in ladder(*size):
        short = round(min(size) * side / max(size))
        scale = next(m for m in (1, 2, 4, 8) if -(-max(size) * m // 8) >= side)
        peer_out = os.path.join(WORK, "peer.jpg")
        peer = ["/bin/sh", "-c", f"djpeg -scale {scale}/8 '{source}' | pamscale -width {side} -height {short} | cjpeg -quality 85 > '{peer_out}'"]
        ours = [LIKES, "thumbnail", source, "--output", os.path.join(WORK, "ours.jpg"), "--size", str(side)]
        timed(peer)
        timed(ours)
        ours_times, peer_times = [], []
        for _ in range(9):
            ours_times.append(timed(ours))
            peer_times.append(timed(peer))
        figures = {"likesMs": statistics.median(ours_times) * 1000, "libjpegMs": statistics.median(peer_times) * 1000,
                   "likesPeakMB": peak_kb(ours) / 1024}
        figures["ratio"] = figures["likesMs"] / figures["libjpegMs"]
        results[f"{name} {side}"] = figures
        print(f"rendition {name} long side {side}: likes {figures['likesMs']:.1f} ms (peak {figures['likesPeakMB']:.0f} MB), "
              f"djpeg -scale {scale}/8 | pamscale | cjpeg {figures['libjpegMs']:.1f} ms, ratio {figures['ratio']:.2f}x", flush=True)
with open(os.path.join(WORK, "renditions.json"), "w") as handle:
    json.dump(results, handle, indent=2)
