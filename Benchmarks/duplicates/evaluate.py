#!/usr/bin/env python3
"""Precision and recall of finding duplicates on the corpus (corpus.py), for a method.

    evaluate.py CORPUS [METHOD ...]      METHOD: ours, phash, dhash (default: all three)

For every pair of files the method's distance; a pair is true when both files are in one
group. For each method: the best threshold with no false pair (its recall there), and the
threshold with the best F1 (precision and recall there). The peer's hashes are imagehash's, on
the picture as shown (Exif's orientation applied, the best case for them). Ours is the
fingerprints' likeness (PictureFingerprint in JPEGCodec), from a release build's
`likes-bench likeness` (LIKES_BENCH names it; .build/release/likes-bench by default), where a
pair it does not fit is at no distance at all (infinite), and its own limit is reported too.
"""

import json
import os
import subprocess
import sys

import numpy
from PIL import Image, ImageOps

import imagehash


def shown(path):
    return ImageOps.exif_transpose(Image.open(path)).convert("RGB")


def hash_distances(images, function):
    hashes = [function(image) for image in images]
    bits = numpy.array([h.hash.flatten() for h in hashes], dtype=numpy.uint8)
    return (bits[:, None, :] != bits[None, :, :]).sum(axis=2).astype(float)


def likeness_distances(corpus, files):
    """The likes-bench likeness of every pair (infinite where it fits none), and its limit."""
    binary = os.environ.get("LIKES_BENCH", ".build/release/likes-bench")
    output = subprocess.run([binary, "likeness"] + [f"{corpus}/{entry['file']}" for entry in files],
                            check=True, capture_output=True, text=True).stdout
    result = json.loads(output)
    distances = numpy.full((len(files), len(files)), numpy.inf)
    for i, j, difference in result["pairs"]:
        distances[int(i), int(j)] = distances[int(j), int(i)] = difference
    print(f"ours: {result['fitted']} pairs fitted; fingerprints {result['fingerprintSeconds']:.2f} s, "
          f"comparisons {result['compareSeconds']:.2f} s")
    return distances, result["limit"]


def at_limit(distances, truth, limit):
    upper = numpy.triu_indices(len(truth), 1)
    called = distances[upper] <= limit
    true = truth[upper]
    found = (called & true).sum()
    print(f"  at its own limit {limit:g}: {called.sum()} pairs called, {found} true, {called.sum() - found} false; "
          f"recall {found / true.sum() * 100:.2f} %")


def summary(name, distances, truth):
    upper = numpy.triu_indices(len(truth), 1)
    values, true = distances[upper], truth[upper]
    positives = true.sum()
    order = numpy.argsort(values, kind="stable")
    values, true = values[order], true[order]
    # Threshold t: pairs with distance <= t are called duplicates.
    candidates = numpy.unique(values[numpy.isfinite(values)])
    best_f1 = (0, None, 0, 0)
    best_clean = (0.0, None)
    cumulative_true = numpy.cumsum(true)
    for threshold in candidates:
        called = numpy.searchsorted(values, threshold, side="right")
        found = cumulative_true[called - 1] if called else 0
        false = called - found
        precision = found / called if called else 1
        recall = found / positives
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0
        if f1 > best_f1[0]:
            best_f1 = (f1, threshold, precision, recall)
        if false == 0 and recall > best_clean[0]:
            best_clean = (recall, threshold)
    clean = ("no threshold is without a false pair" if best_clean[1] is None
             else f"without a false pair up to {best_clean[1]:g}: recall {best_clean[0] * 100:.2f} %")
    print(f"{name}: {int(positives)} true pairs of {len(values)}; {clean}; best F1 {best_f1[0]:.4f} at {best_f1[1]:g}: "
          f"precision {best_f1[2] * 100:.2f} %, recall {best_f1[3] * 100:.2f} %")
    return {"method": name, "truePairs": int(positives), "pairs": int(len(values)), "cleanThreshold": None if best_clean[1] is None else float(best_clean[1]),
            "cleanRecall": best_clean[0], "f1": best_f1[0], "f1Threshold": float(best_f1[1]), "f1Precision": best_f1[2], "f1Recall": best_f1[3]}


def main():
    corpus = sys.argv[1]
    methods = sys.argv[2:] or ["ours", "phash", "dhash"]
    with open(f"{corpus}/corpus.json") as handle:
        files = json.load(handle)["files"]
    images = [shown(f"{corpus}/{entry['file']}") for entry in files]
    groups = numpy.array([entry["group"] for entry in files])
    truth = groups[:, None] == groups[None, :]
    results = []
    for method in methods:
        if method == "ours":
            distances, limit = likeness_distances(corpus, files)
        else:
            function = {"phash": imagehash.phash, "dhash": imagehash.dhash}[method]
            distances = hash_distances(images, function)
        results.append(summary(method, distances, truth))
        if method == "ours":
            at_limit(distances, truth, limit)
        # The nearest pair of two moments, and the farthest of one picture.
        upper = numpy.triu_indices(len(files), 1)
        across = min((distances[i, j], files[i]["file"], files[j]["file"]) for i, j in zip(*upper) if not truth[i, j])
        within = max((distances[i, j], files[i]["file"], files[j]["file"]) for i, j in zip(*upper) if truth[i, j])
        across = (round(across[0], 2),) + across[1:]
        within = (round(within[0], 2),) + within[1:]
        print(f"  nearest two moments: {across[0]:g} ({across[1]}, {across[2]}); farthest copies: {within[0]:g} ({within[1]}, {within[2]})")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
