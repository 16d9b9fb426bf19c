package wecom

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/bot"
)

func TestParseApprovalKey(t *testing.T) {
	for key, want := range map[string]struct {
		click ApprovalClick
		ok    bool
	}{
		"appr:7:approve": {ApprovalClick{ID: 7, Verdict: bot.VerdictApprove, Decides: true}, true},
		"appr:7:always":  {ApprovalClick{ID: 7, Verdict: bot.VerdictAlways, Decides: true}, true},
		"appr:12:deny":   {ApprovalClick{ID: 12, Verdict: bot.VerdictDeny, Decides: true}, true},
		"appr:7:done":    {ApprovalClick{ID: 7}, true},
		"appr:7:maybe":   {ApprovalClick{ID: 7}, true},
		"appr:7":         {ApprovalClick{ID: 7}, true},
		"appr:0:approve": {ApprovalClick{}, false},
		"appr:-1:deny":   {ApprovalClick{}, false},
		"appr:x:approve": {ApprovalClick{}, false},
		"stop:s1":        {ApprovalClick{}, false},
		"":               {ApprovalClick{}, false},
	} {
		if got, ok := ParseApprovalKey(key); got != want.click || ok != want.ok {
			t.Errorf("ParseApprovalKey(%q) = %+v, %v; want %+v, %v", key, got, ok, want.click, want.ok)
		}
	}
}

// TestApprovalAskCard: both flavours carry the same buttons, whose keys
// read back as what they decide; each cuts the description to its own
// limit.
func TestApprovalAskCard(t *testing.T) {
	a := bot.ApprovalAsk{ID: 3, Requester: "zhangsan", For: "zhangsan or an admin", What: strings.Repeat("命", 200)}
	for _, tt := range []struct {
		f   CardFields
		sub int
	}{{AppCard, 160}, {BotCard, 112}} {
		tc := ApprovalAskCard(a, tt.f)
		var buttons []string
		for _, b := range tc.ButtonList {
			c, ok := ParseApprovalKey(b.Key)
			if !ok || c.ID != 3 || !c.Decides {
				t.Fatalf("button %+v reads back as %+v, %v", b, c, ok)
			}
			buttons = append(buttons, b.Text+"="+b.Key)
		}
		if got := strings.Join(buttons, " "); got != "Approve=appr:3:approve Always=appr:3:always Deny=appr:3:deny" {
			t.Errorf("buttons %s", got)
		}
		if tc.CardType != "button_interaction" || tc.MainTitle != (CardMainTitle{Title: "Codex asks #3", Desc: "for zhangsan or an admin"}) ||
			tc.SubTitleText != strings.Repeat("命", tt.sub-1)+"…" || !strings.HasPrefix(tc.TaskID, "wxappr_3_") || len(tc.TaskID) != len("wxappr_3_")+12 {
			t.Errorf("ask card %+v", tc)
		}
		if again := ApprovalAskCard(a, tt.f); again.TaskID == tc.TaskID {
			t.Errorf("two ask cards share task_id %s", tc.TaskID)
		}
	}
}

// TestApprovalAnswerCard: the replacing card says how the click was taken
// and keeps only a button that decides nothing.
func TestApprovalAnswerCard(t *testing.T) {
	click := ApprovalClick{ID: 1, Verdict: bot.VerdictApprove, Decides: true}
	approved := &bot.Decided{Outcome: bot.DecidedNow, ID: 1, Decision: bot.ApprovalDecision{Verdict: bot.VerdictApprove, By: "zhangsan"}, Text: "Approved #1."}
	notYours := &bot.Decided{Outcome: bot.NotYours, ID: 1, Text: "Only zhangsan (who asked) or an admin may decide #1."}
	for _, tt := range []struct {
		name string
		r    *bot.Decided
		f    CardFields
		want string
	}{
		{"approved/bot", approved, BotCard, `{"card_type":"button_interaction","main_title":{"title":"Approved by zhangsan"},"sub_title_text":"Approved #1.","task_id":"T1","button_list":[{"text":"Approved by zhangsan","style":4,"key":"appr:1:done"}]}`},
		{"approved/app", approved, AppCard, `{"card_type":"button_interaction","main_title":{"title":"Approved by zhangsan"},"sub_title_text":"Approved #1.","task_id":"T1","button_list":[{"text":"Approved …","style":4,"key":"appr:1:done"}]}`},
		{"not yours", notYours, BotCard, `{"card_type":"button_interaction","main_title":{"title":"Not yours to decide"},"sub_title_text":"Only zhangsan (who asked) or an admin may decide #1.","task_id":"T1","button_list":[{"text":"OK","style":4,"key":"appr:1:done"}]}`},
		{"done button", nil, BotCard, `{"card_type":"button_interaction","main_title":{"title":"Decided"},"sub_title_text":"#1 was decided already.","task_id":"T1","button_list":[{"text":"Decided","style":4,"key":"appr:1:done"}]}`},
	} {
		js, err := json.Marshal(ApprovalAnswerCard(click, tt.r, "T1", tt.f))
		if err != nil {
			t.Fatal(err)
		}
		if string(js) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, js, tt.want)
		}
	}
}
