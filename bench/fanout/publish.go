package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// publishMain is `fanout publish`: the publish path. Publisher connections
// (`fanout publisher` children: WebSocket and/or HTTP) publish through one
// gateway to a fresh topic at a target rate or as fast as their windows of
// unacknowledged publishes allow; a direct franz-go producer with the
// gateway's producer settings publishes the same payloads at the same rate to
// a topic of its own (the baseline). It prints throughput, the gateway's CPU
// per published message, the send -> acknowledgement latency of both, and,
// after reading both topics back from Kafka, whether every acknowledged
// (partition, offset) holds exactly the publish it was given for.
func publishMain(args []string) {
	if !runPublish(args) {
		os.Exit(1) // after runPublish's deferred clean-up
	}
}

// runPublish is publishMain; it says whether every check passed.
func runPublish(args []string) bool {
	fs := flag.NewFlagSet("publish", flag.ExitOnError)
	s := &settings{}
	var p publishSettings
	fs.StringVar(&p.transport, "transport", "ws", "publisher connections: ws (WebSocket publish frames), http (POST /pub/… with keep-alive) or both (half each)")
	fs.IntVar(&p.conns, "conns", 100, "publisher connections (all transports)")
	fs.IntVar(&p.procs, "procs", 1, "publisher processes per transport")
	fs.Float64Var(&p.rate, "rate", 2000, "publishes per second, all connections together; 0: as fast as each connection's window allows")
	fs.IntVar(&p.inflight, "inflight", 16, "unacknowledged publishes per WebSocket connection (the gateway reads at most 64 ahead); HTTP has one per connection")
	fs.DurationVar(&p.stopGateway, "stop-gateway", 0, "stop the gateway with SIGTERM this long into the window (a graceful stop under publishing load: it should answer every publish it wrote to Kafka before it closes); 0: no stop")
	fs.BoolVar(&p.direct, "direct", true, "also run the direct-produce baseline (same payload, rate and windows; with -rate 0 it runs after the gateway's window at the rate the gateway reached)")
	fs.IntVar(&s.partitions, "partitions", 6, "partitions of each topic")
	fs.IntVar(&p.replication, "replication", 1, "replication factor of the topics (3 on a three-broker cluster)")
	fs.IntVar(&s.payload, "payload", 512, "payload bytes per publish")
	fs.IntVar(&s.rampPerSec, "ramp", 500, "new connections per second, per process")
	fs.DurationVar(&s.warmup, "warmup", 5*time.Second, "publishing after the ramp, before the window")
	fs.DurationVar(&s.measure, "measure", 30*time.Second, "measurement window")
	fs.StringVar(&s.kafka, "kafka", "127.0.0.1:9092", "Kafka bootstrap broker")
	fs.StringVar(&s.gatewayBin, "gateway", "", "gateway binary to start (required)")
	fs.StringVar(&s.gatewayAddr, "gateway-addr", "127.0.0.1:18080", "the gateway's listen address")
	fs.StringVar(&s.debugAddr, "debug-addr", "127.0.0.1:18081", "the gateway's -debug-addr (pprof)")
	fs.StringVar(&s.gatewayLogs, "gateway-logs", "", "write the gateway's log to <this prefix><listen address>.log (default: discarded)")
	fs.StringVar(&s.metering, "metering", "on", `usage metering on (a usage record every 5 s into a topic of the run's own), off, or "" (pass no flag)`)
	_ = fs.Parse(args)
	if s.gatewayBin == "" {
		log.Fatal("-gateway is required (build it: cd apps/gateway && go build -o /tmp/sluice-gateway ./cmd/gateway)")
	}
	transports := map[string][]string{"ws": {"ws"}, "http": {"http"}, "both": {"ws", "http"}}[p.transport]
	if transports == nil {
		log.Fatalf("-transport %q: want ws, http or both", p.transport)
	}
	if p.conns < len(transports) || p.rate < 0 {
		log.Fatal("-conns: at least one per transport; -rate: 0 or more")
	}

	ctx := context.Background()
	run := strconv.FormatInt(time.Now().Unix(), 36)
	topic, directTopic, catalogTopic := "bench-pub-"+run, "bench-pub-direct-"+run, "__sluice_catalog_bench_"+run
	kc, err := newKafkaClient(s.kafka)
	must(err)
	defer kc.Close()
	adm := kadm.NewClient(kc)
	_, err = adm.CreateTopic(ctx, 1, int16(p.replication), map[string]*string{"cleanup.policy": ptr("compact")}, catalogTopic)
	must(err)
	for _, t := range []string{topic, directTopic} {
		_, err = adm.CreateTopic(ctx, int32(s.partitions), int16(p.replication), map[string]*string{"retention.ms": ptr("3600000")}, t)
		must(err)
	}
	defer func() {
		_, _ = adm.DeleteTopics(context.Background(), runTopics(s, topic, directTopic, catalogTopic)...)
	}()
	prepareMetering(ctx, s, adm, run, 1)
	token := catalogWith(ctx, kc, catalogTopic, topic, jsonEncoding, "publish")
	dir, err := os.MkdirTemp("", "fanout-publish-")
	must(err)
	defer os.RemoveAll(dir)

	gw := gatewayCmd(s, s.gatewayAddr, s.debugAddr, catalogTopic)
	must(gw.Start())
	defer func() { _ = gw.Process.Signal(syscall.SIGTERM); _ = gw.Wait() }()
	waitReady("http://" + s.gatewayAddr + "/readyz")
	idleRSS := rssKiB(gw.Process.Pid)
	brokerPid := listenerPid(s.kafka[strings.LastIndexByte(s.kafka, ':')+1:])
	load0 := loadAverage()
	fmt.Printf("gateway pid %d ready; idle RSS %d KiB; broker pid %d; load average %s\n", gw.Process.Pid, idleRSS, brokerPid, load0)

	// The window starts once every process has ramped up and warmed up.
	perProc := (p.conns + len(transports)*p.procs - 1) / (len(transports) * p.procs)
	start := time.Now()
	from := start.Add(time.Duration(perProc/max(s.rampPerSec, 1))*time.Second + time.Second + s.warmup)
	to := from.Add(s.measure)
	base := publishLoad{
		conns: p.conns, procs: p.procs, rate: p.rate, inflight: p.inflight, payload: s.payload, ramp: s.rampPerSec,
		topic: topic, token: token, from: from, to: to, dir: dir,
	}
	var gwRuns []*publishRun
	for i, t := range transports {
		l := base
		l.transport = t
		l.conns = p.conns / len(transports)
		if i == 0 {
			l.conns += p.conns % len(transports)
		}
		l.rate = p.rate * float64(l.conns) / float64(p.conns) // the same rate per connection
		l.firstProc = i * p.procs
		l.urls = []string{map[string]string{"ws": "ws://" + s.gatewayAddr + "/ws", "http": "http://" + s.gatewayAddr}[t]}
		gwRuns = append(gwRuns, startPublishLoad(l))
	}
	directLoad := base
	// One process: one producer client, as the gateway has.
	directLoad.transport, directLoad.urls, directLoad.topic, directLoad.procs = "kafka", []string{s.kafka}, directTopic, 1
	var directRun *publishRun
	if p.direct && p.rate > 0 {
		directRun = startPublishLoad(directLoad)
	}

	cpu := func() (gwTicks, brokerTicks, lgTicks, directTicks int64) {
		gwTicks = cpuTicks(gw.Process.Pid)
		if brokerPid > 0 {
			brokerTicks = cpuTicksOr0(brokerPid)
		}
		for _, r := range gwRuns {
			lgTicks += r.cpuTicks()
		}
		if directRun != nil {
			directTicks = directRun.cpuTicks()
		}
		return
	}
	metrics := "http://" + s.gatewayAddr + "/metrics"
	time.Sleep(time.Until(from))
	gw0, broker0, lg0, direct0 := cpu()
	in0 := metricSum(metrics, "sluice_gateway_messages_in_total")
	fmt.Printf("measuring for %s\n", s.measure)
	if p.stopGateway > 0 {
		time.Sleep(p.stopGateway)
		fmt.Printf("gateway stopped with SIGTERM %s into the window\n", p.stopGateway)
		must(gw.Process.Signal(syscall.SIGTERM))
	}
	time.Sleep(time.Until(to))
	gw1, broker1, lg1, direct1 := cpu()
	in1 := metricSum(metrics, "sluice_gateway_messages_in_total")
	rssEnd := rssKiB(gw.Process.Pid)
	errorFrames := metricLines(metrics, "sluice_gateway_error_frames_total")

	gwAcks := newAckLog()
	var reports []publisherReport
	for _, r := range gwRuns {
		r.interrupt() // all at once: each drains while the others do
	}
	for _, r := range gwRuns {
		reports = append(reports, r.stop(gwAcks))
	}
	var directRep publisherReport
	directAcks := newAckLog()
	secs := s.measure.Seconds()
	var gwAckedInWindow int64
	for _, r := range reports {
		gwAckedInWindow += r.AckedInWindow
	}
	var directNote string
	if directRun != nil {
		directRep = directRun.stop(directAcks)
		directNote = "same window"
	} else if p.direct && gwAckedInWindow > 0 {
		// As fast as it goes: the baseline runs on its own afterwards, at the
		// rate the gateway reached, so that the two do not share the broker.
		directLoad.rate = float64(gwAckedInWindow) / secs
		start := time.Now()
		directLoad.from = start.Add(time.Duration(p.conns/max(s.rampPerSec, 1))*time.Second + time.Second + s.warmup)
		directLoad.to = directLoad.from.Add(s.measure)
		directRun = startPublishLoad(directLoad)
		time.Sleep(time.Until(directLoad.from))
		d0 := directRun.cpuTicks()
		time.Sleep(time.Until(directLoad.to))
		direct0, direct1 = d0, directRun.cpuTicks()
		directRep = directRun.stop(directAcks)
		directNote = fmt.Sprintf("its own window after the gateway's, at the gateway's %.0f msgs/s", directLoad.rate)
	}
	gwCheck := verifyTopic(ctx, s.kafka, topic, s.partitions, gwAcks)
	var directCheck verifyResult
	if directRun != nil {
		directCheck = verifyTopic(ctx, s.kafka, directTopic, s.partitions, directAcks)
	}

	tick := float64(clockTicks())
	gwCPU, brokerCPU, lgCPU, directCPU := float64(gw1-gw0)/tick, float64(broker1-broker0)/tick, float64(lg1-lg0)/tick, float64(direct1-direct0)/tick
	target := "as fast as the windows allow"
	if p.rate > 0 {
		target = fmt.Sprintf("target %.0f msgs/s", p.rate)
	}
	window := "1 request in flight per HTTP connection"
	if p.transport != "http" {
		window = fmt.Sprintf("up to %d unacknowledged per WebSocket connection", p.inflight)
	}
	fmt.Printf("\n== publish: %d connections (%s), %s, %s, %d-byte JSON payload, %d partitions (replication %d), %d process(es) per transport, %s window ==\n",
		p.conns, p.transport, target, window, s.payload, s.partitions, p.replication, p.procs, s.measure)
	fmt.Printf("%-22s %8s %8s %9s %8s %8s %8s %8s %6s %10s %6s %6s\n", "", "conns", "sent/s", "acked/s", "p50 ms", "p99", "p99.9", "max", "dials", "unanswered", "errors", "late")
	row := func(name string, r *publisherReport) {
		fmt.Printf("%-22s %8d %8.0f %9.0f %8.2f %8.2f %8.2f %8.2f %6d %10d %6s %6d\n", name, r.Conns, float64(r.SentInWindow)/secs, float64(r.AckedInWindow)/secs,
			r.percentile(0.50), r.percentile(0.99), r.percentile(0.999), float64(r.MaxMicros)/1000, r.Dials, r.Unanswered, errorsLine(r.ErrorsByCode), r.Late)
		if r.NotSent > 0 || r.DialFailures > 0 {
			fmt.Printf("%-22s %d connects failed; %d HTTP publishes not sent for it\n", "", r.DialFailures, r.NotSent)
		}
	}
	var all publisherReport
	for _, r := range reports {
		row("gateway "+r.Transport, &r)
		all.merge(&r)
	}
	all.Transport = p.transport
	if len(reports) > 1 {
		row("gateway (all)", &all)
	}
	if directRun != nil {
		row("direct produce", &directRep)
		fmt.Printf("%-22s p50 %+.2f  p99 %+.2f  p99.9 %+.2f ms (gateway, all transports, minus direct; direct: %s)\n", "added by the gateway:",
			all.percentile(0.50)-directRep.percentile(0.50), all.percentile(0.99)-directRep.percentile(0.99), all.percentile(0.999)-directRep.percentile(0.999), directNote)
	}
	acked := float64(gwAckedInWindow)
	if p.rate == 0 && acked > 0 {
		// Closed loop: every window stays full, so the latency is the
		// window's queue (Little's law), not what one publish costs.
		inFlight := 0
		for _, t := range transports {
			n := p.conns / len(transports)
			if t == "ws" {
				n *= p.inflight
			}
			inFlight += n
		}
		fmt.Printf("%-22s the windows keep ~%d publishes in flight: at %.0f msgs/s that alone is %.1f ms each (in flight / rate); compare latencies with a -rate below the maximum\n",
			"closed loop:", inFlight, acked/secs, 1000*float64(inFlight)/(acked/secs))
	}
	counter := "n/a"
	if in1 >= in0 && in1 > 0 {
		counter = fmt.Sprintf("%.0f/s", (in1-in0)/secs)
	}
	fmt.Printf("through the gateway:   %.0f msgs/s acknowledged (its messages_in counter: %s)\n", acked/secs, counter)
	if gwCPU > 0 && acked > 0 {
		fmt.Printf("gateway CPU:           %.2f s in %.0f s = %.1f%% of a core; %.2f µs per published message; %.0f msgs/s per core busy\n",
			gwCPU, secs, 100*gwCPU/secs, 1e6*gwCPU/acked, acked/gwCPU)
	}
	fmt.Printf("gateway RSS:           idle %d KiB, end %d KiB\n", idleRSS, rssEnd)
	if brokerPid > 0 {
		fmt.Printf("broker CPU:            %.2f s = %.1f%% of a core (both topics when the baseline shares the window)\n", brokerCPU, 100*brokerCPU/secs)
	}
	fmt.Printf("publisher processes:   %.2f s = %.1f%% of a core", lgCPU, 100*lgCPU/secs)
	if directRun != nil && directRep.AckedInWindow > 0 {
		fmt.Printf("; direct producer process %.2f s = %.2f µs per message", directCPU, 1e6*directCPU/float64(directRep.AckedInWindow))
	}
	fmt.Println()
	fmt.Printf("gateway error frames:  %s\n", errorFrames)
	fmt.Printf("acks checked (gateway topic %s): %s\n", topic, gwCheck)
	if directRun != nil {
		fmt.Printf("acks checked (direct topic %s): %s\n", directTopic, directCheck)
	}
	fmt.Printf("load average: before %s, after %s\n", load0, loadAverage())
	// Each publish sent has one outcome in the publishers' own books.
	books := all.outcomes() == all.Sent && (directRun == nil || directRep.outcomes() == directRep.Sent)
	if !books {
		fmt.Printf("publishers' books: gateway %d sent, %d outcomes; direct %d sent, %d outcomes\n", all.Sent, all.outcomes(), directRep.Sent, directRep.outcomes())
	}
	// A graceful stop answers what it wrote: a record in Kafka whose
	// publish went unanswered means a client cannot know it was written
	// (and, publishing it again, writes it twice).
	writtenUnanswered := p.stopGateway > 0 && gwCheck.NeverAckedUnanswered > 0
	if writtenUnanswered {
		fmt.Printf("graceful stop: %d publishes are in Kafka but were never answered (expected 0)\n", gwCheck.NeverAckedUnanswered)
	}
	if writtenUnanswered || !books || !gwCheck.ok() || (directRun != nil && !directCheck.ok()) {
		fmt.Println("ACKNOWLEDGEMENT CHECK FAILED")
		return false
	}
	return true
}

// publishSettings are the flags of `fanout publish`.
type publishSettings struct {
	transport    string
	conns, procs int
	rate         float64
	inflight     int
	direct       bool
	replication  int
	stopGateway  time.Duration
}

// publishLoad is a publishing load of one transport spread over processes
// (`fanout publisher` children): what `fanout publish` measures, and a steady
// load that checks every acknowledgement for other scenarios (start it,
// stop it, then verifyTopic the ackLog it filled).
type publishLoad struct {
	transport               string // ws, http or kafka (direct)
	conns, procs            int
	rate                    float64 // all processes; 0: as fast as the windows allow
	inflight, payload, ramp int
	urls                    []string // gateway URLs (ws://…/ws, http://…) or the Kafka bootstrap broker; several: reconnect through them
	topic, token            string
	from, to                time.Time // the measurement window
	// firstProc: process i of this load is publisher firstProc+i (its keys
	// p<firstProc+i>c<j>, source address 127.0.1.<1+firstProc+i>); loads
	// sharing a topic take disjoint ranges.
	firstProc int
	dir       string   // for the ack files
	extra     []string // more flags for each process (e.g. -backoff-initial)
}

// publishRun is a started publishLoad.
type publishRun struct {
	children []*exec.Cmd
	outputs  []*bufio.Reader
	files    []string
	procs    []int
}

// shares is how the load's connections split over its processes: process
// firstProc+i gets shares()[i] of them.
func (l publishLoad) shares() []int {
	var out []int
	per := (l.conns + l.procs - 1) / l.procs
	for i := 0; i < l.procs; i++ {
		n := min(per, l.conns-i*per)
		if n <= 0 {
			break
		}
		out = append(out, n)
	}
	return out
}

// keys are the record keys the load's connections publish to (p<proc>c<conn>),
// process by process: subscribers of those keys check what they deliver.
func (l publishLoad) keys() []string {
	var out []string
	for i, n := range l.shares() {
		for c := range n {
			out = append(out, fmt.Sprintf("p%dc%d", l.firstProc+i, c))
		}
	}
	return out
}

func startPublishLoad(l publishLoad) *publishRun {
	r := &publishRun{}
	for i, n := range l.shares() {
		proc := l.firstProc + i
		file := filepath.Join(l.dir, fmt.Sprintf("acks-%s-%s-%d", l.topic, l.transport, proc))
		args := append([]string{"publisher",
			"-transport", l.transport, "-n", strconv.Itoa(n), "-proc", strconv.Itoa(proc),
			"-url", strings.Join(l.urls, ","), "-topic", l.topic, "-token", l.token,
			"-src", fmt.Sprintf("127.0.1.%d", 1+proc%250),
			"-rate", strconv.FormatFloat(l.rate*float64(n)/float64(l.conns), 'f', 3, 64),
			"-inflight", strconv.Itoa(l.inflight), "-payload", strconv.Itoa(l.payload),
			"-ramp", strconv.Itoa(l.ramp), "-acks", file,
			"-from", strconv.FormatInt(l.from.UnixNano(), 10), "-to", strconv.FormatInt(l.to.UnixNano(), 10)}, l.extra...)
		cmd := exec.Command(os.Args[0], args...)
		out, err := cmd.StdoutPipe()
		must(err)
		cmd.Stderr = os.Stderr
		must(cmd.Start())
		r.children = append(r.children, cmd)
		r.outputs = append(r.outputs, bufio.NewReader(out))
		r.files = append(r.files, file)
		r.procs = append(r.procs, proc)
	}
	return r
}

// interrupt tells the processes to stop sending and drain (stop does it too;
// repeating it is harmless).
func (r *publishRun) interrupt() {
	for _, cmd := range r.children {
		_ = cmd.Process.Signal(os.Interrupt)
	}
}

// cpuTicks is the processes' CPU so far.
func (r *publishRun) cpuTicks() int64 { return childrenCPU(r.children) }

// stop interrupts the processes (they stop sending and wait for what is in
// flight), merges their reports and adds their outcomes to acks.
func (r *publishRun) stop(acks *ackLog) publisherReport {
	r.interrupt()
	var total publisherReport
	for i, cmd := range r.children {
		var rep publisherReport
		if err := json.NewDecoder(r.outputs[i]).Decode(&rep); err != nil {
			log.Fatalf("publisher %d report: %v", r.procs[i], err)
		}
		_ = cmd.Wait()
		total.merge(&rep)
		total.Transport = rep.Transport
		must(acks.load(r.files[i], r.procs[i]))
	}
	return total
}

func errorsLine(byCode map[string]int64) string {
	if len(byCode) == 0 {
		return "0"
	}
	var parts []string
	for code, n := range byCode {
		parts = append(parts, fmt.Sprintf("%s×%d", code, n))
	}
	return strings.Join(parts, ",")
}

// loadAverage is /proc/loadavg's 1, 5 and 15 minute figures.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
