#!/usr/bin/env python3
"""Precision and recall of finding duplicates on the corpus (corpus.py), for a method.

    evaluate.py CORPUS [METHOD ...]      METHOD: phash, dhash (default: both)

For every pair of files the method's distance; a pair is true when both files are in one
group. For each method: the best threshold with no false pair (its recall there), and the
threshold with the best F1 (precision and recall there). The peer's hashes are imagehash's, on
the picture as shown (Exif's orientation applied, the best case for them).
"""

import json
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


def summary(name, distances, truth):
    upper = numpy.triu_indices(len(truth), 1)
    values, true = distances[upper], truth[upper]
    positives = true.sum()
    order = numpy.argsort(values, kind="stable")
    values, true = values[order], true[order]
    # Threshold t: pairs with distance <= t are called duplicates.
    candidates = numpy.unique(values)
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
    methods = sys.argv[2:] or ["phash", "dhash"]
    with open(f"{corpus}/corpus.json") as handle:
        files = json.load(handle)["files"]
    images = [shown(f"{corpus}/{entry['file']}") for entry in files]
    groups = numpy.array([entry["group"] for entry in files])
    truth = groups[:, None] == groups[None, :]
    results = []
    for method in methods:
        function = {"phash": imagehash.phash, "dhash": imagehash.dhash}[method]
        results.append(summary(method, hash_distances(images, function), truth))
        # The nearest pair of two moments, and the farthest of one picture.
        upper = numpy.triu_indices(len(files), 1)
        distances = hash_distances(images, function)
        across = min((distances[i, j], files[i]["file"], files[j]["file"]) for i, j in zip(*upper) if not truth[i, j])
        within = max((distances[i, j], files[i]["file"], files[j]["file"]) for i, j in zip(*upper) if truth[i, j])
        print(f"  nearest two moments: {across[0]:.0f} ({across[1]}, {across[2]}); farthest copies: {within[0]:.0f} ({within[1]}, {within[2]})")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
