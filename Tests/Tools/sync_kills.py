#!/usr/bin/env python3
"""Two stores syncing through one folder, every sync SIGKILLed at a random instant, many runs.

    sync_kills.py --likes BIN --samples DIR [--runs N] [--first-seed S] [--rounds R] [--keep DIR]

Each run: R rounds, each a command on the laptop (two rounds in three) or the phone (a like of
one of thirty ids with a note of its own, sometimes a user image and an album, or on the laptop
an unlike of a photo it liked), then
`likes sync` on that store killed after 0–60 ms. Then both stores sync twice, and each must hold
exactly the replay of every command in the order run: the ids liked and not unliked since, each
with the note of its last like, the user image of its last like that gave one and every album a
like gave it. `Tests/Tools/sync_replay.py --kill-rate` drives every other command with kills. A failing run's stores, folder and log are kept under
--keep (default: a temporary folder, named when it fails).
"""

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PHOTOS = ["rocket", "coffee", "chelsea", "astronaut", "retina", "hubble_deep_field"]


def run_once(likes, samples, seed, rounds, root):
    rng = random.Random(seed)
    shutil.rmtree(root, ignore_errors=True)
    folder = os.path.join(root, "folder")
    os.makedirs(folder)
    laptop, phone = os.path.join(root, "laptop"), os.path.join(root, "phone")
    log = open(os.path.join(root, "log"), "w")

    def command(store, *words):
        result = subprocess.run([likes, "--store", store, *words], capture_output=True, text=True)
        log.write(f"{time.time():.3f} {os.path.basename(store)} {' '.join(words)} -> {result.returncode} {result.stderr.strip()}\n")
        return result

    replayed, laptop_liked = {}, set()
    samples_bytes = {}
    for name in PHOTOS:
        with open(os.path.join(samples, f"{name}.jpg"), "rb") as file:
            samples_bytes[name] = file.read()
    for number in range(rounds):
        store = phone if number % 3 == 2 else laptop
        name = rng.choice(PHOTOS)
        photo = f"{name}-{number % 5}"
        if store == laptop and photo in laptop_liked and rng.random() < 0.5:
            if command(laptop, "unlike", photo).returncode != 0:
                return "an unlike failed"
            laptop_liked.discard(photo)
            replayed.pop(photo, None)
        else:
            words = ["like", photo, "--image", os.path.join(samples, f"{name}.jpg"), "--note", f"round {number}"]
            user = rng.choice(PHOTOS) if rng.random() < 0.3 else None
            album = f"album {rng.randint(0, 2)}" if rng.random() < 0.4 else None
            if user:
                words += ["--user-image", os.path.join(samples, f"{user}.jpg")]
            if album:
                words += ["--album", album]
            result = command(store, *words)
            if result.returncode != 0:
                return f"a like failed: {result.stderr.strip()}"
            if store == laptop:
                laptop_liked.add(photo)
            # A like of a photo liked starts nothing: it gives its note, and its user image and
            # album when it has them (SPEC §13).
            state = replayed.setdefault(photo, {"note": None, "albums": set(), "user": None})
            state["note"] = f"round {number}"
            if user:
                state["user"] = user
            if album:
                state["albums"].add(album)
        sync = subprocess.Popen([likes, "--store", store, "sync", folder], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        delay = rng.uniform(0, 0.06)
        time.sleep(delay)
        sync.send_signal(signal.SIGKILL)
        sync.wait()
        log.write(f"{time.time():.3f} {os.path.basename(store)} sync killed after {delay:.3f} s ({sync.returncode})\n")
    for _ in range(2):
        for store in (laptop, phone):
            result = command(store, "sync", folder)
            if result.returncode != 0:
                return f"a last sync failed: {result.stderr.strip()}"
    for store in (laptop, phone):
        if command(store, "verify").returncode != 0:
            return f"{os.path.basename(store)} does not verify"
        listing = command(store, "list", "--json")
        held = {}
        for photo in json.loads(listing.stdout):
            user = None
            if photo.get("userImage"):
                with open(photo["userImage"]["file"], "rb") as file:
                    data = file.read()
                user = next((name for name in PHOTOS if samples_bytes[name] == data), "?")
            held[photo["id"]] = {"note": photo.get("note"), "albums": set(photo.get("albums") or []), "user": user}
        if held != replayed:
            wrong = sorted(set(held) | set(replayed))
            wrong = [(photo, held.get(photo), replayed.get(photo)) for photo in wrong if held.get(photo) != replayed.get(photo)]
            return f"{os.path.basename(store)} is not the replay (id, held, replayed): {wrong}"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--likes", required=True)
    parser.add_argument("--samples", required=True)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=24)
    parser.add_argument("--keep")
    arguments = parser.parse_args()
    keep = arguments.keep or tempfile.mkdtemp(prefix="sync-kills-")
    failed = 0
    started = time.time()
    for seed in range(arguments.first_seed, arguments.first_seed + arguments.runs):
        root = os.path.join(keep, f"seed-{seed}")
        problem = run_once(arguments.likes, arguments.samples, seed, arguments.rounds, root)
        if problem:
            failed += 1
            print(f"FAIL seed {seed}: {problem} (kept in {root})", flush=True)
        else:
            shutil.rmtree(root, ignore_errors=True)
    print(f"sync_kills: {arguments.runs - failed} of {arguments.runs} runs clean, {failed} failed, in {time.time() - started:.0f} s")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
