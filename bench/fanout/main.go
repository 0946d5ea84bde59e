// Command fanout measures a gateway node's fan-out: N WebSocket clients, each
// subscribed to one random endpoint among K keys of one topic; every key gets one
// 512-byte message per second carrying its send time. It reports delivered
// messages/s, end-to-end latency percentiles, lost messages, the gateway's CPU per
// delivered message and resident memory per connection, and its own CPU.
//
//	fanout -clients 19000 -keys 10000 -procs 4 -kafka 127.0.0.1:9092 -gateway ./sluice-gateway
//
// The orchestrator sets up a fresh topic and catalog, starts the gateway binary,
// spreads the clients over -procs child processes (one process holds at most
// ~19,950 sockets here) and over source addresses 127.0.0.2.., publishes, and
// prints the figures. Loopback only.
package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "client" {
		clientMain(os.Args[2:])
		return
	}
	orchestrate()
}

type settings struct {
	clients, keys, procs, partitions int
	warmup, measure                  time.Duration
	kafka, gatewayBin, gatewayAddr   string
	payload                          int
	rampPerSec                       int
}

func orchestrate() {
	var s settings
	flag.IntVar(&s.clients, "clients", 1000, "WebSocket clients")
	flag.IntVar(&s.keys, "keys", 1000, "keys (endpoints) of the topic; each gets 1 msg/s")
	flag.IntVar(&s.procs, "procs", 2, "load-generator processes")
	flag.IntVar(&s.partitions, "partitions", 6, "partitions of the data topic")
	flag.DurationVar(&s.warmup, "warmup", 15*time.Second, "publishing before the measurement window")
	flag.DurationVar(&s.measure, "measure", 60*time.Second, "measurement window")
	flag.StringVar(&s.kafka, "kafka", "127.0.0.1:9092", "Kafka bootstrap broker")
	flag.StringVar(&s.gatewayBin, "gateway", "", "gateway binary to start (required)")
	flag.StringVar(&s.gatewayAddr, "gateway-addr", "127.0.0.1:18080", "address for the gateway under test")
	flag.IntVar(&s.payload, "payload", 512, "payload bytes per message")
	flag.IntVar(&s.rampPerSec, "ramp", 2000, "new connections per second (all processes)")
	flag.Parse()
	if s.gatewayBin == "" {
		log.Fatal("-gateway is required (build it: cd apps/gateway && go build -o /tmp/sluice-gateway ./cmd/gateway)")
	}

	ctx := context.Background()
	run := strconv.FormatInt(time.Now().Unix(), 36)
	topic, catalogTopic := "bench-"+run, "__sluice_catalog_bench_"+run
	kc, err := kgo.NewClient(kgo.SeedBrokers(s.kafka), kgo.ProducerLinger(time.Millisecond), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	must(err)
	defer kc.Close()
	adm := kadm.NewClient(kc)
	_, err = adm.CreateTopic(ctx, 1, 1, map[string]*string{"cleanup.policy": ptr("compact")}, catalogTopic)
	must(err)
	_, err = adm.CreateTopic(ctx, int32(s.partitions), 1, map[string]*string{"retention.ms": ptr("3600000")}, topic)
	must(err)
	defer func() { _, _ = adm.DeleteTopics(context.Background(), topic, catalogTopic) }()

	token := catalog(ctx, kc, catalogTopic, topic)

	gw := exec.Command(s.gatewayBin, "-addr", s.gatewayAddr, "-debug-addr", "127.0.0.1:18081", "-kafka-brokers", s.kafka, "-catalog-topic", catalogTopic, "-log-format", "json")
	gw.Stderr, gw.Stdout = io.Discard, io.Discard
	must(gw.Start())
	defer func() { _ = gw.Process.Signal(os.Interrupt); _ = gw.Wait() }()
	waitReady("http://" + s.gatewayAddr + "/readyz")
	idleRSS := rssKiB(gw.Process.Pid)
	fmt.Printf("gateway pid %d ready; idle RSS %d KiB\n", gw.Process.Pid, idleRSS)

	// Publisher: every key once per second, spread evenly over the second.
	stopPub := make(chan struct{})
	var sent atomic.Int64
	pubDone := make(chan struct{})
	go func() {
		defer close(pubDone)
		publish(kc, topic, s.keys, s.payload, stopPub, &sent)
	}()

	// Clients.
	start := time.Now()
	measureFrom := start.Add(time.Duration(s.clients/max(s.rampPerSec, 1))*time.Second + s.warmup)
	measureTo := measureFrom.Add(s.measure)
	var children []*exec.Cmd
	var outputs []*bufio.Reader
	per := (s.clients + s.procs - 1) / s.procs
	for i := 0; i < s.procs; i++ {
		n := min(per, s.clients-i*per)
		if n <= 0 {
			break
		}
		cmd := exec.Command(os.Args[0], "client",
			"-n", strconv.Itoa(n), "-keys", strconv.Itoa(s.keys), "-topic", topic,
			"-url", "ws://"+s.gatewayAddr+"/ws", "-token", token,
			"-src", fmt.Sprintf("127.0.0.%d", 2+i), "-seed", strconv.Itoa(i+1),
			"-ramp", strconv.Itoa(max(s.rampPerSec/s.procs, 1)),
			"-from", strconv.FormatInt(measureFrom.UnixNano(), 10), "-to", strconv.FormatInt(measureTo.UnixNano(), 10))
		out, err := cmd.StdoutPipe()
		must(err)
		cmd.Stderr = os.Stderr
		must(cmd.Start())
		children = append(children, cmd)
		outputs = append(outputs, bufio.NewReader(out))
	}

	time.Sleep(time.Until(measureFrom))
	gwCPU0, selfCPU0 := cpuTicks(gw.Process.Pid), childrenCPU(children)
	sent0 := sent.Load()
	fmt.Printf("measuring for %s (clients connected: see below)\n", s.measure)
	rssMid := int64(0)
	time.AfterFunc(s.measure/2, func() { rssMid = rssKiB(gw.Process.Pid) })
	time.Sleep(time.Until(measureTo))
	gwCPU1, selfCPU1 := cpuTicks(gw.Process.Pid), childrenCPU(children)
	sent1 := sent.Load()
	rssEnd := rssKiB(gw.Process.Pid)
	gatewayDelay := delayBuckets("http://" + s.gatewayAddr + "/metrics")
	// Let in-flight messages of the window arrive, then stop.
	time.Sleep(3 * time.Second)
	close(stopPub)
	<-pubDone

	var total clientReport
	for i, cmd := range children {
		_ = cmd.Process.Signal(os.Interrupt)
		var r clientReport
		if err := json.NewDecoder(outputs[i]).Decode(&r); err != nil {
			log.Fatalf("client %d report: %v", i, err)
		}
		_ = cmd.Wait()
		total.merge(&r)
	}

	secs := s.measure.Seconds()
	tick := float64(clockTicks())
	gwCPUSec := float64(gwCPU1-gwCPU0) / tick
	lgCPUSec := float64(selfCPU1-selfCPU0) / tick
	delivered := float64(total.Received)
	fmt.Printf("\n== fanout: %d clients (%d connected, %d subscribed), %d keys, %d-byte payload, %d processes, %s window ==\n",
		s.clients, total.Connected, total.Subscribed, s.keys, s.payload, len(children), s.measure)
	fmt.Printf("published in window:        %d msgs (%.0f msgs/s)\n", sent1-sent0, float64(sent1-sent0)/secs)
	fmt.Printf("delivered in window:        %d msgs (%.0f msgs/s)\n", total.Received, delivered/secs)
	fmt.Printf("lost (per-key sequence):    %d   gaps reported: %d   errors: %d\n", total.Lost, total.Gaps, total.Errors)
	fmt.Printf("latency ms p50 %.2f  p75 %.2f  p99 %.2f  p99.9 %.2f  max %.2f\n",
		total.percentile(0.50), total.percentile(0.75), total.percentile(0.99), total.percentile(0.999), float64(total.MaxMicros)/1000)
	fmt.Printf("gateway CPU:                %.2f s in %.0f s = %.1f%% of a core; %.2f µs per delivered message\n",
		gwCPUSec, secs, 100*gwCPUSec/secs, 1e6*gwCPUSec/math.Max(delivered, 1))
	fmt.Printf("gateway RSS:                idle %d KiB, mid %d KiB, end %d KiB; %.1f KiB per connection (end RSS / clients), %.1f KiB above idle\n",
		idleRSS, rssMid, rssEnd, float64(rssEnd)/float64(max(total.Connected, 1)), float64(rssEnd-idleRSS)/float64(max(total.Connected, 1)))
	fmt.Printf("load generator CPU:         %.2f s = %.1f%% of a core\n", lgCPUSec, 100*lgCPUSec/secs)
	fmt.Printf("gateway-side delay (record timestamp -> socket write, whole run, cumulative): %s\n", gatewayDelay)
}

// delayBuckets reads the gateway's delivery-delay histogram: the share of messages
// written within each bound tells whether a latency tail is the gateway's own.
func delayBuckets(url string) string {
	res, err := http.Get(url)
	if err != nil {
		return err.Error()
	}
	defer res.Body.Close()
	var total float64
	var parts []string
	type b struct {
		le string
		n  float64
	}
	var bs []b
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "sluice_gateway_delivery_delay_seconds_bucket{le=") {
			continue
		}
		le := line[strings.Index(line, `"`)+1 : strings.LastIndex(line, `"`)]
		n, _ := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		bs = append(bs, b{le, n})
		if le == "+Inf" {
			total = n
		}
	}
	for _, x := range bs {
		if x.le != "+Inf" && total > 0 {
			parts = append(parts, fmt.Sprintf("<=%ss %.2f%%", x.le, 100*x.n/total))
		}
	}
	return strings.Join(parts, ", ")
}

// catalog writes a signing key, an app and one parameterised endpoint, and mints
// a token for it.
func catalog(ctx context.Context, kc *kgo.Client, catalogTopic, topic string) string {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(err)
	put := func(k string, v any) {
		b, _ := json.Marshal(v)
		must(kc.ProduceSync(ctx, &kgo.Record{Topic: catalogTopic, Key: []byte(k), Value: b}).FirstErr())
	}
	// The uncompressed point: 0x04, then X and Y, 32 bytes each.
	point, err := key.PublicKey.Bytes()
	must(err)
	put("key/bench", map[string]any{"v": 1, "kid": "bench", "alg": "ES256", "status": "active", "jwk": map[string]any{
		"kty": "EC", "crv": "P-256",
		"x": base64.RawURLEncoding.EncodeToString(point[1:33]),
		"y": base64.RawURLEncoding.EncodeToString(point[33:]),
	}})
	put("app/bench", map[string]any{"v": 1, "id": "bench", "name": "bench", "tokens_not_before": nil})
	put("endpoint/bench", map[string]any{"v": 1, "id": "bench", "path": "/" + topic + "/{k}", "topic": topic, "key": nil, "key_param": "k",
		"operations": []string{"subscribe"}, "payload_format": "json", "json_schema": nil, "api": map[string]any{"id": "bench", "name": "bench", "version": "1"}})
	now := time.Now()
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"iss": "sluice", "aud": "sluice-gateway", "sub": "bench", "jti": "bench-" + topic,
		"iat": now.Unix(), "exp": now.Add(6 * time.Hour).Unix(), "permissions": map[string]any{"sub": []string{"/" + topic + "/*"}}})
	tok.Header["kid"] = "bench"
	s, err := tok.SignedString(key)
	must(err)
	return s
}

func publish(kc *kgo.Client, topic string, keys, size int, stop <-chan struct{}, sent *atomic.Int64) {
	counters := make([]int64, keys)
	pad := strings.Repeat("x", max(size-80, 0))
	const slots = 100 // 10 ms slots: each key once per second
	t := time.NewTicker(time.Second / slots)
	defer t.Stop()
	slot := 0
	for {
		select {
		case <-stop:
			_ = kc.Flush(context.Background())
			return
		case <-t.C:
		}
		for k := slot; k < keys; k += slots {
			counters[k]++
			v := fmt.Sprintf(`{"k":%d,"n":%d,"t":%d,"p":"%s"}`, k, counters[k], time.Now().UnixNano(), pad)
			kc.Produce(context.Background(), &kgo.Record{Topic: topic, Key: []byte("k" + strconv.Itoa(k)), Value: []byte(v)}, func(_ *kgo.Record, err error) {
				if err != nil {
					log.Printf("produce: %v", err)
				}
			})
			sent.Add(1)
		}
		slot = (slot + 1) % slots
	}
}

func waitReady(url string) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if res, err := http.Get(url); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	log.Fatal("gateway not ready")
}

// cpuTicks is utime+stime of a process in clock ticks.
func cpuTicks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	must(err)
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return u + st
}

func childrenCPU(cmds []*exec.Cmd) int64 {
	var t int64
	for _, c := range cmds {
		t += cpuTicks(c.Process.Pid)
	}
	return t
}

func clockTicks() int64 { return 100 } // USER_HZ on Linux

func rssKiB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	must(err)
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			n, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return n
		}
	}
	return 0
}

func ptr(s string) *string { return &s }

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

// clientReport is what a client process prints as JSON when it stops.
type clientReport struct {
	Connected, Subscribed int
	Received, Lost, Gaps  int64
	Errors                int64
	MaxMicros             int64
	Buckets               []int64 // latency histogram, see bucketOf
}

func (r *clientReport) merge(o *clientReport) {
	r.Connected += o.Connected
	r.Subscribed += o.Subscribed
	r.Received += o.Received
	r.Lost += o.Lost
	r.Gaps += o.Gaps
	r.Errors += o.Errors
	r.MaxMicros = max(r.MaxMicros, o.MaxMicros)
	if r.Buckets == nil {
		r.Buckets = make([]int64, len(o.Buckets))
	}
	for i, v := range o.Buckets {
		r.Buckets[i] += v
	}
}

// Latency buckets: 10 µs wide up to 100 ms, then 1 ms wide up to 10 s.
const fineBuckets, coarseBuckets = 10000, 9900

func bucketOf(micros int64) int {
	if micros < 100000 {
		return int(max(micros, 0) / 10)
	}
	return min(fineBuckets+int((micros-100000)/1000), fineBuckets+coarseBuckets-1)
}

func bucketUpperMillis(i int) float64 {
	if i < fineBuckets {
		return float64(i+1) * 0.01
	}
	return 100 + float64(i-fineBuckets+1)
}

func (r *clientReport) percentile(q float64) float64 {
	var total int64
	for _, v := range r.Buckets {
		total += v
	}
	if total == 0 {
		return math.NaN()
	}
	want := int64(math.Ceil(q * float64(total)))
	var seen int64
	for i, v := range r.Buckets {
		seen += v
		if seen >= want {
			return bucketUpperMillis(i)
		}
	}
	return math.NaN()
}
