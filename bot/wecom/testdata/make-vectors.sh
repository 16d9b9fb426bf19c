#!/usr/bin/env bash
# Regenerates vectors.tsv with tools that share no code with wecodex or
# silenceper/wechat: openssl (AES-256-CBC, no padding: we pad by hand), sha1sum,
# base64, xxd. See README.md.
set -euo pipefail
cd "$(dirname "$0")"

# One fixed key for every vector: bytes 0x00..0x1f.
key_hex=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
iv_hex=${key_hex:0:32}
aes_key=$(printf '%s' "$key_hex" | xxd -r -p | base64 -w0 | tr -d '=')
token=wecodexToken

# vector NAME RECEIVEID RANDOM_HEX TIMESTAMP NONCE MESSAGE
vector() {
	local name=$1 rid=$2 random_hex=$3 ts=$4 nonce=$5 msg=$6
	local msglen ridlen content pad padbyte enc sig
	msglen=$(printf '%s' "$msg" | wc -c)
	ridlen=$(printf '%s' "$rid" | wc -c)
	content=$((20 + msglen + ridlen))
	pad=$((32 - content % 32))
	padbyte=$(printf '%02x' "$pad")
	enc=$(
		{
			printf '%s' "$random_hex" | xxd -r -p
			printf '%08x' "$msglen" | xxd -r -p
			printf '%s' "$msg"
			printf '%s' "$rid"
			for _ in $(seq "$pad"); do printf '%s' "$padbyte"; done | xxd -r -p
		} | openssl enc -aes-256-cbc -K "$key_hex" -iv "$iv_hex" -nopad | base64 -w0
	)
	sig=$(printf '%s\n' "$token" "$ts" "$nonce" "$enc" | LC_ALL=C sort | tr -d '\n' | sha1sum | cut -d' ' -f1)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$name" "$token" "$aes_key" "$rid" "$random_hex" "$ts" "$nonce" \
		"$(printf '%s' "$msg" | base64 -w0)" "$enc" "$sig"
}

{
	printf '# name\ttoken\tencoding_aes_key\treceive_id\trandom_hex\ttimestamp\tnonce\tmessage_base64\tencrypt\tmsg_signature\n'
	vector aibot-text "" 41424344454647484950515253545556 1732950000 nonce123 \
		'{"msgid":"CAIQ16HMjQYY","aibotid":"AIBOTID","chattype":"single","from":{"userid":"zhangsan"},"response_url":"https://qyapi.weixin.qq.com/cgi-bin/aibot/response?response_code=RC","msgtype":"text","text":{"content":"你好, codex"}}'
	vector aibot-echostr "" 00112233445566778899aabbccddeeff 1732950001 n0nce \
		'6712345678901234567'
	# 20 + 12 = 32: the padding is a whole extra block of 0x20 bytes.
	vector aibot-fullpad "" ffeeddccbbaa99887766554433221100 1732950002 abc \
		'twelve bytes'
	vector aibot-stream-reply "" 0f0e0d0c0b0a09080706050403020100 1732950003 xyz \
		'{"msgtype":"stream","stream":{"id":"stream-1","finish":false,"content":"<think>thinking…</think>"}}'
	vector app-xml wwcorp0123456789 1f1e1d1c1b1a19181716151413121110 1732950004 q1w2e3 \
		'<xml><ToUserName><![CDATA[wwcorp0123456789]]></ToUserName><Content><![CDATA[hi]]></Content></xml>'
} >vectors.tsv
