package bot

// streamOf is the reply stream intake gives m: a new one, unless the channel
// named it already because it had to answer the platform before it could
// hand m over (the WeCom webhook, for a message whose files take longer to
// fetch than WeCom waits for an answer). Such a stream is unguessable and
// derived from the message, so a redelivery of m names the same one and the
// dedupe claim below still records one stream per message.
func streamOf(m Message) string {
	if m.Reply.Stream != "" {
		return m.Reply.Stream
	}
	return randomID(12)
}
