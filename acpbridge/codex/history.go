package codex

import (
	"context"
	"fmt"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// historyPage is how many items one thread/items/list call returns.
const historyPage = 200

// LoadSession resumes the session's thread in the app-server and replays its
// user and agent messages into sink: user text as user_message_chunk, agent
// text by the same phase rule as live deltas. Each message is one chunk
// carrying its item id.
func (a *Agent) LoadSession(ctx context.Context, id acp.SessionId, cwd string, sink acpbridge.Sink) error {
	th := a.threadFor(string(id))
	if err := th.acquire(ctx); err != nil {
		return err
	}
	defer a.release(th)
	c, err := a.load(ctx, th, cwd)
	if err != nil {
		return err
	}
	cursor := ""
	for {
		var page threadItemsListResponse
		if err := c.call(ctx, "thread/items/list", threadItemsListParams{
			ThreadID: th.id, Cursor: cursor, Limit: historyPage,
		}, &page); err != nil {
			return fmt.Errorf("read codex thread %s history: %w", th.id, err)
		}
		for i := range page.Data {
			replayItem(&page.Data[i].Item, sink)
		}
		if page.NextCursor == nil || *page.NextCursor == "" || len(page.Data) == 0 {
			return nil
		}
		cursor = *page.NextCursor
	}
}

func replayItem(it *threadItem, sink acpbridge.Sink) {
	switch it.Type {
	case "userMessage":
		for _, in := range it.Content {
			if in.Type != "text" || in.Text == "" {
				continue
			}
			id := it.ID
			sink.Update(acp.SessionUpdate{UserMessageChunk: &acp.SessionUpdateUserMessageChunk{
				SessionUpdate: "user_message_chunk", Content: acp.TextBlock(in.Text), MessageId: &id,
			}})
		}
	case "agentMessage":
		if it.Text != "" {
			sink.Update(acpbridge.AgentText(phaseOf(it.Phase), it.ID, it.Text))
		}
	}
}
