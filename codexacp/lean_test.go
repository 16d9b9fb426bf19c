package codexacp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/codexacp"
	"github.com/wecodex/wecodex/internal/testenv"
)

// The three layouts `wecodex codex-acp` may find beside it: the lean binary
// of its own build (it execs it), one of another build (it serves the
// session itself and says why), none (it serves the session itself,
// quietly). Each is the real binaries, as make build and the Dockerfile lay
// them out, answering a real ACP initialize.
func TestCodexACPRunsTheLeanBinaryOfItsOwnBuild(t *testing.T) {
	for _, tc := range []struct {
		name, leanID string
		wantLean     bool
		wantWarn     string
	}{
		{name: "same build", leanID: "b1", wantLean: true},
		{name: "another build", leanID: "older", wantWarn: `level=WARN msg="codex-acp: serving in this process: `},
		{name: "no lean binary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bin, err := testenv.BuildWecodexWithLean(dir, "b1", tc.leanID)
			if err != nil {
				t.Fatal(err)
			}
			exe, stderr := initializeThrough(t, bin)
			wantExe := bin
			if tc.wantLean {
				wantExe = filepath.Join(dir, codexacp.LeanName)
			}
			if exe != wantExe {
				t.Errorf("the process serving the session runs %s, want %s", exe, wantExe)
			}
			warned := strings.Contains(stderr, "level=WARN")
			switch {
			case tc.wantWarn == "" && warned:
				t.Errorf("warned with no reason to:\n%s", stderr)
			case tc.wantWarn != "" && !strings.Contains(stderr, tc.wantWarn):
				t.Errorf("stderr has no %q:\n%s", tc.wantWarn, stderr)
			case tc.wantWarn != "" && !strings.Contains(stderr, `build id \"older\", this wecodex's is \"b1\"`):
				t.Errorf("the warning does not name both build ids:\n%s", stderr)
			}
		})
	}
}

// initializeThrough starts `bin codex-acp`, has it answer ACP's initialize,
// and returns the executable the process then runs and, after stdin closed
// and it exited, its stderr.
func initializeThrough(t *testing.T, bin string) (exe, stderr string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "wecodex.yaml")
	yaml := "agent:\n  codex:\n    home: " + filepath.Join(t.TempDir(), "codex-home") + "\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "codex-acp", "--config", cfg)
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadBytes('\n')
	if err != nil {
		t.Fatalf("no answer to initialize: %v\n%s", err, errBuf.String())
	}
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			AgentInfo struct{ Name string } `json:"agentInfo"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &resp); err != nil || resp.ID != 1 || resp.Result.AgentInfo.Name != "wecodex" {
		t.Fatalf("initialize answered %s (%v), want wecodex's result for id 1", line, err)
	}
	// Answered, so any exec is done: the process image is final.
	exe, err = os.Readlink(fmt.Sprintf("/proc/%d/exe", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	_ = in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("codex-acp after stdin closed: %v\n%s", err, errBuf.String())
	}
	return exe, errBuf.String()
}
