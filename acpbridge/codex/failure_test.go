package codex

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// bubblewrapWarning is the configWarning Codex 0.171.0 sends at start on a
// machine without a system bwrap.
const bubblewrapWarning = "Codex could not find bubblewrap on PATH. Install bubblewrap with your OS package manager. See the sandbox prerequisites: https://developers.openai.com/codex/concepts/sandboxing#prerequisites. Codex will use the bundled bubblewrap in the meantime."

// providerAt rewrites the harness's CODEX_HOME so Codex's model provider is
// at baseURL instead of the scripted server, keeping every other setting.
func providerAt(t *testing.T, h *codextest.Harness, baseURL string, opts sm.HomeOptions) {
	t.Helper()
	if err := sm.WriteCodexHome(h.Home, baseURL, opts); err != nil {
		t.Fatal(err)
	}
}

// closedPort returns a loopback URL nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/v1"
}

// TestUnreachableProviderFailsTheTurn: with no way to the provider, Codex
// retries forever; the bridge ends the turn after MaxReconnects retries, as
// provider-unreachable, with one retry notice on the card.
func TestUnreachableProviderFailsTheTurn(t *testing.T) {
	ctx := testCtx(t)
	h := codextest.StartWith(t, sm.Sequence(), sm.HomeOptions{})
	providerAt(t, h, closedPort(t), sm.HomeOptions{})
	a := agentOn(t, h, Options{MaxReconnects: 2})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	_, err = a.Prompt(ctx, id, acpbridge.TextPrompt("hello"), rec)
	const want = "codex could not reach the model provider (2 attempts): Connection failed: error sending request"
	if err == nil || err.Error() != want {
		t.Fatalf("Prompt error = %v, want %q", err, want)
	}
	if k := acpbridge.KindOf(err); k != acpbridge.KindProviderUnreachable {
		t.Fatalf("kind = %v, want provider unreachable", k)
	}
	equalLines(t, "notices", rec.noticeLines(), []string{
		"warning: Reconnecting 1/2: the model provider cannot be reached (provider unreachable; retrying)",
	})

	// The thread is free again: a second turn fails the same way, not
	// "busy", and the admin warning was not put on either card.
	rec = &recorder{}
	if _, err = a.Prompt(ctx, id, acpbridge.TextPrompt("again"), rec); err == nil || err.Error() != want {
		t.Fatalf("second Prompt error = %v, want %q", err, want)
	}
	if len(rec.noticeLines()) != 1 {
		t.Fatalf("second turn's notices = %q, want the one retry line", rec.noticeLines())
	}
}

// TestUnresolvableProviderCountsOneBudget: a provider whose name does not
// resolve, reached over a websocket as Codex's default provider is. Codex's
// notices count its own stream budget ("Reconnecting... 2/5", then it
// retries over HTTP for ever); the card's line counts the bridge's, the one
// that ends the turn, so it agrees with the failure's "4 attempts".
func TestUnresolvableProviderCountsOneBudget(t *testing.T) {
	ctx := testCtx(t)
	h := codextest.StartWith(t, sm.Sequence(), sm.HomeOptions{})
	// .invalid never resolves (RFC 6761), with or without a network.
	config := `model = "gpt-5"
model_provider = "nodns"
check_for_update_on_startup = false
[model_providers.nodns]
name = "unresolvable"
base_url = "http://wecodex-nodns.invalid/v1"
wire_api = "responses"
supports_websockets = true
`
	if err := os.WriteFile(filepath.Join(h.Home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	a := agentOn(t, h, Options{})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	_, err = a.Prompt(ctx, id, acpbridge.TextPrompt("hello"), rec)
	const detail = "stream disconnected before completion: failed to lookup address information: Name does not resolve"
	const want = "codex could not reach the model provider (4 attempts): " + detail
	if err == nil || err.Error() != want || acpbridge.KindOf(err) != acpbridge.KindProviderUnreachable {
		t.Fatalf("Prompt error = %v (kind %v), want provider unreachable %q", err, acpbridge.KindOf(err), want)
	}
	equalLines(t, "notices", rec.noticeLines(), []string{
		"warning: Reconnecting 1/4: the model provider cannot be reached (provider unreachable; retrying)",
	})
}

// TestUnauthorizedProviderFailsAsNotAuthenticated: a provider answering 401
// fails the turn as not authenticated; Codex's own retries show as one
// notice and the final error is not repeated beside the turn's failure.
func TestUnauthorizedProviderFailsAsNotAuthenticated(t *testing.T) {
	ctx := testCtx(t)
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`))
	}))
	t.Cleanup(refuse.Close)
	h := codextest.StartWith(t, sm.Sequence(), sm.HomeOptions{})
	providerAt(t, h, refuse.URL+"/v1", sm.HomeOptions{})
	a := agentOn(t, h, Options{Config: map[string]string{"model_providers.scripted.stream_max_retries": "2"}})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	_, err = a.Prompt(ctx, id, acpbridge.TextPrompt("hello"), rec)
	want := "unexpected status 401 Unauthorized: Incorrect API key provided., url: " + refuse.URL + "/v1/responses"
	if err == nil || err.Error() != want {
		t.Fatalf("Prompt error = %v, want %q", err, want)
	}
	if k := acpbridge.KindOf(err); k != acpbridge.KindNotAuthenticated {
		t.Fatalf("kind = %v, want not authenticated", k)
	}
	equalLines(t, "notices", rec.noticeLines(), []string{
		// Not the provider's URL nor its answer: those are in the log.
		"warning: The model provider refused the request (not authenticated; retrying)",
	})
}

// TestEnvironmentWarningsAreForAdmins: Codex's warnings about the machine
// (bubblewrap missing, unknown model metadata) are kept for Warnings, once
// each, and never reach a user's card; the turn itself still answers.
func TestEnvironmentWarningsAreForAdmins(t *testing.T) {
	ctx := testCtx(t)
	const model = "wecodex-unknown-model"
	a, h := newAgent(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "One.")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Two.")),
	), sm.HomeOptions{Model: model}, Options{})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"first", "second"} {
		rec, _ := prompt(t, ctx, a, id, text)
		if n := rec.noticeLines(); len(n) != 0 {
			t.Fatalf("turn %q notices = %q, want none on the card", text, n)
		}
	}
	want := []string{"Model metadata for `" + model + "` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."}
	if _, err := exec.LookPath("bwrap"); err != nil {
		want = append([]string{bubblewrapWarning}, want...)
	}
	equalLines(t, "warnings", a.Warnings(), want)
}

func TestErrorInfoKinds(t *testing.T) {
	tests := []struct {
		raw  string
		kind acpbridge.ErrorKind
	}{
		{`"unauthorized"`, acpbridge.KindNotAuthenticated},
		{`{"httpConnectionFailed":{"httpStatusCode":401}}`, acpbridge.KindNotAuthenticated},
		{`{"responseStreamDisconnected":{"httpStatusCode":403}}`, acpbridge.KindNotAuthenticated},
		{`{"responseStreamDisconnected":{"httpStatusCode":null}}`, acpbridge.KindProviderUnreachable},
		{`{"responseStreamConnectionFailed":{}}`, acpbridge.KindProviderUnreachable},
		{`{"responseStreamDisconnected":{"httpStatusCode":500}}`, acpbridge.KindOther},
		{`"contextWindowExceeded"`, acpbridge.KindOther},
		{`{"activeTurnNotSteerable":{"turnKind":"review"}}`, acpbridge.KindOther},
		{`null`, acpbridge.KindOther},
		{``, acpbridge.KindOther},
	}
	for _, tt := range tests {
		if got := parseErrorInfo([]byte(tt.raw)).kind(); got != tt.kind {
			t.Errorf("%s: kind %v, want %v", tt.raw, got, tt.kind)
		}
	}
	if err := turnFailure(nil); err.Error() != "codex turn failed" || acpbridge.KindOf(err) != acpbridge.KindOther {
		t.Errorf("turnFailure(nil) = %v", err)
	}
	var e *acpbridge.Error
	if !errors.As(turnFailure(&turnError{Message: "m", CodexErrorInfo: []byte(`"unauthorized"`)}), &e) || e.Kind != acpbridge.KindNotAuthenticated {
		t.Error("turnFailure must mark an unauthorized error")
	}
}
