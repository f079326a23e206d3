#!/usr/bin/env python3
"""The corpus that says where "the same photo" ends (issue 69), built from real photographs.

    corpus.py OUT [PHOTO.jpg ...]

Writes OUT/photos/*.jpg and OUT/corpus.json. Given photos, they are the sources instead of
scikit-image's (a corpus held out from the one the fingerprint's limit was chosen on: Pillow's
test photos in Tests/Fixtures/jpeg/pillow). Each source photograph (scikit-image's sample
images that ship in its wheel, and crops of the larger ones) becomes a group of files that are
the same picture, made the ways a collection gathers copies: other sizes down to a 256 px
thumbnail, JPEG qualities down to 50, progressive and baseline, the pixels converted to Display
P3's numbers (as a copy made for a P3 screen holds them; no profile is embedded in any file),
Exif added (the originals have none), the pixels turned with an orientation tag that turns them
back, a border of a few pixels cropped. Beside each group, files that are
another moment of the same scene: a subject moved (a part of the picture shifted, in the
photographs that have a subject), a pan of a few degrees (the window moved by 3 or 6 %), and the
two views of a stereo pair. corpus.json names
every file's group and kind; two files are a true pair when they share a group.

Needs Pillow and scikit-image (`pip install scikit-image`); writes only under OUT.
"""

import io
import json
import os
import sys

import numpy
from PIL import Image, ImageOps

import skimage.data

# Pictures without a subject to move: a page, text, textures.
TEXTURES = {"page", "text", "grass", "gravel", "brick", "moon"}

SOURCES = ["astronaut", "camera", "chelsea", "coffee", "rocket", "hubble_deep_field", "retina",
           "immunohistochemistry", "coins", "moon", "page", "clock", "horse", "grass", "gravel", "brick", "text"]


def rgb(array):
    image = Image.fromarray(array)
    return image.convert("RGB")


def jpeg(image, quality=92, progressive=False, exif=None, icc=None):
    out = io.BytesIO()
    arguments = {"quality": quality, "progressive": progressive}
    if exif is not None:
        arguments["exif"] = exif
    if icc is not None:
        arguments["icc_profile"] = icc
    image.save(out, "JPEG", **arguments)
    return out.getvalue()


def resized(image, long_side):
    scale = long_side / max(image.size)
    return image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))), Image.LANCZOS)


def to_display_p3(image):
    """The same colours in Display P3's numbers: sRGB decoded, to linear, to P3 primaries, encoded."""
    values = numpy.asarray(image, dtype=numpy.float64) / 255
    linear = numpy.where(values <= 0.04045, values / 12.92, ((values + 0.055) / 1.055) ** 2.4)
    # sRGB to Display P3, both D65 (the product of the two matrices through XYZ).
    matrix = numpy.array([[0.8225, 0.1774, 0.0000], [0.0332, 0.9669, 0.0000], [0.0171, 0.0724, 0.9108]])
    p3 = numpy.clip(linear @ matrix.T, 0, 1)
    encoded = numpy.where(p3 <= 0.0031308, p3 * 12.92, 1.055 * p3 ** (1 / 2.4) - 0.055)
    return Image.fromarray(numpy.round(encoded * 255).astype(numpy.uint8))


def exif_with(orientation=None, make=None):
    exif = Image.Exif()
    if orientation is not None:
        exif[0x0112] = orientation
    if make is not None:
        exif[0x010F] = make
        exif[0x0110] = "Model 1"
    return exif.tobytes()


# How pixels are stored for each orientation tag to show them upright (Exif's 1-8): 6 is shown
# turned a quarter clockwise, so it is stored turned a quarter the other way; 5 is its own inverse.
STORED_FOR = {6: Image.Transpose.ROTATE_90, 8: Image.Transpose.ROTATE_270, 3: Image.Transpose.ROTATE_180,
              5: Image.Transpose.TRANSPOSE}


def copies(image):
    """Every kind of copy of one picture: (kind, bytes)."""
    made = [("original", jpeg(image, 95))]
    for side in (1080, 512, 256):
        if max(image.size) > side:
            made.append((f"size {side}", jpeg(resized(image, side), 85)))
    for quality in (75, 60, 50):
        made.append((f"quality {quality}", jpeg(image, quality)))
    made.append(("progressive", jpeg(image, 85, progressive=True)))
    made.append(("display p3", jpeg(to_display_p3(image), 90)))
    made.append(("exif added", jpeg(image, 90, exif=exif_with(make="Camera Maker"))))
    for orientation in (6, 3, 8, 5):
        # Stored turned the other way, so that the tag turns it back upright.
        stored = image.transpose(STORED_FOR[orientation])
        made.append((f"orientation {orientation}", jpeg(stored, 90, exif=exif_with(orientation=orientation, make="Camera Maker"))))
    # A few pixels: half a per cent and one and a half of the short side (at least one pixel).
    for share in (0.005, 0.015):
        border = max(1, round(min(image.size) * share))
        made.append((f"cropped {border} px", jpeg(image.crop((border, border, image.width - border, image.height - border)), 90)))
    made.append(("cropped 1 px left", jpeg(image.crop((1, 0, image.width, image.height)), 90)))
    made.append(("thumbnail, quality 50", jpeg(resized(image, 256), 50)))
    return made


def moved_subject(image, fraction, shift, seed):
    """Another moment: a part of the picture (fraction of each side) moved by shift of the width,
    where that changes what is seen (the busiest of a few places tried, onto another)."""
    random = numpy.random.default_rng(seed)
    array = numpy.asarray(image).copy()
    height, width = array.shape[:2]
    size_y, size_x = max(4, int(height * fraction)), max(4, int(width * fraction))
    step = max(1, int(width * shift))
    best = None
    for _ in range(40):
        y = int(random.integers(0, height - size_y))
        x = int(random.integers(0, width - size_x - step))
        patch = array[y:y + size_y, x:x + size_x].astype(numpy.float64)
        under = array[y:y + size_y, x + step:x + step + size_x].astype(numpy.float64)
        change = numpy.abs(patch - under).mean()
        if best is None or change > best[0]:
            best = (change, y, x)
    _, y, x = best
    patch = array[y:y + size_y, x:x + size_x].copy()
    array[y:y + size_y, x + step:x + step + size_x] = patch
    return Image.fromarray(array)


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "photos"), exist_ok=True)
    files = []

    def write(name, data, group, kind, moment):
        path = os.path.join(out, "photos", name)
        with open(path, "wb") as handle:
            handle.write(data)
        files.append({"file": "photos/" + name, "group": group, "kind": kind, "moment": moment})

    pictures = []
    given = sys.argv[2:]
    sources = [(os.path.splitext(os.path.basename(path))[0], lambda path=path: numpy.asarray(ImageOps.exif_transpose(Image.open(path)).convert("RGB")))
               for path in given] or [(name, getattr(skimage.data, name)) for name in SOURCES]
    for name, load in sources:
        image = rgb(load())
        pictures.append((name, image))
        # The larger photographs give windows of their own, and their pans.
        if min(image.size) >= 500:
            side = int(min(image.size) * 0.7)
            pictures.append((name + "-window", image.crop((0, 0, side, side))))
    if not given:
        left, right, _ = skimage.data.stereo_motorcycle()
        pictures.append(("motorcycle-left", rgb(left)))
        pictures.append(("motorcycle-right", rgb(right)))

    for index, (name, image) in enumerate(pictures):
        for kind, data in copies(image):
            write(f"{name}--{kind.replace(' ', '-').replace(',', '')}.jpg", data, name, kind, name)
        # Other moments of the same scene, each its own group (and moment): a subject moved, in
        # the photographs that have one (not in a page of text or a texture, where moving a part
        # makes no other moment).
        moves = [] if name.split("-")[0] in TEXTURES else [(0.12, 0.06), (0.2, 0.1), (0.08, 0.05)]
        for number, (fraction, shift) in enumerate(moves):
            other = moved_subject(image, fraction, shift, seed=index * 10 + number)
            group = f"{name}~moved{number}"
            write(f"{group}.jpg", jpeg(other, 90), group, f"subject moved ({int(fraction * 100)} %, by {int(shift * 100)} %)", group)
            write(f"{group}--quality-60.jpg", jpeg(other, 60), group, "subject moved, quality 60", group)
        if name.endswith("-window"):
            base = dict(pictures)[name[:-len("-window")]]
            side = image.width
            for percent in (3, 6):
                step = int(side * percent / 100)
                group = f"{name}~pan{percent}"
                write(f"{group}.jpg", jpeg(base.crop((step, 0, step + side, side)), 90), group, f"pan {percent} %", group)
    with open(os.path.join(out, "corpus.json"), "w") as handle:
        json.dump({"files": files}, handle, indent=1)
    groups = {entry["group"] for entry in files}
    print(f"corpus: {len(files)} files in {len(groups)} groups under {out}")


if __name__ == "__main__":
    main()
