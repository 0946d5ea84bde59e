package main

// The soak mode of the fan-out scenario (issue 18): the clients run in resume
// mode (client.go, -resume) and, during the window, -churn of them per second
// drop their connection and resume from their last position like the SDK,
// while every client replaces its token with a freshly minted one every
// -refresh. The orchestrator samples the gateway's RSS, goroutines and open
// descriptors every 10 s and prints start against end with a least-squares
// slope per hour (a leak shows as a slope that does not flatten), checks that
// nothing was lost or repeated, and counts the gateway's log lines by level.

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"log"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

type soakSettings struct {
	churn   string // "1%": the share of clients dropped per second
	refresh time.Duration
	every   time.Duration
	frac    float64
}

func (k *soakSettings) flags() {
	flag.StringVar(&k.churn, "churn", "", `soak: share of the clients that drop their connection each second during the window and resume from their last position ("1%" or 0.01); turns on resume mode`)
	flag.DurationVar(&k.refresh, "refresh", 0, "soak: every client sends a refresh with a newly minted token this often (0: never); turns on resume mode")
	flag.DurationVar(&k.every, "soak-sample", 10*time.Second, "soak: how often the gateway's RSS, goroutines and open descriptors are sampled")
}

func (k *soakSettings) enabled() bool { return k.churn != "" || k.refresh > 0 }

// parse reads -churn; it must be below 1 (a share, not a count).
func (k *soakSettings) parse() {
	if k.churn == "" {
		return
	}
	v, pct := strings.CutSuffix(k.churn, "%")
	f, err := strconv.ParseFloat(v, 64)
	if pct {
		f /= 100
	}
	if err != nil || f < 0 || f >= 1 {
		log.Fatalf("-churn %q: want a share such as 1%% or 0.01", k.churn)
	}
	k.frac = f
}

// clientFlags are the load generators' flags of the mode; keyFile holds the
// signing key they mint refresh tokens with.
func (k *soakSettings) clientFlags(keyFile string) []string {
	f := []string{"-resume"}
	if k.frac > 0 {
		f = append(f, "-churn", strconv.FormatFloat(k.frac, 'g', -1, 64))
	}
	if k.refresh > 0 {
		f = append(f, "-refresh", k.refresh.String(), "-key-file", keyFile)
	}
	return f
}

// writeSigningKey puts the run's signing key in dir, readable by this user only.
func writeSigningKey(dir string, key *ecdsa.PrivateKey) string {
	der, err := x509.MarshalECPrivateKey(key)
	must(err)
	path := filepath.Join(dir, "bench-key.pem")
	must(os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600))
	return path
}

func readSigningKey(path string) *ecdsa.PrivateKey {
	b, err := os.ReadFile(path)
	must(err)
	blk, _ := pem.Decode(b)
	if blk == nil {
		log.Fatalf("%s: no PEM block", path)
	}
	key, err := x509.ParseECPrivateKey(blk.Bytes)
	must(err)
	return key
}

// soakSample is the gateway's state at one instant.
type soakSample struct {
	at                   time.Time
	rss, goroutines, fds float64
}

// soakSampler samples the gateway every period from the window's start.
type soakSampler struct {
	mu      sync.Mutex
	samples []soakSample
	done    chan struct{}
}

func startSoakSampler(pid int, metricsURL string, from time.Time, period time.Duration) *soakSampler {
	s := &soakSampler{done: make(chan struct{})}
	go func() {
		time.Sleep(time.Until(from))
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
			x := soakSample{at: time.Now(), rss: float64(rssKiB(pid)), goroutines: metricSum(metricsURL, "go_goroutines"), fds: float64(len(fds))}
			s.mu.Lock()
			s.samples = append(s.samples, x)
			s.mu.Unlock()
			select {
			case <-s.done:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// report stops the sampler and prints start, end, max and slope of each series.
func (s *soakSampler) report() {
	close(s.done)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.samples) < 2 {
		fmt.Println("soak samples: fewer than two")
		return
	}
	first, last := s.samples[0], s.samples[len(s.samples)-1]
	series := []struct {
		name, unit string
		get        func(soakSample) float64
	}{
		{"RSS", "KiB", func(x soakSample) float64 { return x.rss }},
		{"goroutines", "", func(x soakSample) float64 { return x.goroutines }},
		{"open fds", "", func(x soakSample) float64 { return x.fds }},
	}
	fmt.Printf("soak samples: %d over %.0f s\n", len(s.samples), last.at.Sub(first.at).Seconds())
	for _, se := range series {
		var hi float64
		for _, x := range s.samples {
			hi = max(hi, se.get(x))
		}
		fmt.Printf("  %-11s start %.0f, end %.0f, max %.0f %s; least-squares slope %+.1f %s/hour\n",
			se.name+":", se.get(first), se.get(last), hi, se.unit, slopePerHour(s.samples, se.get), se.unit)
	}
	// The series itself, at most ~60 rows: a slope alone cannot tell a heap
	// settling early from a slow leak.
	step := max(1, (len(s.samples)+59)/60)
	fmt.Printf("  series (every %d samples): seconds RSS-KiB goroutines fds\n", step)
	for i := 0; i < len(s.samples); i += step {
		x := s.samples[i]
		fmt.Printf("    %5.0f %8.0f %6.0f %6.0f\n", x.at.Sub(first.at).Seconds(), x.rss, x.goroutines, x.fds)
	}
}

// slopePerHour is the least-squares slope of y over time.
func slopePerHour(xs []soakSample, y func(soakSample) float64) float64 {
	t0 := xs[0].at
	var n, st, sy, stt, sty float64
	for _, x := range xs {
		t := x.at.Sub(t0).Hours()
		v := y(x)
		n++
		st += t
		sy += v
		stt += t * t
		sty += t * v
	}
	d := n*stt - st*st
	if d == 0 {
		return 0
	}
	return (n*sty - st*sy) / d
}

// logLevels counts a JSON log's lines by level and returns its error lines.
func logLevels(path string) (map[string]int, []string) {
	counts := map[string]int{}
	var errs []string
	f, err := os.Open(path)
	if err != nil {
		return counts, []string{err.Error()}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		var l struct {
			Level string `json:"level"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			counts["unparsed"]++
			continue
		}
		counts[l.Level]++
		if l.Level == "ERROR" {
			errs = append(errs, sc.Text())
		}
	}
	return counts, errs
}

// churnLoop closes, every second of the window, frac of the open connections
// (at least one now and then: the fraction carries over); each then resumes as
// after any other outage (run).
func (g *loadGen) churnLoop(frac float64, rng *rand.Rand) {
	var owed float64
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for range t.C {
		now := time.Now().UnixNano()
		if g.stopping.Load() || now >= g.to {
			return
		}
		if now < g.from {
			continue
		}
		owed += frac * float64(len(g.conns))
		g.mu.Lock()
		open := make([]*websocket.Conn, 0, len(g.open))
		for ws := range g.open {
			open = append(open, ws)
		}
		g.mu.Unlock()
		rng.Shuffle(len(open), func(a, b int) { open[a], open[b] = open[b], open[a] })
		for _, ws := range open {
			if owed < 1 {
				break
			}
			owed--
			g.churned.Add(1)
			_ = ws.Close()
		}
	}
}

// refreshLoop sends each subscribed connection a refresh with a new token
// every period, spread evenly over it (the tokens are minted here, like a
// client fetching a new one from its backend).
func (g *loadGen) refreshLoop(period time.Duration, key *ecdsa.PrivateKey, topic string) {
	const tick = 100 * time.Millisecond
	perTick := max(len(g.conns)*int(tick)/int(max(period, tick)), 1)
	t := time.NewTicker(tick)
	defer t.Stop()
	next, seq := 0, 0
	for range t.C {
		if g.stopping.Load() {
			return
		}
		for i := 0; i < perTick; i++ {
			c := g.conns[next]
			next = (next + 1) % len(g.conns)
			c.mu.Lock()
			ws := c.live
			c.mu.Unlock()
			if ws == nil {
				continue // between connections: its next one starts with a fresh token anyway
			}
			seq++
			tok := mintToken(key, topic, fmt.Sprintf("refresh-%d-%d", os.Getpid(), seq), time.Now().Add(time.Hour), "subscribe")
			_ = ws.SetWriteDeadline(time.Now().Add(time.Second))
			if err := ws.WriteMessage(websocket.TextMessage, []byte(`{"type":"refresh","id":"r","token":"`+tok+`"}`)); err == nil {
				g.refreshSent.Add(1)
			}
		}
	}
}

// printSoak prints the soak's checks: nothing lost or repeated over the whole
// run, every client at the last published message, churn and refreshes done,
// and the gateway's log by level.
func printSoak(s *settings, k *soakSettings, total *clientReport, counters []int64) {
	var behind int
	var missing int64
	for _, c := range total.Conns {
		if counters[c.K] > c.N {
			behind++
			missing += counters[c.K] - c.N
		}
	}
	fmt.Printf("soak (whole run): lost %d, duplicates %d, missing at the end %d messages in %d clients; gaps %d %v\n",
		total.Lost, total.Duplicates, missing, behind, total.Gaps, total.GapReasons)
	fmt.Printf("soak churn %s: %d connections closed by the clients, %d dial failures; refresh every %s: %d sent, %d acknowledged\n",
		k.churn, total.Churned, total.DialFailures, k.refresh, total.RefreshSent, total.Refreshed)
	counts, errs := logLevels(s.gatewayLogs + s.gatewayAddr + ".log")
	fmt.Printf("gateway log lines by level: %v\n", counts)
	for i, l := range errs {
		if i == 20 {
			fmt.Printf("  … %d more error lines\n", len(errs)-i)
			break
		}
		fmt.Printf("  %s\n", l)
	}
}
