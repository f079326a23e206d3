"""Power cuts under the real `likes` binary, on a FUSE file system that drops unflushed data.

    powercut.py steps  --likes BIN --samples DIR [--flush syncfs] [--stride K]
                                                     a cut at every step of every kind of change
    powercut.py stream --likes BIN --samples DIR [--rounds N] [--seed S] [--flush syncfs]
                                                     a cut at a random step of a stream of commands
    powercut.py sync   --likes BIN --samples DIR [--flush syncfs] [--stride K]
                                                     a cut at every step of `likes sync`

`--flush syncfs` has `likes` flush as on ext4 or xfs, with one syncfs per change (which it sends
as an fdatasync of the store's folder, LIKES_TEST_FLUSH=syncfs), and the file system flush
everything at it; each cut of `steps` is then made twice, once losing all that is unflushed and
once keeping each file's and directory's unflushed state or not by a coin, as a file system
writing back in any order would (`stream` tosses for each round).

`--stride K` cuts each command at every Kth step (and after its last; mixed cuts at the steps
between) instead of every one: what `swift test` runs, so that CI keeps its time; the runs at
every step are made by hand (BENCHMARKS.md and docs/reliability.md say when).

`steps` runs each kind of change (first like, like into an empty store, update with images,
update of the note alone, unlike, toggle both ways, note, clearing a note, album add and remove,
an import batch, purge, export new and over an earlier one, restore of an export into an empty
store and among newer photos) once to count the file system
requests it makes, then again from the same starting state once per request, with the power cut
just before that request; and once more with the cut right after the command returned. After
every cut (the "reboot"):
- a command that exited 0 must have its whole effect, with byte-identical images;
- each photo must be as it was before the command or as the uncut run left it, whole;
- `likes verify` must accept the store as it is; after `likes purge` no orphan may be left;
- an export folder must be absent, the earlier export, or the uncut run's export, whole.

`steps` also repairs a store with two kinds of damage at once (a photo's record deleted and
another photo's journal line garbled, or the journal deleted or cut short before the photo's
line) and cuts that repair at every step: after each cut a second `likes repair` must leave every
photo liked with its image byte for byte (the one whose record was lost rebuilt), `verify`
clean and `purge` removing no photo's bytes.

`stream` likes, updates, unlikes, toggles, notes, files into albums, imports and purges at random
and cuts the power at a random step, round after round, checking every acknowledged change
against a model of the store; one round in five then deals the store a double damage like the
above and repairs it, and every photo must come back with its image.

`sync` cuts `likes sync DIR` at every step, the store and the sync folder on the power-cut file
system, another device's store beside it: a first sync, a sync publishing a like and a note, one
merging another device's likes, note and unlike, one merging its user images and album
memberships (added and removed) beside a membership of its own, and one letting go of an unliked photo's images
and compacting its change files into a snapshot. After every cut each photo must be as before or
as the uncut sync left it (all of it after an exit 0), the store must verify, the other device's
files in the folder must be untouched; the next sync must run (never refusing the store as a copy
of another device's) and leave the store as the uncut sync did, verifying; and the other device,
and a device new to the folder, must then sync to the same collection.

Prints one line per scenario or round and a closing line `powercut: N passed, M failed`; exits 1
when anything failed, 2 when FUSE cannot be used here.
"""

import argparse
import hashlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def sha(data):
    return hashlib.sha256(data).hexdigest()


class Rig:
    """A mounted PowerCutFS with a store in it, and the `likes` binary to run on it."""

    def __init__(self, likes, samples, flush="fsync"):
        import powercut_fs

        self.stride = 1  # cut at every step (see --stride)
        self.likes = likes
        self.samples = samples
        self.top = tempfile.mkdtemp(prefix="likes-powercut-")
        self.mountpoint = os.path.join(self.top, "mnt")
        os.mkdir(self.mountpoint)
        self.mount = powercut_fs.Mount(self.mountpoint)
        self.fs = self.mount.fs
        self.store = os.path.join(self.mountpoint, "store")
        self.env = dict(os.environ, LIKES_LOCK_TIMEOUT="5", NO_COLOR="1")
        self.env.pop("LIKES_DURABILITY", None)
        self.env.pop("LIKES_STORE", None)
        self.env.pop("LIKES_TEST_FLUSH", None)
        self.whole = flush == "syncfs"
        if self.whole:
            self.env["LIKES_TEST_FLUSH"] = "syncfs"
            self.fs.whole = True
        deadline = time.time() + 10
        while not os.path.ismount(self.mountpoint):
            if time.time() > deadline:
                raise RuntimeError("the FUSE file system did not mount")
            time.sleep(0.02)

    def close(self):
        try:
            self.mount.close()
        finally:
            subprocess.run(["fusermount3", "-u", "-q", self.mountpoint], capture_output=True)
            shutil.rmtree(self.top, ignore_errors=True)

    def run(self, *args, check=False, store=None):
        result = subprocess.run([self.likes, "--store", store or self.store, *args], capture_output=True, text=True, env=self.env, timeout=120)
        if check and result.returncode != 0:
            raise RuntimeError(f"likes {' '.join(args)} failed ({result.returncode}): {result.stderr.strip()}")
        return result

    def sample(self, name):
        return os.path.join(self.samples, name)

    # Photos as cameras make them: every Exif orientation (Tests/Fixtures/jpeg/camera).
    camera_folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "jpeg", "camera")

    def camera(self, name):
        return os.path.join(self.camera_folder, name + ".jpg")

    def wipe(self):
        """An empty file system, everything flushed."""
        self.fs.reboot()
        for name in os.listdir(self.mountpoint):
            path = os.path.join(self.mountpoint, name)
            shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(path)
        self.fs.flush_everything()

    # MARK: What the store holds, as seen through the binary

    def state(self, store=None):
        """Each liked photo: its note, albums, likedAt and the SHA-256 of its images."""
        listing = self.run("list", "--json", store=store)
        if listing.returncode == 66 and not os.path.exists(store or self.store):
            return {}  # no store (yet, or after a cut before its first like took)
        if listing.returncode != 0:
            raise AssertionError(f"list failed ({listing.returncode}): {listing.stderr.strip()}")
        photos = {}
        for record in json.loads(listing.stdout):
            def digest(image):
                if image is None:
                    return None
                with open(image["file"], "rb") as handle:
                    data = handle.read()
                if len(data) != image["bytes"]:
                    raise AssertionError(f"{record['id']}: {image['file']} has {len(data)} bytes, the record says {image['bytes']}")
                return sha(data)

            photos[record["id"]] = (
                record.get("note"),
                tuple(record.get("albums") or []),
                record["likedAt"],
                digest(record["image"]),
                digest(record.get("userImage")),
                json.dumps(record.get("photo"), sort_keys=True),
            )
        return photos

    def folder_state(self, path):
        """An export folder: each JPEG's digest, and index.json without its time of export."""
        if not os.path.isdir(path):
            return None
        result = {}
        for name in sorted(os.listdir(path)):
            with open(os.path.join(path, name), "rb") as handle:
                data = handle.read()
            if name == "index.json":
                index = json.loads(data)
                index.pop("exportedAt", None)
                result[name] = json.dumps(index, sort_keys=True)
            elif name == "index.html":
                result[name] = "html" if b"</html>" in data else "cut short"
            else:
                result[name] = sha(data)
        return result

    def check_store(self, label):
        """What must hold after any reboot: verify accepts the store, purge leaves no orphan."""
        problems = []
        if not os.path.exists(self.store):
            return problems  # a cut before the store's first folder: nothing to check
        verify = self.run("verify", "--json")
        if verify.returncode != 0:
            problems.append(f"{label}: verify exit {verify.returncode}: {verify.stdout.strip()[:400]} {verify.stderr.strip()[:200]}")
        purge = self.run("purge")
        if purge.returncode != 0:
            problems.append(f"{label}: purge exit {purge.returncode}: {purge.stderr.strip()[:300]}")
        again = self.run("verify", "--json")
        try:
            report = json.loads(again.stdout)
            if not report["ok"] or report["orphans"]:
                problems.append(f"{label}: after purge, verify says {again.stdout.strip()[:400]}")
        except ValueError:
            problems.append(f"{label}: verify printed no JSON: {again.stderr.strip()[:300]}")
        return problems


# MARK: double damage and repair


def storage_keys(rig):
    """Each liked photo's storage key, as its image's file name shows it (KEY~GEN.jpg)."""
    listing = json.loads(rig.run("list", "--json", check=True).stdout)
    return {record["id"]: os.path.basename(record["image"]["file"]).rsplit("~", 1)[0] for record in listing}


def journal_line_range(journal, key):
    """The byte range of the `L` line of the photo with storage key `key` in the journal's bytes,
    or None."""
    start = 0
    for line in journal.split(b"\n"):
        fields = line.split(b" ")
        if len(fields) > 6 and fields[0] == b"L" and fields[6] == key.encode():
            return start, start + len(line)
        start += len(line) + 1
    return None


JOURNAL_DAMAGES = ["garbled elsewhere", "deleted", "cut before the line"]


def double_damage(rig, lost, other, journal_damage):
    """Deletes the record of `lost` and damages the journal: garbles the line of `other`, deletes
    it, or cuts it short inside the line of `other` (or before the line of `lost` when `other`
    came later); flushed, as damage done between two runs."""
    store = rig.store
    keys = storage_keys(rig)
    lost, other = keys[lost], keys[other]
    os.remove(os.path.join(store, "records", f"{lost}.json"))
    journal_path = os.path.join(store, "likes.journal")
    if journal_damage == "deleted":
        os.remove(journal_path)
    else:
        with open(journal_path, "rb") as handle:
            journal = handle.read()
        target = other if journal_damage == "garbled elsewhere" else min(
            (photo for photo in (lost, other) if journal_line_range(journal, photo)),
            key=lambda photo: journal_line_range(journal, photo)[0],
            default=other,
        )
        place = journal_line_range(journal, target)
        start = place[0] if place else len(journal) // 2
        if journal_damage == "garbled elsewhere":
            journal = journal[:start] + b"### garbled ###" + journal[start + 15 :]
        else:
            journal = journal[: start + 5]
        with open(journal_path, "wb") as handle:
            handle.write(journal)
    rig.fs.flush_everything()


def images_of(state):
    """Each photo's image digest."""
    return {photo: value[3] for photo, value in state.items()}


def after_the_repair(rig, label, before):
    """What must hold once a repair finished: every photo of `before` liked with its image, byte
    for byte; verify clean; purge removes nothing that was a photo's."""
    problems = []
    repair = rig.run("repair", "--json")
    if repair.returncode != 0:
        problems.append(f"{label}: repair exit {repair.returncode}: {repair.stdout.strip()[:300]} {repair.stderr.strip()[:200]}")
    try:
        now = rig.state()
    except (AssertionError, ValueError, OSError) as error:
        return problems + [f"{label}: after the repair: {error}"]
    wanted, have = images_of(before), images_of(now)
    missing = sorted(photo for photo in wanted if have.get(photo) != wanted[photo])
    if missing:
        problems.append(f"{label}: after the repair these photos are not liked with their image: {missing}; the repair said {repair.stdout.strip()[:600]}")
    problems += rig.check_store(label)
    if images_of(rig.state()) != have:
        problems.append(f"{label}: purge changed the photos")
    return problems


def cut_points(rig, count, mixed=False, stride=1, every=False):
    """The steps of a command of `count` steps to cut at: every one (and after the last), or with
    --stride K every Kth, the last always among them; mixed cuts (where the file system flushes
    whole) take the steps between. `stride` thins them further by its own factor; `every` keeps
    every step whatever --stride says."""
    step = 1 if every else max(1, rig.stride) * stride
    first = step // 2 if mixed and step > 1 else 0
    points = list(range(first, count + 1, step))
    if count not in points and not mixed:
        points.append(count)
    return points


def cut_repair_at_every_step(rig, journal_damage):
    """A double damage repaired, with the power cut at every step of the repair."""
    s = rig.sample
    setup = [
        ["like", "a", "--image", s("rocket.jpg"), "--user-image", s("astronaut.jpg"), "--meta", s("rocket.json")],
        ["like", "b", "--image", s("chelsea.jpg"), "--note", "first note", "--album", "Cats"],
        ["like", "c", "--image", s("coffee.jpg")],
    ]
    rig.wipe()
    for command in setup:
        rig.run(*command, check=True)
    before = rig.state()
    double_damage(rig, "b", "a", journal_damage)
    base = rig.fs.snapshot()
    rig.fs.count_steps()
    clean = rig.run("repair")
    if clean.returncode != 0:
        return [f"the uncut repair failed ({clean.returncode}): {clean.stdout.strip()[:300]} {clean.stderr.strip()[:200]}"]
    count = rig.fs.steps
    problems = []
    runs = [(cut, None) for cut in cut_points(rig, count)]
    if rig.whole:
        runs += [(cut, random.Random(cut)) for cut in cut_points(rig, count, mixed=True)]
    for cut, mix in runs:
        rig.fs.restore(base)
        rig.fs.arm(cut)
        rig.fs.mix = mix
        rig.run("repair")
        rig.fs.cut()
        rig.fs.mix = None
        rig.fs.reboot()
        label = f"repair of a double damage ({journal_damage}), {'mixed ' if mix else ''}cut at step {cut}/{count}"
        problems += after_the_repair(rig, label, before)
    if not problems:
        print(f"ok   repair of a double damage ({journal_damage}): {len(runs)} cuts")
    return problems


# MARK: steps


def scenarios(rig):
    """(name, setup, command, export folder or None). Setups run on an empty file system."""
    s = rig.sample
    base = [
        ["like", "a", "--image", s("rocket.jpg"), "--user-image", s("astronaut.jpg"), "--meta", s("rocket.json")],
        ["like", "b", "--image", s("chelsea.jpg"), "--note", "first note", "--album", "Cats"],
    ]
    out = os.path.join(rig.mountpoint, "out")
    batch = os.path.join(rig.mountpoint, "batch")
    photos = os.path.join(rig.mountpoint, "camera")
    camera = [
        ["__copy_camera", photos, "o8", "o6-large"],
        ["import", photos],
        ["like", "o8", "--image", rig.camera("o8"), "--user-image", rig.camera("user-o6"), "--note", "turned", "--album", "Phone"],
    ]
    camera_without_thumbnails = camera + [["__remove", os.path.join(rig.store, "thumbnails")]]
    plant = [
        ("store/images/zz~000000000000.jpg", b"\xff\xd8orphan"),
        ("store/records/zz~000000000000.tmp", b"{"),
    ]
    return [
        ("like into an empty store", [], ["like", "x", "--image", s("coffee.jpg")], None, []),
        ("first like", base, ["like", "new", "--image", s("coffee.jpg"), "--note", "n", "--album", "A", "--meta", s("coffee.json")], None, []),
        ("update with images", base, ["like", "a", "--image", s("coffee.jpg"), "--user-image", s("chelsea.jpg")], None, []),
        ("update of the image alone", base, ["like", "b", "--image", s("coffee.jpg")], None, []),
        ("unlike", base, ["unlike", "a"], None, []),
        ("toggle off", base, ["toggle", "b"], None, []),
        ("toggle on", base, ["toggle", "c", "--image", s("retina.jpg")], None, []),
        ("note", base, ["note", "a", "a new note"], None, []),
        ("note cleared", base, ["note", "b", "--clear"], None, []),
        ("album add", base, ["album", "add", "Trip", "a", "b"], None, []),
        ("album remove", base, ["album", "remove", "Cats", "b"], None, []),
        ("import batch", base + [["__copy", batch, "coffee.jpg", "retina.jpg", "hubble_deep_field.jpg", "chelsea.jpg"]], ["import", batch], None, []),
        ("purge", base, ["purge"], None, plant),
        ("export", base, ["export", out], out, []),
        ("export over an earlier one", base + [["export", out], ["like", "c", "--image", s("coffee.jpg")]], ["export", out], out, []),
        # A restore: each photo whole or absent; into an empty store its lines come in order, and
        # among newer photos the journal is marked unsorted, then sorted.
        ("restore into an empty store", base + [["export", out], ["__remove", os.path.join(rig.mountpoint, "store")]], ["import", out], None, []),
        (
            "restore among newer photos",
            base + [["export", out], ["unlike", "a"], ["like", "c", "--image", s("coffee.jpg")]],
            ["import", out],
            None,
            [],
        ),
        # Camera photos turned every way: a backup of them restored whole.
        ("restore of camera photos", camera + [["export", out], ["__remove", os.path.join(rig.mountpoint, "store")]], ["import", out], None, []),
        # Thumbnails and renditions being made (theirs removed first): a reader after the cut
        # gets each whole. Unflushed (relaxed durability), on a file system that writes back in
        # any order, a cut leaves some of them damaged under their own names, to be made anew.
        ("thumbnails and renditions being made", camera_without_thumbnails, ["renditions", "--make"], None, [], {"reads"}),
        (
            "thumbnails and renditions being made, unflushed",
            camera_without_thumbnails,
            ["--durability", "relaxed", "renditions", "--make"],
            None,
            [],
            {"reads", "mixed cuts only"},
        ),
    ]


def run_setup(rig, setup, plant):
    rig.wipe()
    for command in setup:
        if command[0] == "__remove":
            shutil.rmtree(command[1])
        elif command[0] in ("__copy", "__copy_camera"):
            folder = command[1]
            os.makedirs(folder, exist_ok=True)
            for name in command[2:]:
                source = rig.sample(name) if command[0] == "__copy" else rig.camera(name)
                shutil.copyfile(source, os.path.join(folder, os.path.basename(source)))
        else:
            rig.run(*command, check=True)
    for relative, data in plant:
        with open(os.path.join(rig.mountpoint, relative), "wb") as handle:
            handle.write(data)
    rig.fs.flush_everything()
    return rig.fs.snapshot()


def comparable(state, before):
    """The state with the likedAt of photos liked since `before` left out: two runs of one
    command like a new photo at two different times."""
    if state is None:
        return None
    return {photo: value if photo in before else value[:2] + (None,) + value[3:] for photo, value in state.items()}


def photos_between(before, after, now):
    """The ids whose state is neither what it was before nor what the uncut run left."""
    after, now = comparable(after, before), comparable(now, before)
    wrong = []
    for photo in set(before) | set(after) | set(now):
        if now.get(photo) not in (before.get(photo), after.get(photo)):
            wrong.append(photo)
    return sorted(wrong)


def not_all_there(before, after, now):
    """The ids whose state is not what the uncut run left."""
    after, now = comparable(after, before), comparable(now, before)
    return sorted(photo for photo in set(after) | set(now) if after.get(photo) != now.get(photo))


def report(title, problems, limit=8):
    """Prints a failure with its first problems; returns whether there was one."""
    if problems:
        print(f"FAIL {title}: {len(problems)} problems")
        for problem in problems[:limit]:
            print("   ", problem)
    return bool(problems)


def after_the_cut(before, after, now, status):
    """What must hold of the photos after a cut: an acknowledged change is whole, and every photo
    is as it was before the command or as the uncut run left it."""
    problems = []
    if status == 0:
        missing = not_all_there(before, after, now)
        if missing:
            problems.append(f"exit 0, but the change is not all there: {missing}")
    wrong = photos_between(before, after, now)
    if wrong:
        problems.append(f"photos neither before nor after: {[(photo, before.get(photo), now.get(photo)) for photo in wrong][:3]}")
    return problems, len(wrong)


def run_scenarios(rig, listed, cutter, only):
    """Runs `cutter(rig, *scenario)` for each scenario whose name holds `only`; (passed, failed)."""
    passed = failed = 0
    for scenario in listed:
        if only and only not in scenario[0]:
            continue
        try:
            problems = cutter(rig, *scenario)
        except (AssertionError, RuntimeError, ValueError, OSError) as error:
            problems = [f"{scenario[0]}: {error}"]
        if report(scenario[0], problems):
            failed += 1
        else:
            passed += 1
    return passed, failed


def steps(rig, only=None):
    passed, failed = run_scenarios(rig, scenarios(rig), cut_at_every_step, only)
    for journal_damage in JOURNAL_DAMAGES:
        name = f"repair of a double damage ({journal_damage})"
        if only and only not in name:
            continue
        try:
            problems = cut_repair_at_every_step(rig, journal_damage)
        except (AssertionError, RuntimeError, ValueError, OSError) as error:
            problems = [f"{name}: {error}"]
        if report(name, problems):
            failed += 1
        else:
            passed += 1
    return passed, failed


def cut_at_every_step(rig, name, setup, command, folder, plant, options=frozenset()):
    """The problems found cutting the power at each step of `command`; prints a line when none.
    With "reads" in `options`, every thumbnail and rendition is also read after each cut, as
    readers read them (`likes show` and the gallery), half the time before `verify` and half
    after; with "mixed cuts only", only the cuts that keep unflushed states by a coin are made
    (on a file system flushed whole), and none where there are none."""
    reads = "reads" in options
    if "mixed cuts only" in options and not rig.whole:
        print(f"ok   {name}: 0 cuts (only mixed cuts matter, and this file system is flushed file by file)")
        return []
    base = run_setup(rig, setup, plant)
    before = rig.state()
    folder_before = rig.folder_state(folder) if folder else None
    # The uncut run: what the command does, and how many requests it makes.
    rig.fs.restore(base)
    rig.fs.count_steps()
    clean = rig.run(*command)
    if clean.returncode != 0:
        return [f"the uncut run failed ({clean.returncode}): {clean.stderr.strip()}"]
    count = rig.fs.steps
    made = sum(len(os.listdir(os.path.join(rig.store, folder))) for folder in ("thumbnails", "renditions") if reads)
    rig.fs.cut()
    rig.fs.reboot()
    after = rig.state()
    folder_after = rig.folder_state(folder) if folder else None
    if reads:
        # What it makes is derived (every photo's thumbnail, the large ones' renditions), and
        # unflushed folders may lose it at the cut after the command: counted before that cut.
        if made < len(before) + 1:
            return [f"the uncut run made {made} thumbnails and renditions, too few to prove anything"]
    elif comparable(after, before) == before and folder_after == folder_before and name != "purge":
        return ["the command changed nothing (or lost it at the cut after it), so cutting it proves nothing"]
    problems = []
    acknowledged = 0
    damaged_cuts = 0
    runs = [] if "mixed cuts only" in options else [(cut, None) for cut in cut_points(rig, count)]
    if rig.whole:
        runs += [(cut, random.Random(cut)) for cut in cut_points(rig, count, mixed=True, every="mixed cuts only" in options)]
    for cut, mix in runs:
        rig.fs.restore(base)
        rig.fs.arm(cut)
        rig.fs.mix = mix
        result = rig.run(*command)
        rig.fs.cut()  # at `cut`, or right after the command returned
        rig.fs.mix = None
        rig.fs.reboot()
        label = f"{name}, {'mixed ' if mix else ''}cut at step {cut}/{count}" + (f" ({rig.fs.log[-1]})" if rig.fs.log else "")
        try:
            now = rig.state()
        except (AssertionError, ValueError, OSError) as error:
            problems.append(f"{label}: {error}")
            continue
        acknowledged += result.returncode == 0
        found, _ = after_the_cut(before, after, now, result.returncode)
        problems += [f"{label}: {problem}" for problem in found]
        if folder:
            shown = rig.folder_state(folder)
            if shown not in (folder_before, folder_after) or (result.returncode == 0 and shown != folder_after):
                problems.append(f"{label}: the export folder is neither before nor after: {sorted((shown or {}).keys())}")
        if reads:
            damaged_cuts += bool(damaged_derived_files(rig.store))
            if cut % 2 == 0:
                problems += derived_reads(rig, label)
            problems += rig.check_store(label)
            if cut % 2 == 1:
                problems += derived_reads(rig, label)
        else:
            problems += rig.check_store(label)
        if name == "purge":
            leftovers = [path for path, _ in plant if os.path.exists(os.path.join(rig.mountpoint, path))]
            if leftovers:
                problems.append(f"{label}: purge after the reboot left {leftovers}")
    if not problems:
        damaged = f", {damaged_cuts} leaving a damaged thumbnail or rendition" if reads else ""
        print(f"ok   {name}: {len(runs)} cuts ({acknowledged} after the command had returned 0{damaged})")
    return problems


# MARK: derived files


def damaged_derived_files(store):
    """The thumbnails and renditions on disk whose tag does not check out: the comment segment
    after SOI names the generation and the CRC-32 of every byte after it (ThumbnailFiles)."""
    damaged = []
    for folder in ("thumbnails", "renditions"):
        path = os.path.join(store, folder)
        if not os.path.isdir(path):
            continue
        for name in os.listdir(path):
            if not name.endswith(".jpg"):
                continue
            with open(os.path.join(path, name), "rb") as handle:
                data = handle.read()
            whole = len(data) > 6 and data[:4] == b"\xff\xd8\xff\xfe"
            if whole:
                length = int.from_bytes(data[4:6], "big")
                fields = data[6 : 4 + length].split(b" ")
                whole = len(fields) >= 3 and f"{zlib.crc32(data[4 + length:]):08x}".encode() == fields[2]
            if not whole:
                damaged.append(f"{folder}/{name}")
    return damaged


def decoded_size(data):
    """The (width, height) of a whole JPEG, or None for one that does not decode whole."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            return image.size
    except (OSError, SyntaxError, ValueError):
        return None


def derived_reads(rig, label):
    """Every photo's thumbnail as `likes show --json` names it, and its thumbnail and images at
    every size as the gallery serves them (through LikeKit's image(for:covering:)): each a
    whole JPEG of the size it claims, upright as the photo shows."""
    problems = []
    records = json.loads(rig.run("list", "--json", check=True).stdout)
    for record in records:
        shown = rig.run("show", "--json", "--", record["id"])
        if shown.returncode != 0:
            problems.append(f"{label}: show {record['id']} exit {shown.returncode}: {shown.stderr.strip()[:200]}")
            continue
        thumbnail = json.loads(shown.stdout).get("thumbnail")
        if thumbnail is None:
            problems.append(f"{label}: show {record['id']} names no thumbnail")
            continue
        with open(thumbnail["file"], "rb") as handle:
            data = handle.read()
        if len(data) != thumbnail["bytes"] or decoded_size(data) != (thumbnail["width"], thumbnail["height"]):
            problems.append(f"{label}: show {record['id']} names a thumbnail that is not whole: {thumbnail}")
    server = subprocess.Popen([rig.likes, "--store", rig.store, "serve", "--port", "0"], stdout=subprocess.PIPE, text=True, env=rig.env)
    try:
        address = server.stdout.readline().strip()
        base, token = address.split("/?token=")
        for record in records:
            image = record["image"]
            wide = image["width"] > image["height"]
            thumbnail_side = max(record["thumbnail"]["width"], record["thumbnail"]["height"]) if record.get("thumbnail") else 160
            quoted = urllib.parse.quote(record["id"], safe="")
            paths = [f"/thumbnail?id={quoted}"] + [
                f"/rendition?id={quoted}&side={side}" for side in (thumbnail_side, 2 * thumbnail_side, max(image["width"], image["height"]))
            ]
            for path in paths:
                request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"})
                with urllib.request.urlopen(request, timeout=30) as response:
                    data = response.read()
                    claimed = response.headers.get("X-Likes-Image")
                size = decoded_size(data)
                if size is None:
                    problems.append(f"{label}: the gallery's {path} is not a whole JPEG ({len(data)} bytes)")
                elif claimed and claimed.split(" ")[0] != "original" and claimed.split(" ")[1] != f"{size[0]}x{size[1]}":
                    problems.append(f"{label}: the gallery's {path} claims {claimed} and is {size[0]}x{size[1]}")
                elif claimed and claimed.split(" ")[0] != "original" and (size[0] > size[1]) != wide:
                    problems.append(f"{label}: the gallery's {path} is not upright ({size[0]}x{size[1]})")
    finally:
        server.terminate()
        server.wait(timeout=10)
    return problems


# MARK: sync


def sync_scenarios(rig):
    """(name, setup, what the sync must have done). The store `S` and the sync folder are on the
    power-cut file system; another device's store `B` is beside it, on a disk that keeps all."""
    s = rig.sample
    base = [
        ["S", "like", "a", "--image", s("rocket.jpg"), "--user-image", s("astronaut.jpg"), "--meta", s("rocket.json")],
        ["S", "like", "b", "--image", s("chelsea.jpg"), "--note", "first note", "--album", "Cats"],
    ]
    notes = []
    for number in range(5):
        notes += [["S", "note", "b", f"note {number}"], ["S", "sync"]]
    return [
        ("first sync of a store", base, "published"),
        ("sync publishing a like and a note", base + [["S", "sync"], ["S", "like", "c", "--image", s("coffee.jpg")], ["S", "note", "a", "later"]], "published"),
        (
            "sync merging another device's likes, note and unlike",
            base + [["S", "sync"], ["B", "sync"], ["B", "like", "d", "--image", s("retina.jpg"), "--album", "Space"], ["B", "note", "b", "from B"],
                    ["B", "unlike", "a"], ["B", "sync"]],
            "merged",
        ),
        (
            "sync merging another device's user images and album memberships",
            base + [["S", "sync"], ["B", "sync"], ["B", "like", "b", "--image", s("chelsea.jpg"), "--user-image", s("coffee.jpg")],
                    ["B", "album", "add", "Space", "b"], ["B", "album", "remove", "Cats", "b"],
                    ["B", "like", "e", "--image", s("hubble_deep_field.jpg"), "--user-image", s("retina.jpg"), "--album", "Space"],
                    ["S", "album", "add", "Pets", "b"], ["B", "sync"]],
            "merged",
        ),
        (
            "sync letting go of images and compacting its change files",
            base + [["S", "sync"], ["B", "sync"], ["S", "unlike", "a"], ["S", "sync"]] + notes + [["B", "sync"], ["S", "note", "b", "last"]],
            "compacted",
        ),
    ]


def folder_files(folder, device=None):
    """Every file of the sync folder (or of one device's part of it), by path, with its digest."""
    found = {}
    root = os.path.join(folder, device) if device else folder
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            with open(path, "rb") as handle:
                found[os.path.relpath(path, folder)] = sha(handle.read())
    return found


def cut_sync_at_every_step(rig, name, setup, effect):
    """A sync cut at each step: the photos before or after, whole; a sync that exited 0 all there;
    the store verifies; the other device's files untouched; the next sync runs (never refusing
    the store as a copy) and leaves the store as the uncut sync did; and the folder gives the other
    device and a device new to it the same collection."""
    folder = os.path.join(rig.mountpoint, "folder")
    other, other_base, new = (os.path.join(rig.top, name) for name in ("other", "other-base", "new"))
    for path in (other, other_base, new):
        shutil.rmtree(path, ignore_errors=True)
    stores = {"S": rig.store, "B": other}
    rig.wipe()
    os.makedirs(folder)
    for command in setup:
        words = command[1:] + ([folder] if command[1] == "sync" else [])
        rig.run(*words, check=True, store=stores[command[0]])
    rig.fs.flush_everything()
    base = rig.fs.snapshot()
    before = rig.state()
    other_device = None
    if os.path.exists(other):
        shutil.copytree(other, other_base)
        with open(os.path.join(other, "sync", "state.json")) as handle:
            other_device = json.load(handle)["engine"]["device"]
    other_files = folder_files(folder, other_device) if other_device else {}
    rig.fs.count_steps()
    clean = rig.run("sync", folder, "--json")
    if clean.returncode != 0:
        return [f"the uncut sync failed ({clean.returncode}): {clean.stderr.strip()}"]
    report = json.loads(clean.stdout)
    done = {"published": report["published"] > 0, "merged": report["merged"] > 0, "compacted": report["compacted"] and report["released"] > 0}
    if not done[effect]:
        return [f"the uncut sync did not do what it is here for ({effect}): {clean.stdout.strip()[:300]}"]
    count = rig.fs.steps
    rig.fs.cut()
    rig.fs.reboot()
    after = rig.state()
    problems = []
    acknowledged = 0
    runs = [(cut, None) for cut in cut_points(rig, count)]
    if rig.whole:
        runs += [(cut, random.Random(cut)) for cut in cut_points(rig, count, mixed=True, stride=3)]
    for cut, mix in runs:
        rig.fs.restore(base)
        if other_device:
            shutil.rmtree(other)
            shutil.copytree(other_base, other)
        shutil.rmtree(new, ignore_errors=True)
        rig.fs.arm(cut)
        rig.fs.mix = mix
        result = rig.run("sync", folder)
        rig.fs.cut()
        rig.fs.mix = None
        rig.fs.reboot()
        label = f"{name}, {'mixed ' if mix else ''}cut at step {cut}/{count}" + (f" ({rig.fs.log[-1]})" if rig.fs.log else "")
        try:
            problems += after_the_sync_cut(rig, label, folder, result.returncode, (before, after), (other_device, other_files), (other, new))
            acknowledged += result.returncode == 0
        except (AssertionError, ValueError, OSError, RuntimeError) as error:
            problems.append(f"{label}: {error}")
    if not problems:
        print(f"ok   {name}: {len(runs)} cuts ({acknowledged} after the sync had returned 0)")
    return problems


def after_the_sync_cut(rig, label, folder, status, states, other_side, stores):
    """What must hold after a sync was cut (see cut_sync_at_every_step)."""
    (before, after), (other_device, other_files), (other, new) = states, other_side, stores
    now = rig.state()
    found, _ = after_the_cut(before, after, now, status)
    problems = [f"{label}: {problem}" for problem in found] + rig.check_store(label)
    if other_device and folder_files(folder, other_device) != other_files:
        problems.append(f"{label}: the other device's files in the folder changed")
    # A like the user makes after the cut, of the photo the sync was merging from the other
    # device (which the store may hold as merged, part written, or not at all): this store's
    # own change, which the next sync publishes and every device ends with.
    touched = "d" in after and "d" not in before
    if touched:
        rig.run("like", "d", "--image", rig.sample("retina.jpg"), "--note", "after the cut", check=True)
    again = rig.run("sync", folder)
    if again.returncode != 0:
        return problems + [f"{label}: the next sync failed ({again.returncode}): {again.stderr.strip()[:300]}"]
    recovered = rig.state()
    expected = dict(after)
    if touched:
        expected.pop("d")
        if (recovered.get("d") or (None,))[0] != "after the cut":
            problems.append(f"{label}: the like made after the cut is not in the store after the next sync: {recovered.get('d')}")
    if {k: v for k, v in comparable(recovered, before).items() if not (touched and k == "d")} != comparable(expected, before):
        problems.append(f"{label}: after the next sync the store is not what the uncut sync left: {not_all_there(before, expected, recovered)}")
    verify = rig.run("verify")
    if verify.returncode != 0:
        problems.append(f"{label}: after the next sync verify exits {verify.returncode}: {verify.stdout.strip()[:300]}")
    for device, store in (("the other device", other), ("a device new to the folder", new)):
        if device == "the other device" and not other_device:
            continue
        merged = rig.run("sync", folder, store=store)
        if merged.returncode != 0 or rig.state(store) != recovered:
            problems.append(f"{label}: {device} does not end with the same collection ({merged.returncode}: {merged.stderr.strip()[:200]})")
    return problems


def sync_steps(rig, only=None):
    return run_scenarios(rig, sync_scenarios(rig), cut_sync_at_every_step, only)


# MARK: stream


def stream(rig, rounds, seed):
    rng = random.Random(seed)
    s = rig.sample
    # The samples and camera photos turned by their Exif orientation, as phones leave them.
    images = [s(name) for name in ("rocket.jpg", "chelsea.jpg", "coffee.jpg", "astronaut.jpg", "retina.jpg")]
    images += [rig.camera(name) for name in ("o5", "o6-progressive", "o7", "o8-progressive", "o3")]
    ids = [f"p{n}" for n in range(12)]

    def random_command():
        photo = rng.choice(ids)
        kind = rng.choice(["like", "like", "unlike", "toggle", "note", "album", "import", "purge"])
        if kind == "like":
            return ["like", photo, "--image", rng.choice(images), "--note", f"n{rng.randint(0, 9)}"]
        if kind == "unlike":
            return ["unlike", photo]
        if kind == "toggle":
            return ["toggle", photo, "--image", rng.choice(images)]
        if kind == "note":
            return ["note", photo, f"note {rng.randint(0, 99)}"]
        if kind == "album":
            return ["album", "add", f"Album {rng.randint(0, 2)}", photo]
        if kind == "import":
            folder = os.path.join(rig.top, f"import{rng.randint(0, 9)}")
            if not os.path.isdir(folder):
                os.mkdir(folder)
                for path in rng.sample(images, 2):
                    shutil.copyfile(path, os.path.join(folder, f"p{rng.randint(0, 11)}.{os.path.basename(path)}"))
            return ["import", folder]
        return ["purge"]

    rig.wipe()
    passed = failed = acknowledged = lost = repaired = 0
    for round_number in range(rounds):
        problems = []
        # A few changes that finish; each must outlive the cut that ends the round.
        for _ in range(rng.randint(0, 4)):
            command = random_command()
            result = rig.run(*command)
            if result.returncode == 0:
                acknowledged += 1
            elif result.returncode == 66 and command[0] in ("purge", "unlike", "note", "album", "toggle") and not os.path.exists(rig.store):
                pass  # a command that reads or changes what is liked names a store never made (SPEC §5)
            elif result.returncode != 1:
                problems.append(f"{command} failed with {result.returncode}: {result.stderr.strip()}")
        # The last one is cut at a random step (or right after it returns, when it makes fewer
        # requests). What it would do uncut is learnt first, from the same in-memory state.
        command = random_command()
        before = rig.state()
        saved = rig.fs.snapshot()
        rig.run(*command)
        after = rig.state()
        rig.fs.restore(saved)
        rig.fs.arm(rng.randint(0, 40))
        mixed = rig.whole and rng.random() < 0.5
        rig.fs.mix = random.Random(rng.random()) if mixed else None
        result = rig.run(*command)
        rig.fs.cut()
        rig.fs.mix = None
        rig.fs.reboot()
        try:
            now = rig.state()
        except (AssertionError, ValueError, OSError) as error:
            problems.append(f"after the cut: {error}")
            now = None
        if now is not None:
            acknowledged += result.returncode == 0
            found, torn = after_the_cut(before, after, now, result.returncode)
            problems += found
            lost += torn
            problems += rig.check_store(f"round {round_number}")
            # One round in five: a double damage, repaired; every photo comes back with its image.
            liked = sorted(rig.state())
            if not problems and len(liked) >= 2 and rng.random() < 0.2:
                victim, other = rng.sample(liked, 2)
                journal_damage = rng.choice(JOURNAL_DAMAGES)
                before_damage = rig.state()
                double_damage(rig, victim, other, journal_damage)
                problems += after_the_repair(rig, f"round {round_number}, {victim}'s record deleted, journal {journal_damage}", before_damage)
                repaired += 1
        if report(f"round {round_number}, {'mixed ' if mixed else ''}cut in {command} at step {rig.fs.cut_step}", problems, limit=6):
            failed += 1
        else:
            passed += 1
        if (round_number + 1) % 50 == 0:
            print(f"{round_number + 1} rounds, {acknowledged} acknowledged changes, {lost} photos lost or torn", flush=True)
    print(f"stream: {rounds} rounds, {acknowledged} acknowledged changes, {lost} photos lost or torn, {repaired} double damages repaired")
    return passed, failed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["steps", "stream", "sync"])
    parser.add_argument("--likes", required=True)
    parser.add_argument("--samples", required=True)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--only", help="steps: only the scenarios whose name holds this")
    parser.add_argument("--flush", choices=["fsync", "syncfs"], default="fsync", help="how `likes` flushes (see above)")
    parser.add_argument("--stride", type=int, default=1,
                        help="steps and sync: cut at every Kth step of each command (and after its last), not every one")
    arguments = parser.parse_args()
    try:
        import powercut_fs  # noqa: F401
    except ImportError as error:
        print(f"powercut: cannot use FUSE here ({error}); install python3-pyfuse3 and fuse3", file=sys.stderr)
        sys.exit(2)
    if not os.path.exists("/dev/fuse"):
        print("powercut: /dev/fuse is missing", file=sys.stderr)
        sys.exit(2)
    rig = Rig(os.path.abspath(arguments.likes), os.path.abspath(arguments.samples), arguments.flush)
    rig.stride = arguments.stride
    try:
        os.makedirs(rig.store, exist_ok=True)  # stats reads a store that is there
        stats = rig.run("stats", "--json", check=True)
        flush = json.loads(stats.stdout)
        print(f"store on {flush['fileSystem']}, flushed with {flush['flush']}")
        if arguments.mode == "steps":
            passed, failed = steps(rig, arguments.only)
        elif arguments.mode == "sync":
            passed, failed = sync_steps(rig, arguments.only)
        else:
            print(f"seed {arguments.seed}")
            passed, failed = stream(rig, arguments.rounds, arguments.seed)
    finally:
        rig.close()
    print(f"powercut: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
