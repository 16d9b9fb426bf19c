package webhook

import (
	"context"
	"fmt"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/cards"
)

// What the card says of a file the webhook channel got: WeCom's webhook bot
// shows pictures with a final frame and can send nothing else.
const (
	textFileShown  = "shown with the answer"
	textFileNamed  = "kept in the workspace: WeCom's webhook bot can send pictures only (`/file %s` says how to get it)"
	textFileFailed = "not shown: the pictures could not be prepared"
	// A picture the final frame cannot carry; /file cannot send it either,
	// so the line says why rather than pointing there.
	textPictureLate  = "not shown: the reply's stream window had closed, and WeCom's webhook bot shows pictures only in it"
	textPictureCount = "not shown: a reply shows at most %d pictures"
	textPictureSize  = "not shown: it is over the %d MB a picture in a reply may have"
)

var _ bot.FileSender = (*stream)(nil)

// SendFiles puts up to 10 pictures (JPG/PNG, ≤ 10 MB) in the final frame's
// msg_item; every other file is named on the card with how to get it.
func (s *stream) SendFiles(_ context.Context, files []bot.OutFile) []string {
	notes := make([]string, len(files))
	var closed bool
	s.pub.Do(func(*cards.Card) { closed = s.windowClosed })
	var images [][]byte
	var at []int
	for i, f := range files {
		switch {
		case !f.Image:
			notes[i] = fmt.Sprintf(textFileNamed, f.Name)
		case closed:
			notes[i] = textPictureLate
		case len(f.Data) > wecom.MaxMsgItemBytes:
			notes[i] = fmt.Sprintf(textPictureSize, wecom.MaxMsgItemBytes>>20)
		case len(images) >= wecom.MaxMsgItems:
			notes[i] = fmt.Sprintf(textPictureCount, wecom.MaxMsgItems)
		default:
			images = append(images, f.Data)
			at = append(at, i)
		}
	}
	items, err := wecom.ImageItems(images)
	for _, i := range at {
		notes[i] = textFileShown
		if err != nil {
			notes[i] = textFileFailed
		}
	}
	if err != nil {
		s.log.Warn("pictures of the answer not shown", "err", err)
		return notes
	}
	s.items.Store(&items)
	return notes
}
