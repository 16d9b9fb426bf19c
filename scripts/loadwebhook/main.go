// Command loadwebhook measures the AI-bot webhook of a real `wecodex serve`
// on loopback with a real Redis: how long a message callback takes (verify,
// decrypt, dedupe, enqueue, reply) and how long a stream refresh takes
// (answered from Redis), as p50/p99 over a bounded number of requests. It
// starts the server itself, stops by itself, and removes its Redis keys.
//
// The agent is never started: before the run, every conversation's lease is
// taken by a phantom replica, so each message is deduped, enqueued behind
// it and answered with its queue position, which is the webhook's longest
// path (one more Redis write than a message that starts at once) and keeps
// Codex from competing with the server for the CPU.
//
// Run it with `make load`, or:
//
//	scripts/with-redis.sh go run ./scripts/loadwebhook -bin bin/wecodex
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/store"
)

const (
	token  = "loadWebhookToken"
	aesKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
	botID  = "aibot-load"

	callbackTarget = 10 * time.Millisecond
	refreshTarget  = 5 * time.Millisecond
)

func main() {
	bin := flag.String("bin", "bin/wecodex", "the wecodex binary to serve with")
	n := flag.Int("n", 2000, "message callbacks to send (and as many refreshes)")
	conc := flag.Int("c", 2, "concurrent senders (default: as many as the 2-core dev machine has cores)")
	warmup := flag.Int("warmup", 200, "requests sent first and not measured")
	limit := flag.Duration("timeout", 3*time.Minute, "give up after this long")
	flag.IntVar(&stormRepeats, "storm", 1000, "deliveries of one msgid in the retry storm (0: no storm)")
	flag.IntVar(&stormSenders, "storm-senders", 8, "concurrent senders of the retry storm")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *limit)
	defer cancel()
	if err := run(ctx, *bin, *n, *conc, *warmup); err != nil {
		fmt.Fprintln(os.Stderr, "loadwebhook:", err)
		os.Exit(1)
	}
}

// The retry storm's size (flags).
var stormRepeats, stormSenders int

const (
	stormUser      = "load-storm-user"
	phantomReplica = "load-phantom-replica"
)

func run(ctx context.Context, bin string, n, conc, warmup int) error {
	redisURL := os.Getenv("REDIS_URL")
	if redisURL == "" {
		redisURL = "redis://127.0.0.1:6379"
	}
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		return fmt.Errorf("REDIS_URL %q: %w", redisURL, err)
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	prefix := "wecodex-load:" + hex.EncodeToString(rnd[:]) + ":"
	st, err := store.Open(ctx, store.Options{Addrs: []string{opt.Addr}, Password: opt.Password, DB: opt.DB, Prefix: prefix},
		slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Ping(ctx); err != nil {
		return fmt.Errorf("no Redis at %s: %w", redisURL, err)
	}
	defer cleanup(opt, prefix)

	total := warmup + n
	users := make([]string, total)
	for i := range users {
		users[i] = fmt.Sprintf("load-user-%05d", i)
	}
	if err := holdLeases(ctx, store.NewQueue(st), append(slices.Clone(users), stormUser)); err != nil {
		return err
	}
	// The phantom's heartbeat stays current, or the server would take its
	// conversations over as a dead replica's.
	if err := store.NewReplicas(st).Heartbeat(ctx, phantomReplica, 10*time.Minute); err != nil {
		return err
	}

	tmp, err := os.MkdirTemp("", "wecodex-load")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	srv, err := startServe(ctx, bin, tmp, opt, prefix)
	if err != nil {
		return err
	}
	defer srv.stop()

	crypter, err := wecom.NewCrypter(token, aesKey, wecom.AIBotReceiveID)
	if err != nil {
		return err
	}
	endpoint := srv.base + "/wecom/aibot"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc}}

	// Bodies are encrypted and signed before the clock starts: only the
	// server's work and the loopback round trip are measured.
	msgs := make([]request, total)
	for i, u := range users {
		cb := fmt.Sprintf(`{"msgid":"load-%s-%d","aibotid":%q,"chattype":"single","from":{"userid":%q},"msgtype":"text","text":{"content":"load test message %d"}}`,
			prefix, i, botID, u, i)
		if msgs[i], err = seal(crypter, endpoint, cb); err != nil {
			return err
		}
	}
	fmt.Printf("wecodex webhook load: %d message callbacks then %d stream refreshes (+%d warm-up each), %d concurrent senders, loopback, real Redis at %s\n",
		n, n, warmup, conc, opt.Addr)
	fmt.Println("agent: never started; every conversation's lease is held by a phantom replica, so each message is deduped, enqueued and answered with its queue position")
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		// Tail latencies follow the machine's load; say what it was.
		fmt.Printf("load average before the run: %s", b)
	}

	frames := make([]wecom.StreamFrame, total)
	cbLat, err := drive(ctx, client, crypter, msgs, conc, func(i int, f wecom.StreamFrame) error {
		if want := "⏳ Queued (position 1) — waiting for the running turn to finish."; f.Content != want || f.Finish {
			return fmt.Errorf("callback %d answered %+v, want the queue position", i, f)
		}
		frames[i] = f
		return nil
	})
	if err != nil {
		return err
	}
	refreshes := make([]request, total)
	for i, f := range frames {
		cb := fmt.Sprintf(`{"msgid":"load-refresh-%d","aibotid":%q,"chattype":"single","from":{"userid":%q},"msgtype":"stream","stream":{"id":%q}}`,
			i, botID, users[i], f.ID)
		if refreshes[i], err = seal(crypter, endpoint, cb); err != nil {
			return err
		}
	}
	rfLat, err := drive(ctx, client, crypter, refreshes, conc, func(i int, f wecom.StreamFrame) error {
		if f != frames[i] {
			return fmt.Errorf("refresh %d answered %+v, want %+v", i, f, frames[i])
		}
		return nil
	})
	if err != nil {
		return err
	}
	ok1 := report("callbacks (verify, decrypt, dedupe, enqueue, reply)", cbLat[warmup:], callbackTarget)
	ok2 := report("refreshes (verify, decrypt, newest frame from Redis, reply)", rfLat[warmup:], refreshTarget)
	ok3 := true
	if stormRepeats > 0 {
		sc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: stormSenders}}
		s := storm{st: st, opt: opt, prefix: prefix, crypter: crypter, endpoint: endpoint, client: sc}
		if ok3, err = s.run(ctx, stormUser, stormRepeats, stormSenders); err != nil {
			return err
		}
	}
	if !ok1 || !ok2 || !ok3 {
		return errors.New("a p99 target was missed")
	}
	return nil
}

// holdLeases makes a phantom replica hold every user's conversation lease,
// so the server enqueues each message and never starts a turn.
func holdLeases(ctx context.Context, st *store.Queue, users []string) error {
	for _, u := range users {
		c := "single:" + u // a 1:1 chat's conversation key (bot.Conversation.Key)
		if _, _, err := st.Enqueue(ctx, c, []byte(`{}`), 5); err != nil {
			return fmt.Errorf("prepare %s: %w", c, err)
		}
		tok, _, _, _, err := st.TakeTurn(ctx, c, phantomReplica, 10*time.Minute)
		if err != nil || tok == 0 {
			return fmt.Errorf("hold the lease of %s: token %d, %v", c, tok, err)
		}
	}
	return nil
}

// cleanup deletes every key under prefix, with a client of its own: the
// store lends its client to no one.
func cleanup(opt *redis.Options, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := redis.NewClient(opt)
	defer c.Close()
	iter := c.Scan(ctx, 0, prefix+"*", 500).Iterator()
	for iter.Next(ctx) {
		c.Del(ctx, iter.Val())
	}
}

// request is one sealed callback, ready to POST.
type request struct {
	url  string
	body []byte
}

func seal(c *wecom.Crypter, endpoint, callback string) (request, error) {
	enc, err := c.Encrypt([]byte(callback))
	if err != nil {
		return request{}, err
	}
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	nonce := wecom.NewNonce()
	q := wecom.Query{Signature: c.Signature(ts, nonce, enc), Timestamp: ts, Nonce: nonce}
	body, _ := json.Marshal(map[string]string{"encrypt": enc})
	return request{url: endpoint + "?" + q.Values().Encode(), body: body}, nil
}

// drive POSTs every request from conc goroutines and returns each one's
// latency (indexed like reqs). Each answer is decrypted and checked after
// its latency is taken.
func drive(ctx context.Context, client *http.Client, c *wecom.Crypter, reqs []request, conc int, check func(int, wecom.StreamFrame) error) ([]time.Duration, error) {
	lat := make([]time.Duration, len(reqs))
	next := make(chan int)
	errs := make(chan error, conc)
	var wg sync.WaitGroup
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				start := time.Now()
				status, body, err := post(ctx, client, reqs[i])
				lat[i] = time.Since(start)
				if err == nil && status != http.StatusOK {
					err = fmt.Errorf("HTTP %d: %s", status, body)
				}
				var f wecom.StreamFrame
				if err == nil {
					f, err = open(c, body)
				}
				if err == nil {
					err = check(i, f)
				}
				if err != nil {
					errs <- fmt.Errorf("request %d: %w", i, err)
					return
				}
			}
		}()
	}
	var err error
feed:
	for i := range reqs {
		select {
		case next <- i:
		case err = <-errs:
			break feed
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	return lat, err
}

func post(ctx context.Context, client *http.Client, r request) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(r.body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func open(c *wecom.Crypter, body []byte) (wecom.StreamFrame, error) {
	pt, err := c.OpenReply(body)
	if err != nil {
		return wecom.StreamFrame{}, err
	}
	r, err := wecom.ParseReply(pt)
	if err != nil {
		return wecom.StreamFrame{}, err
	}
	if r.Stream == nil {
		return wecom.StreamFrame{}, fmt.Errorf("reply is %s, not a stream", r.MsgType)
	}
	return *r.Stream, nil
}

func report(what string, lat []time.Duration, target time.Duration) bool {
	s := slices.Clone(lat)
	slices.Sort(s)
	pct := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	p99 := pct(0.99)
	verdict := "PASS"
	if p99 >= target {
		verdict = "MISS"
	}
	fmt.Printf("%-60s n=%d p50=%s p90=%s p99=%s max=%s  target p99 < %s: %s\n",
		what, len(s), ms(pct(0.50)), ms(pct(0.90)), ms(p99), ms(s[len(s)-1]), target, verdict)
	return p99 < target
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }

// serveProc is the `wecodex serve` under load.
type serveProc struct {
	cmd  *exec.Cmd
	base string
	done chan struct{}
}

func startServe(ctx context.Context, bin, dir string, opt *redis.Options, prefix string) (*serveProc, error) {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("%s: %w (run `make build`)", bin, err)
	}
	cfg := fmt.Sprintf(`server:
  addr: 127.0.0.1:0
log:
  format: json
redis:
  addr: %q
  password: %q
  db: %d
  prefix: %q
wecom:
  aibot:
    token: %s
    encoding_aes_key: %s
agent:
  kind: codex
  codex:
    bin: %q
  workspace_root: %q
access:
  allow_users: ["*"]
`, opt.Addr, opt.Password, opt.DB, prefix, token, aesKey, filepath.Join(dir, "codex-never-started"), filepath.Join(dir, "workspaces"))
	cfgPath := filepath.Join(dir, "wecodex.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, abs, "serve", "--config", cfgPath)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !bytes.HasPrefix([]byte(kv), []byte("WECODEX_")) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &serveProc{cmd: cmd, done: make(chan struct{})}
	listening := make(chan string, 1)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			// The server logs a line per message, as in production; only
			// its warnings and errors are worth showing here.
			var rec map[string]any
			if json.Unmarshal(sc.Bytes(), &rec) != nil {
				fmt.Fprintln(os.Stderr, "serve:", sc.Text())
				continue
			}
			if rec["msg"] == "listening" {
				listening <- rec["addr"].(string)
			}
			if rec["level"] == "WARN" || rec["level"] == "ERROR" {
				fmt.Fprintln(os.Stderr, "serve:", sc.Text())
			}
		}
		close(listening)
	}()
	select {
	case addr, ok := <-listening:
		if !ok {
			_ = cmd.Wait()
			return nil, errors.New("wecodex serve exited before listening")
		}
		p.base = "http://" + addr
		return p, nil
	case <-ctx.Done():
		p.stop()
		return nil, ctx.Err()
	}
}

func (p *serveProc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	<-p.done
	_ = p.cmd.Wait()
}
