package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/serveproc"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// cluster is the replicas, the balancer in front of them, the scripted
// model they share and WeCom's side.
type cluster struct {
	o     options
	dir   string
	model *sm.Server
	codex serveproc.Codex
	cfg   serveproc.Config
	lb    *httptest.Server
	urls  *wecomtest.ResponseURLServer
	sim   *wecomtest.Sim

	mu       sync.Mutex
	replicas []*serveproc.Proc // by slot; nil while a slot restarts
	started  int               // processes started, for their names
	// seen is each conversation's message tokens in the order the model
	// first saw them: the order their turns ran.
	seen map[int][]int
}

var tokenRE = regexp.MustCompile(`msg-(\d+)-(\d+)`)

func newCluster(ctx context.Context, o options) (*cluster, error) {
	dir, err := os.MkdirTemp("", "wecodex-loadcluster-")
	if err != nil {
		return nil, err
	}
	c := &cluster{o: o, dir: dir, seen: map[int][]int{}}
	c.model = sm.New(sm.ScriptFunc(c.answer))
	url, err := c.model.Start()
	if err != nil {
		return nil, fmt.Errorf("start scripted model: %w", err)
	}
	if c.codex, err = serveproc.NewCodex(dir, url); err != nil {
		return nil, err
	}
	c.cfg = serveproc.Config{
		RedisAddrs: o.cluster, Prefix: "wecodex-loadcluster:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":",
		Codex: o.codex, Workspace: filepath.Join(dir, "workspaces"), DrainTimeout: o.drainTimeout,
	}
	c.replicas = make([]*serveproc.Proc, 3)
	for i := range c.replicas {
		if err := c.startReplica(ctx, i); err != nil {
			c.close()
			return nil, err
		}
	}
	c.lb = httptest.NewServer(http.HandlerFunc(c.balance))
	if c.urls, err = wecomtest.NewResponseURLServer(nil); err != nil {
		c.close()
		return nil, err
	}
	c.sim, err = wecomtest.New(wecomtest.Config{URL: c.lb.URL + "/wecom/aibot", Token: serveproc.Token,
		EncodingAESKey: serveproc.AESKey, AIBotID: serveproc.BotID, ResponseURLs: c.urls,
		TimeoutRetries: wecomtest.TimeoutRetries})
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// answer is the scripted model: each message's answer names it, and the
// first request for each message records the order its turn ran in.
func (c *cluster) answer(req *sm.Request) (sm.Response, error) {
	m := tokenRE.FindStringSubmatch(req.UserText)
	if m == nil {
		return sm.Response{}, fmt.Errorf("no message token in the prompt %.200q", req.UserText)
	}
	conv, _ := strconv.Atoi(m[1])
	k, _ := strconv.Atoi(m[2])
	c.mu.Lock()
	first := true
	for _, s := range c.seen[conv] {
		first = first && s != k
	}
	if first {
		c.seen[conv] = append(c.seen[conv], k)
	}
	c.mu.Unlock()
	deltas := []string{answerHead(m[0])}
	for w := 0; w < c.o.words; w++ {
		deltas = append(deltas, fmt.Sprintf(" w%02d", w))
	}
	return sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, deltas...)).WithDelay(c.o.wordDelay), nil
}

func (c *cluster) startReplica(ctx context.Context, slot int) error {
	c.mu.Lock()
	c.started++
	name := fmt.Sprintf("replica %d (process %d)", slot+1, c.started)
	c.mu.Unlock()
	p, err := serveproc.Start(ctx, name, c.o.bin, filepath.Join(c.dir, fmt.Sprintf("r%d-%d", slot, c.started)), c.cfg, c.codex.Env())
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.replicas[slot] = p
	c.mu.Unlock()
	return nil
}

// live are the replicas taking requests now.
func (c *cluster) live() []*serveproc.Proc {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*serveproc.Proc
	for _, p := range c.replicas {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

var next atomic.Uint64

// balance forwards a request to the replicas in turn, trying the next when
// one does not answer (it is gone), as a load balancer with health checks
// does between its checks.
func (c *cluster) balance(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	live := c.live()
	start := int(next.Add(1))
	for i := range live {
		p := live[(start+i)%len(live)]
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, p.Base+r.URL.RequestURI(), bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			continue // refused or reset: the replica is gone
		}
		if resp.StatusCode == http.StatusServiceUnavailable {
			resp.Body.Close()
			continue // draining
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
		resp.Body.Close()
		return
	}
	http.Error(w, "no replica answered", http.StatusBadGateway)
}

func (c *cluster) close() {
	for _, p := range c.live() {
		_ = p.Stop(time.Minute)
	}
	if c.lb != nil {
		c.lb.Close()
	}
	if c.urls != nil {
		_ = c.urls.Close()
	}
	if c.model != nil {
		c.model.Close()
	}
	os.RemoveAll(c.dir)
}
