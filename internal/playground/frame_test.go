package playground

import "testing"

// TestSeeFrame: what the page shows of the frames the bot writes (the
// cards renderer's, and bot's own replies), read through readStream.
func TestSeeFrame(t *testing.T) {
	tests := []struct {
		name, content string
		finish        bool
		progress      string
		state, status string
		body          string
	}{
		{"no think block", "Sorry, you are not allowed.", true, "", StateDone, "done", "Sorry, you are not allowed."},
		{"placeholder", "<think>\n⏳ Working…\n</think>\n\n", false, "⏳ Working…", StateRunning, "running", ""},
		{"progress and body", "<think>\nI will inspect.\n\n✅ Run ls\n</think>\n\nThe answer.", true, "I will inspect.\n\n✅ Run ls", StateDone, "done", "The answer."},
		{"escaped close inside", "<think>\nLooking into <think>tags<\\/think> and more.\n</think>\n\nBody", false, "Looking into <think>tags</think> and more.", StateRunning, "running", "Body"},
		{"unclosed", "<think>\npartial", false, "partial", StateRunning, "running", ""},
		{"thinking holder", "⏳ Thinking…", false, "", StateRunning, "running", ""},
		{"queued", "⏳ Queued (position 2) — waiting for the running turn to finish.", false, "", StateQueued, "queued (position 2)", ""},
		{"cancelled", "```sh\nmake lint\n```\n\n⏹ Cancelled", true, "", StateCancelled, "cancelled", "```sh\nmake lint\n```"},
		{"failed", "Partial answer before the failure.\n\n❌ Failed: turn failed: stream disconnected before completion", true, "",
			StateFailed, "failed: turn failed: stream disconnected before completion", "Partial answer before the failure."},
		{"stopped", "Half an answer\n\n_Stopped: max_tokens_", true, "", StateDone, "stopped by max_tokens, done", "Half an answer"},
		{"rolled over", "Part one\n\n_(continued in the next message)_", true, "", StateRunning, "running (continues in a separate message)", "Part one\n\n_(continued in the next message)_"},
		{"waiting", "<think>\nasked\n</think>\n\n⏸ Waiting for approval: run rm", false, "asked", StateWaiting, "waiting for approval", "⏸ Waiting for approval: run rm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := seeFrame(tt.content, tt.finish)
			want := shown{progress: tt.progress, state: tt.state, status: tt.status, body: tt.body}
			if got != want {
				t.Fatalf("seeFrame(%q, %v) = %+v; want %+v", tt.content, tt.finish, got, want)
			}
		})
	}
}
