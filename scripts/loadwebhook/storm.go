package main

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/store"
)

// stormTarget is DESIGN's callback budget, which a repeat must keep too.
const stormTarget = 10 * time.Millisecond

// storm is WeCom's retry storm: one msgid delivered again and again by
// several of its senders while the message's turn runs. The phantom
// replica holding the conversation's lease plays the running turn: it
// writes the stream's running frame, which every repeat must be answered
// with. Before the clock, monitorRepeats counts the Redis commands a
// repeat costs.
type storm struct {
	st       *store.DB
	opt      *redis.Options
	prefix   string
	crypter  *wecom.Crypter
	endpoint string
	client   *http.Client
}

const stormRunning = "🔄 Codex is working on it (the phantom replica's running turn)"

func (s storm) run(ctx context.Context, user string, repeats, senders int) (bool, error) {
	cb := fmt.Sprintf(`{"msgid":"storm-%s","aibotid":%q,"chattype":"single","from":{"userid":%q},"msgtype":"text","text":{"content":"storm message"}}`,
		s.prefix, botID, user)
	first, err := seal(s.crypter, s.endpoint, cb)
	if err != nil {
		return false, err
	}
	status, body, err := post(ctx, s.client, first)
	if err != nil || status != http.StatusOK {
		return false, fmt.Errorf("storm: first delivery: HTTP %d %s %v", status, body, err)
	}
	f, err := open(s.crypter, body)
	if err != nil {
		return false, err
	}
	// The running turn's frame, written as its replica writes it: the
	// waiting frame's owner, a running state, the turn's content.
	wh := store.NewWebhook(s.st)
	_, own, u, _, ok, err := wh.LoadFrame(ctx, f.ID)
	if err != nil || !ok {
		return false, fmt.Errorf("storm: no waiting frame for stream %s (%v)", f.ID, err)
	}
	if _, err := wh.SaveFrameUnless(ctx, f.ID, "finished", "running", own, u, stormRunning); err != nil {
		return false, err
	}
	want := wecom.StreamFrame{ID: f.ID, Content: stormRunning}
	check := func(i int, got wecom.StreamFrame) error {
		if got != want {
			return fmt.Errorf("repeat %d answered %+v, want the running frame %+v", i, got, want)
		}
		return nil
	}
	cmds, err := s.monitorRepeats(ctx, cb, 100, check)
	if err != nil {
		return false, err
	}
	// Every delivery WeCom makes is encrypted and signed afresh.
	reqs := make([]request, repeats)
	for i := range reqs {
		if reqs[i], err = seal(s.crypter, s.endpoint, cb); err != nil {
			return false, err
		}
	}
	lat, err := drive(ctx, s.client, s.crypter, reqs, senders, check)
	if err != nil {
		return false, err
	}
	fmt.Printf("retry storm: one msgid delivered %d times by %d senders while its turn runs; each repeat costs %s\n", repeats, senders, cmds)
	return report("repeats (verify, decrypt, the stream's frame, reply)", lat, stormTarget), nil
}

// monitorRepeats sends n repeats of cb one at a time while Redis's
// MONITOR runs, and says how many commands of this run's keys each cost.
// MONITOR slows Redis, so these repeats are not timed.
func (s storm) monitorRepeats(ctx context.Context, cb string, n int, check func(int, wecom.StreamFrame) error) (string, error) {
	mon, err := startMonitor(ctx, s.opt, s.prefix)
	if err != nil {
		return "", err
	}
	defer mon.close()
	for i := 0; i < n; i++ {
		r, err := seal(s.crypter, s.endpoint, cb)
		if err != nil {
			return "", err
		}
		status, body, err := post(ctx, s.client, r)
		if err != nil || status != http.StatusOK {
			return "", fmt.Errorf("storm: monitored repeat %d: HTTP %d %s %v", i, status, body, err)
		}
		f, err := open(s.crypter, body)
		if err == nil {
			err = check(i, f)
		}
		if err != nil {
			return "", err
		}
	}
	counts, err := mon.stop(ctx)
	if err != nil {
		return "", err
	}
	var sent, scripted int
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(counts)) {
		if strings.HasPrefix(c, "lua ") {
			scripted += counts[c]
		} else {
			sent += counts[c]
		}
		parts = append(parts, fmt.Sprintf("%s %.2f", c, float64(counts[c])/float64(n)))
	}
	return fmt.Sprintf("%.2f Redis commands sent and %.2f run inside scripts (%s; counted with MONITOR over %d repeats, this run's keys only; a pipeline's commands share one round trip)",
		float64(sent)/float64(n), float64(scripted)/float64(n), strings.Join(parts, ", "), n), nil
}

// monitor is a MONITOR connection counting the commands that name keys
// under prefix, by command.
type monitor struct {
	conn   net.Conn
	opt    *redis.Options
	prefix string
	mu     sync.Mutex
	counts map[string]int
	ended  chan struct{} // closed when the end marker's line arrived
}

// startMonitor opens a raw connection (MONITOR streams forever, which a
// pooled client does not expect) and returns once Redis streams to it.
func startMonitor(ctx context.Context, opt *redis.Options, prefix string) (*monitor, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", opt.Addr)
	if err != nil {
		return nil, fmt.Errorf("monitor: %w", err)
	}
	rd := bufio.NewReader(conn)
	if opt.Password != "" {
		fmt.Fprintf(conn, "*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n", len(opt.Password), opt.Password)
		if l, err := rd.ReadString('\n'); err != nil || !strings.HasPrefix(l, "+OK") {
			conn.Close()
			return nil, fmt.Errorf("monitor: AUTH answered %q %v", l, err)
		}
	}
	fmt.Fprint(conn, "MONITOR\r\n")
	if l, err := rd.ReadString('\n'); err != nil || !strings.HasPrefix(l, "+OK") {
		conn.Close()
		return nil, fmt.Errorf("monitor: MONITOR answered %q %v", l, err)
	}
	m := &monitor{conn: conn, opt: opt, prefix: prefix, counts: map[string]int{}, ended: make(chan struct{})}
	go m.read(rd)
	return m, nil
}

func (m *monitor) read(rd *bufio.Reader) {
	end := m.prefix + "monitor-end"
	for {
		l, err := rd.ReadString('\n')
		if err != nil {
			return
		}
		if !strings.Contains(l, m.prefix) {
			continue // another client's command on a shared Redis
		}
		if strings.Contains(l, end) {
			close(m.ended)
			continue
		}
		m.mu.Lock()
		m.counts[commandOf(l)]++
		m.mu.Unlock()
	}
}

// stop waits for the commands sent so far (an end marker after them) and
// returns the counts.
func (m *monitor) stop(ctx context.Context) (map[string]int, error) {
	c := redis.NewClient(m.opt)
	defer c.Close()
	if err := c.Echo(ctx, m.prefix+"monitor-end").Err(); err != nil {
		return nil, err
	}
	select {
	case <-m.ended:
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("monitor: the end marker never came")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.counts), nil
}

func (m *monitor) close() { m.conn.Close() }

// commandOf is the command of one MONITOR line, prefixed "lua " when a
// script ran it:
// 1700000000.123456 [0 127.0.0.1:5000] "HMGET" "key" ...
// 1700000000.123457 [0 lua] "GET" "key"
func commandOf(line string) string {
	client, rest, ok := strings.Cut(line, "] \"")
	if !ok {
		return "?"
	}
	cmd, _, _ := strings.Cut(rest, "\"")
	cmd = strings.ToUpper(cmd)
	if strings.HasSuffix(client, " lua") {
		return "lua " + cmd
	}
	return cmd
}
