#!/usr/bin/env python3
"""The thumbnail tests' reference side, with Pillow (Debian's python3-pil).

  thumbnail_quality.py make DIR
      writes 12- and 24-megapixel photos, each a mosaic of the bundled sample photos at their own
      resolution, in every coding the thumbnails promise: 4:2:0, 4:2:2, 4:4:4, grayscale,
      progressive and with restart markers (the last two by libjpeg's cjpeg).
  thumbnail_quality.py compare QUALITY SOURCE THUMBNAIL [SOURCE THUMBNAIL ...]
      for each pair, one JSON line: the thumbnail's size as Pillow decodes it, its PSNR against
      Pillow's own decode of the source box-resized to that size, and the PSNR that libjpeg's
      scaled decode (djpeg -scale) box-resized to that size and re-encoded at QUALITY (cjpeg)
      achieves against the same.
"""
import io
import json
import math
import os
import subprocess
import sys

from PIL import Image, ImageChops, ImageFile, ImageStat

# A file cut short decodes as far as it goes, the rest gray, as libjpeg's djpeg does.
ImageFile.LOAD_TRUNCATED_IMAGES = True

SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Samples", "photos")


def psnr(a, b):
    difference = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    mse = sum(value * value for value in ImageStat.Stat(difference).rms) / 3
    return 100.0 if mse == 0 else 10 * math.log10(255 * 255 / mse)


def mosaic(width, height):
    """Tiles of the sample photos at their own size, row by row, so every part has real detail."""
    tiles = [Image.open(os.path.join(SAMPLES, name)).convert("RGB") for name in sorted(os.listdir(SAMPLES)) if name.endswith(".jpg")]
    canvas = Image.new("RGB", (width, height))
    x = y = row_height = index = 0
    while y < height:
        tile = tiles[index % len(tiles)]
        index += 1
        canvas.paste(tile, (x, y))
        row_height = max(row_height, tile.height)
        x += tile.width
        if x >= width:
            x, y, row_height = 0, y + row_height, 0
    return canvas


def cjpeg(image, path, options):
    ppm = io.BytesIO()
    image.save(ppm, "PPM")
    with open(path, "wb") as handle:
        subprocess.run(["cjpeg", *options], input=ppm.getvalue(), stdout=handle, check=True)


def make(directory):
    os.makedirs(directory, exist_ok=True)
    for megapixels, (width, height) in (("12mp", (4000, 3000)), ("24mp", (6000, 4000))):
        picture = mosaic(width, height)
        picture.save(os.path.join(directory, f"{megapixels}-420.jpg"), quality=90, subsampling=2)
        picture.save(os.path.join(directory, f"{megapixels}-422.jpg"), quality=90, subsampling=1)
        picture.save(os.path.join(directory, f"{megapixels}-444.jpg"), quality=90, subsampling=0)
        picture.convert("L").save(os.path.join(directory, f"{megapixels}-gray.jpg"), quality=90)
        cjpeg(picture, os.path.join(directory, f"{megapixels}-progressive.jpg"), ["-quality", "90", "-progressive"])
        cjpeg(picture, os.path.join(directory, f"{megapixels}-restart.jpg"), ["-quality", "90", "-restart", "1"])
        cjpeg(picture, os.path.join(directory, f"{megapixels}-progressive-restart-gray.jpg"), ["-quality", "90", "-progressive", "-grayscale", "-restart", "5B"])
        # A portrait photo: the long side is the height.
        if megapixels == "12mp":
            picture.transpose(Image.Transpose.ROTATE_90).save(os.path.join(directory, "12mp-portrait.jpg"), quality=90)


# Exif orientation to the transpose that shows the stored pixels upright (TIFF 6.0's table).
UPRIGHT = {
    2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE, 8: Image.Transpose.ROTATE_90,
}


def compare(quality, pairs):
    for source, thumbnail in pairs:
        ours = Image.open(thumbnail)
        ours.load()
        size = ours.size
        original = Image.open(source)
        # Thumbnails are upright: the reference is the photo turned as its Exif orientation says.
        turn = UPRIGHT.get(original.getexif().get(0x0112, 1))
        upright = original.transpose(turn) if turn is not None else original
        reference = upright.convert("RGB").resize(size, Image.Resampling.BOX)
        # libjpeg's own pipeline: djpeg at the smallest DCT scale that is no smaller than the
        # thumbnail, turned upright, box-resized to its size where that differs, re-encoded by cjpeg.
        scale = next(n for n in (1, 2, 4, 8) if -(-upright.width * n // 8) >= size[0] and -(-upright.height * n // 8) >= size[1])
        # Exit status 2: djpeg warned of damage and decoded what it could.
        run = subprocess.run(["djpeg", "-scale", f"{scale}/8", "-ppm", source], capture_output=True)
        if run.returncode not in (0, 2):
            raise SystemExit(f"djpeg failed on {source}: {run.stderr.decode()}")
        decoded = run.stdout
        scaled = Image.open(io.BytesIO(decoded))
        if turn is not None:
            scaled = scaled.transpose(turn)
        scaled = scaled.resize(size, Image.Resampling.BOX)
        ppm = io.BytesIO()
        scaled.save(ppm, "PPM" if scaled.mode == "RGB" else "PPM")
        encoded = subprocess.run(["cjpeg", "-quality", str(quality)] + (["-grayscale"] if scaled.mode == "L" else []),
                                 input=ppm.getvalue(), capture_output=True, check=True).stdout
        libjpeg = Image.open(io.BytesIO(encoded))
        print(json.dumps({
            "source": os.path.basename(source), "width": size[0], "height": size[1], "format": ours.format,
            "oursPSNR": psnr(ours, reference), "libjpegPSNR": psnr(libjpeg, reference),
        }), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        rest = sys.argv[3:]
        compare(int(sys.argv[2]), list(zip(rest[0::2], rest[1::2])))
