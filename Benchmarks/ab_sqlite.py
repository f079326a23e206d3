#!/usr/bin/env python3
"""Builds of `likes` before and after a change, and sqlite3, on the queries of userstore.py,
alternating in one run: what tells a change's effect from this machine's drift between runs.

Usage: ab_sqlite.py STORE DATABASE LIKES [LIKES ...]
  STORE and DATABASE as userstore.py leaves them (WORK/user-100000/store and .../likes.db);
  N=21 runs each (environment), ONLY=newest,common,... for some of the queries.
"""
import os
import shutil
import statistics
import sys
import time

store, database, builds = sys.argv[1], sys.argv[2], sys.argv[3:]


def page(where="", join=""):
    return f"SELECT json_group_array(json(record)) FROM (SELECT record FROM likes {join} {where} ORDER BY likedAt DESC LIMIT 20)"


QUERIES = [
    ("newest", ["list", "--limit", "20", "--json"], page()),
    ("common", ["list", "--search", "sunset", "--limit", "20", "--json"], page("WHERE record LIKE '%sunset%'")),
    ("rare", ["list", "--search", "lighthouse", "--limit", "20", "--json"], page("WHERE record LIKE '%lighthouse%'")),
    ("none", ["list", "--search", "zzz", "--limit", "20", "--json"], page("WHERE record LIKE '%zzz%'")),
    ("green", ["list", "--color", "green", "--limit", "20", "--json"], page("WHERE family = 'green'")),
    ("albums", ["albums", "--json"],
     "SELECT json_group_array(json_object('name', album, 'count', n, 'newest', newest)) FROM "
     "(SELECT album, count(*) AS n, max(likedAt) AS newest FROM members JOIN likes USING (id) GROUP BY album ORDER BY album)"),
    ("album7", ["list", "--album", "Album 7", "--limit", "20", "--json"], page("WHERE album = 'Album 7'", "JOIN members USING (id)")),
]


def spawn(command):
    start = time.perf_counter()
    pid = os.posix_spawn(command[0], command, os.environ, file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise SystemExit(f"{command} failed with status {status}")
    return time.perf_counter() - start


only, repeat = os.environ.get("ONLY"), int(os.environ.get("N", "21"))
for name, arguments, query in QUERIES:
    if only and name not in only.split(","):
        continue
    commands = [[build, "--store", store, *arguments] for build in builds] + [[shutil.which("sqlite3"), database, query]]
    times = [[] for _ in commands]
    for command in commands:
        spawn(command)
    for _ in range(repeat):
        for side, command in enumerate(commands):
            times[side].append(spawn(command))
    medians = [statistics.median(side) * 1000 for side in times]
    named = "  ".join(f"{os.path.basename(path)} {value:.2f} ms" for path, value in zip(builds + ["sqlite3"], medians))
    print(f"{name:8s} {named}  ratios to sqlite3 " + " ".join(f"{value / medians[-1]:.2f}" for value in medians[:-1]), flush=True)
