package wecomtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// sdkLine is one observation the Node script printed.
type sdkLine struct {
	Ev                 string `json:"ev"`
	ReqID              string `json:"req_id"`
	MsgID              string `json:"msgid"`
	Text               string `json:"text"`
	UserID             string `json:"userid"`
	Errcode            any    `json:"errcode"`
	EventKey           string `json:"event_key"`
	TaskID             string `json:"task_id"`
	FlatEventKey       string `json:"flat_event_key"`
	ReconnectScheduled bool   `json:"reconnect_scheduled"`
	ManualClose        bool   `json:"manual_close"`
	Message            string `json:"message"`
	MediaID            string `json:"media_id"`
	Type               string `json:"type"`
}

// sdkDir is the installed @wecom/aibot-node-sdk: $WECODEX_TEST_AIBOT_SDK
// (the Makefile exports it) or the module's .tools. Missing, it fails the
// test: the fake is only trusted while the SDK agrees with it.
func sdkDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("WECODEX_TEST_AIBOT_SDK")
	if dir == "" {
		dir = filepath.Join("..", "..", ".tools", "aibot-sdk", "node_modules", "@wecom", "aibot-node-sdk")
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		_, err = os.Stat(filepath.Join(abs, "package.json"))
	}
	if err != nil {
		t.Fatalf("@wecom/aibot-node-sdk not installed at %s: %v (run `make tools`)", dir, err)
	}
	return abs
}

// TestOfficialSDKAgreesWithFake runs the official Node SDK against the fake
// through a whole session: subscribe, a message callback answered with a
// stream and a template card, a proactive send, enter_chat, a card click
// answered with an update, control characters in a frame, and a kick. Each
// step checks what the SDK saw against what the fake recorded.
func TestOfficialSDKAgreesWithFake(t *testing.T) {
	sdk := sdkDir(t)
	srv := NewLongConnServer(t, LongConnOptions{BotID: "aib-sdk", Secret: "s3cret", KickCloseDelay: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "longconn_sdk.js"), sdk, srv.URL(), "aib-sdk", "s3cret")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start node: %v", err)
	}
	defer func() {
		_ = stdin.Close()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("node stderr:\n%s", stderr.String())
		}
	}()
	lines := make(chan sdkLine, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var l sdkLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				l = sdkLine{Ev: "unparsed", Message: sc.Text()}
			}
			lines <- l
		}
		close(lines)
	}()
	next := func(want string) sdkLine {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("SDK script ended before %q", want)
			}
			if l.Ev != want {
				t.Fatalf("SDK said %+v, want %q next", l, want)
			}
			return l
		case <-ctx.Done():
			t.Fatalf("no %q from the SDK: %v", want, ctx.Err())
		}
		return sdkLine{}
	}

	next("authenticated")
	sub := srv.Requests("aibot_subscribe")
	if len(sub) != 1 || !strings.HasPrefix(sub[0].ReqID, "aibot_subscribe_") || sub[0].Errcode != 0 {
		t.Fatalf("subscribe requests = %+v, want one acked aibot_subscribe_…", sub)
	}
	sdkMessage(t, srv, next)
	sdkUpload(t, srv, next)
	sdkEnterChat(t, srv, next)
	sdkCardClick(t, srv, next)
	sdkControlChars(t, srv, next)
	sdkKick(t, ctx, srv, next)
}

func sdkMessage(t *testing.T, srv *LongConnServer, next func(string) sdkLine) {
	t.Helper()
	reqID, err := srv.PushMessage(LongConnMessage{MsgID: "m-1", UserID: "zhangsan", Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if m := next("message"); m.ReqID != reqID || m.MsgID != "m-1" || m.Text != "hello" || m.UserID != "zhangsan" {
		t.Fatalf("SDK got message %+v, want req_id %s msgid m-1 text hello from zhangsan", m, reqID)
	}
	next("stream_acked")
	next("card_acked")
	if l := next("second_card"); l.Errcode != float64(CodeInvalidParam) {
		t.Fatalf("second template card on one message: errcode %v, want %d", l.Errcode, CodeInvalidParam)
	}
	if l := next("send_acked"); l.Errcode != float64(0) {
		t.Fatalf("aibot_send_msg to the sender: errcode %v, want 0", l.Errcode)
	}
	frames := srv.Requests("aibot_respond_msg")
	want := []struct {
		content string
		finish  bool
	}{{"<think>working</think>", false}, {"<think>working</think>the answer", true}}
	for i, w := range want {
		st := frames[i].Stream()
		if frames[i].ReqID != reqID || frames[i].MsgType() != "stream" || st.ID != "stream_sdk_1" || st.Content != w.content || st.Finish != w.finish {
			t.Fatalf("frame %d = %s %s %+v, want stream_sdk_1 %q finish=%v on %s", i, frames[i].ReqID, frames[i].MsgType(), st, w.content, w.finish, reqID)
		}
	}
	// The SDK sends a req_id's frames one at a time: each after the last ack.
	acks := 0
	for _, r := range srv.Records() {
		if r.ReqID != reqID {
			continue
		}
		if r.Kind == KindAck {
			acks++
		}
	}
	if acks != 4 {
		t.Fatalf("acks on %s = %d, want 4 (2 stream frames, 2 cards)", reqID, acks)
	}
	assertSerialised(t, srv, reqID)
}

// assertSerialised fails when a request on reqID was sent before the
// previous request on it was acked.
func assertSerialised(t *testing.T, srv *LongConnServer, reqID string) {
	t.Helper()
	waiting := 0
	for _, r := range srv.Records() {
		if r.ReqID != reqID {
			continue
		}
		switch r.Kind {
		case KindRequest:
			if waiting > 0 {
				t.Fatalf("request %d on %s sent while an earlier one awaited its ack", r.Seq, reqID)
			}
			waiting++
		case KindAck:
			waiting--
		}
	}
}

func sdkEnterChat(t *testing.T, srv *LongConnServer, next func(string) sdkLine) {
	t.Helper()
	if _, err := srv.PushEvent(LongConnEvent{UserID: "zhangsan", EventType: "enter_chat"}); err != nil {
		t.Fatal(err)
	}
	if l := next("enter_stream"); l.Errcode != float64(CodeInvalidReqID) {
		t.Fatalf("stream on enter_chat's req_id: errcode %v, want %d", l.Errcode, CodeInvalidReqID)
	}
	if l := next("welcome"); l.Errcode != float64(0) {
		t.Fatalf("welcome: errcode %v, want 0", l.Errcode)
	}
}

func sdkCardClick(t *testing.T, srv *LongConnServer, next func(string) sdkLine) {
	t.Helper()
	_, err := srv.PushEvent(LongConnEvent{UserID: "zhangsan", EventType: "template_card_event",
		Payload: map[string]any{"card_type": "button_interaction", "event_key": "appr:1:yes", "task_id": "task-1"}})
	if err != nil {
		t.Fatal(err)
	}
	// The SDK's types read event.event_key; the fake nests it as WeCom does.
	if l := next("card_event"); l.EventKey != "appr:1:yes" || l.TaskID != "task-1" || l.FlatEventKey != "" {
		t.Fatalf("card event as the SDK saw it: %+v", l)
	}
	next("update_acked")
	if l := next("second_update"); l.Errcode != float64(CodeInvalidReqID) {
		t.Fatalf("second card update: errcode %v, want %d", l.Errcode, CodeInvalidReqID)
	}
}

// sdkControlChars pushes a frame with raw control characters inside a JSON
// string, as WeCom has: the SDK removes them before parsing (§A.2).
func sdkControlChars(t *testing.T, srv *LongConnServer, next func(string) sdkLine) {
	t.Helper()
	srv.RegisterCallback("REQ_raw", "lisi")
	raw := "{\"cmd\":\"aibot_msg_callback\",\"headers\":{\"req_id\":\"REQ_raw\"},\"body\":{\"msgid\":\"m-raw\",\"aibotid\":\"aib-sdk\"," +
		"\"chattype\":\"single\",\"from\":{\"userid\":\"lisi\"},\"msgtype\":\"text\",\"text\":{\"content\":\"a\x01b\rc\x1fd\"}}}"
	if err := srv.PushRaw([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	if m := next("message"); m.Text != "abcd" || m.ReqID != "REQ_raw" {
		t.Fatalf("SDK parsed the raw frame as %+v, want text abcd", m)
	}
	next("stream_acked")
	next("card_acked")
	next("second_card")
	next("send_acked")
}

// sdkKick subscribes a second connection with the same bot: the fake pushes
// disconnected_event to the SDK, which closes its socket itself and
// schedules no reconnect.
func sdkKick(t *testing.T, ctx context.Context, srv *LongConnServer, next func(string) sdkLine) {
	t.Helper()
	old := srv.Subscribed()
	ws, _, err := websocket.Dial(ctx, srv.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	sub := `{"cmd":"aibot_subscribe","headers":{"req_id":"aibot_subscribe_go"},"body":{"bot_id":"aib-sdk","secret":"s3cret"}}`
	if err := ws.Write(ctx, websocket.MessageText, []byte(sub)); err != nil {
		t.Fatal(err)
	}
	next("kicked")
	if l := next("disconnected"); l.ReconnectScheduled || !l.ManualClose {
		t.Fatalf("after the kick the SDK has reconnect_scheduled=%v manual_close=%v, want false, true", l.ReconnectScheduled, l.ManualClose)
	}
	// KickCloseDelay is an hour: the close the fake sees is the SDK's own.
	if _, err := srv.Wait(ctx, func(r Record) bool { return r.Kind == KindClose && r.Conn == old }); err != nil {
		t.Fatal(err)
	}
	if n := srv.Kicks(); n != 1 {
		t.Fatalf("kicks = %d, want 1", n)
	}
	if n := srv.MaxSubscribed(); n != 2 {
		t.Fatalf("max subscribed = %d, want 2 (the SDK and the newer connection, until the kick)", n)
	}
}

// sdkUpload has the SDK upload a file of three chunks (the last one short)
// and send it with aibot_send_msg, then end a stream with a picture in
// msg_item: the fake puts the file together byte for byte, and a media_id
// it never issued is refused.
func sdkUpload(t *testing.T, srv *LongConnServer, next func(string) sdkLine) {
	t.Helper()
	dir := t.TempDir()
	data := make([]byte, 2*UploadChunkMax+1234)
	for i := range data {
		data[i] = byte(i*7 + i/513)
	}
	file, picture := filepath.Join(dir, "report.pdf"), filepath.Join(dir, "chart.png")
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(picture, png, 0o644); err != nil {
		t.Fatal(err)
	}
	reqID, err := srv.PushMessage(LongConnMessage{MsgID: "m-up", UserID: "zhangsan", Text: "upload " + file + " " + picture})
	if err != nil {
		t.Fatal(err)
	}
	l := next("uploaded")
	if l.Errcode != float64(0) || l.Type != "file" || l.MediaID == "" {
		t.Fatalf("SDK upload: %+v, want errcode 0, type file and a media_id", l)
	}
	up, ok := srv.Uploaded(l.MediaID)
	if !ok || up.Type != "file" || up.Filename != "report.pdf" || !bytes.Equal(up.Data, data) {
		t.Fatalf("the fake holds %s as %q %q of %d bytes (found %v), want report.pdf of %d bytes as sent", l.MediaID, up.Type, up.Filename, len(up.Data), ok, len(data))
	}
	var idx []int
	for _, r := range srv.Requests("aibot_upload_media_chunk") {
		var b struct {
			ChunkIndex int `json:"chunk_index"`
		}
		_ = json.Unmarshal(r.Body, &b)
		idx = append(idx, b.ChunkIndex)
	}
	sort.Ints(idx)
	if fmt.Sprint(idx) != "[0 1 2]" || len(srv.Requests("aibot_upload_media_init")) != 1 || len(srv.Requests("aibot_upload_media_finish")) != 1 {
		t.Fatalf("upload requests: chunks %v, want [0 1 2] (0-based) between one init and one finish", idx)
	}
	var files []Record
	for _, r := range srv.Requests("aibot_send_msg") {
		if r.MediaID() == l.MediaID {
			files = append(files, r)
		}
	}
	if len(files) != 1 || files[0].MsgType() != "file" || files[0].Errcode != 0 {
		t.Fatalf("sends of %s = %+v, want one accepted file message", l.MediaID, files)
	}
	if l := next("picture_acked"); l.Errcode != float64(0) {
		t.Fatalf("final frame with a picture: errcode %v, want 0", l.Errcode)
	}
	final := srv.FinalFrames(reqID)
	if len(final) != 1 || len(final[0].StreamImages()) != 1 || !bytes.Equal(final[0].StreamImages()[0], png) {
		t.Fatalf("final frames on %s: %d, want one whose msg_item holds the picture", reqID, len(final))
	}
	if l := next("bad_media"); l.Errcode != float64(CodeInvalidMediaID) {
		t.Fatalf("send of a media_id never issued: errcode %v, want %d", l.Errcode, CodeInvalidMediaID)
	}
}
