#!/usr/bin/env python3
"""An import of a few hundred favorites through the stand-in APIs, under an hourly limit that
forces several runs: how many runs, requests and seconds it takes, and whether every photo came
home once with its download count made once.

    import_runs.py LIKES [--photos 300] [--limit 50] [--source unsplash|flickr]

Each run gets a fresh budget of LIMIT requests (a new hour), as a person would run the same
command again; prints one JSON object.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")

parser = argparse.ArgumentParser()
parser.add_argument("likes")
parser.add_argument("--photos", type=int, default=300)
parser.add_argument("--limit", type=int, default=50)
parser.add_argument("--source", choices=["unsplash", "flickr"], default="unsplash")
options = parser.parse_args()

work = tempfile.mkdtemp(prefix="likes-import-runs-")
log = os.path.join(work, "requests.log")
server = subprocess.Popen(["/usr/bin/python3", os.path.join(HERE, "source_server.py"), os.path.join(ROOT, "Tests/Fixtures"),
                           os.path.join(ROOT, "Samples/photos"), log], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
port = int(server.stdout.readline())


def control(**settings):
    query = "&".join(f"{name}={value}" for name, value in settings.items())
    urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/control?{query}", method="POST")).read()


environment = dict(os.environ, UNSPLASH_ACCESS_KEY="key", LIKES_UNSPLASH_API=f"http://127.0.0.1:{port}/unsplash",
                   FLICKR_API_KEY="key", LIKES_FLICKR_API=f"http://127.0.0.1:{port}/flickr/rest")
store = os.path.join(work, "store")
command = ([options.likes, "--store", store, "unsplash", "import-likes", "alice"] if options.source == "unsplash"
           else [options.likes, "--store", store, "flickr", "import-favorites", "markustrois"])
control(likes=options.photos)
runs = []
started = time.perf_counter()
while True:
    control(**{options.source: options.limit})
    run_start = time.perf_counter()
    result = subprocess.run(command + ["--json"], env=environment, capture_output=True, text=True)
    summary = json.loads(result.stdout) if result.stdout.strip() else {}
    runs.append({"status": result.returncode, "liked": summary.get("liked"), "left": summary.get("left"),
                 "seconds": round(time.perf_counter() - run_start, 2)})
    owed = json.loads(subprocess.run([options.likes, "--store", store, "stats", "--json"], capture_output=True, text=True).stdout)
    # Done when the walk ended and no download count is owed (the next hour's run makes those).
    if (result.returncode != 75 and not owed.get("owedTracking")) or len(runs) > 1000:
        break
elapsed = time.perf_counter() - started
server.stdin.close()
server.wait()

requests = [json.loads(line) for line in open(log)]
api = [r for r in requests if not r["path"].startswith("/images/")]
tracking = collections.Counter(r["path"] for r in requests if r["path"].endswith("/download"))
listed = subprocess.run([options.likes, "--store", store, "list", "--json"], capture_output=True, text=True)
ids = [record["id"] for record in json.loads(listed.stdout)]
stats = json.loads(subprocess.run([options.likes, "--store", store, "stats", "--json"], capture_output=True, text=True).stdout)
print(json.dumps({
    "source": options.source, "photos": options.photos, "limitPerRun": options.limit, "runs": len(runs),
    "lastStatus": runs[-1]["status"], "stored": len(ids), "storedOnce": len(ids) == len(set(ids)),
    "apiRequests": len(api), "imageRequests": len(requests) - len(api),
    "downloadCounts": len(tracking), "downloadCountedTwice": sum(1 for n in tracking.values() if n > 1),
    "owedAtTheEnd": stats.get("owedTracking"), "seconds": round(elapsed, 1),
    "secondsPerRun": sorted(run["seconds"] for run in runs)[len(runs) // 2],
}, indent=1))
