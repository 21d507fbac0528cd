#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer + AddressSanitizer, through swiftc -sanitize=fuzzer,address) of
# the header parser (with a TIFF's page chain) and the EXIF orientation reader, seeded with the project's
# JPEG and PNG fixtures and the scan formats' headers.
#
#   scripts/fuzz --parsers [SECONDS]      # default 60; a crash leaves crash-* in .build-fuzz/ and exits 1
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=.build-fuzz
mkdir -p "$OUT/corpus"
S=Sources
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name FuzzParsers scripts/fuzz.d/parsers.swift \
  $S/AnalyzeCore/Input/ImageHeader.swift $S/AnalyzeCore/Input/ImageOrientation.swift \
  $S/AnalyzeCore/Input/RegularFile.swift $S/AnalyzeCore/Input/FilePathBytes.swift $S/AnalyzeCore/Support/AnalysisError.swift \
  $S/AnalyzeCore/Backends/ExifOrientationReader.swift \
  -I $S/CExif -Xcc -fmodule-map-file=$S/CExif/module.modulemap -lexif -o "$OUT/fuzz-parsers" 2>"$OUT/build.log" ||
  { cat "$OUT/build.log" >&2; exit 2; }   # (gold's "Cannot export local symbol __asan_*" warnings stay in the log)
cp Fixtures/orientation/*.jpg Fixtures/samples/*.jpg Fixtures/barcodes/*.png "$OUT/corpus/"
# Seeds for the scan formats' headers: Netpbm with a comment, PAM, a JP2 header box, a JPEG 2000
# codestream, Sun raster, and a two-page TIFF chain (whose pages the harness walks).
printf 'P5\n# c\n640 400\n255\n\0\0\0\0' > "$OUT/corpus/seed.pgm"
printf 'P7\nWIDTH 4\nHEIGHT 2\nDEPTH 1\nMAXVAL 255\nENDHDR\n\0\0\0\0\0\0\0\0' > "$OUT/corpus/seed.pam"
printf '\0\0\0\x0cjP  \r\n\x87\n\0\0\0\x14ftypjp2 \0\0\0\0jp2 \0\0\0\x1ejp2h\0\0\0\x16ihdr\0\0\x01\x2c\0\0\x01\xf4\0\x03\x07\x07\0\0' > "$OUT/corpus/seed.jp2"
printf '\xff\x4f\xff\x51\0\x29\0\0\0\0\x03\xf2\0\0\x03\x02\0\0\0\x0a\0\0\0\x14' > "$OUT/corpus/seed.j2k"
printf '\x59\xa6\x6a\x95\0\0\0\x02\0\0\0\x02\0\0\0\x18\0\0\0\x0c\0\0\0\x01\0\0\0\0\0\0\0\0' > "$OUT/corpus/seed.ras"
printf 'II*\0\x08\0\0\0\x02\0\0\x01\x03\0\x01\0\0\0\x04\0\0\0\x01\x01\x03\0\x01\0\0\0\x02\0\0\0\x26\0\0\0\x02\0\0\x01\x03\0\x01\0\0\0\x04\0\0\0\x01\x01\x03\0\x01\0\0\0\x02\0\0\0\0\0\0\0' > "$OUT/corpus/seed.tif"
cd "$OUT"
./fuzz-parsers -max_total_time="${1:-60}" -max_len=4096 -print_final_stats=1 corpus 2>&1 |
  grep -E "^#[0-9]+ +DONE|stat::number_of_executed_units|ERROR|SUMMARY|Test unit written"
