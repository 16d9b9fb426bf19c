package longconn

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// relayFiles starts A, holding the connection and running no turns, and B,
// running turns, on a fake server prepared by setup (nil: as it comes), and
// sends the files scenario's message.
func relayFiles(t *testing.T, setup func(*wecomtest.LongConnServer)) (*wecomtest.LongConnServer, string) {
	t.Helper()
	h := codextest.Start(t, codextest.FilesScript())
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	if setup != nil {
		setup(srv)
	}
	prefix := testenv.Prefix(t, "longconn-files-relay")
	a := startNode(t, h, srv, nodeOptions{prefix: prefix, replica: "A", bin: "/nonexistent/codex"})
	waitHolding(t, a.conn)
	startNode(t, h, srv, nodeOptions{prefix: prefix, replica: "B", bin: h.Bin, run: true})
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", Text: "make the chart and the report"})
	if err != nil {
		t.Fatal(err)
	}
	return srv, reqID
}

// TestFilesBackFromOtherReplica: A holds the connection and runs no turns;
// B runs the turn whose command writes the files. The picture reaches the
// chat in the final frame B rendered, and the PDF through Redis and A's
// upload commands and aibot_send_msg, byte for byte, once.
func TestFilesBackFromOtherReplica(t *testing.T) {
	srv, reqID := relayFiles(t, nil)
	ctx := waitCtx(t)
	final, err := srv.Wait(ctx, wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	if imgs := final.StreamImages(); len(imgs) != 1 || !bytes.Equal(imgs[0], codextest.FilesChart) {
		t.Fatalf("final frame has %d pictures, want exactly out/chart.png", len(imgs))
	}
	if c := final.Stream().Content; !strings.Contains(c, "- `report.pdf` — sent as a file message\n") {
		t.Fatalf("final frame %q does not list the PDF as sent", c)
	}
	sent, err := srv.Wait(ctx, func(r wecomtest.Record) bool {
		return r.Kind == wecomtest.KindRequest && r.Cmd == CmdSend && r.MsgType() == "file"
	})
	if err != nil {
		t.Fatal(err)
	}
	up, ok := srv.Uploaded(sent.MediaID())
	if sent.Errcode != 0 || sent.Conn != srv.Subscribed() || !ok || up.Filename != "report.pdf" || !bytes.Equal(up.Data, codextest.FilesReport) {
		t.Fatalf("file message errcode %d on conn %d (A's is %d): %q of %d bytes, want report.pdf of %d bytes", sent.Errcode, sent.Conn, srv.Subscribed(), up.Filename, len(up.Data), len(codextest.FilesReport))
	}
	if n := len(srv.Requests(CmdUploadInit)); n != 1 {
		t.Fatalf("uploads begun = %d, want 1", n)
	}
}

// TestFileFromOtherReplicaFailedSaysSoInTheChat: as above, but WeCom
// answers A's upload with a system error. B's card was already shown, so A
// says in the chat that the PDF could not be sent, once, and sends no file
// message.
func TestFileFromOtherReplicaFailedSaysSoInTheChat(t *testing.T) {
	srv, reqID := relayFiles(t, func(srv *wecomtest.LongConnServer) { srv.FailCmd(CmdUploadInit, wecomtest.CodeSystemError) })
	ctx := waitCtx(t)
	if _, err := srv.Wait(ctx, wecomtest.IsFinalStream(reqID)); err != nil {
		t.Fatal(err)
	}
	const note = "📎 `report.pdf` could not be sent: the upload to WeCom failed."
	said, err := srv.Wait(ctx, func(r wecomtest.Record) bool {
		return r.Kind == wecomtest.KindRequest && r.Cmd == CmdSend && r.Markdown() == note
	})
	if err != nil {
		t.Fatal(err)
	}
	if said.Errcode != 0 || said.Conn != srv.Subscribed() {
		t.Fatalf("the note went on conn %d with errcode %d, want A's %d, accepted", said.Conn, said.Errcode, srv.Subscribed())
	}
	var notes, files int
	for _, r := range srv.Requests(CmdSend) {
		switch {
		case r.MsgType() == "file":
			files++
		case r.Markdown() == note:
			notes++
		}
	}
	if inits := srv.Requests(CmdUploadInit); notes != 1 || files != 0 || len(inits) != 1 {
		t.Fatalf("notes %d, file messages %d, upload inits %d; want 1, 0, 1", notes, files, len(inits))
	}
}
