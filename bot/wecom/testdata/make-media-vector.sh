#!/bin/sh
# Makes media-vector.bin: a media file encrypted as WeCom encrypts downloads
# (AES-256-CBC, key 00..1f, IV = the key's first 16 bytes, PKCS#7 padded by
# hand to a multiple of 32), by openssl, which shares no code with wecodex.
# The plain file is media-vector.txt. Run it only to change the vector.
set -eu
cd "$(dirname "$0")"
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
iv=000102030405060708090a0b0c0d0e0f
printf 'a build log line\nFAIL: TestFlaky (0.02s)\n' > media-vector.txt
n=$(wc -c < media-vector.txt)
pad=$((32 - n % 32))
{ cat media-vector.txt; i=0; while [ $i -lt $pad ]; do printf "\\$(printf %o $pad)"; i=$((i+1)); done; } |
	openssl enc -aes-256-cbc -K $key -iv $iv -nopad > media-vector.bin
