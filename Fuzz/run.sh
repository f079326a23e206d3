#!/usr/bin/env bash
# Fuzzes the parsers with libFuzzer: JPEGCodec's header check, Exif reader, decoder and thumbnailer; LikeStore's
# journal and record readers; and HTTPServer's request parser.
# Usage: Fuzz/run.sh [RUNS]   (default 1,000,000 runs each; corpora and crashes under .build/fuzz)
# A crash leaves a crash-* file; turn it into a regression test in the target's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
out=.build/fuzz
mkdir -p "$out"
export SWIFT_BACKTRACE=enable=no   # the backtracer can hang after a crash under the fuzzer
sources=$(find Sources/LikeStore -name '*.swift')
codec=$(find Sources/JPEGCodec -name '*.swift')
support=$(find Sources/LikesSupport -name '*.swift')
# The store's C targets, built as SwiftPM builds them.
clang -O2 -c Sources/LinuxFileSystemCalls/calls.c -I Sources/LinuxFileSystemCalls/include -o "$out/calls.o"
clang -O2 -c Sources/CRC32Folding/folding.c -I Sources/CRC32Folding/include -o "$out/folding.o"
clang -O2 -c Sources/SHA256Rounds/rounds.c -I Sources/SHA256Rounds/include -o "$out/rounds.o"
server=$(find Sources/HTTPServer -name '*.swift')
for target in ${FUZZ_TARGETS:-JPEGHeaderFuzz ExifFuzz JournalFuzz RecordFuzz JPEGDecoderFuzz HTTPRequestFuzz}; do
    if [ "$target" = HTTPRequestFuzz ]; then
        swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name LikesSupport -package-name likes -I Sources/LinuxFileSystemCalls/include \
            -I Sources/CRC32Folding/include -emit-module -emit-module-path "$out/LikesSupport.swiftmodule" -emit-object -wmo $support -o "$out/LikesSupport.o"
        swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name HTTPServer -package-name likes -I "$out" -I Sources/LinuxFileSystemCalls/include \
            -I Sources/CRC32Folding/include $server "Fuzz/$target.swift" "$out/LikesSupport.o" "$out/calls.o" "$out/folding.o" -o "$out/$target"
    elif [ "$target" = JPEGDecoderFuzz ] || [ "$target" = JPEGHeaderFuzz ] || [ "$target" = ExifFuzz ]; then
        swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name JPEGCodec -package-name likes $codec "Fuzz/$target.swift" -o "$out/$target"
    else
        # LikeStore uses JPEGCodec and LikesSupport: build them as modules first.
        swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name JPEGCodec -package-name likes -emit-module -emit-module-path "$out/JPEGCodec.swiftmodule" \
            -emit-object -wmo $codec -o "$out/JPEGCodec.o"
        swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name LikesSupport -package-name likes -I Sources/LinuxFileSystemCalls/include \
            -I Sources/CRC32Folding/include -emit-module -emit-module-path "$out/LikesSupport.swiftmodule" -emit-object -wmo $support -o "$out/LikesSupport.o"
        swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name LikeStore -package-name likes -I Sources/LinuxFileSystemCalls/include \
            -I Sources/CRC32Folding/include -I Sources/SHA256Rounds/include -I "$out" $sources "Fuzz/$target.swift" "$out/calls.o" "$out/folding.o" \
            "$out/rounds.o" "$out/JPEGCodec.o" "$out/LikesSupport.o" -o "$out/$target"
    fi
    mkdir -p "$out/$target-corpus"
    case $target in
        JPEGHeaderFuzz) cp Samples/photos/chelsea.jpg "$out/$target-corpus/" ;;
        # The TIFF blocks of Pillow's photos with Exif (after `Exif\0\0`), both byte orders.
        ExifFuzz)
            for file in flower.jpg exif_gps.jpg orientation_rectangle.jpg hopper_bad_exif.jpg exif-72dpi-int.jpg; do
                python3 - "Tests/Fixtures/jpeg/pillow/$file" "$out/$target-corpus/$file.tiff" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
start = data.find(b"Exif\x00\x00")
if start > 0:
    length = int.from_bytes(data[start - 2:start], "big")
    open(sys.argv[2], "wb").write(data[start + 6:start - 2 + length])
PY
            done ;;
        HTTPRequestFuzz)
            printf 'GET /photo?id=caf%%C3%%A9&v=a~1.jpg HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nRange: bytes=0-99\r\n\r\n' > "$out/$target-corpus/get"
            printf 'POST /api/note HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 17\r\n\r\nid=a%%2Fb&note=x+y' > "$out/$target-corpus/post" ;;
        # Small real JPEGs of every coding: Pillow's test images, and a progressive one with
        # restart markers and 4:2:2 chroma made by libjpeg if its tools are installed.
        JPEGDecoderFuzz)
            for file in Tests/Fixtures/jpeg/pillow/*.jpg Samples/photos/chelsea.jpg; do
                [ "$(wc -c < "$file")" -le 16384 ] && cp "$file" "$out/$target-corpus/"
            done
            if command -v cjpeg >/dev/null; then
                djpeg -scale 1/4 Samples/photos/chelsea.jpg | cjpeg -progressive -sample 2x1 -restart 1B > "$out/$target-corpus/progressive-restarts.jpg"
                djpeg -scale 1/4 Samples/photos/chelsea.jpg | cjpeg -grayscale -restart 2 > "$out/$target-corpus/gray-restarts.jpg"
            fi ;;
        RecordFuzz) cp Tests/Fixtures/records/*.json "$out/$target-corpus/" 2>/dev/null || printf '%s' \
            '{"albums":["Été"],"changed":["note","albums"],"format":1,"generation":"0123456789ab","id":"a","image":{"bytes":2,"crc32":"00000000","generation":"0123456789ab","height":1,"width":1},"likedAt":"2026-11-23T23:15:42.732Z","note":"x\ty","photo":{"color":"#60544D","createdAt":null,"description":"d","height":3000,"photographer":"p","photographerUsername":"u","sourceURL":"s","width":4000},"userImage":null}' \
            > "$out/$target-corpus/seed" ;;
        JournalFuzz) cat > "$out/$target-corpus/seed" <<'LINES'
J 0 0123456789ab 0 - - likes-journal-1
L 1763774625123 1a2b3c4d5e6f 2048 1a2b3c4d5e6f - ^dwu85^p9^s^o^ik
L 1763774625123 3a2b3c4d5e6f 2048 3a2b3c4d5e6f - abc Caf%C3%A9,Trip%20to%20Lisbon,a%2Cb%25
L 1763774625127 4a2b3c4d5e6f 2048 4a2b3c4d5e6f - ^x 60544d xcafé Caf%C3%A9
M 1763774625124 2a2b3c4d5e6f 2048 1a2b3c4d5e6f 2a2b3c4d5e6f ^dwu85^p9^s^o^ik
U 1763774625125 2a2b3c4d5e6f 0 1a2b3c4d5e6f 2a2b3c4d5e6f ^dwu85^p9^s^o^ik Dwu85P9SOIk
U 1763774625126 2a2b3c4d5e6f 0 1a2b3c4d5e6f - abc abc {"changed":["note"],"format":1,"generation":"2a2b3c4d5e6f","id":"abc","note":"Caf%C3%A9%20x"}
A 1763774625125 2a2b3c4d5e6f 0 - - ^dwu85^p9^s^o^ik
P 1763774625126 - 12 - - images/x%20y
LINES
            ;;
    esac
    max_len=4096
    [ "$target" = JPEGDecoderFuzz ] && max_len=16384
    (cd "$out" && "./$target" -runs="$runs" -max_len=$max_len -rss_limit_mb=2048 "$target-corpus")
done
