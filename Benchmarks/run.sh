#!/usr/bin/env bash
# Builds the release binaries (fully static, as installed) and runs every benchmark of BENCHMARKS.md.
# Usage: Benchmarks/run.sh [WORKDIR]   (WORKDIR defaults to a temporary directory; ~2.5 GB free)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v sqlite3 >/dev/null || { echo "needs the sqlite3 command (Debian: apt-get install sqlite3)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs GNU time for peak memory (Debian: apt-get install time)" >&2; exit 1; }
command -v wrk >/dev/null || { echo "needs wrk for the load on likes serve (Debian: apt-get install wrk)" >&2; exit 1; }
[ -e /usr/include/sqlite3.h ] || { echo "needs SQLite's library for the in-process peer (Debian: apt-get install libsqlite3-dev)" >&2; exit 1; }
# As the README installs it: one fully static executable, which starts without the dynamic loader.
swift build -c release -Xswiftc -static-executable -Xlinker --strip-all --product likes \
    -Xswiftc -use-ld=lld -Xlinker --symbol-ordering-file=Sources/likes/Linker/hot-functions.order -Xlinker --no-warn-symbol-ordering
swift build -c release -Xswiftc -static-executable -Xlinker --strip-all --product likes-bench
work="${1:-$(mktemp -d)}"
python3 Benchmarks/bench.py .build/release "$work"
/usr/bin/python3 Benchmarks/thumbnails.py .build/release/likes "$work"
python3 Benchmarks/serve.py .build/release/likes "$work/big/store" "$work" Samples/photos/coffee.jpg
python3 Benchmarks/restore.py .build/release/likes "$work"
/usr/bin/python3 Benchmarks/sync.py .build/release "$work"
/usr/bin/python3 Benchmarks/userstore.py .build/release "$work"
# LikeKit against SQLite in the app's own process, on stores (a) and (b) of 100,000 as userstore.py
# built them above: Benchmarks/InProcess, a package of its own (the library never links SQLite).
swift build -c release --package-path Benchmarks/InProcess
for key in a b; do
    Benchmarks/InProcess/.build/release/likekit-vs-sqlite "$work/user-100000-$key" Samples/photos/coffee.jpg
done
