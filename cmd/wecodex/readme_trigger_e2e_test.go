package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/schedule"
)

// The README's CI-failure trigger, as it stands, on a real server on the
// long connection: its GitHub Actions step and its GitLab CI job (their
// shell, curl and openssl, with the URL pointed here) each start one turn
// whose prompt holds the body they sent, and its card reaches the group by
// aibot_send_msg. The same step run with a clock six minutes slow and the
// job with a wrong secret get 401 and start nothing; a 1 MiB body is cut
// to the README's max_body with the note, and its replay gets 401. Each
// signed request is a trigger audit record with its timestamp.
func TestE2EReadmeTriggerRecipes(t *testing.T) {
	e, srv := newLongConnE2E(t, sm.ScriptFunc(func(*sm.Request) (sm.Response, error) {
		return sm.Reply(sm.Message(sm.PhaseFinalAnswer, "TestX broke: the fixture is missing.")), nil
	}))
	readme := readmeText(t)
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "hook-ci-failed")
	// As the README's comment makes it: openssl rand -hex 32 > the file.
	out, err := exec.Command("openssl", "rand", "-hex", "32").Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secretFile, out, 0o600); err != nil {
		t.Fatal(err)
	}
	secret := strings.TrimSpace(string(out))
	trigger := readmeBlock(t, readme, "### Worked example: explain a CI failure in the group", "yaml")
	trail := filepath.Join(dir, "audit.jsonl")
	e.extra = "\n" + strings.Replace(trigger, "/etc/wecodex/hook-ci-failed", secretFile, 1) + "audit:\n  file: " + trail + "\n"
	var cfg struct {
		Triggers map[string]struct {
			Conversation, Prompt string
			MaxBody              int `yaml:"max_body"`
		}
	}
	if err := yaml.Unmarshal([]byte(trigger), &cfg); err != nil {
		t.Fatalf("the README's trigger: %v\n%s", err, trigger)
	}
	ci := cfg.Triggers["ci-failed"]
	if ci.Conversation != "group:wrkTeamChat" || ci.MaxBody != 65536 {
		t.Fatalf("the README's trigger changed: %+v", ci)
	}
	ctx := within(t, 3*time.Minute)
	a := e.serve(t, "5m30s")
	subscribedBy(t, ctx, srv, a)
	greetGroup(t, ctx, srv, "wrkTeamChat")
	github := strings.ReplaceAll(readmeStepRun(t, readmeBlock(t, readme, "GitHub Actions, as the last step of the job:", "yaml")), "https://wecodex.example.com", a.base)
	gitlab := strings.ReplaceAll(readmeJobScript(t, readmeBlock(t, readme, "GitLab CI, a job that runs when an earlier one failed:", "yaml")), "https://wecodex.example.com", a.base)
	buildLog := strings.Repeat("ok  \tpkg/other\t0.1s\n", 5000) + "--- FAIL: TestX (0.00s)\n    x_test.go:9: open testdata/fixture: no such file\nFAIL\n"
	if err := os.WriteFile(filepath.Join(dir, "build.log"), []byte(buildLog), 0o600); err != nil {
		t.Fatal(err)
	}
	turns := 0
	// accepted runs a recipe, which must succeed (curl -f: a 2xx), and
	// waits for its turn's card; the model's prompt must hold body.
	accepted := func(what, shell, script string, env []string, body string) {
		t.Helper()
		from := len(srv.Records())
		if out, err := runRecipe(ctx, dir, shell, script, env); err != nil {
			t.Fatalf("%s: %v\n%s", what, err, out)
		}
		turns++
		sent := waitRecord(t, ctx, srv, from, what+"'s pushed card", func(r wecomtest.Record) bool {
			return r.Kind == wecomtest.KindRequest && r.Cmd == "aibot_send_msg" && strings.Contains(r.Markdown(), "TestX broke")
		})
		if sent.Errcode != 0 {
			t.Fatalf("%s: aibot_send_msg errcode %d", what, sent.Errcode)
		}
		reqs := userTexts(e.h.Server.ModelRequests())
		want := "From: wecodex-trigger-ci-failed\n\n" + ci.Prompt + "\n\n```\n" + body + "```"
		if len(reqs) != turns || reqs[turns-1] != want {
			t.Fatalf("%s: model prompts (%d) end %q, want %d, the last %q", what, len(reqs), tail(reqs), turns, want)
		}
	}
	refused := func(what, shell, script string, env []string) {
		t.Helper()
		out, err := runRecipe(ctx, dir, shell, script, env)
		if err == nil || !strings.Contains(out, "error: 401") {
			t.Fatalf("%s: %v, want curl's 401; output:\n%s", what, err, out)
		}
	}
	ghEnv := []string{"HOOK_SECRET=" + secret}
	accepted("the GitHub Actions step", "bash", github, ghEnv, buildLog[len(buildLog)-60000:])
	glEnv := []string{"WECODEX_HOOK_SECRET=" + secret, "CI_PIPELINE_ID=4711", "CI_PIPELINE_URL=https://gitlab.example.com/team/app/-/pipelines/4711"}
	accepted("the GitLab CI job", "sh", gitlab, glEnv, "pipeline 4711 failed (https://gitlab.example.com/team/app/-/pipelines/4711)\n")

	slow := slowDate(t, 6*time.Minute)
	refused("the GitHub Actions step six minutes slow", "bash", github, append(ghEnv, "PATH="+slow+":"+os.Getenv("PATH")))
	refused("the GitLab CI job with a wrong secret", "sh", gitlab, append(glEnv[1:], "WECODEX_HOOK_SECRET=not-the-secret"))

	// A 1 MiB body: the prompt gets max_body bytes of it, and the note.
	big := bytes.Repeat([]byte("0123456789abcde\n"), 1<<16)
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	post := func() int {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, a.base+"/hooks/ci-failed", bytes.NewReader(big))
		req.Header.Set(schedule.HeaderTimestamp, ts)
		req.Header.Set(schedule.HeaderSignature, schedule.Sign([]byte(secret), ts, big))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	from := len(srv.Records())
	if code := post(); code != http.StatusAccepted {
		t.Fatalf("1 MiB POST: %d, want 202", code)
	}
	waitRecord(t, ctx, srv, from, "the 1 MiB request's card", func(r wecomtest.Record) bool {
		return r.Kind == wecomtest.KindRequest && r.Cmd == "aibot_send_msg" && strings.Contains(r.Markdown(), "TestX broke")
	})
	reqs := userTexts(e.h.Server.ModelRequests())
	want := "From: wecodex-trigger-ci-failed\n\n" + ci.Prompt + "\n\n```\n" + string(big[:65536]) + "```\n\n" +
		"(The request body was 1048576 bytes; only its first 65536 are shown above.)"
	if len(reqs) != 3 || reqs[2] != want {
		t.Fatalf("model prompts: %d, want 3, the last %d bytes with the note (got %d bytes ending %q)", len(reqs), len(want), len(reqs[len(reqs)-1]), tail(reqs))
	}
	if code := post(); code != http.StatusUnauthorized {
		t.Fatalf("the 1 MiB POST replayed: %d, want 401", code)
	}
	code, metricsText := get(t, a.base+"/metrics")
	for _, line := range []string{
		`wecodex_trigger_requests_total{name="ci-failed",result="started"} 3`,
		`wecodex_trigger_requests_total{name="ci-failed",result="unsigned"} 2`,
		`wecodex_trigger_requests_total{name="ci-failed",result="replayed"} 1`,
	} {
		if code != 200 || !strings.Contains(metricsText, line+"\n") {
			t.Errorf("/metrics (%d) lacks %s", code, line)
		}
	}
	// Each signed request is an audit record, kind trigger, with its
	// timestamp; the unsigned ones (anyone's) are not.
	var got []string
	for _, r := range auditRecords(t, trail, "trigger") {
		if r.Name != "ci-failed" || r.User != "wecodex-trigger-ci-failed" || r.Conversation != "group:wrkTeamChat" ||
			r.Timestamp == nil || time.Since(*r.Timestamp).Abs() > time.Minute || !strings.HasPrefix(r.MsgID, "trigger:ci-failed:") {
			t.Errorf("trigger audit record %+v", r)
		}
		got = append(got, r.Outcome)
		if r.Outcome == "replayed" && strconv.FormatInt(r.Timestamp.Unix(), 10) != ts {
			t.Errorf("the replay's record has timestamp %s, want the request's %s", r.Timestamp, ts)
		}
	}
	if want := []string{"started", "started", "started", "replayed"}; !slices.Equal(got, want) {
		t.Errorf("trigger audit outcomes %q, want %q", got, want)
	}
}

// greetGroup has alice send /status in the group chat and waits for the
// answer: WeCom pushes only to a chat that talked to the bot before.
func greetGroup(t *testing.T, ctx context.Context, srv *wecomtest.LongConnServer, chat string) {
	t.Helper()
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "alice", ChatID: chat, Text: "/status"})
	if err != nil {
		t.Fatal(err)
	}
	waitRecord(t, ctx, srv, 0, "the /status answer", func(r wecomtest.Record) bool {
		return r.Kind == wecomtest.KindRequest && r.ReqID == reqID && r.Stream().Finish
	})
}

// runRecipe runs a CI recipe's script in dir with shell (bash -eo pipefail
// as GitHub Actions runs a step, sh -e as GitLab's alpine image runs a
// job), with PATH and env, and returns its output.
func runRecipe(ctx context.Context, dir, shell, script string, env []string) (string, error) {
	args := []string{"-e", "-c", script}
	if shell == "bash" {
		args = []string{"--noprofile", "--norc", "-eo", "pipefail", "-c", script}
	}
	cmd := exec.CommandContext(ctx, shell, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// slowDate is a directory holding a date that prints the time behind by d,
// as a runner with a slow clock would.
func slowDate(t *testing.T, d time.Duration) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\necho " + strconv.FormatInt(time.Now().Add(-d).Unix(), 10) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "date"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func tail(reqs []string) string {
	if len(reqs) == 0 {
		return ""
	}
	last := reqs[len(reqs)-1]
	return last[max(0, len(last)-200):]
}

// readmeText is the repository's README.md.
func readmeText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readmeBlock is the first fenced block of lang after the line after.
func readmeBlock(t *testing.T, readme, after, lang string) string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "\n"+after+"\n")
	if !ok {
		t.Fatalf("README.md has no line %q", after)
	}
	_, rest, ok = strings.Cut(rest, "```"+lang+"\n")
	block, _, closed := strings.Cut(rest, "\n```\n")
	if !ok || !closed {
		t.Fatalf("README.md has no ```%s block after %q", lang, after)
	}
	return block + "\n"
}

// readmeStepRun is the run: script of the GitHub Actions step in block.
func readmeStepRun(t *testing.T, block string) string {
	t.Helper()
	var steps []struct {
		If  string `yaml:"if"`
		Run string `yaml:"run"`
	}
	if err := yaml.Unmarshal([]byte(block), &steps); err != nil || len(steps) != 1 || steps[0].Run == "" || steps[0].If != "failure()" {
		t.Fatalf("the README's GitHub Actions step (%v): %+v\n%s", err, steps, block)
	}
	return steps[0].Run
}

// readmeJobScript is the GitLab CI job's script in block, a line each,
// without the package install (curl and openssl are here already).
func readmeJobScript(t *testing.T, block string) string {
	t.Helper()
	var jobs map[string]struct {
		When   string   `yaml:"when"`
		Script []string `yaml:"script"`
	}
	if err := yaml.Unmarshal([]byte(block), &jobs); err != nil || len(jobs) != 1 {
		t.Fatalf("the README's GitLab CI job (%v):\n%s", err, block)
	}
	for _, j := range jobs {
		if j.When != "on_failure" || len(j.Script) == 0 {
			t.Fatalf("the README's GitLab CI job: %+v", j)
		}
		var lines []string
		for _, l := range j.Script {
			if !strings.HasPrefix(l, "apk add ") {
				lines = append(lines, l)
			}
		}
		return strings.Join(lines, "\n")
	}
	return ""
}
