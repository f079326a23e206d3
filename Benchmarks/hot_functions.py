#!/usr/bin/env python3
"""Writes Sources/likes/Linker/hot-functions.order: the functions the common commands run, in the order
they are first met, for the linker to lay out side by side (see README, Install).

Usage: python3 Benchmarks/hot_functions.py [STORE]

Builds `likes` as the README installs it, but with its symbol table, and runs each command once
under `valgrind --tool=callgrind` (which records every function called, not a sample): the reading
commands on STORE (a store as a user has one; without it, one made from Samples/), then likes,
notes and album edits on a scratch store made from Samples/. Needs valgrind (Debian: apt-get
install valgrind). Run it again when the reading path changes; functions the file does not name
are laid out after those it does, as before.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, "Sources", "likes", "Linker", "hot-functions.order")

READING = [
    ["--version"],
    ["list", "--limit", "20", "--json"],
    ["list", "--limit", "20"],
    ["list", "--search", "sunset", "--limit", "20", "--json"],
    ["list", "--color", "green", "--limit", "20", "--json"],
    ["list", "--album", "Album 7", "--limit", "20", "--json"],
    ["albums", "--json"],
    ["stats"],
]


def called_functions(profile):
    """Symbol names in the order callgrind's file first names them: without the `'2` it adds to a
    function called again while it runs, and without what is no symbol (`(below main)`, addresses)."""
    names = []
    for line in open(profile, encoding="utf-8", errors="replace"):
        match = re.match(r"^c?fn=\(\d+\) (.+)$", line.rstrip("\n"))
        if not match:
            continue
        name = re.sub(r"'\d+$", "", match.group(1))
        if not name.startswith("0x") and "(" not in name and " " not in name:
            names.append(name)
    return names


def main():
    if shutil.which("valgrind") is None:
        sys.exit("needs valgrind (Debian: apt-get install valgrind)")
    scratch = tempfile.mkdtemp(prefix="likes-hot-")
    build = os.path.join(scratch, "build")
    subprocess.run(
        ["swift", "build", "-c", "release", "-Xswiftc", "-static-executable", "-Xswiftc", "-use-ld=lld",
         "--scratch-path", build, "--product", "likes"], cwd=ROOT, check=True)
    # Valgrind reads the symbol table but gives up on the toolchain's debug information.
    likes = os.path.join(scratch, "likes")
    subprocess.run(["objcopy", "--strip-debug", os.path.join(build, "release", "likes"), likes], check=True)

    samples = os.path.join(ROOT, "Samples", "photos")
    writing_store = os.path.join(scratch, "written")
    photos = sorted(name[:-4] for name in os.listdir(samples) if name.endswith(".jpg"))
    writing = [
        ["import", samples],
        ["note", photos[0], "a note"],
        ["album", "add", "Album 7"] + photos[:3],
        ["unlike", photos[-1]],
    ]
    store = sys.argv[1] if len(sys.argv) > 1 else writing_store

    def profiled(index, where, arguments):
        profile = os.path.join(scratch, f"callgrind.{index}")
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={profile}", likes, "--store", where]
            + arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        return called_functions(profile)

    # The writing commands run first (they make the scratch store), but the reading commands'
    # functions come first in the file: a page is what a person waits for.
    written = [profiled(index, writing_store, arguments) for index, arguments in enumerate(writing)]
    read = [profiled(len(writing) + index, store, arguments) for index, arguments in enumerate(READING)]
    names, seen = [], set()
    for name in [name for run in read + written for name in run]:
        if name not in seen:
            seen.add(name)
            names.append(name)
    with open(OUTPUT, "w", encoding="utf-8") as output:
        output.write("\n".join(names) + "\n")
    shutil.rmtree(scratch)
    print(f"{len(names)} functions in {os.path.relpath(OUTPUT, ROOT)}")


if __name__ == "__main__":
    main()
