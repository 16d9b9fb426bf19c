package wecom

import (
	"strconv"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/cards"
)

// Field limits of a self-built app's template card, from WeCom's "发送应用消息
// / 模板卡片消息" (developer.work.weixin.qq.com/document/path/90236, #90372).
// WeCom counts characters (字), not bytes. The group-robot variant of the same
// card (document/path/91770) recommends tighter title/desc limits (26/30/112);
// these are the app's.
const (
	cardSourceDescMax  = 20  // source.desc: 建议不超过20个字
	cardTitleMax       = 36  // main_title.title: 建议不超过36个字
	cardTitleDescMax   = 44  // main_title.desc: 建议不超过44个字
	cardSubTitleMax    = 160 // sub_title_text: 建议不超过160个字
	cardHorizontalMax  = 6   // horizontal_content_list: 列表长度不超过6
	cardKeynameMax     = 5   // horizontal_content_list.keyname: 建议不超过5个字
	cardValueMax       = 30  // horizontal_content_list.value: 建议不超过30个字
	cardButtonsMax     = 6   // button_list: 列表长度不超过6
	cardButtonTextMax  = 10  // button_list.text: 建议不超过10个字
	cardButtonKeyBytes = 1024
	cardTaskIDBytes    = 128 // task_id: 最长128字节, 数字、字母和"_-@"
)

// TemplateCard is the template_card object of a message/send request (and of
// update_template_card), with WeCom's field names.
type TemplateCard struct {
	CardType              string              `json:"card_type"`
	Source                *CardSource         `json:"source,omitempty"`
	MainTitle             CardMainTitle       `json:"main_title"`
	SubTitleText          string              `json:"sub_title_text,omitempty"`
	HorizontalContentList []CardHorizontalRow `json:"horizontal_content_list,omitempty"`
	CardAction            *CardAction         `json:"card_action,omitempty"`
	TaskID                string              `json:"task_id,omitempty"`
	ButtonList            []CardButton        `json:"button_list,omitempty"`
}

// CardSource is the card's source line.
type CardSource struct {
	IconURL string `json:"icon_url,omitempty"`
	Desc    string `json:"desc,omitempty"`
}

// CardMainTitle is the card's title and its helper line.
type CardMainTitle struct {
	Title string `json:"title,omitempty"`
	Desc  string `json:"desc,omitempty"`
}

// CardHorizontalRow is one "key: value" row.
type CardHorizontalRow struct {
	Keyname string `json:"keyname"`
	Value   string `json:"value,omitempty"`
}

// CardAction is what tapping the card does: type 1 opens URL.
type CardAction struct {
	Type int    `json:"type"`
	URL  string `json:"url,omitempty"`
}

// CardButton is a button of a button_interaction card; tapping it sends the
// app a template_card_event callback with Key as EventKey.
type CardButton struct {
	Text  string `json:"text"`
	Style int    `json:"style,omitempty"`
	Key   string `json:"key"`
}

// TemplateCardOptions says how the app card is built. With Buttons the card
// is a button_interaction card and TaskID is required (WeCom rejects a
// repeated one); without, it is a text_notice card and URL (what tapping the
// card opens, required by text_notice) should be set.
type TemplateCardOptions struct {
	Source  string
	IconURL string
	URL     string
	TaskID  string
	Buttons []CardButton
}

// ProgressCard renders a turn's card as the self-built app's progress card:
// title and status, the newest progress line, and a summary of tools, plan
// and answer. Every field is kept within WeCom's documented limits. The
// answer itself goes out as markdown messages (Card.Markdown, cut to
// AppMarkdownMaxBytes).
func ProgressCard(c *cards.Card, o TemplateCardOptions) TemplateCard {
	tc := TemplateCard{CardType: "text_notice"}
	if o.Source != "" || o.IconURL != "" {
		tc.Source = &CardSource{IconURL: o.IconURL, Desc: CutRunes(cards.OneLine(o.Source), cardSourceDescMax)}
	}
	title := c.Title()
	if title == "" {
		title = "Agent turn"
	}
	progress := c.Progress()
	tc.MainTitle = CardMainTitle{
		Title: CutRunes(title, cardTitleMax),
		Desc:  CutRunes(capitalize(c.Status().String()), cardTitleDescMax),
	}
	tc.SubTitleText = CutRunes(latestLine(c, progress), cardSubTitleMax)
	tc.HorizontalContentList = summaryRows(c, progress)
	if o.URL != "" {
		tc.CardAction = &CardAction{Type: 1, URL: o.URL}
	}
	if len(o.Buttons) > 0 {
		tc.CardType = "button_interaction"
		tc.TaskID = cleanTaskID(o.TaskID)
		for i, b := range o.Buttons {
			if i == cardButtonsMax {
				break
			}
			b.Text = CutRunes(cards.OneLine(b.Text), cardButtonTextMax)
			b.Key = cutBytes(b.Key, cardButtonKeyBytes)
			tc.ButtonList = append(tc.ButtonList, b)
		}
	}
	return tc
}

// latestLine is the one line the card shows under its title: the failure,
// else the newest progress item, else a word on the state.
func latestLine(c *cards.Card, progress []cards.ProgressItem) string {
	st := c.Status()
	if st.State == cards.StateFailed || st.State == cards.StateWaitingApproval {
		if d := cards.OneLine(st.Detail); d != "" {
			return d
		}
	}
	for i := len(progress) - 1; i >= 0; i-- {
		if md := cards.OneLine(progress[i].Markdown); md != "" {
			return md
		}
	}
	if st.Terminal() && strings.TrimSpace(c.Body()) == "" && st.State == cards.StateDone {
		return "No final answer."
	}
	return ""
}

func summaryRows(c *cards.Card, progress []cards.ProgressItem) []CardHorizontalRow {
	rows := []CardHorizontalRow{{Keyname: "State", Value: c.Status().String()}}
	var tools int
	var plan []acp.PlanEntry
	var done, running, failed int
	for _, it := range progress {
		switch it.Kind {
		case cards.ItemPlan:
			plan = it.Plan
			continue
		case cards.ItemTool:
			tools++
		default:
			continue
		}
		switch it.Status {
		case acp.ToolCallStatusCompleted:
			done++
		case acp.ToolCallStatusFailed:
			failed++
		default:
			running++
		}
	}
	if tools > 0 {
		v := strconv.Itoa(done) + " done"
		if running > 0 {
			v += ", " + strconv.Itoa(running) + " running"
		}
		if failed > 0 {
			v += ", " + strconv.Itoa(failed) + " failed"
		}
		rows = append(rows, CardHorizontalRow{Keyname: "Tools", Value: v})
	}
	if len(plan) > 0 {
		n := 0
		for _, e := range plan {
			if e.Status == acp.PlanEntryStatusCompleted {
				n++
			}
		}
		rows = append(rows, CardHorizontalRow{Keyname: "Plan",
			Value: strconv.Itoa(n) + "/" + strconv.Itoa(len(plan)) + " steps done"})
	}
	if n := len(c.Body()); n > 0 {
		rows = append(rows, CardHorizontalRow{Keyname: "Reply", Value: strconv.Itoa(n) + " bytes"})
	}
	for i := range rows {
		rows[i].Keyname = CutRunes(rows[i].Keyname, cardKeynameMax)
		rows[i].Value = CutRunes(rows[i].Value, cardValueMax)
	}
	return rows[:min(len(rows), cardHorizontalMax)]
}

// cleanTaskID keeps only the characters WeCom accepts in a task_id.
func cleanTaskID(id string) string {
	b := []byte(id)
	for i, ch := range b {
		ok := ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' ||
			ch == '_' || ch == '-' || ch == '@'
		if !ok {
			b[i] = '_'
		}
	}
	if len(b) > cardTaskIDBytes {
		b = b[:cardTaskIDBytes]
	}
	return string(b)
}

// capitalize upper-cases an ASCII first letter ("done" → "Done").
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// cutBytes keeps s within n bytes on a rune boundary, ending a cut one with
// "…".
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ell = "…"
	if n < len(ell) {
		return ""
	}
	return cut(s, n-len(ell)) + ell
}
