package app

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/silenceper/wechat/v2/cache"
)

// TokenStore keeps the app's access token where every replica finds it;
// *store.App implements it.
type TokenStore interface {
	CachedValue(ctx context.Context, name string) (string, bool, error)
	// CacheValue stores the value and ends the fill claim on name.
	CacheValue(ctx context.Context, name, value string, ttl time.Duration) error
	// DropCachedValue deletes the value only while it is still value ("":
	// any).
	DropCachedValue(ctx context.Context, name, value string) (bool, error)
	ClaimCacheFill(ctx context.Context, name, owner string, ttl time.Duration) (bool, error)
	ReleaseCacheFill(ctx context.Context, name, owner string) error
}

// Bounds of the shared token fetch: a replica that finds another fetching
// waits at most fillTimeout for that token (then fetches its own), looking
// every fillPoll.
const (
	fillTimeout  = 10 * time.Second
	fillPoll     = 50 * time.Millisecond
	cacheTimeout = 3 * time.Second
)

// tokenCache is the cache.Cache silenceper/wechat keeps the access token in,
// over the shared store. silenceper fetches a token when Get returns nil and
// then Sets it (TTL expires_in − 1500 s: refreshed early); its lock is per
// process, so Get makes the fetch one per deployment: a replica that misses
// claims the fill and fetches, the others wait for its value.
type tokenCache struct {
	store TokenStore
	owner string
	log   *slog.Logger
	// waiting, when set, is called each time Get waits on another
	// replica's fetch (tests).
	waiting func()

	mu   sync.Mutex
	name string // the key silenceper uses, learnt from its first Get
}

var _ cache.Cache = (*tokenCache)(nil)

// Get returns the cached token (a string, as silenceper asserts), or nil
// when this replica should fetch it.
func (c *tokenCache) Get(key string) any {
	c.mu.Lock()
	c.name = key
	c.mu.Unlock()
	deadline := time.Now().Add(fillTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), cacheTimeout)
		v, ok, err := c.store.CachedValue(ctx, key)
		if err == nil && !ok {
			var claimed bool
			claimed, err = c.store.ClaimCacheFill(ctx, key, c.owner, fillTimeout)
			ok = !claimed
			if claimed {
				cancel()
				return nil
			}
		}
		cancel()
		switch {
		case err != nil:
			// Without the store each replica fetches its own token,
			// which WeCom allows; nothing is lost.
			c.log.Warn("access token cache unavailable; fetching a token without it", "err", err)
			return nil
		case ok && v != "":
			return v
		case time.Now().After(deadline):
			c.log.Warn("another replica's access token fetch took too long; fetching one here", "waited", fillTimeout.String())
			return nil
		}
		if c.waiting != nil {
			c.waiting()
		}
		time.Sleep(fillPoll)
	}
}

// Set stores the token silenceper fetched, which also lets the waiting
// replicas go on.
func (c *tokenCache) Set(key string, val any, timeout time.Duration) error {
	s, _ := val.(string)
	ctx, cancel := context.WithTimeout(context.Background(), cacheTimeout)
	defer cancel()
	return c.store.CacheValue(ctx, key, s, timeout)
}

// IsExist reports whether a token is cached.
func (c *tokenCache) IsExist(key string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), cacheTimeout)
	defer cancel()
	_, ok, err := c.store.CachedValue(ctx, key)
	return err == nil && ok
}

// Delete drops the cached token.
func (c *tokenCache) Delete(key string) error {
	ctx, cancel := context.WithTimeout(context.Background(), cacheTimeout)
	defer cancel()
	_, err := c.store.DropCachedValue(ctx, key, "")
	return err
}

// refused drops token, which WeCom refused (40014/42001), unless another
// replica has replaced it already.
func (c *tokenCache) refused(ctx context.Context, token string) error {
	c.mu.Lock()
	name := c.name
	c.mu.Unlock()
	if name == "" {
		return nil
	}
	_, err := c.store.DropCachedValue(ctx, name, token)
	return err
}

// fetchFailed frees this replica's fill claim after a fetch that failed, so
// the others need not wait out its bound.
func (c *tokenCache) fetchFailed(ctx context.Context) {
	c.mu.Lock()
	name := c.name
	c.mu.Unlock()
	if name == "" {
		return
	}
	if err := c.store.ReleaseCacheFill(ctx, name, c.owner); err != nil {
		c.log.Warn("release the access token fetch", "err", err)
	}
}
