package app

import "encoding/xml"

// OnTokenWait sets the hook called each time c waits on another replica's
// access token fetch.
func (c *Channel) OnTokenWait(f func()) { c.api.cache.waiting = f }

var xmlUnmarshal = xml.Unmarshal
