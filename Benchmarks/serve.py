"""`likes serve` under load: wrk (Debian's), 64 connections over loopback for 10 s each, on the
page, the API's first page of photos and one thumbnail of a store of 100,000 favorites; the
server's memory before and after.

    serve.py LIKES STORE WORKDIR PHOTO   (prints one line per target, writes WORKDIR/serve.json)

PHOTO, a real JPEG, is liked into the store first (the benchmark stores' made-up images cannot
be scaled), so that the first page starts with it and its thumbnail is the one loaded.
"""

import json
import re
import subprocess
import sys
import time
import urllib.request


def rss(pid):
    """Resident and peak memory of `pid`, in MB."""
    with open(f"/proc/{pid}/status") as handle:
        fields = dict(line.split(":", 1) for line in handle if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def wrk(url, token):
    result = subprocess.run(
        ["wrk", "-t2", "-c64", "-d10s", "--latency", "-H", f"Authorization: Bearer {token}", url], capture_output=True, text=True, check=True)
    text = result.stdout
    requests = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", text)
    p99_ms = float(p99.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
    total = int(re.search(r"(\d+) requests in", text).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    errors = (int(non2xx.group(1)) if non2xx else 0) + (sum(int(x) for x in socket.groups()) if socket else 0)
    return {"requestsPerSecond": requests, "p99Ms": p99_ms, "requests": total, "errors": errors}


def main():
    likes, store, work, photo = sys.argv[1:5]
    subprocess.run([likes, "--store", store, "like", "serve-bench", "--image", photo], check=True, capture_output=True)
    server = subprocess.Popen([likes, "--store", store, "serve"], stdout=subprocess.PIPE, text=True)
    try:
        address = server.stdout.readline().strip()
        origin, token = address.split("/?token=")
        def get(path):
            request = urllib.request.Request(origin + path, headers={"Authorization": f"Bearer {token}"})
            return urllib.request.urlopen(request).read()
        first = json.loads(get("/api/photos?limit=60"))
        thumbnail = first["photos"][0]["thumbnail"]
        get(thumbnail)  # made now, if it was not yet: the load then reads the file
        time.sleep(0.5)
        before = rss(server.pid)
        results = {"rssBeforeMB": before[0]}
        for name, path in [("page", "/"), ("photos", "/api/photos?limit=60"), ("thumbnail", thumbnail)]:
            results[name] = wrk(origin + path, token)
            row = results[name]
            print(f"12 serve {name} at 100k, 64 connections: {row['requestsPerSecond']:,.0f} requests/s, p99 {row['p99Ms']:.2f} ms, "
                  f"{row['errors']} errors of {row['requests']:,}", flush=True)
        after = rss(server.pid)
        results["rssAfterMB"], results["peakMB"] = after
        print(f"12 serve memory: {before[0]:.1f} MB before, {after[0]:.1f} MB after, {after[1]:.1f} MB peak", flush=True)
        with open(f"{work}/serve.json", "w") as handle:
            json.dump(results, handle, indent=2)
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
