package codex

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// TestOptOutListMatchesSchema holds optOutNotifications to exactly the
// pinned Codex's notification methods that the dispatcher does not name: a
// method it reads must never be opted out, and a method Codex adds must be
// decided on (read it or opt out of it).
func TestOptOutListMatchesSchema(t *testing.T) {
	schema := serverNotificationMethods(t)
	named := dispatcherStrings(t)
	var want []string
	for _, m := range schema {
		if !named[m] {
			want = append(want, m)
		}
	}
	for _, m := range optOutNotifications {
		if named[m] {
			t.Errorf("%q is opted out but the dispatcher reads it", m)
		}
		if !slices.Contains(schema, m) {
			t.Errorf("%q is opted out but Codex has no such notification", m)
		}
	}
	equalLines(t, "opt-out list (schema order)", optOutNotifications, want)
}

// serverNotificationMethods runs the real codex's schema generator and
// returns every ServerNotification method, in the schema's order.
func serverNotificationMethods(t *testing.T) []string {
	dir := t.TempDir()
	cmd := exec.Command(codextest.CodexBin(t), "app-server", "generate-json-schema", "--out", dir)
	cmd.Env = append(os.Environ(), "CODEX_HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generate-json-schema: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "ServerNotification.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		OneOf []struct {
			Properties struct {
				Method struct {
					Enum []string `json:"enum"`
				} `json:"method"`
			} `json:"properties"`
		} `json:"oneOf"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("decode ServerNotification.json: %v", err)
	}
	var methods []string
	for _, v := range s.OneOf {
		methods = append(methods, v.Properties.Method.Enum...)
	}
	if len(methods) < 20 {
		t.Fatalf("schema names only %d notification methods: %q", len(methods), methods)
	}
	return methods
}

// dispatcherStrings is every string literal in the files that dispatch and
// translate notifications: a method the bridge reads is compared there.
func dispatcherStrings(t *testing.T) map[string]bool {
	out := map[string]bool{}
	for _, name := range []string{"dispatch.go", "translate.go", "warnings.go", "failure.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					out[s] = true
				}
			}
			return true
		})
	}
	return out
}

// methodRecorder is a handler that keeps the method of every notification
// in order, and says when a turn completed.
type methodRecorder struct {
	mu        sync.Mutex
	methods   []string
	completed chan struct{}
	once      sync.Once
}

func (r *methodRecorder) handleNotification(_ *conn, method, _ []byte) {
	r.mu.Lock()
	r.methods = append(r.methods, string(method))
	r.mu.Unlock()
	if string(method) == "turn/completed" {
		r.once.Do(func() { close(r.completed) })
	}
}

func (r *methodRecorder) handleRequest(c *conn, id json.RawMessage, method string, _ []byte) {
	_ = c.respondError(id, -32601, "not in this test")
}

// TestAppServerHonoursOptOut runs a real turn on the real app-server and
// checks what reached the read loop: only methods the dispatcher reads, the
// opted-out ones Codex 0.171.0 sends unasked (thread/started,
// thread/status/changed, account/rateLimits/updated,
// remoteControl/status/changed) among none of them.
func TestAppServerHonoursOptOut(t *testing.T) {
	ctx := testCtx(t)
	h := codextest.Start(t, sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Two words."))))
	rec := &methodRecorder{completed: make(chan struct{})}
	c, err := startConn(ctx, h.Bin, withUnloadDelay(nil), h.Env, rec, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.kill)
	var th threadResponse
	if err := c.call(ctx, "thread/start", threadStartParams{Cwd: h.Workspace}, &th); err != nil {
		t.Fatal(err)
	}
	if err := c.call(ctx, "turn/start", turnStartParams{
		ThreadID: th.Thread.ID, Input: []userInput{{Type: "text", Text: "Answer."}},
	}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-rec.completed:
	case <-ctx.Done():
		t.Fatal("no turn/completed")
	}
	rec.mu.Lock()
	got := slices.DeleteFunc(slices.Clone(rec.methods), isAdminNotice) // machine-dependent (bubblewrap)
	rec.mu.Unlock()
	for _, m := range got {
		if slices.Contains(optOutNotifications, m) {
			t.Errorf("app-server sent %q although it was opted out", m)
		}
	}
	equalLines(t, "notifications", compact(got), []string{
		"turn/started", "item/started", "item/completed", "item/started",
		"item/agentMessage/delta", "item/completed", "thread/tokenUsage/updated", "turn/completed",
	})
	t.Logf("received: %s", strings.Join(got, ", "))
}

// compact folds runs of one method into one entry.
func compact(methods []string) []string { return slices.Compact(slices.Clone(methods)) }
