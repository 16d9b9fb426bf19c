package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// /readyz names an unreachable Redis in words an admin can act on, and no
// address (whoever reaches the listener reads it); the address and the
// driver's own error go to the log at warn, never into the answer.
func TestReadyzNamesAnUnreachableRedis(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // nothing listens there now
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	base, stop := startServe(t, "redis:\n  addr: "+addr+"\nagent:\n  codex:\n    bin: "+self+"\n")
	want := `{"ready":false,"problems":{"redis":"Redis does not answer: check redis.addr and redis.password, and that Redis is running and reachable from here (the log has the address and the error)"},"channels":{"wecom_aibot":"off"}}` + "\n"
	if code, body := get(t, base+"/readyz"); code != 503 || body != want {
		t.Errorf("/readyz = %d %s\nwant 503 %s", code, body, want)
	}
	_, logs := stop()
	var notReady map[string]any
	for _, l := range logs {
		if l["msg"] == "not ready" {
			notReady = l
		}
	}
	// The driver retries its dials, so on a busy machine the ping's deadline
	// may come before the refusal: either is the driver's own error.
	driverErr := fmt.Sprint(notReady["redis_err"])
	if notReady == nil || notReady["level"] != "WARN" || notReady["redis_addr"] != addr ||
		!strings.Contains(driverErr, "connection refused") && !strings.Contains(driverErr, "deadline exceeded") {
		t.Fatalf("no WARN 'not ready' line with the driver's error; logs: %v", logs)
	}
}

// With the playground on and no AI bot credentials configured, serve makes
// up a token and key for the run, never logs them, and hands them to the
// playground: a message typed there is signed, accepted and answered.
func TestServeMakesUpPlaygroundCredentials(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	base, stop := startServe(t, fmt.Sprintf("agent:\n  codex:\n    bin: %s\n  workspace_root: %s\naccess:\n  allow_users: [playground]\nplayground:\n  enabled: true\n", self, t.TempDir()))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/playground/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	events, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer events.Body.Close()
	resp, err := http.Post(base+"/playground/send", "application/json", strings.NewReader(`{"text":"/help"}`))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("send = %d, want 202", resp.StatusCode)
	}
	card := finalCard(t, bufio.NewScanner(events.Body))
	if card.State != "done" || !strings.Contains(card.Body, "/stop") {
		t.Fatalf("the /help card ended %q (%s), body %q", card.State, card.Status, card.Body)
	}
	cancel()
	code, logs := stop()
	if code != 0 {
		t.Fatalf("serve exited %d; logs: %v", code, logs)
	}
	made := false
	for _, l := range logs {
		made = made || l["msg"] == "playground: made up a token and EncodingAESKey for this run, since wecom.aibot.token and encoding_aes_key are empty; only the playground can sign callbacks"
		if l["level"] == "WARN" && strings.Contains(fmt.Sprint(l["msg"]), "rejected") {
			t.Errorf("a callback was rejected: %v", l)
		}
	}
	if !made {
		t.Errorf("no log line says the credentials were made up; logs: %v", logs)
	}
}

type cardEvent struct {
	State, Status, Body string
}

// finalCard reads server-sent card events until one is done or failed.
func finalCard(t *testing.T, sc *bufio.Scanner) cardEvent {
	t.Helper()
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var c cardEvent
		if json.Unmarshal([]byte(data), &c) == nil && (c.State == "done" || c.State == "failed") {
			return c
		}
	}
	t.Fatalf("the event stream ended before the card did: %v", sc.Err())
	return cardEvent{}
}
