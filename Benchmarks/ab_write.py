# A/B of two builds of `likes` on the commands that write: likes, notes, album memberships and
# unlikes, each a process of its own as a person or a script runs them, on a fresh store per run
# (durability full, on this file system). Pairs alternate in one run, so drift moves both alike.
# Usage: python3 Benchmarks/ab_write.py OLD_LIKES NEW_LIKES PHOTO.jpg [COUNT] [RUNS]
import os, shutil, statistics, subprocess, sys, tempfile, time

old, new, photo = sys.argv[1], sys.argv[2], sys.argv[3]
count = int(sys.argv[4]) if len(sys.argv) > 4 else 100
runs = int(sys.argv[5]) if len(sys.argv) > 5 else 3
phases = [
    ("like", lambda i: ["like", f"p{i}", "--image", photo]),
    ("note", lambda i: ["note", f"p{i}", f"note {i}"]),
    ("album add", lambda i: ["album", "add", "Trip", f"p{i}"]),
    ("unlike", lambda i: ["unlike", f"p{i}"]),
]


def run_phases(binary, store):
    times = {}
    for name, arguments in phases:
        start = time.perf_counter()
        for index in range(count):
            result = subprocess.run([binary, "--store", store] + arguments(index), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if result.returncode != 0:
                sys.exit(f"{binary} {' '.join(arguments(index))}: {result.stderr.decode()[:200]}")
        times[name] = (time.perf_counter() - start) / count * 1000
    return times


results = {old: {name: [] for name, _ in phases}, new: {name: [] for name, _ in phases}}
for run in range(runs):
    for binary in (old, new) if run % 2 == 0 else (new, old):
        folder = tempfile.mkdtemp(dir=os.environ.get("BENCH_DIR"))
        for name, value in run_phases(binary, os.path.join(folder, "store")).items():
            results[binary][name].append(value)
        shutil.rmtree(folder)
for name, _ in phases:
    before, after = statistics.median(results[old][name]), statistics.median(results[new][name])
    print(f"{name:10s} before {before:6.2f} ms  after {after:6.2f} ms  after/before {after / before:5.2f}  (median of {runs} runs of {count})")
