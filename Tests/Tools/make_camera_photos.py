"""Writes Tests/Fixtures/jpeg/camera/: photos as phones and cameras leave them, from a real one.

Each of the eight Exif orientations, baseline and progressive: the stored pixels are the sample
photo turned and mirrored so that the orientation tag shows it upright again, as a camera held
on its side writes them. Half of them carry an sRGB ICC profile, half the camera's facts (make,
model, lens, focal length, f-number, exposure, ISO, the date taken with its offset); two small
photographer pictures carry orientations of their own. The files are committed; this script is
how they were made (Debian's python3-pil), run once:

    /usr/bin/python3 Tests/Tools/make_camera_photos.py Samples/photos/rocket.jpg Tests/Fixtures/jpeg/camera
"""

import os
import struct
import sys

from PIL import Image, ImageCms

# What turns an upright picture into the pixels a camera stores under each orientation: the
# inverse of what the tag asks a viewer to do (Exif 2.3, Orientation; the same as ImageOps).
STORED = {
    1: None,
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_90,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_270,
}


def tiff(entries_by_ifd, little):
    """A TIFF block of IFD0 and, when given, an Exif IFD: each entry (tag, type, value), laid out
    as the standard has it (values over four bytes after their IFD, offsets from the header)."""
    order = "<" if little else ">"
    sizes = {2: 1, 3: 2, 4: 4, 5: 8}

    def encode(kind, value):
        if kind == 2:
            return value.encode() + b"\0"
        if kind == 3:
            return struct.pack(order + "H", value)
        if kind == 4:
            return struct.pack(order + "I", value)
        numerator, denominator = value
        return struct.pack(order + "II", numerator, denominator)

    ifd0, exif = entries_by_ifd
    header = (b"II" if little else b"MM") + struct.pack(order + "HI", 42, 8)

    def layout(entries, start, extra):
        # The IFD's own bytes, then its values too long to sit in an entry.
        table_size = 2 + 12 * len(entries) + 4
        data = b""
        table = struct.pack(order + "H", len(entries))
        for tag, kind, value in sorted(entries, key=lambda entry: entry[0]):
            raw = encode(kind, value)
            count = len(raw) // sizes[kind]
            if len(raw) <= 4:
                field = raw + b"\0" * (4 - len(raw))
            else:
                field = struct.pack(order + "I", start + table_size + len(data))
                data += raw + (b"\0" if len(raw) % 2 else b"")
            table += struct.pack(order + "HHI", tag, kind, count) + field
        return table + struct.pack(order + "I", 0) + data

    if not exif:
        return header + layout(ifd0, 8, b"")
    # IFD0 points at the Exif IFD, which follows it: lay IFD0 out once to learn its length.
    pointer = (0x8769, 4, 0)
    first = layout(ifd0 + [pointer], 8, b"")
    exif_start = 8 + len(first)
    first = layout(ifd0 + [(0x8769, 4, exif_start)], 8, b"")
    return header + first + layout(exif, exif_start, b"")


def exif_block(orientation, camera, taken, little):
    ifd0 = [(0x0112, 3, orientation)]
    exif = []
    if camera:
        ifd0 += [(0x010F, 2, "Canon"), (0x0110, 2, "Canon EOS 5D Mark IV")]
        exif = [
            (0x829A, 5, (1, 250)),  # ExposureTime
            (0x829D, 5, (56, 10)),  # FNumber
            (0x8827, 3, 400),  # ISOSpeedRatings
            (0x9003, 2, taken),  # DateTimeOriginal
            (0x9011, 2, "+02:00"),  # OffsetTimeOriginal
            (0x920A, 5, (35, 1)),  # FocalLength
            (0xA434, 2, "EF24-70mm f/2.8L II USM"),  # LensModel
        ]
    return b"Exif\0\0" + tiff((ifd0, exif), little)


def main():
    source, folder = sys.argv[1], sys.argv[2]
    os.makedirs(folder, exist_ok=True)
    upright = Image.open(source).convert("RGB").resize((480, 320), Image.Resampling.LANCZOS)
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    for progressive in (False, True):
        for orientation in range(1, 9):
            turn = STORED[orientation]
            stored = upright.transpose(turn) if turn else upright
            camera = (orientation + progressive) % 2 == 0
            taken = f"2021:0{orientation}:1{orientation} 09:30:0{orientation}"
            # Both byte orders, as cameras write them (Canon and Nikon little, many phones big).
            options = {"quality": 85, "exif": exif_block(orientation, camera, taken, little=orientation % 4 < 2)}
            if orientation % 2 == 1:
                options["icc_profile"] = srgb
            if progressive:
                options["progressive"] = True
            name = f"o{orientation}{'-progressive' if progressive else ''}.jpg"
            stored.save(os.path.join(folder, name), "JPEG", **options)
    # Two large enough to have renditions between their thumbnail and the original.
    large = Image.open(source).convert("RGB").resize((1200, 800), Image.Resampling.LANCZOS)
    for orientation, progressive in ((6, False), (7, True)):
        options = {"quality": 80, "exif": exif_block(orientation, True, "2024:07:01 18:45:00", little=not progressive), "icc_profile": srgb}
        if progressive:
            options["progressive"] = True
        name = f"o{orientation}-large{'-progressive' if progressive else ''}.jpg"
        large.transpose(STORED[orientation]).save(os.path.join(folder, name), "JPEG", **options)
    # Photographers' pictures, each on its side in its own way.
    face = upright.crop((200, 60, 296, 124)).resize((96, 64))
    for orientation in (6, 3):
        turn = STORED[orientation]
        face.transpose(turn).save(
            os.path.join(folder, f"user-o{orientation}.jpg"), "JPEG", quality=80, exif=exif_block(orientation, False, "", little=True))


if __name__ == "__main__":
    main()
