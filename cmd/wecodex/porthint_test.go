package main

import (
	"net"
	"strings"
	"testing"
)

// TestServePortInUseSaysWhatMovesIt: a taken server.addr fails with the
// keys that move it and the likely cause.
func TestServePortInUseSaysWhatMovesIt(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg := writeConfig(t, "server:\n  addr: "+ln.Addr().String()+"\n")
	r := runBin(t, "serve", "--config", cfg)
	want := "listen on server.addr " + ln.Addr().String() + ": listen tcp " + ln.Addr().String() + ": bind: address already in use (another program, perhaps another wecodex, is listening there: stop it, or move this one with server.addr or WECODEX_SERVER_ADDR, e.g. WECODEX_SERVER_ADDR=127.0.0.1:8090)"
	if r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit 1 and %q", r.code, r.stderr, want)
	}
}
