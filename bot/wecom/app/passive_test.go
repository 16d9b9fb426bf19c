package app

import (
	"testing"

	"github.com/wecodex/wecodex/bot/wecom"
)

// The two passive replies to a card click, byte for byte as WeCom's
// 模板卡片更新消息 documents them: update_button's one <Button>, and a card
// whose buttons are one <ButtonList> element each, with no wrapper.
func TestPassiveRepliesGolden(t *testing.T) {
	const head = `<xml><ToUserName><![CDATA[zhangsan]]></ToUserName><FromUserName><![CDATA[ww0123456789abcdef]]></FromUserName>` +
		`<CreateTime>1735000100</CreateTime>`
	button, err := replaceButton(testCorp, testUser, 1735000100, textStopping)
	if err != nil {
		t.Fatal(err)
	}
	card, err := replaceCard(testCorp, testUser, 1735000100, wecom.TemplateCard{
		CardType:     "button_interaction",
		MainTitle:    wecom.CardMainTitle{Title: "Approved by zhangsan", Desc: "#1"},
		SubTitleText: "OK — #1 runs <now> & then",
		TaskID:       "wxappr_1_0a1b2c",
		ButtonList:   []wecom.CardButton{{Text: "Approved", Style: 4, Key: "appr:1:done"}, {Text: "Log", Style: 2, Key: "appr:1:log"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, got, want string }{
		{"update_button", string(button), head + `<MsgType><![CDATA[update_button]]></MsgType>` +
			`<Button><ReplaceName><![CDATA[Stopping…]]></ReplaceName></Button></xml>`},
		{"update_template_card", string(card), head + `<MsgType><![CDATA[update_template_card]]></MsgType><TemplateCard>` +
			`<CardType><![CDATA[button_interaction]]></CardType>` +
			`<MainTitle><Title><![CDATA[Approved by zhangsan]]></Title><Desc><![CDATA[#1]]></Desc></MainTitle>` +
			`<SubTitleText><![CDATA[OK — #1 runs <now> & then]]></SubTitleText><TaskId><![CDATA[wxappr_1_0a1b2c]]></TaskId>` +
			`<ButtonList><Text><![CDATA[Approved]]></Text><Style>4</Style><Key><![CDATA[appr:1:done]]></Key></ButtonList>` +
			`<ButtonList><Text><![CDATA[Log]]></Text><Style>2</Style><Key><![CDATA[appr:1:log]]></Key></ButtonList>` +
			`</TemplateCard></xml>`},
	} {
		if c.got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, c.got, c.want)
		}
	}
}
