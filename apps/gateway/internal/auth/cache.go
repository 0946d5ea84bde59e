package auth

import (
	"crypto"
	"crypto/sha256"
	"sync"
)

// verifiedCacheSize bounds the tokens a Verifier remembers (a few hundred bytes
// each, claims included).
const verifiedCacheSize = 4096

// verifiedCache remembers tokens whose signature and claims checked out, so the
// connections presenting one token (an app's clients sharing it, or everyone
// reconnecting at once after a node failed) pay for one signature check and share
// one Claims. A hit skips only what cannot change for the same bytes: the
// signature, and only while the catalog still holds the same key for the kid. The
// clock checks and revocation run again on every use.
type verifiedCache struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]*verified
}

// verified is one remembered token. Tokens are kept by their SHA-256, not
// their text: the cache holds no credential.
type verified struct {
	claims *Claims
	kid    string
	alg    string
	key    crypto.PublicKey
	nbf    int64
	hasNbf bool
}

func newVerifiedCache() *verifiedCache {
	return &verifiedCache{entries: map[[sha256.Size]byte]*verified{}}
}

func (c *verifiedCache) get(h [sha256.Size]byte) *verified {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[h]
}

// put remembers e; when full, an arbitrary entry makes room (map order is
// random), which is as good as any policy for tokens that are all alike.
func (c *verifiedCache) put(h [sha256.Size]byte, e *verified) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= verifiedCacheSize {
		for k := range c.entries {
			delete(c.entries, k)
			break
		}
	}
	c.entries[h] = e
}

func (c *verifiedCache) drop(h [sha256.Size]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, h)
}

func (c *verifiedCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// stillSigned reports whether the catalog still holds, for the entry's kid, the
// key (and alg) its signature was checked with. A rotated or removed key sends
// the token through full verification again.
func (e *verified) stillSigned(keys KeyStore) bool {
	alg, key, ok := keys.VerificationKey(e.kid)
	if !ok || alg != e.alg {
		return false
	}
	k, ok := key.(interface{ Equal(crypto.PublicKey) bool })
	return ok && k.Equal(e.key)
}
