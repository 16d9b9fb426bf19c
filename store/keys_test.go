package store

import (
	"go/build"
	"strings"
	"testing"
)

func TestKeysLayout(t *testing.T) {
	k := NewKeys("wx:")
	for _, tc := range []struct{ got, want string }{
		{k.Conv("single:alice").Dedupe("alice", "m1"), "wx:{conv:single:alice}:dedupe:5:alice:m1"},
		{k.Conv("c1").Session(), "wx:{conv:c1}:session"},
		{k.Conv("c1").Lease(), "wx:{conv:c1}:lease"},
		{k.Conv("c1").Fence(), "wx:{conv:c1}:fence"},
		{k.Conv("c1").Queue(), "wx:{conv:c1}:queue"},
		{k.Conv("c1").Stop(), "wx:{conv:c1}:stop"},
		{k.Conv("c1").Steers(), "wx:{conv:c1}:steers"},
		{k.Conv("c1").Running(), "wx:{conv:c1}:running"},
		{k.Conv("c1").Owner(), "wx:{conv:c1}:owner"},
		{k.StopChannel(), "wx:stop"},
		{k.SteerChannel(), "wx:steer"},
		{k.Conv("c1").Attachment("s1", 2), "wx:{conv:c1}:attachment:s1:2"},
		{k.ApprovalSeq(), "wx:approval:seq"},
		{k.ApprovalOwner(7), "wx:approval:owner:7"},
		{k.ApprovalsPending(), "wx:approvals:pending"},
		{k.Conv("c1").Approval(7), "wx:{conv:c1}:approval:7"},
		{k.Conv("c1").Approvals(), "wx:{conv:c1}:approvals"},
		{k.Conv("c1").Grants(), "wx:{conv:c1}:grants"},
		{k.Conv("c1").Threads(), "wx:{conv:c1}:threads"},
		{k.Conv("c1").ThreadRecords(), "wx:{conv:c1}:threads:records"},
		{k.ApprovalChannel(), "wx:approval"},
		{k.Pending(), "wx:pending"},
		{k.Replica("r1"), "wx:replica:r1"},
		{k.Backlog("alice"), "wx:backlog:alice"},
		{k.Phase("th", "it"), "wx:phase:th:it"},
		{k.Frame("s1"), "wx:webhook:frame:s1"},
		{k.LegacyFrame("s1"), "wx:frame:s1"},
		{k.DataMark(), "wx:{data}:mark"},
		{k.DataLoss(), "wx:{data}:loss"},
		{k.Fetches(), "wx:{webhook:fetches}"},
		{k.Fetch("s1"), "wx:{webhook:fetches}:msg:s1"},
		{k.FetchClaim("s1"), "wx:{webhook:fetches}:claim:s1"},
		{k.App().Cache("qywx_token"), "wx:{cache:qywx_token}"},
		{k.App().CacheFill("qywx_token"), "wx:{cache:qywx_token}:fill"},
		{k.App().Pace("1000002", "zhangsan"), "wx:{app:1000002:zhangsan}:pace:sends"},
		{k.App().PaceSeq("1000002", "zhangsan"), "wx:{app:1000002:zhangsan}:pace:seq"},
		{k.App().Card("s1"), "wx:app:card:s1"},
		{k.App().Finished("s1"), "wx:app:finished:s1"},
		{k.AuditStream(), "wx:audit"},
		{k.AuditSeq(), "wx:audit:seq"},
		{k.LimitTurns("bob", 1796180400), "wx:limit:turns:3:bob:1796180400"},
		{k.LimitTokens("bob", "20261202"), "wx:limit:tokens:3:bob:20261202"},
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
	want := hashTag(k.Conv(conv).Lease())
	for _, key := range []string{k.Conv(conv).Session(), k.Conv(conv).Fence(), k.Conv(conv).Queue(), k.Conv(conv).Owner(), k.Conv(conv).Stop(), k.Conv(conv).Steers(), k.Conv(conv).Rest(), k.Conv(conv).Running(), k.Conv(conv).Dedupe("u", "m1"), k.Conv(conv).Approval(1), k.Conv(conv).Approvals(), k.Conv(conv).Attachment("s", 0), k.Conv(conv).Threads(), k.Conv(conv).ThreadRecords()} {
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
