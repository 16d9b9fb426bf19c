package cards

// WithHeader gives the card a line shown above its answer on every channel
// (the first stream of a turn, the first markdown message): what the reader
// should know before reading it, such as a permission mode that is not the
// default.
func WithHeader(line string) Option {
	return func(c *Card) { c.header = OneLine(toValidUTF8(line)) }
}

// SetFooter sets a line shown after the finished card's status, on every
// channel (the last stream frame, the last markdown message); "" removes
// it. Only a terminal card shows it.
func (c *Card) SetFooter(line string) { c.footer = OneLine(toValidUTF8(line)) }

// Header and Footer return the lines set with WithHeader and SetFooter.
func (c *Card) Header() string { return c.header }
func (c *Card) Footer() string { return c.footer }

// headed is text with the header above it.
func (c *Card) headed(text string) string {
	if c.header == "" {
		return text
	}
	if text == "" {
		return c.header
	}
	return c.header + FrameGap + text
}

// footed is a terminal card's closing text with the footer after it.
func (c *Card) footed(text string) string {
	if c.footer == "" || !c.status.Terminal() {
		return text
	}
	if text == "" {
		return c.footer
	}
	return text + FrameGap + c.footer
}
