package cards

import (
	"strconv"
	"strings"

	acp "github.com/coder/acp-go-sdk"
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

// TemplateCard renders the progress card of the self-built app: title and
// status, the newest progress line, and a summary of tools, plan and answer.
// Every field is kept within WeCom's documented limits. The answer itself
// goes out as markdown messages (AppMarkdown).
func (c *Card) TemplateCard(o TemplateCardOptions) TemplateCard {
	tc := TemplateCard{CardType: "text_notice"}
	if o.Source != "" || o.IconURL != "" {
		tc.Source = &CardSource{IconURL: o.IconURL, Desc: truncateRunes(oneLine(o.Source), cardSourceDescMax)}
	}
	title := c.title
	if title == "" {
		title = "Agent turn"
	}
	tc.MainTitle = CardMainTitle{
		Title: truncateRunes(title, cardTitleMax),
		Desc:  truncateRunes(capitalize(c.status.String()), cardTitleDescMax),
	}
	tc.SubTitleText = truncateRunes(c.latestLine(), cardSubTitleMax)
	tc.HorizontalContentList = c.summaryRows()
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
			b.Text = truncateRunes(oneLine(b.Text), cardButtonTextMax)
			b.Key = truncateBytes(b.Key, cardButtonKeyBytes)
			tc.ButtonList = append(tc.ButtonList, b)
		}
	}
	return tc
}

// latestLine is the one line the card shows under its title: the failure,
// else the newest progress item, else a word on the state.
func (c *Card) latestLine() string {
	if c.status.State == StateFailed || c.status.State == StateWaitingApproval {
		if d := oneLine(c.status.Detail); d != "" {
			return d
		}
	}
	for i := len(c.progress) - 1; i >= 0; i-- {
		if md := oneLine(c.progress[i].markdown()); md != "" {
			return md
		}
	}
	if c.status.Terminal() && strings.TrimSpace(c.Body()) == "" && c.status.State == StateDone {
		return "No final answer."
	}
	return ""
}

func (c *Card) summaryRows() []CardHorizontalRow {
	rows := []CardHorizontalRow{{Keyname: "State", Value: c.status.String()}}
	var done, running, failed int
	for _, it := range c.tools {
		switch it.status {
		case acp.ToolCallStatusCompleted:
			done++
		case acp.ToolCallStatusFailed:
			failed++
		default:
			running++
		}
	}
	if len(c.tools) > 0 {
		v := strconv.Itoa(done) + " done"
		if running > 0 {
			v += ", " + strconv.Itoa(running) + " running"
		}
		if failed > 0 {
			v += ", " + strconv.Itoa(failed) + " failed"
		}
		rows = append(rows, CardHorizontalRow{Keyname: "Tools", Value: v})
	}
	if c.plan != nil && len(c.plan.entries) > 0 {
		n := 0
		for _, e := range c.plan.entries {
			if e.Status == acp.PlanEntryStatusCompleted {
				n++
			}
		}
		rows = append(rows, CardHorizontalRow{Keyname: "Plan",
			Value: strconv.Itoa(n) + "/" + strconv.Itoa(len(c.plan.entries)) + " steps done"})
	}
	if n := len(c.body.String()); n > 0 {
		rows = append(rows, CardHorizontalRow{Keyname: "Reply", Value: strconv.Itoa(n) + " bytes"})
	}
	for i := range rows {
		rows[i].Keyname = truncateRunes(rows[i].Keyname, cardKeynameMax)
		rows[i].Value = truncateRunes(rows[i].Value, cardValueMax)
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

// AppMarkdown renders the answer for the self-built app as markdown messages
// of at most maxBytes bytes each (AppMarkdownMaxBytes when maxBytes <= 0),
// cut by SplitMarkdown. A finished turn without answer text gets its last
// commentary, marked as such; a cancelled or failed turn ends with its status
// line. It returns nil while there is nothing to send.
func (c *Card) AppMarkdown(maxBytes int) []string {
	if maxBytes <= 0 {
		maxBytes = AppMarkdownMaxBytes
	}
	text := c.Body()
	if strings.TrimSpace(text) == "" {
		text = ""
		if c.status.State == StateDone {
			text = c.emptyAnswer(maxBytes)
		}
	}
	if c.status.Terminal() {
		if s := c.statusMarkdown(); s != "" {
			if text != "" {
				if sp := scanFences(text).open(); sp != nil && decoratable(*sp) {
					text += closeFence(*sp, strings.HasSuffix(text, "\n"))
				}
				text += "\n\n"
			}
			text += s
		}
	}
	var out []string
	for _, p := range SplitMarkdown(text, maxBytes) {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return out
}
