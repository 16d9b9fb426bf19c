#!/usr/bin/env bash
# Regenerates app-vectors.tsv: self-built app (自建应用) callbacks encrypted and
# signed by tools that share no code with wecodex or silenceper/wechat:
# openssl (AES-256-CBC without its padding: WeCom pads to 32 bytes, done by
# hand here), sha1sum, base64, xxd. The receive id is the corp id.
set -euo pipefail
cd "$(dirname "$0")"

# One fixed key: bytes 0x20..0x3f.
key_hex=202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f
iv_hex=${key_hex:0:32}
aes_key=$(printf '%s' "$key_hex" | xxd -r -p | base64 -w0 | tr -d '=')
token=appToken42
corp=ww0123456789abcdef

# vector NAME RANDOM_HEX TIMESTAMP NONCE XML
vector() {
	local name=$1 random_hex=$2 ts=$3 nonce=$4 msg=$5
	local msglen ridlen content pad padbyte enc sig
	msglen=$(printf '%s' "$msg" | wc -c)
	ridlen=$(printf '%s' "$corp" | wc -c)
	content=$((20 + msglen + ridlen))
	pad=$((32 - content % 32))
	padbyte=$(printf '%02x' "$pad")
	enc=$(
		{
			printf '%s' "$random_hex" | xxd -r -p
			printf '%08x' "$msglen" | xxd -r -p
			printf '%s' "$msg"
			printf '%s' "$corp"
			for _ in $(seq "$pad"); do printf '%s' "$padbyte"; done | xxd -r -p
		} | openssl enc -aes-256-cbc -K "$key_hex" -iv "$iv_hex" -nopad | base64 -w0
	)
	sig=$(printf '%s\n' "$token" "$ts" "$nonce" "$enc" | LC_ALL=C sort | tr -d '\n' | sha1sum | cut -d' ' -f1)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$name" "$token" "$aes_key" "$corp" "$random_hex" "$ts" "$nonce" \
		"$(printf '%s' "$msg" | base64 -w0)" "$enc" "$sig"
}

{
	printf '# name\ttoken\tencoding_aes_key\tcorp_id\trandom_hex\ttimestamp\tnonce\tmessage_base64\tencrypt\tmsg_signature\n'
	vector app-text 000102030405060708090a0b0c0d0e0f 1733000000 nonceA \
		'<xml><ToUserName><![CDATA[ww0123456789abcdef]]></ToUserName><FromUserName><![CDATA[zhangsan]]></FromUserName><CreateTime>1733000000</CreateTime><MsgType><![CDATA[text]]></MsgType><Content><![CDATA[你好, codex]]></Content><MsgId>7300000000000000001</MsgId><AgentID>1000002</AgentID></xml>'
	vector app-echostr 0f0e0d0c0b0a09080706050403020100 1733000001 nonceB \
		'3735928559123456'
	vector app-card-click a0a1a2a3a4a5a6a7a8a9aaabacadaeaf 1733000002 nonceC \
		'<xml><ToUserName><![CDATA[ww0123456789abcdef]]></ToUserName><FromUserName><![CDATA[zhangsan]]></FromUserName><CreateTime>1733000002</CreateTime><MsgType><![CDATA[event]]></MsgType><Event><![CDATA[template_card_event]]></Event><EventKey><![CDATA[appr:1:approve]]></EventKey><TaskId><![CDATA[wxappr_1_ab]]></TaskId><CardType><![CDATA[button_interaction]]></CardType><ResponseCode><![CDATA[RC-click]]></ResponseCode><AgentID>1000002</AgentID></xml>'
	# 20 + 12 + 18 = 50: padded with 14 bytes of 0x0e to 64.
	vector app-short b0b1b2b3b4b5b6b7b8b9babbbcbdbebf 1733000003 nonceD \
		'twelve bytes'
} >app-vectors.tsv
