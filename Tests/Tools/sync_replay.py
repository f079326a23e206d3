#!/usr/bin/env python3
"""Three stores, an unkind sync engine, every command that changes a photo: judged by a replay.

    sync_replay.py --likes BIN --samples DIR [--runs N] [--first-seed S] [--rounds R]
                   [--kill-rate P] [--maintenance P] [--seeds S,S,…] [--keep DIR] [--jobs J]

Each device has its own store and its own copy of the sync folder. A simulated engine carries
each device's files to the others' copies the way Syncthing and Dropbox do: late and in any
order, under temporary names, sometimes cut short at the final name and completed later,
delivered twice, with conflict copies beside them, deletions late. Each round runs one command
on one device with the `likes` binary — like (with and without --user-image, --note, --album,
--meta), unlike, toggle, note and note --clear, album add / remove / rename / delete, import of
a small folder — and sometimes `album cover` (a photo, or --newest; drawn from a random stream
of its own, so that the kept seeds still take their paths) — then maybe a sync (killed after 0–60 ms with probability --kill-rate) and
maybe a step of the engine. With --maintenance P, after a round and with that chance, one device
runs what a user runs to keep a store (`purge`, `purge --rebuild-index`, `repair`, `export` then
`import` of the backup into the store emptied, `verify`) or is left with its journal cut short as
a crash leaves it, drawn from a stream of its own; such commands are killed at the kill rate too.
At the end the engine delivers everything and every device syncs
until nothing changes.

The judge is written here, apart from the code under test: every acknowledged command (exit 0)
in the order it ran is replayed by SPEC §13's rules (a like of a photo not liked starts a
period with only what it gives; of a liked one it updates what it gives; an unlike ends the
period; an edit of a photo not liked is void; albums are memberships; a cover choice is the
album's cover while its photo stays in the album, the newest valid choice winning). Every device
must then hold exactly that state — ids, likedAt (within the time the starting command ran),
image and user image bytes, note, albums, metadata, each album's chosen cover — and all devices
the same bytes. A command that would
change nothing on its device is not issued (it is no change: SPEC §13).

Exit 0 when every run is clean. A failing run's stores, folders and log are kept under --keep.

Seeds kept as regression cases (`swift test` runs them, SyncReplayTests): 1, 2, 3, 4, 5 and 8 at
60 rounds, no sync killed (a like that starts a period published as clearing every field, albums
as one list, unlikes never published, a journal read from a stale offset after a rewrite that
reused its inode); 10002, 10217 and 10359 at 120 rounds with --kill-rate 0.1 (a merged image
not written after a killed sync left the bookkeeping behind; a change waiting for ever for an
image a later change had replaced); 100029 (and by hand 100038 and 100047) at 120 rounds with --kill-rate
0.1 and --maintenance 0.3 (a sync run while the journal ended in a torn line kept the file's
length as where it had read to, inside the line the next change wrote over those bytes, and
that change was never published), and 100091 (a store that had never synced dropped its
unlikes from a journal written anew, and its first sync did not publish them). Kills make a run's timing, and so its path, vary.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

IDS = ["p00", "p01", "p02", "p03", "café", "ABC", "abc", "p06", "p07", "p08"]
ALBUMS = ["family", "Été", "trips", "cats"]
NOTES = ["lines\nhere", "first evening", "Lisbon", "ünïcödé note", "x"]
SAMPLES = ["chelsea", "coffee", "astronaut", "rocket", "retina"]


def jpeg_variant(data, number):
    """The sample with a comment segment after SOI: other bytes, the same picture."""
    text = f"variant {number}".encode()
    return data[:2] + b"\xff\xfe" + (len(text) + 2).to_bytes(2, "big") + text + data[2:]


class Run:
    def __init__(self, likes, samples, seed, rounds, kill_rate, root, maintain=0.0):
        self.likes, self.rng, self.rounds, self.kill_rate, self.root = likes, random.Random(seed), rounds, kill_rate, root
        self.maintain = maintain  # the chance of a maintenance command after each round
        # Cover choices from a stream of their own: the main stream's draws stay those of the
        # runs before covers, so a kept seed still takes its path.
        self.cover_rng = random.Random(seed * 7919 + 13)
        # Maintenance likewise: purge, a rebuilt index, repair, a backup and its restore, verify,
        # a journal cut short as a crash leaves it.
        self.upkeep_rng = random.Random(seed * 104729 + 7)
        self.backups = {}
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        self.log = open(os.path.join(root, "log"), "w")
        self.devices = ["A", "B", "C"]
        self.store = {d: os.path.join(root, "store-" + d) for d in self.devices}
        self.folder = {d: os.path.join(root, "folder-" + d) for d in self.devices}
        for d in self.devices:
            os.makedirs(self.folder[d])
        self.device_id = {}
        # Images: a few variants of each sample, named by their SHA-256.
        images = os.path.join(root, "images")
        os.makedirs(images)
        self.images = []
        for name in SAMPLES:
            with open(os.path.join(samples, name + ".jpg"), "rb") as file:
                data = file.read()
            for number in range(3):
                variant = jpeg_variant(data, number)
                path = os.path.join(images, f"{name}-{number}.jpg")
                with open(path, "wb") as file:
                    file.write(variant)
                self.images.append((path, hashlib.sha256(variant).hexdigest()))
        self.meta = {}
        for name in SAMPLES:
            path = os.path.join(samples, name + ".json")
            if os.path.exists(path):
                self.meta[name] = path
        self.replay = {}  # id -> state
        self.learned = {}  # a --meta file -> the metadata a store made of it
        self.commands = 0
        self.imports = 0
        self.clock = 0  # the replay's order: one tick per acknowledged command

    def say(self, text):
        self.log.write(f"{time.time():.3f} {text}\n")
        self.log.flush()

    def command(self, device, *words, check=False):
        started = time.time()
        result = subprocess.run([self.likes, "--store", self.store[device], *words], capture_output=True, text=True)
        ended = time.time()
        self.say(f"{device} {' '.join(repr(w) if ' ' in w or not w else w for w in words)} -> {result.returncode} {result.stderr.strip()}")
        if check and result.returncode != 0:
            raise Failure(f"{device}: `likes {' '.join(words)}` failed: {result.stderr.strip()}")
        return result, started, ended

    def local(self, device, photo):
        """The device's own record of a photo, or None."""
        result, _, _ = self.command(device, "show", "--json", "--", photo)
        return json.loads(result.stdout) if result.returncode == 0 else None

    # MARK: The replay (SPEC §13), apart from the code under test

    def replay_like(self, photo, started, ended, image, user=None, note=None, albums=(), meta=None, covered=(), liked_at=None):
        """`covered`: the given albums whose cover the photo is on the device (a like that gives
        a membership again keeps the choice no older than it). `liked_at`: the date a restore
        gives (milliseconds), where a like's is its own time."""
        self.clock += 1
        state = self.replay.get(photo)
        if state is None:
            liked = (started, ended) if liked_at is None else (liked_at / 1000, liked_at / 1000)
            state = {"liked": liked, "image": image, "user": None, "note": None, "albums": set(), "meta": None,
                     "chosen": {}, "joined": {}}
            self.replay[photo] = state
        for album in albums:
            state["joined"][album] = self.clock
            if album in covered:
                state["chosen"][album] = (True, self.clock)
        state["image"] = image
        if user is not None:
            state["user"] = user
        if note is not None:
            state["note"] = note
        state["albums"] |= set(albums)
        if meta is not None:
            state["meta"] = meta

    def replay_edit(self, photo, note=(), add=(), remove=(), choose=(), drop=(), tick=True):
        """`tick`: false for the second and later photos one command changes."""
        if tick:
            self.clock += 1
        state = self.replay.get(photo)
        if state is None:
            return  # void: not liked at its stamp
        if note != ():
            state["note"] = note
        state["albums"] |= set(add)
        state["albums"] -= set(remove)
        for album in list(add) + list(remove):
            state["joined"][album] = self.clock
        for album in list(remove) + list(drop):
            state["chosen"][album] = (False, self.clock)
        for album in choose:
            state["chosen"][album] = (True, self.clock)

    def replay_covers(self):
        """Each album's chosen cover by the replay: of the photos in it whose choice was made no
        earlier than they last joined it, the newest choice; albums with none left out."""
        best = {}
        for photo, state in self.replay.items():
            for album in state["albums"]:
                chosen, at = state["chosen"].get(album, (False, 0))
                if chosen and at >= state["joined"].get(album, 0) and at > best.get(album, (0, None))[0]:
                    best[album] = (at, photo)
        return {album: photo for album, (_, photo) in best.items()}

    # MARK: Commands

    def random_like_options(self, record):
        """Options of a like that changes something on the device that holds `record`."""
        while True:
            image = self.rng.choice(self.images)
            words, given = ["--image", image[0]], {"image": image[1]}
            if self.rng.random() < 0.35:
                user = self.rng.choice(self.images)
                words += ["--user-image", user[0]]
                given["user"] = user[1]
            if self.rng.random() < 0.4:
                given["note"] = self.rng.choice(NOTES)
                words += ["--note", given["note"]]
            if self.rng.random() < 0.35:
                albums = self.rng.sample(ALBUMS, self.rng.randint(1, 2))
                for album in albums:
                    words += ["--album", album]
                given["albums"] = albums
            if self.rng.random() < 0.2 and self.meta:
                name = self.rng.choice(sorted(self.meta))
                words += ["--meta", self.meta[name]]
                given["meta"] = name
            if record is None or not self.same(record, given):
                return words, given

    def same(self, record, given):
        """Whether a like giving `given` changes nothing of `record` (then it is not issued)."""
        if file_digest(record["image"]["file"]) != given["image"]:
            return False
        if "user" in given and (record.get("userImage") is None or file_digest(record["userImage"]["file"]) != given["user"]):
            return False
        if "note" in given and record.get("note") != given["note"]:
            return False
        if "albums" in given and not set(given["albums"]) <= set(record.get("albums") or []):
            return False
        if "meta" in given and record.get("photo") != self.learned.get(given["meta"]):
            return False  # the metadata the store made of that file, learned from a like that gave it
        return True

    def like(self, device, photo, toggle=False):
        record = self.local(device, photo)
        words, given = self.random_like_options(record)
        result, started, ended = self.command(device, "toggle" if toggle else "like", *words, "--json", "--", photo)
        if result.returncode != 0:
            raise Failure(f"{device}: a like of {photo} failed: {result.stderr.strip()}")
        if "meta" in given:
            printed = json.loads(result.stdout)
            stored = (printed.get("record") if toggle else printed) or {}
            if record is None or record.get("photo") is None:
                self.learned.setdefault(given["meta"], stored.get("photo"))
        covered = set(given.get("albums", ())) & set((record or {}).get("covers") or [])
        self.replay_like(
            photo, started, ended, given["image"], given.get("user"), given.get("note"), given.get("albums", ()),
            given.get("meta"), covered)

    def round(self):
        device = self.rng.choice(self.devices)
        photo = self.rng.choice(IDS)
        action = self.rng.random()
        record = self.local(device, photo)
        if action < 0.34:
            self.like(device, photo)
        elif action < 0.46:
            if record is None:
                # Not liked there: 1, or 66 naming the store where the device has none yet (SPEC §5).
                expected = 1 if os.path.isdir(self.store[device]) else 66
                result, _, _ = self.command(device, "unlike", "--", photo)
                if result.returncode != expected:
                    raise Failure(f"{device}: unlike of {photo}, not liked there, exited {result.returncode}, not {expected}")
            else:
                self.command(device, "unlike", "--", photo, check=True)
                self.replay.pop(photo, None)
        elif action < 0.54:
            if record is None:
                self.like(device, photo, toggle=True)
            else:
                result, _, _ = self.command(device, "toggle", "--json", "--", photo, check=True)
                if json.loads(result.stdout)["liked"]:
                    raise Failure(f"{device}: toggle of a liked {photo} liked it")
                self.replay.pop(photo, None)
        elif action < 0.68:
            if record is None:
                return
            if self.rng.random() < 0.25:
                if record.get("note") is None:
                    return
                self.command(device, "note", "--clear", "--", photo, check=True)
                self.replay_edit(photo, note=None)
            else:
                text = self.rng.choice(NOTES)
                if record.get("note") == text:
                    return
                self.command(device, "note", "--", photo, text, check=True)
                self.replay_edit(photo, note=text)
        elif action < 0.80:
            if record is None:
                return
            album = self.rng.choice(ALBUMS)
            held = album in (record.get("albums") or [])
            if held:
                self.command(device, "album", "remove", album, "--", photo, check=True)
                self.replay_edit(photo, remove=[album])
            else:
                self.command(device, "album", "add", album, "--", photo, check=True)
                self.replay_edit(photo, add=[album])
        elif action < 0.84:
            self.album_rename_or_delete(device)
        elif action < 0.92:
            self.import_folder(device)
        else:
            self.sync(device)

    def album_rename_or_delete(self, device):
        album = self.rng.choice(ALBUMS)
        if not os.path.isdir(self.store[device]):
            return
        result, _, _ = self.command(device, "list", "--json", check=True)
        listed = json.loads(result.stdout)
        members = [r["id"] for r in listed if album in (r.get("albums") or [])]
        if not members:
            return
        if self.rng.random() < 0.5:
            self.command(device, "album", "delete", album, check=True)
            for index, photo in enumerate(members):
                self.replay_edit(photo, remove=[album], tick=index == 0)
        else:
            to = self.rng.choice([a for a in ALBUMS if a != album])
            # The cover the album shows, when chosen, stays its cover.
            shown, _, _ = self.command(device, "albums", "--json", check=True)
            covers = {a["cover"]["id"] for a in json.loads(shown.stdout) if a["name"] == album and a["coverChosen"] and a.get("cover")}
            self.command(device, "album", "rename", album, to, check=True)
            # Each photo leaves the album and joins the other, where it is not in it already
            # (that membership is no change).
            already = {r["id"] for r in listed if to in (r.get("albums") or [])}
            for index, photo in enumerate(members):
                self.replay_edit(photo, add=[] if photo in already else [to], remove=[album],
                                 choose=[to] if photo in covers else [], tick=index == 0)

    def choose_cover(self, device):
        """`album cover`: one of an album's photos (as the device sees them) as its cover, or its
        newest photo again; the choices the device knew of are taken back."""
        if not os.path.isdir(self.store[device]):
            return
        result, _, _ = self.command(device, "list", "--json", check=True)
        listed = json.loads(result.stdout)
        albums = sorted({album for r in listed for album in (r.get("albums") or [])})
        if not albums:
            return
        album = self.cover_rng.choice(albums)
        members = [r["id"] for r in listed if album in (r.get("albums") or [])]
        flagged = [r["id"] for r in listed if album in (r.get("covers") or [])]
        if self.cover_rng.random() < 0.15:
            if not flagged:
                return  # the newest photo is the cover already: no change
            self.command(device, "album", "cover", album, "--newest", check=True)
            for index, photo in enumerate(flagged):
                self.replay_edit(photo, drop=[album], tick=index == 0)
            return
        photo = self.cover_rng.choice(members)
        if flagged == [photo]:
            return  # its cover already: no change
        self.command(device, "album", "cover", album, "--", photo, check=True)
        self.replay_edit(photo, choose=[album])
        for other in flagged:
            if other != photo:
                self.replay_edit(other, drop=[album], tick=False)

    def import_folder(self, device):
        self.imports += 1
        folder = os.path.join(self.root, f"import-{self.imports}")
        os.makedirs(folder)
        chosen = {}
        for photo in self.rng.sample(IDS, self.rng.randint(1, 3)):
            if photo.lower() in {p.lower() for p in chosen}:
                continue  # two files whose names differ only in case: one folder cannot hold both everywhere
            image = self.rng.choice(self.images)
            record = self.local(device, photo)
            if record is not None and file_digest(record["image"]["file"]) == image[1]:
                continue  # the same image again: no change
            shutil.copyfile(image[0], os.path.join(folder, photo + ".jpg"))
            chosen[photo] = image[1]
        if not chosen:
            return
        result, started, ended = self.command(device, "import", folder, "--json", check=True)
        report = json.loads(result.stdout)
        for photo in report["liked"] + report["updated"]:
            self.replay_like(photo, started, ended, chosen[photo])

    def sync(self, device, kill=None):
        if kill is None:
            kill = self.rng.random() < self.kill_rate
        if kill:
            process = subprocess.Popen(
                [self.likes, "--store", self.store[device], "sync", self.folder[device], "--json"], stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL)
            delay = self.rng.uniform(0, 0.06)
            try:
                process.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGKILL)
            out = process.communicate()[0]
            self.say(f"{device} sync killed after {delay:.3f} s ({process.returncode})")
            if process.returncode == 0:
                self.device_id[device] = json.loads(out)["device"]
            return
        result, _, _ = self.command(device, "sync", self.folder[device], "--json")
        if result.returncode != 0:
            raise Failure(f"{device}: sync failed: {result.stderr.strip()}")
        report = json.loads(result.stdout)
        self.device_id[device] = report["device"]
        return report

    # MARK: Maintenance

    def maintenance(self, device):
        """One command a user runs to keep a store, between syncs: none may lose a change not yet
        published. Each but verify and the cut journal is killed part way at the kill rate."""
        rng = self.upkeep_rng
        if not os.path.isdir(self.store[device]):
            return
        kind = rng.choice(["purge", "rebuild", "repair", "export", "restore", "verify", "torn"])
        if kind == "verify":
            result, _, _ = self.command(device, "verify", "--json")
            if result.returncode != 0:
                raise Failure(f"{device} does not verify between syncs: {result.stdout.strip()[:300]}")
        elif kind == "torn":
            self.tear_journal(device)
        elif kind == "restore":
            self.restore(device)
        else:
            words = {"purge": ["purge"], "rebuild": ["purge", "--rebuild-index"], "repair": ["repair"]}.get(kind)
            if kind == "export":
                self.backups[device] = os.path.join(self.root, f"backup-{device}")
                words = ["export", self.backups[device]]
            self.maybe_killed(device, words, rng)

    def maybe_killed(self, device, words, rng):
        """Runs `likes WORDS` on the device, killed after 0–60 ms at the kill rate; whether it was."""
        if rng.random() >= self.kill_rate:
            result, _, _ = self.command(device, *words)
            if result.returncode not in (0,):
                raise Failure(f"{device}: `likes {' '.join(words)}` failed ({result.returncode}): {result.stderr.strip()}")
            return False
        process = subprocess.Popen([self.likes, "--store", self.store[device], *words], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        delay = rng.uniform(0, 0.06)
        try:
            process.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.wait()
        self.say(f"{device} {' '.join(words)} killed after {delay:.3f} s ({process.returncode})")
        return True

    def tear_journal(self, device):
        """The journal as a process killed while appending its line leaves it: the first half of
        a line after its last newline."""
        path = os.path.join(self.store[device], "likes.journal")
        if not os.path.isfile(path):
            return
        with open(path, "rb") as file:
            data = file.read()
        lines = data.split(b"\n")
        if len(lines) < 3 or not data.endswith(b"\n"):
            return
        torn = lines[-2][: max(1, len(lines[-2]) // 2)]
        with open(path, "ab") as file:
            file.write(torn)
        self.say(f"{device} journal torn: {len(torn)} bytes of a line appended")

    def restore(self, device):
        """The device's last backup restored into it: each photo it no longer holds comes back as
        it was backed up, at its own likedAt — a like of the photo at that date (of a photo liked
        elsewhere meanwhile, an update of what it gives)."""
        backup = self.backups.get(device)
        index_path = os.path.join(backup or "", "index.json")
        if not backup or not os.path.isfile(index_path):
            return
        with open(index_path) as file:
            photos = {entry["id"]: entry for entry in json.load(file)["photos"]}
        before = {r["id"] for r in self.listing(device)}
        started = time.time()
        self.maybe_killed(device, ["import", backup], self.upkeep_rng)
        ended = time.time()
        after = {r["id"] for r in self.listing(device)}
        for photo in sorted(after - before, key=lambda p: (iso_milliseconds(photos[p]["likedAt"]), p)):
            entry = photos[photo]
            albums = entry.get("albums") or []
            self.replay_like(
                photo, started, ended, entry["sha256"], (entry.get("userImage") or {}).get("sha256"), entry.get("note"), albums,
                "restored" if entry.get("photo") else None, set(entry.get("covers") or []) & set(albums),
                liked_at=iso_milliseconds(entry["likedAt"]))

    def listing(self, device):
        result, _, _ = self.command(device, "list", "--json")
        return json.loads(result.stdout) if result.returncode == 0 else []

    # MARK: The engine

    def engine_step(self, everything=False):
        """Carries each device's own files to the other copies of the folder, unkindly unless
        `everything`."""
        rng = self.rng
        for owner, device_id in self.device_id.items():
            source = os.path.join(self.folder[owner], device_id)
            if not os.path.isdir(source):
                continue
            files = {}
            for directory, _, names in os.walk(source):
                for name in names:
                    path = os.path.join(directory, name)
                    files[os.path.relpath(path, source)] = path
            for other in self.devices:
                if other == owner:
                    continue
                target = os.path.join(self.folder[other], device_id)
                for relative, path in files.items():
                    with open(path, "rb") as file:
                        data = file.read()
                    destination = os.path.join(target, relative)
                    held = None
                    if os.path.exists(destination):
                        with open(destination, "rb") as file:
                            held = file.read()
                    if held == data:
                        if not everything and rng.random() < 0.03:
                            self.deliver(destination, data)  # twice
                        continue
                    if not everything and rng.random() < 0.45:
                        continue  # late
                    os.makedirs(os.path.dirname(destination), exist_ok=True)
                    if everything:
                        self.deliver(destination, data)
                        continue
                    roll = rng.random()
                    if roll < 0.1 and len(data) > 8:
                        with open(destination, "wb") as file:  # cut short at the final name
                            file.write(data[: rng.randint(1, len(data) - 1)])
                    elif roll < 0.2:
                        temporary = os.path.join(os.path.dirname(destination), f".syncthing.{os.path.basename(relative)}.tmp")
                        with open(temporary, "wb") as file:  # an engine's temporary file, left for now
                            file.write(data[: rng.randint(0, len(data))])
                    else:
                        if held is not None and rng.random() < 0.15:
                            stem, dot, extension = os.path.basename(destination).rpartition(".")
                            conflict = f"{stem}.sync-conflict-20261128-{rng.randint(100000, 999999)}-ABCDEFG.{extension}"
                            with open(os.path.join(os.path.dirname(destination), conflict), "wb") as file:
                                file.write(held)
                        self.deliver(destination, data)
                # Deletions, late.
                if os.path.isdir(target):
                    for directory, _, names in os.walk(target):
                        for name in names:
                            path = os.path.join(directory, name)
                            relative = os.path.relpath(path, target)
                            if relative in files or ".sync-conflict-" in name or name.startswith(".syncthing."):
                                continue
                            if everything or rng.random() < 0.5:
                                os.remove(path)

    @staticmethod
    def deliver(destination, data):
        temporary = destination + ".part~"
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        with open(temporary, "wb") as file:
            file.write(data)
        os.replace(temporary, destination)

    # MARK: The run

    def run(self):
        for number in range(self.rounds):
            self.round()
            if self.cover_rng.random() < 0.12:
                self.choose_cover(self.cover_rng.choice(self.devices))
            if self.maintain and self.upkeep_rng.random() < self.maintain:
                self.maintenance(self.upkeep_rng.choice(self.devices))
            if self.rng.random() < 0.3:
                self.sync(self.rng.choice(self.devices))
            if self.rng.random() < 0.5:
                self.engine_step()
        # Every device syncs until nothing changes, the engine delivering everything.
        for device in self.devices:
            self.sync(device, kill=False)
        previous = None
        for attempt in range(8):
            self.engine_step(everything=True)
            for device in self.devices:
                self.sync(device, kill=False)
            states = {d: self.state(d) for d in self.devices}
            if previous == states and all(states[d] == states["A"] for d in self.devices):
                break
            previous = states
        else:
            raise Failure("the devices never agree: " + self.difference(states))
        for device in self.devices:
            result, _, _ = self.command(device, "verify")
            if result.returncode != 0:
                raise Failure(f"{device} does not verify: {result.stdout.strip()} {result.stderr.strip()}")
        self.judge(states["A"])

    def state(self, device):
        result, _, _ = self.command(device, "list", "--json", check=True)
        state = {}
        for record in json.loads(result.stdout):
            state[record["id"]] = {
                "likedAt": record["likedAt"],
                "image": file_digest(record["image"]["file"]),
                "user": file_digest(record["userImage"]["file"]) if record.get("userImage") else None,
                "note": record.get("note"),
                "albums": sorted(record.get("albums") or []),
                "covers": sorted(record.get("covers") or []),
                "photo": json.dumps(record.get("photo"), sort_keys=True),
            }
        return state

    def difference(self, states):
        lines = []
        for photo in sorted(set().union(*[set(s) for s in states.values()])):
            held = {d: states[d].get(photo) for d in self.devices}
            if any(held[d] != held["A"] for d in self.devices):
                lines.append(f"{photo}: " + "; ".join(f"{d} {held[d]}" for d in self.devices))
        return " | ".join(lines)

    def judge(self, state):
        problems = []
        for photo in sorted(set(state) | set(self.replay)):
            held, want = state.get(photo), self.replay.get(photo)
            if held is None or want is None:
                problems.append(f"{photo}: held {held is not None}, replay {want is not None}")
                continue
            liked = iso_milliseconds(held["likedAt"])
            started, ended = want["liked"]
            if not (started * 1000 - 2 <= liked <= ended * 1000 + 2):
                problems.append(f"{photo}: likedAt {held['likedAt']} is not the like that started its period")
            for field in ("image", "user", "note"):
                if held[field] != want[field]:
                    problems.append(f"{photo}: {field} {held[field]!r}, replay {want[field]!r}")
            if held["albums"] != sorted(want["albums"]):
                problems.append(f"{photo}: albums {held['albums']}, replay {sorted(want['albums'])}")
            if (held["photo"] != "null") != (want["meta"] is not None):
                problems.append(f"{photo}: metadata {held['photo'][:40]}, replay {want['meta']}")
        result, _, _ = self.command("A", "albums", "--json", check=True)
        held = {a["name"]: a["cover"]["id"] for a in json.loads(result.stdout) if a["coverChosen"] and a.get("cover")}
        want = self.replay_covers()
        if held != want:
            problems.append(f"chosen covers {held}, replay {want}")
        if problems:
            raise Failure("not the replay: " + " | ".join(problems))


class Failure(Exception):
    pass


def file_digest(path):
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


def iso_milliseconds(text):
    import datetime

    moment = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    return round(moment.timestamp() * 1000)


def one(arguments, seed):
    root = os.path.join(arguments.keep, f"seed-{seed}")
    try:
        Run(arguments.likes, arguments.samples, seed, arguments.rounds, arguments.kill_rate, root, arguments.maintenance).run()
    except Failure as failure:
        return seed, f"{failure} (kept in {root})"
    shutil.rmtree(root, ignore_errors=True)
    return seed, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--likes", required=True)
    parser.add_argument("--samples", required=True)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--seeds", help="these seeds (comma-separated) instead of --runs from --first-seed")
    parser.add_argument("--rounds", type=int, default=120)
    parser.add_argument("--kill-rate", type=float, default=0.0)
    parser.add_argument("--maintenance", type=float, default=0.0, help="the chance of a maintenance command after each round")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--keep")
    arguments = parser.parse_args()
    arguments.keep = arguments.keep or tempfile.mkdtemp(prefix="sync-replay-")
    seeds = [int(s) for s in arguments.seeds.split(",")] if arguments.seeds else list(
        range(arguments.first_seed, arguments.first_seed + arguments.runs))
    started, failed = time.time(), 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=arguments.jobs) as pool:
        for seed, problem in pool.map(lambda s: one(arguments, s), seeds):
            if problem:
                failed += 1
                print(f"FAIL seed {seed}: {problem}", flush=True)
    print(f"sync_replay: {len(seeds) - failed} of {len(seeds)} runs clean (kill rate {arguments.kill_rate}, "
          f"maintenance {arguments.maintenance}, {arguments.rounds} rounds), {failed} failed, in {time.time() - started:.0f} s")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
