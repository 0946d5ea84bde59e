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
//
// With -server floor the gateway is replaced by `fanout floor-server` (floor.go),
// which generates the messages itself and writes each frame to each socket with
// one write(2): the cost floor of the scenario. In gateway mode a plain Kafka
// consumer (probe.go) measures Kafka's share of the latency.
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
	"maps"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "client":
			clientMain(os.Args[2:])
			return
		case "floor-server":
			floorMain(os.Args[2:])
			return
		case "publish":
			publishMain(os.Args[2:])
			return
		case "publisher":
			publisherMain(os.Args[2:])
			return
		case "chaos":
			chaosMain(os.Args[2:])
			return
		case "hostile":
			hostileMain(os.Args[2:])
			return
		}
	}
	orchestrate()
}

type settings struct {
	clients, keys, procs, partitions int
	warmup, measure                  time.Duration
	server                           string
	kafka, gatewayBin, gatewayAddr   string
	floorStamp                       string
	clientGOGC                       int
	debugAddr, gatewayLogs           string
	payload                          int
	// keyPeriod is how often each key gets a message (1s: the fan-out
	// scenario; longer to keep many clients below the machine's capacity).
	keyPeriod        time.Duration
	rampPerSec       int
	probe            bool
	format, registry string
	// metering is the gateway's usage metering: on (into a topic of the
	// run's own, usageTopic), off, or "" (no flag: a build from before it).
	metering, usageTopic string
	// tls: the gateway serves wss:// (tls.go); certFile, keyFile and caFile
	// are the run's certificate, made by orchestrate.
	tls                       bool
	certFile, keyFile, caFile string
	// gatewayExtra are more flags for every gateway started.
	gatewayExtra []string
	failover     failoverSettings
}

func orchestrate() {
	s := &settings{}
	flag.IntVar(&s.clients, "clients", 1000, "WebSocket clients")
	flag.IntVar(&s.keys, "keys", 1000, "keys (endpoints) of the topic; each gets 1 msg/s")
	flag.IntVar(&s.procs, "procs", 2, "load-generator processes")
	flag.IntVar(&s.partitions, "partitions", 6, "partitions of the data topic")
	flag.DurationVar(&s.warmup, "warmup", 15*time.Second, "publishing before the measurement window")
	flag.DurationVar(&s.measure, "measure", 60*time.Second, "measurement window")
	flag.StringVar(&s.server, "server", "gateway", "server under test: gateway (the binary given by -gateway, fed by Kafka) or floor (fanout floor-server: generates the messages itself, one write(2) per message per socket)")
	flag.StringVar(&s.floorStamp, "floor-stamp", "write", "with -server floor: a message's send time is just before its writes (write) or its 10 ms slot's start (slot: the wait behind the slot's earlier writes counts, as behind a fetch's earlier records in the gateway)")
	flag.StringVar(&s.kafka, "kafka", "127.0.0.1:9092", "Kafka bootstrap broker")
	flag.StringVar(&s.gatewayBin, "gateway", "", "gateway binary to start (required with -server gateway)")
	flag.StringVar(&s.gatewayAddr, "gateway-addr", "127.0.0.1:18080", "address for the server under test")
	flag.StringVar(&s.debugAddr, "debug-addr", "127.0.0.1:18081", "the gateway's -debug-addr (pprof)")
	flag.IntVar(&s.payload, "payload", 512, "payload bytes per message")
	flag.DurationVar(&s.keyPeriod, "key-period", time.Second, "each key gets one message per this period (10ms steps)")
	flag.IntVar(&s.rampPerSec, "ramp", 2000, "new connections per second (all processes)")
	flag.StringVar(&s.gatewayLogs, "gateway-logs", "", "write each gateway's log to <this prefix><listen address>.log (default: discarded)")
	flag.StringVar(&s.format, "format", "json", "gateway mode: the topic's payload: json, or avro (schema-registry wire format, decoded by the gateway; needs -registry)")
	flag.StringVar(&s.registry, "registry", os.Getenv("SCHEMA_REGISTRY_URL"), "with -format avro: the schema registry's Confluent-compatible API (default $SCHEMA_REGISTRY_URL); the gateway gets it too")
	flag.StringVar(&s.metering, "metering", "on", `gateway mode: usage metering on (a usage record every 5 s into a topic of the run's own), off (-usage-interval 0), or "" (pass no flag: a gateway built before metering)`)
	flag.BoolVar(&s.tls, "tls", false, "gateway mode: the gateway serves TLS itself (a throw-away CA and certificate for 127.0.0.1) and clients connect with wss://")
	flag.BoolVar(&s.probe, "probe", true, "with -server gateway: also measure Kafka-only latency with a plain consumer of the data topic")
	flag.IntVar(&s.clientGOGC, "client-gogc", 0, "the Go collector target of the measuring side only (load generators, publisher, probe); 0 leaves Go's default. The server under test keeps its own")
	s.failover.flags()
	hostile := &hostileSettings{}
	hostile.flags()
	soak := &soakSettings{}
	soak.flags()
	flag.Parse()
	soak.parse()
	if s.clientGOGC > 0 {
		// The measuring side's own collections show up in its latency
		// figures (the probe's too); this keeps them out of the way without
		// touching the server's setting (its process does not inherit it).
		debug.SetGCPercent(s.clientGOGC)
	}
	if s.failover.enabled() {
		if s.server != "gateway" || s.gatewayBin == "" {
			log.Fatal("-failover needs -server gateway and -gateway")
		}
		orchestrateFailover(s)
		return
	}
	floorMode := false
	switch s.server {
	case "gateway":
		if s.gatewayBin == "" {
			log.Fatal("-gateway is required (build it: cd apps/gateway && go build -o /tmp/sluice-gateway ./cmd/gateway)")
		}
	case "floor":
		floorMode = true
		if s.keyPeriod != time.Second {
			log.Fatal("-key-period: the floor server sends one message per key per second; leave it at 1s")
		}
	default:
		log.Fatalf("-server %q: want gateway or floor", s.server)
	}
	if (hostile.on || soak.enabled()) && floorMode {
		log.Fatal("-hostile, -churn and -refresh need -server gateway")
	}
	if hostile.on {
		hostile.check(s)
	}
	if soak.enabled() && s.gatewayLogs == "" {
		dir, err := os.MkdirTemp("", "fanout-soak-")
		must(err)
		defer os.RemoveAll(dir)
		s.gatewayLogs = dir + "/gateway-" // its levels are counted at the end
	}
	serverName := map[bool]string{false: "gateway", true: "floor server"}[floorMode]

	ctx := context.Background()
	run := strconv.FormatInt(time.Now().Unix(), 36)
	topic, catalogTopic := "bench-"+run, "__sluice_catalog_bench_"+run

	// The server under test, and how many messages have been published (gateway:
	// produced to Kafka; floor: generated by the floor server).
	var srv *exec.Cmd
	var published func() int64
	var kc *kgo.Client
	var enc payloadEncoding
	var signingKey *ecdsa.PrivateKey // the soak mode's clients mint refresh tokens with it
	token := "floor"                 // the floor server does not check it
	scheme := "http"
	if floorMode {
		srv = exec.Command(os.Args[0], "floor-server", "-addr", s.gatewayAddr, "-keys", strconv.Itoa(s.keys), "-payload", strconv.Itoa(s.payload), "-stamp", s.floorStamp)
		srv.Stdout, srv.Stderr = io.Discard, os.Stderr // its short-write count at exit
		statsURL := "http://" + s.gatewayAddr + "/stats"
		published = func() int64 { return floorStatsAt(statsURL).generated }
	} else {
		var err error
		kc, err = newKafkaClient(s.kafka, kgo.ProducerLinger(0), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
		must(err)
		defer kc.Close()
		adm := kadm.NewClient(kc)
		_, err = adm.CreateTopic(ctx, 1, 1, map[string]*string{"cleanup.policy": ptr("compact")}, catalogTopic)
		must(err)
		_, err = adm.CreateTopic(ctx, int32(s.partitions), 1, map[string]*string{"retention.ms": ptr("3600000")}, topic)
		must(err)
		defer func() { _, _ = adm.DeleteTopics(context.Background(), runTopics(s, topic, catalogTopic)...) }()
		prepareMetering(ctx, s, adm, run, 1)
		enc = jsonEncoding
		if s.format == "avro" {
			if s.registry == "" {
				log.Fatal("-format avro needs -registry (or SCHEMA_REGISTRY_URL)")
			}
			enc, err = registerAvro(s.registry, topic)
			must(err)
		} else if s.format != "json" {
			log.Fatalf("-format %q: want json or avro", s.format)
		}
		signingKey, token = catalogWithKey(ctx, kc, catalogTopic, topic, enc, "subscribe")
		if s.tls {
			dir, err := os.MkdirTemp("", "fanout-tls-")
			must(err)
			defer os.RemoveAll(dir)
			s.certFile, s.keyFile, s.caFile, err = makeServingCertificate(dir)
			must(err)
			must(trustForOrchestrator(s.caFile))
			scheme = "https"
		}
		srv = gatewayCmd(s, s.gatewayAddr, s.debugAddr, catalogTopic)
	}
	must(srv.Start())
	defer func() { _ = srv.Process.Signal(os.Interrupt); _ = srv.Wait() }()
	waitReady(scheme + "://" + s.gatewayAddr + "/readyz")
	idleRSS := rssKiB(srv.Process.Pid)
	fmt.Printf("%s pid %d ready; idle RSS %d KiB\n", serverName, srv.Process.Pid, idleRSS)

	// Publisher (gateway mode only): every key once per second, spread evenly over
	// the second. The floor server generates the same schedule itself.
	stopPub := make(chan struct{})
	pubDone := make(chan struct{})
	counters := make([]int64, s.keys) // the last "n" published per key
	if floorMode {
		close(pubDone)
	} else {
		var sent atomic.Int64
		published = sent.Load
		go func() {
			defer close(pubDone)
			publish(kc, topic, counters, s.payload, s.keyPeriod, enc, stopPub, &sent)
		}()
	}

	// Clients.
	start := time.Now()
	measureFrom := start.Add(time.Duration(s.clients/max(s.rampPerSec, 1))*time.Second + s.warmup)
	measureTo := measureFrom.Add(s.measure)
	var probe *kafkaProbe
	if s.probe && !floorMode {
		probe = startKafkaProbe(ctx, s.kafka, topic, s.partitions, measureFrom, measureTo, enc, 0)
	}
	wsScheme := map[string]string{"http": "ws", "https": "wss"}[scheme]
	var clientExtra []string
	var sampler *soakSampler
	metricsURL := scheme + "://" + s.gatewayAddr + "/metrics"
	if soak.enabled() {
		dir, err := os.MkdirTemp("", "fanout-key-")
		must(err)
		defer os.RemoveAll(dir)
		clientExtra = soak.clientFlags(writeSigningKey(dir, signingKey))
		sampler = startSoakSampler(srv.Process.Pid, metricsURL, measureFrom, soak.every)
	}
	children, outputs := startClients(s, topic, token, wsScheme+"://"+s.gatewayAddr+"/ws", measureFrom, measureTo, clientExtra...)
	var hostiles *hostileRun
	if hostile.on {
		hostiles = startHostile(hostile, s, topic, token, wsScheme+"://"+s.gatewayAddr+"/ws", srv.Process.Pid, measureFrom, measureTo)
	}

	time.Sleep(time.Until(measureFrom))
	gwCPU0, selfCPU0 := cpuTicks(srv.Process.Pid), childrenCPU(children)
	sent0 := published()
	fmt.Printf("measuring for %s (clients connected: see below)\n", s.measure)
	rssMid := int64(0)
	time.AfterFunc(s.measure/2, func() { rssMid = rssKiB(srv.Process.Pid) })
	time.Sleep(time.Until(measureTo))
	gwCPU1, selfCPU1 := cpuTicks(srv.Process.Pid), childrenCPU(children)
	sent1 := published()
	rssEnd := rssKiB(srv.Process.Pid)
	gatewayDelay := delayBuckets(scheme + "://" + s.gatewayAddr + "/metrics")
	var ringSends, ringSubmissions float64
	if !floorMode && scheme == "http" { // with -tls, http.Get would not trust the run's own CA
		ringSends = metricSum(scheme+"://"+s.gatewayAddr+"/metrics", "sluice_gateway_io_uring_sends_total")
		ringSubmissions = metricSum(scheme+"://"+s.gatewayAddr+"/metrics", "sluice_gateway_io_uring_submissions_total")
	}
	// Let in-flight messages of the window arrive, then stop.
	time.Sleep(3 * time.Second)
	close(stopPub)
	<-pubDone
	if probe != nil {
		probe.finish()
	}
	if soak.enabled() {
		time.Sleep(5 * time.Second) // resuming clients catch up before "missing at the end"
		sampler.report()
	}
	if hostiles != nil {
		hostiles.finish(metricsURL, s.gatewayAddr)
	}

	total := collectReports(children, outputs)
	if soak.enabled() {
		printSoak(s, soak, &total, counters)
	}

	secs := s.measure.Seconds()
	tick := float64(clockTicks())
	gwCPUSec := float64(gwCPU1-gwCPU0) / tick
	lgCPUSec := float64(selfCPU1-selfCPU0) / tick
	delivered := float64(total.Received)
	fmt.Printf("\n== fanout, server: %s: %d clients (%d connected, %d subscribed), %d keys, %d-byte %s payload, %d processes, %s window ==\n",
		serverName, s.clients, total.Connected, total.Subscribed, s.keys, s.payload, s.format, len(children), s.measure)
	fmt.Printf("published in window:        %d msgs (%.0f msgs/s)\n", sent1-sent0, float64(sent1-sent0)/secs)
	fmt.Printf("delivered in window:        %d msgs (%.0f msgs/s)\n", total.Received, delivered/secs)
	fmt.Printf("lost (per-key sequence):    %d   gaps reported: %d   errors: %d\n", total.Lost, total.Gaps, total.Errors)
	fmt.Printf("latency ms p50 %.2f  p75 %.2f  p99 %.2f  p99.9 %.2f  max %.2f\n",
		total.percentile(0.50), total.percentile(0.75), total.percentile(0.99), total.percentile(0.999), float64(total.MaxMicros)/1000)
	switch {
	case probe != nil:
		fmt.Printf("kafka-only latency (publisher -> plain consumer, fetch max wait %s) ms p50 %.2f  p75 %.2f  p99 %.2f  p99.9 %.2f  max %.2f  (%d records in window, %d read)\n",
			probeFetchMaxWait, probe.report.percentile(0.50), probe.report.percentile(0.75), probe.report.percentile(0.99), probe.report.percentile(0.999),
			float64(probe.report.MaxMicros)/1000, probe.report.Received, probe.records)
	case floorMode:
		fmt.Printf("kafka-only latency:         not measured (the floor server generates; nothing goes through Kafka)\n")
	}
	fmt.Printf("%-28s%.2f s in %.0f s = %.1f%% of a core; %.2f µs per delivered message\n", serverName+" CPU:",
		gwCPUSec, secs, 100*gwCPUSec/secs, 1e6*gwCPUSec/math.Max(delivered, 1))
	// Per client, not per connection made: with -churn the clients make many
	// connections over a run, but hold one each at a time.
	fmt.Printf("%-28sidle %d KiB, mid %d KiB, end %d KiB; %.1f KiB per connection (end RSS / clients), %.1f KiB above idle\n",
		serverName+" RSS:", idleRSS, rssMid, rssEnd, float64(rssEnd)/float64(max(s.clients, 1)), float64(rssEnd-idleRSS)/float64(max(s.clients, 1)))
	fmt.Printf("load generator CPU:         %.2f s = %.1f%% of a core\n", lgCPUSec, 100*lgCPUSec/secs)
	if !floorMode {
		fmt.Printf("gateway-side delay (record timestamp -> socket write, whole run, cumulative): %s\n", gatewayDelay)
		if ringSubmissions > 0 {
			fmt.Printf("io_uring (whole run):       %.0f sends in %.0f submissions, %.1f per submission\n", ringSends, ringSubmissions, ringSends/ringSubmissions)
		} else {
			fmt.Printf("io_uring (whole run):       none (writev per socket: -io-uring off, unavailable, or a gateway without it)\n")
		}
	} else {
		st := floorStatsAt("http://" + s.gatewayAddr + "/stats")
		fmt.Printf("floor writes (whole run):   %d frames, %d short writes (dropped; expected 0)\n", st.written, st.short)
	}
}

// gatewayCmd is the gateway under test, listening on addr with pprof on debugAddr.
// Both addresses must be free: waitReady asks the address for /readyz, and a
// process left there by an earlier run would answer in the new one's place.
func gatewayCmd(s *settings, addr, debugAddr, catalogTopic string) *exec.Cmd {
	for _, a := range []string{addr, debugAddr} {
		if c, err := net.DialTimeout("tcp", a, time.Second); err == nil {
			c.Close()
			log.Fatalf("%s is in use by another process (an earlier run's gateway?): stop it or choose other addresses", a)
		}
	}
	cmd := exec.Command(s.gatewayBin, "-addr", addr, "-debug-addr", debugAddr, "-kafka-brokers", s.kafka, "-catalog-topic", catalogTopic, "-log-format", "json")
	if s.registry != "" {
		cmd.Args = append(cmd.Args, "-schema-registry-url", s.registry)
	}
	if s.certFile != "" {
		cmd.Args = append(cmd.Args, "-tls-cert-file", s.certFile, "-tls-key-file", s.keyFile)
	}
	cmd.Args = append(cmd.Args, s.gatewayExtra...)
	switch s.metering {
	case "on":
		cmd.Args = append(cmd.Args, "-usage-topic", s.usageTopic, "-usage-interval", "5s")
	case "off":
		cmd.Args = append(cmd.Args, "-usage-interval", "0")
	}
	cmd.Stderr, cmd.Stdout = io.Discard, io.Discard
	if s.gatewayLogs != "" {
		if f, err := os.Create(s.gatewayLogs + addr + ".log"); err == nil {
			cmd.Stderr, cmd.Stdout = f, f // closed at exit
		} else {
			log.Printf("gateway log: %v", err)
		}
	}
	return cmd
}

// startClients spreads s.clients over s.procs load-generator processes (source
// addresses 127.0.0.2..) connecting to url; extra goes to each process's flags.
// Each prints its clientReport on stdout when interrupted.
func startClients(s *settings, topic, token, url string, from, to time.Time, extra ...string) ([]*exec.Cmd, []*bufio.Reader) {
	var children []*exec.Cmd
	var outputs []*bufio.Reader
	per := (s.clients + s.procs - 1) / s.procs
	for i := 0; i < s.procs; i++ {
		n := min(per, s.clients-i*per)
		if n <= 0 {
			break
		}
		args := append([]string{"client",
			"-n", strconv.Itoa(n), "-keys", strconv.Itoa(s.keys), "-topic", topic,
			"-url", url, "-token", token,
			"-src", fmt.Sprintf("127.0.0.%d", 2+i), "-seed", strconv.Itoa(i + 1),
			"-ramp", strconv.Itoa(max(s.rampPerSec/s.procs, 1)),
			"-from", strconv.FormatInt(from.UnixNano(), 10), "-to", strconv.FormatInt(to.UnixNano(), 10)}, extra...)
		if s.caFile != "" {
			args = append(args, "-ca", s.caFile)
		}
		cmd := exec.Command(os.Args[0], args...)
		if s.clientGOGC > 0 {
			cmd.Env = append(os.Environ(), "GOGC="+strconv.Itoa(s.clientGOGC))
		}
		out, err := cmd.StdoutPipe()
		must(err)
		cmd.Stderr = os.Stderr
		must(cmd.Start())
		children = append(children, cmd)
		outputs = append(outputs, bufio.NewReader(out))
	}
	return children, outputs
}

// collectReports interrupts the load generators and merges their reports.
func collectReports(children []*exec.Cmd, outputs []*bufio.Reader) clientReport {
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
	return total
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
// a token for it: subscribe only.
func catalog(ctx context.Context, kc *kgo.Client, catalogTopic, topic string, enc payloadEncoding) string {
	return catalogWith(ctx, kc, catalogTopic, topic, enc, "subscribe")
}

// catalogWith is catalog with the endpoint's operations (subscribe, publish),
// which the token is granted too.
func catalogWith(ctx context.Context, kc *kgo.Client, catalogTopic, topic string, enc payloadEncoding, operations ...string) string {
	_, token := catalogWithKey(ctx, kc, catalogTopic, topic, enc, operations...)
	return token
}

// catalogWithKey is catalogWith, also returning the signing key (fault runs mint
// more tokens with it, to revoke them).
func catalogWithKey(ctx context.Context, kc *kgo.Client, catalogTopic, topic string, enc payloadEncoding, operations ...string) (*ecdsa.PrivateKey, string) {
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
	endpoint := map[string]any{"v": 1, "id": "bench", "path": "/" + topic + "/{k}", "topic": topic, "key": nil, "key_param": "k",
		"operations": operations, "api": map[string]any{"id": "bench", "name": "bench", "version": "1"}}
	maps.Copy(endpoint, enc.endpointFields())
	put("endpoint/bench", endpoint)
	return key, mintToken(key, topic, "bench-"+topic, time.Now().Add(6*time.Hour), operations...)
}

// mintToken is a token of the app "bench" with jti, as the portal signs them,
// granted operations (subscribe, publish) on every key of topic.
func mintToken(key *ecdsa.PrivateKey, topic, jti string, exp time.Time, operations ...string) string {
	permissions := map[string]any{}
	for _, op := range operations {
		permissions[map[string]string{"subscribe": "sub", "publish": "pub"}[op]] = []string{"/" + topic + "/*"}
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"iss": "sluice", "aud": "sluice-gateway", "sub": "bench", "jti": jti,
		"iat": time.Now().Unix(), "exp": exp.Unix(), "permissions": permissions})
	tok.Header["kid"] = "bench"
	s, err := tok.SignedString(key)
	must(err)
	return s
}

// publish gives every key one message per period until stop, spread evenly
// over the period; counters[k] is the last "n" sent for key k (read it once
// publish has returned).
func publish(kc *kgo.Client, topic string, counters []int64, size int, period time.Duration, enc payloadEncoding, stop <-chan struct{}, sent *atomic.Int64) {
	pad := strings.Repeat("x", max(size-80, 0))
	everyKey(len(counters), period, stop, func(k int) {
		counters[k]++
		v := enc.message(k, counters[k], time.Now().UnixNano(), pad)
		kc.Produce(context.Background(), &kgo.Record{Topic: topic, Key: []byte("k" + strconv.Itoa(k)), Value: v}, func(_ *kgo.Record, err error) {
			if err != nil {
				produceErrors.Add(1)
				log.Printf("produce: %v", err)
			}
		})
		sent.Add(1)
	})
	_ = kc.Flush(context.Background())
}

// everyKey calls send for each of keys once per period, spread evenly over the
// period in 10 ms slots, until stop.
func everyKey(keys int, period time.Duration, stop <-chan struct{}, send func(k int)) {
	const tick = 10 * time.Millisecond
	slots := max(int(period/tick), 1) // each key once per period
	t := time.NewTicker(tick)
	defer t.Stop()
	slot := 0
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		for k := slot; k < keys; k += slots {
			send(k)
		}
		slot = (slot + 1) % slots
	}
}

// produceErrors counts records the publisher could not write.
var produceErrors atomic.Int64

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
	// Resume mode (-failover) only.
	Duplicates, DialFailures, Closing1012 int64
	// Late: messages of an earlier hole that came after later ones (out of
	// order; not duplicates).
	Late       int64 `json:",omitempty"`
	GapReasons map[string]int64
	Conns      []connRecord
	// Fault runs (-stall) only: holes, duplicates and gaps with their times.
	Events        []clientEvent `json:",omitempty"`
	EventsDropped int64         `json:",omitempty"`
	// Soak mode (soak.go) only.
	Churned, RefreshSent, Refreshed int64
	// SSERefused: HTTP error answers to SSE clients' requests, by
	// "status/code" (sse_client.go).
	SSERefused map[string]int64 `json:",omitempty"`
}

func (r *clientReport) merge(o *clientReport) {
	r.Connected += o.Connected
	r.Subscribed += o.Subscribed
	r.Received += o.Received
	r.Lost += o.Lost
	r.Gaps += o.Gaps
	r.Errors += o.Errors
	r.MaxMicros = max(r.MaxMicros, o.MaxMicros)
	r.Duplicates += o.Duplicates
	r.Late += o.Late
	r.DialFailures += o.DialFailures
	r.Closing1012 += o.Closing1012
	r.Churned += o.Churned
	r.RefreshSent += o.RefreshSent
	r.Refreshed += o.Refreshed
	for k, v := range o.GapReasons {
		if r.GapReasons == nil {
			r.GapReasons = map[string]int64{}
		}
		r.GapReasons[k] += v
	}
	for k, v := range o.SSERefused {
		if r.SSERefused == nil {
			r.SSERefused = map[string]int64{}
		}
		r.SSERefused[k] += v
	}
	r.Conns = append(r.Conns, o.Conns...)
	r.Events = append(r.Events, o.Events...)
	r.EventsDropped += o.EventsDropped
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

// prepareMetering checks -metering and, when on, creates the run's usage topic
// (deleted at exit), so the gateway's records land somewhere as in production.
// rf is the topic's replication factor (1 on the stack's single broker).
func prepareMetering(ctx context.Context, s *settings, adm *kadm.Client, run string, rf int16) {
	switch s.metering {
	case "on":
		s.usageTopic = "__sluice_usage_bench_" + run
		configs := map[string]*string{"retention.ms": ptr("3600000")}
		if rf >= 3 {
			configs["min.insync.replicas"] = ptr("2")
		}
		_, err := adm.CreateTopic(ctx, 3, rf, configs, s.usageTopic)
		must(err)
	case "off", "":
	default:
		log.Fatalf("-metering %q: want on, off or \"\"", s.metering)
	}
}

// runTopics are the topics a run made, deleted at its end.
func runTopics(s *settings, topics ...string) []string {
	if s.usageTopic != "" {
		topics = append(topics, s.usageTopic)
	}
	return topics
}
