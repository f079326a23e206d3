#!/usr/bin/env python3
"""The gallery's bytes (issue 50): a store of 300 photos of 3 to 24 megapixels, the grid scrolled to
its end in headless Chromium at 1280x800 with a device scale factor of 2 (and a phone's 390x844 at
3): the bytes of images the page fetched, against the originals' bytes and against the floor, JPEGs
of exactly each cell's device pixels (Pillow, quality 85). Run with this build and, for "before",
an earlier one (thumbnails and originals only).

Usage: gallery_bytes.py LIKES WORKDIR [EARLIER_LIKES]   (needs chromium, chromium-driver,
python3-selenium and python3-pil)
"""
import io
import json
import os
import random
import shutil
import subprocess
import sys
import time

from PIL import Image
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

LIKES, WORK = sys.argv[1], sys.argv[2]
EARLIER = sys.argv[3] if len(sys.argv) > 3 else None
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
photos = os.path.join(WORK, "gallery-photos")
if not os.path.exists(os.path.join(photos, "done")):
    shutil.rmtree(photos, ignore_errors=True)
    made = os.path.join(WORK, "gallery-mosaics")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "Tests/Tools/thumbnail_quality.py"), "make", made], check=True)
    mosaic = Image.open(os.path.join(made, "24mp-420.jpg")).convert("RGB")
    os.makedirs(photos)
    generator = random.Random(50)
    shapes = [(4, 3), (3, 4), (3, 2), (2, 3), (1, 1), (16, 9)]
    for index in range(300):
        megapixels = generator.uniform(3, 24)
        w, h = shapes[index % len(shapes)]
        width = int((megapixels * 1e6 * w / h) ** 0.5)
        height = int(width * h / w)
        # A crop of the mosaic, scaled to the size: every photo different.
        crop_w, crop_h = min(6000, width), min(4000, height)
        crop_w, crop_h = min(crop_w, int(crop_h * w / h)), min(crop_h, int(crop_w * h / w))
        x, y = generator.randrange(0, 6000 - crop_w + 1), generator.randrange(0, 4000 - crop_h + 1)
        mosaic.crop((x, y, x + crop_w, y + crop_h)).resize((width, height)).save(os.path.join(photos, f"g{index:03d}.jpg"), quality=90)
    open(os.path.join(photos, "done"), "w").close()


def measure(likes, label, width, height, scale):
    store = os.path.join(WORK, "gallery-store-" + label)
    if not os.path.exists(store):
        subprocess.run([likes, "--store", store, "--durability", "relaxed", "import", photos], check=True, stdout=subprocess.DEVNULL)
    records = {r["id"]: r for r in json.loads(subprocess.run([likes, "--store", store, "list", "--json"], capture_output=True, text=True,
                                                             check=True).stdout)}
    server = subprocess.Popen([likes, "--store", store, "serve"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    address = server.stdout.readline().strip()
    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}",
                     f"--user-data-dir={os.path.join(WORK, 'profile-' + label + str(scale))}"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": scale,
                                                                      "mobile": scale > 2})
        driver.execute_script("performance.setResourceTimingBufferSize(10000)")
        driver.get(address)
        time.sleep(2)
        driver.execute_script("performance.setResourceTimingBufferSize(10000)")
        # Scroll to the end a screen at a time, letting each screen's images arrive.
        last, still = -1, 0
        while still < 6:
            driver.execute_script("window.scrollBy(0, innerHeight)")
            time.sleep(0.6)
            count = driver.execute_script("return document.querySelectorAll('#grid figure').length")
            bottom = driver.execute_script("return innerHeight + scrollY >= document.body.scrollHeight - 2")
            still = still + 1 if bottom and count == last else 0
            last = count
        deadline = time.time() + 120
        while time.time() < deadline and driver.execute_script("return [...document.images].some((i) => !i.complete)"):
            time.sleep(0.5)
        fetched = driver.execute_script("""
            return performance.getEntriesByType('resource').filter((e) => /\\/(image|thumbnail|rendition)\\?/.test(e.name))
              .map((e) => [e.name, e.encodedBodySize])""")
        cells = driver.execute_script("""
            return [...document.querySelectorAll('#grid figure')].map((f) => {
              const b = f.querySelector('img').getBoundingClientRect();
              return [f.dataset.id, b.width * devicePixelRatio, b.height * devicePixelRatio];
            })""")
    finally:
        driver.quit()
        server.terminate()
        server.wait()
    sent = sum(size for _, size in fetched)
    originals = sum(records[photo_id]["image"]["bytes"] for photo_id, _, _ in cells)
    kinds = {}
    for name, size in fetched:
        kind = name.split("/")[3].split("?")[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    return {"cells": len(cells), "bytes": sent, "originalsBytes": originals, "requests": kinds}, cells, records


def floor_bytes(cells, records):
    """JPEGs of exactly each cell's device pixels (covering it, the photo's shape kept), quality 85."""
    total = 0
    for photo_id, width, height in cells:
        record = records[photo_id]
        image = Image.open(record["image"]["file"])
        ratio = max(width / image.width, height / image.height)
        size = (max(1, round(image.width * ratio)), max(1, round(image.height * ratio)))
        image.draft("RGB", size)
        buffer = io.BytesIO()
        image.convert("RGB").resize(size).save(buffer, "JPEG", quality=85)
        total += buffer.tell()
    return total


results = {}
for width, height, scale in ((1280, 800, 2), (390, 844, 3)):
    ours, cells, records = measure(LIKES, "this", width, height, scale)
    ours["floorBytes"] = floor_bytes(cells, records)
    results[f"{width}x{height}@{scale} this build"] = ours
    print(f"{width}x{height} at {scale}x, {ours['cells']} photos: fetched {ours['bytes'] / 1e6:.1f} MB {ours['requests']}, "
          f"originals {ours['originalsBytes'] / 1e6:.1f} MB, floor {ours['floorBytes'] / 1e6:.1f} MB: "
          f"{ours['bytes'] / ours['originalsBytes']:.3f} of the originals, {ours['bytes'] / ours['floorBytes']:.2f}x the floor", flush=True)
    if EARLIER:
        before, _, _ = measure(EARLIER, "earlier", width, height, scale)
        results[f"{width}x{height}@{scale} earlier build"] = before
        print(f"  the earlier build: fetched {before['bytes'] / 1e6:.1f} MB {before['requests']}", flush=True)
with open(os.path.join(WORK, "gallery_bytes.json"), "w") as handle:
    json.dump(results, handle, indent=2)
