package store

import (
	"go/build"
	"strings"
	"testing"
)

func TestKeysLayout(t *testing.T) {
	k := NewKeys("wx:")
	for _, tc := range []struct{ got, want string }{
		{k.Dedupe("single:alice", "alice", "m1"), "wx:{conv:single:alice}:dedupe:5:alice:m1"},
		{k.Session("c1"), "wx:{conv:c1}:session"},
		{k.Lease("c1"), "wx:{conv:c1}:lease"},
		{k.Fence("c1"), "wx:{conv:c1}:fence"},
		{k.Queue("c1"), "wx:{conv:c1}:queue"},
		{k.Stop("c1"), "wx:{conv:c1}:stop"},
		{k.Running("c1"), "wx:{conv:c1}:running"},
		{k.Owner("c1"), "wx:{conv:c1}:owner"},
		{k.StopChannel(), "wx:stop"},
		{k.Attachment("c1", "s1", 2), "wx:{conv:c1}:attachment:s1:2"},
		{k.ApprovalSeq(), "wx:approval:seq"},
		{k.ApprovalOwner(7), "wx:approval:owner:7"},
		{k.ApprovalsPending(), "wx:approvals:pending"},
		{k.Approval("c1", 7), "wx:{conv:c1}:approval:7"},
		{k.Approvals("c1"), "wx:{conv:c1}:approvals"},
		{k.ApprovalChannel(), "wx:approval"},
		{k.Pending(), "wx:pending"},
		{k.Replica("r1"), "wx:replica:r1"},
		{k.Phase("th", "it"), "wx:phase:th:it"},
		{k.Frame("s1"), "wx:frame:s1"},
		{k.Cache("qywx_token"), "wx:{cache:qywx_token}"},
		{k.CacheFill("qywx_token"), "wx:{cache:qywx_token}:fill"},
		{k.AppPace("1000002", "zhangsan"), "wx:{app:1000002:zhangsan}:pace:sends"},
		{k.AppPaceSeq("1000002", "zhangsan"), "wx:{app:1000002:zhangsan}:pace:seq"},
		{k.AppCard("s1"), "wx:app:card:s1"},
		{k.AppFinished("s1"), "wx:app:finished:s1"},
	} {
		if tc.got != tc.want {
			t.Errorf("key %q, want %q", tc.got, tc.want)
		}
	}
}

// Every key of one conversation must land in one Cluster slot, so scripts
// may touch them together: Cluster hashes only the first {…} of a key.
func TestConversationKeysShareAHashTag(t *testing.T) {
	k := NewKeys("wecodex:")
	conv := "wrkSFfCgAAxx:user}odd" // a brace in an id must not split the slot
	want := hashTag(k.Lease(conv))
	for _, key := range []string{k.Session(conv), k.Fence(conv), k.Queue(conv), k.Owner(conv), k.Stop(conv), k.Rest(conv), k.Running(conv), k.Dedupe(conv, "u", "m1"), k.Approval(conv, 1), k.Approvals(conv), k.Attachment(conv, "s", 0)} {
		if got := hashTag(key); got != want {
			t.Errorf("%s hashes on %q, lease on %q", key, got, want)
		}
	}
	if want != "conv:wrkSFfCgAAxx:user" {
		t.Errorf("hash tag %q", want)
	}
}

func hashTag(key string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			return key[i+1 : i+1+j]
		}
	}
	return key
}

// store implements interfaces other packages declare without importing them
// (DESIGN.md: interfaces live with their users); only go-redis, miniredis
// and the standard library may be imported.
func TestImportsNoWecodexPackage(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if strings.HasPrefix(imp, "github.com/wecodex/") {
			t.Errorf("store imports %s", imp)
		}
	}
}
