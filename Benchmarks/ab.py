# A/B of two builds of `likes` on one store: each read command run by the one, then the other,
# N times (warm: no cache is dropped), and the medians compared. For telling a change's cost from
# the disk's drift, which moves both sides alike.
# Usage: python3 Benchmarks/ab.py OLD_LIKES NEW_LIKES STORE N
#   (a store of 100,000: .build/release/likes-bench build STORE 100000 2048)
import subprocess, sys, time, statistics, os
old, new, store, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
cmds = [
    ["list", "--limit", "20", "--json"],
    ["list", "--offset", "500", "--limit", "20", "--json"],
    ["list", "--album", "Album 3", "--limit", "20", "--json"],
    ["stats", "--json"],
    ["albums", "--json"],
    ["purge", "--dry-run", "--json"],
]
def t(binary, cmd):
    start = time.perf_counter()
    r = subprocess.run([binary, "--store", store] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    el = time.perf_counter() - start
    if r.returncode not in (0, 1):
        print("fail", binary, cmd, r.stderr.decode()[:200]); sys.exit(1)
    return el
for cmd in cmds:
    a, b = [], []
    for i in range(n):
        a.append(t(old, cmd)); b.append(t(new, cmd))
    ma, mb = statistics.median(a) * 1000, statistics.median(b) * 1000
    print(f"{' '.join(cmd):45s} before {ma:8.1f} ms  after {mb:8.1f} ms  after/before {mb/ma:5.2f}")
