package main

import (
	"context"
	"crypto/ecdsa"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/bench/internal/kcluster"
)

// chaosSettings are the flags of `fanout chaos` beyond the fan-out ones.
type chaosSettings struct {
	scenarios                  string
	recover                    time.Duration
	downFor, outage, pauseFor  time.Duration
	stallBound, settle         time.Duration
	brokerStop                 time.Duration
	kafkaPort                  int
	kafkaHeap, kafkaDir        string
	backoffInitial, backoffMax time.Duration
	load                       chaosLoadSettings // SSE clients, publishers through the gateway (chaos_load.go)
	stack                      stackSettings     // bridge-kill, postgres-restart (chaos_stack.go)
}

// chaosScenarios are the faults a run can inject, in the default order.
var chaosScenarios = []string{"leader-kill", "broker-stall", "all-brokers", "gateway-kill", "bridge-kill", "postgres-restart"}

// chaosMain is `fanout chaos`: a local three-broker Kafka (bench/internal/kcluster),
// two gateway nodes on it, clients spread over both and resuming like the SDK,
// a steady acks=all load, and one fault at a time, each followed by a recovery
// wait, a revocation check on each node and a count (chaos_report.go).
func chaosMain(args []string) {
	s := &settings{metering: "on", probe: false, format: "json"}
	c := &chaosSettings{}
	fs := flag.NewFlagSet("chaos", flag.ExitOnError)
	fs.IntVar(&s.clients, "clients", 2000, "WebSocket clients, spread over the two gateway nodes")
	fs.IntVar(&s.keys, "keys", 1000, "keys of the data topic; each gets one message per -key-period")
	fs.IntVar(&s.procs, "procs", 2, "load-generator processes (one holds at most ~19,950 sockets)")
	fs.IntVar(&s.partitions, "partitions", 6, "partitions of the data topic")
	fs.IntVar(&s.payload, "payload", 200, "payload bytes per message")
	fs.DurationVar(&s.keyPeriod, "key-period", time.Second, "each key gets one message per this period (10 ms steps)")
	fs.IntVar(&s.rampPerSec, "ramp", 1000, "new connections per second (all processes)")
	fs.DurationVar(&s.warmup, "warmup", 15*time.Second, "steady load after the ramp, before the first fault")
	fs.StringVar(&s.gatewayBin, "gateway", "", "gateway binary (required)")
	fs.StringVar(&s.gatewayAddr, "gateway-addr", "127.0.0.1:18480", "node A's listen address")
	fs.StringVar(&s.debugAddr, "debug-addr", "127.0.0.1:18481", "node A's -debug-addr")
	fs.StringVar(&s.failover.addrB, "gateway-b-addr", "127.0.0.1:18482", "node B's listen address")
	fs.StringVar(&s.failover.debugB, "debug-b-addr", "127.0.0.1:18483", "node B's -debug-addr")
	fs.StringVar(&s.gatewayLogs, "gateway-logs", "", "keep each node's log in <prefix><listen address>.log (a restarted node: <prefix>restart-<address>.log)")
	fs.StringVar(&s.metering, "metering", "on", "gateway usage metering: on (into an RF-3 topic of the run's own) or off")
	// The default leaves out the catalog's own faults: they need a built portal (-repo).
	fs.StringVar(&c.scenarios, "scenarios", strings.Join(slices.DeleteFunc(slices.Clone(chaosScenarios), isStackScenario), ","), "faults to inject, in this order: "+strings.Join(chaosScenarios, ", "))
	fs.DurationVar(&c.recover, "recover", 30*time.Second, "recovery wait after each fault's end (at least until every partition has 3 in-sync replicas again), before its count and revocation check")
	fs.DurationVar(&c.downFor, "down", 20*time.Second, "leader-kill: the killed broker is restarted after this")
	fs.DurationVar(&c.outage, "outage", 60*time.Second, "all-brokers: how long every broker stays stopped")
	fs.DurationVar(&c.pauseFor, "pause", 30*time.Second, "broker-stall: how long the broker stays SIGSTOPped")
	fs.DurationVar(&c.brokerStop, "broker-stop-timeout", 30*time.Second, "all-brokers: a broker not gone this long after SIGTERM is killed (and the report says so)")
	fs.DurationVar(&c.stallBound, "stall", 3*time.Second, "a client without a message for longer than this is stalled (affected by a fault); keep it above a few key periods")
	fs.DurationVar(&c.settle, "settle", 10*time.Second, "wait after the publisher stopped before the clients report")
	fs.IntVar(&c.kafkaPort, "kafka-port", 39190, "the cluster's ports: node i's broker on this + 2i, its controller on the next")
	fs.StringVar(&c.kafkaHeap, "kafka-heap", "512m", "-Xmx of each Kafka JVM")
	fs.StringVar(&c.kafkaDir, "kafka-dir", "", "the cluster's directory (properties, data, node-<id>.log), kept after the run (default: a temporary one, removed)")
	fs.DurationVar(&c.backoffInitial, "backoff-initial", 500*time.Millisecond, "clients' first reconnect delay bound (full jitter, doubling; the SDK's default)")
	fs.DurationVar(&c.backoffMax, "backoff-max", 30*time.Second, "clients' reconnect delay cap (the SDK's default)")
	c.load.register(fs)
	c.stack.flags(fs)
	_ = fs.Parse(args)
	c.load.check()
	if s.gatewayBin == "" {
		log.Fatal("-gateway is required (cd apps/gateway && go build -o /tmp/sluice-gateway ./cmd/gateway)")
	}
	if s.metering != "on" && s.metering != "off" {
		log.Fatalf("-metering %q: want on or off", s.metering)
	}
	var scenarios []string
	for _, name := range strings.Split(c.scenarios, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		if !contains(chaosScenarios, name) {
			log.Fatalf("-scenarios: unknown %q; want some of %s", name, strings.Join(chaosScenarios, ","))
		}
		scenarios = append(scenarios, name)
	}
	c.stack.enabled = needsStack(scenarios)
	s.failover.nodes = 2
	runChaos(s, c, scenarios)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// chaosRun is one fault run's moving parts.
type chaosRun struct {
	s            *settings
	c            *chaosSettings
	cluster      *kcluster.Cluster
	kc           *kgo.Client // catalog writes (acks=all)
	key          *ecdsa.PrivateKey
	topic        string
	catalogTopic string
	topics       []string // every topic of the run, checked for health
	nodes        []*chaosNode
	gwPub        *gatewayPublisher // nil: no publishers through the gateway
	stack        *catalogStack     // with bridge-kill or postgres-restart: the catalog comes from the portal
}

// chaosNode is a gateway process that a scenario may kill and restart.
type chaosNode struct {
	failoverNode
	exited chan struct{}
}

// scenarioResult is one fault as it happened: injected at start, over at end
// (the process restarted or resumed), the recovery wait done at done.
type scenarioResult struct {
	name             string
	start, end, done time.Time
	notes            []string
	healthyAfter     time.Duration // from end until every partition had 3 in-sync replicas
	revocations      []revocation
}

func (sc *scenarioResult) note(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	sc.notes = append(sc.notes, line)
	fmt.Printf("  [%s] %s\n", time.Now().Format("15:04:05.000"), line)
}

func runChaos(s *settings, c *chaosSettings, scenarios []string) {
	ctx := context.Background()
	loadBefore := loadAvg()
	fmt.Printf("load average before: %s\n", loadBefore)
	cluster, err := kcluster.Start(ctx, kcluster.Options{BasePort: c.kafkaPort, Heap: c.kafkaHeap, Dir: c.kafkaDir})
	must(err)
	defer cluster.Close()
	s.kafka = cluster.Bootstrap()
	fmt.Printf("Kafka: %d combined broker+controller nodes on %s (heap %s each); node logs in %s/node-<id>.log\n", cluster.Size(), s.kafka, c.kafkaHeap, cluster.Dir())

	run := strconv.FormatInt(time.Now().Unix(), 36)
	r := &chaosRun{s: s, c: c, cluster: cluster, topic: "chaos-" + run, catalogTopic: "__sluice_catalog_chaos_" + run}
	adm := cluster.Admin()
	_, err = adm.CreateTopic(ctx, 1, 3, map[string]*string{"min.insync.replicas": ptr("2"), "cleanup.policy": ptr("compact")}, r.catalogTopic)
	must(err)
	_, err = adm.CreateTopic(ctx, int32(s.partitions), 3, map[string]*string{"min.insync.replicas": ptr("2"), "retention.ms": ptr("3600000"),
		// The broker stamps each record: the read-back tells how long a record
		// waited before Kafka appended it (chaos_check.go).
		"message.timestamp.type": ptr("LogAppendTime")}, r.topic)
	must(err)
	r.topics = []string{r.topic, r.catalogTopic}
	prepareMetering(ctx, s, adm, run, 3)
	if s.usageTopic != "" {
		r.topics = append(r.topics, s.usageTopic)
	}
	must(cluster.WaitHealthy(ctx, time.Minute, r.topics...))

	r.kc, err = newKafkaClient(s.kafka, kgo.RequiredAcks(kgo.AllISRAcks()), kgo.ProducerLinger(0))
	must(err)
	defer r.kc.Close()
	var token string
	if c.stack.enabled {
		r.stack = startCatalogStack(ctx, r)
		defer r.stack.close()
		token = r.stack.token
	} else {
		r.key, token = catalogWithKey(ctx, r.kc, r.catalogTopic, r.topic, jsonEncoding, c.load.operations()...)
	}

	var urls []string
	for _, n := range failoverNodes(s) {
		node := &chaosNode{failoverNode: n}
		r.nodes = append(r.nodes, node)
		r.startNode(node)
		urls = append(urls, "ws://"+n.addr+"/ws")
	}
	defer r.stopNodes()
	if r.stack != nil {
		r.stack.startWriter(r.nodes)
	}

	start := time.Now()
	firstFault := start.Add(time.Duration(s.clients/max(s.rampPerSec, 1))*time.Second + s.warmup)
	pub := r.loadPublisher(token, firstFault)
	stopPub, pubDone := make(chan struct{}), make(chan struct{})
	go func() { defer close(pubDone); pub.run(stopPub) }()
	fmt.Printf("publisher: %s, %d keys once per %s\n", pub.describe(), s.keys, s.keyPeriod)

	// A plain consumer of the data topic beside the gateways: its silences
	// tell a stall of Kafka (or of the publisher) from one of the gateway.
	probe := startKafkaProbe(ctx, s.kafka, r.topic, s.partitions, firstFault, firstFault.Add(24*time.Hour), jsonEncoding, c.stallBound)
	clientFlags := []string{"-resume", "-spread", "-stall", c.stallBound.String(),
		"-backoff-initial", c.backoffInitial.String(), "-backoff-max", c.backoffMax.String()}
	clientFlags = append(clientFlags, r.clientLoadFlags()...)
	// The latency window: from the first fault to far after the run.
	children, outputs := startClients(s, r.topic, token, strings.Join(urls, ","), firstFault, firstFault.Add(24*time.Hour), clientFlags...)
	time.Sleep(time.Until(firstFault))
	fmt.Printf("steady: %.0f + %.0f connections on nodes A and B\n",
		metricSum("http://"+r.nodes[0].addr+"/metrics", "sluice_gateway_connections"), metricSum("http://"+r.nodes[1].addr+"/metrics", "sluice_gateway_connections"))

	var results []*scenarioResult
	for i, name := range scenarios {
		sc := &scenarioResult{name: name}
		fmt.Printf("== %s ==\n", name)
		r.inject(ctx, sc)
		r.recoverFrom(ctx, sc, i)
		results = append(results, sc)
	}

	close(stopPub)
	<-pubDone
	pubStopped := time.Now()
	time.Sleep(c.settle)
	probe.finish()
	total := collectReports(children, outputs)
	holds := r.readBack(ctx)
	loadAfter := loadAvg()
	r.report(results, total, pub, holds, probe, start, pubStopped)
	if r.stack != nil {
		r.stack.finish(ctx, results, s.kafka, r.catalogTopic)
	}
	fmt.Printf("load average before: %s; after: %s\n", loadBefore, loadAfter)
}

// startNode starts (or restarts) a gateway node and waits for it to be ready.
func (r *chaosRun) startNode(n *chaosNode) {
	n.cmd = gatewayCmd(r.s, n.addr, n.debug, r.catalogTopic)
	must(n.cmd.Start())
	n.exited = make(chan struct{})
	go func(cmd *exec.Cmd, exited chan struct{}) { _ = cmd.Wait(); close(exited) }(n.cmd, n.exited)
	waitReady("http://" + n.addr + "/readyz")
	fmt.Printf("node %s pid %d on %s ready\n", n.name, n.cmd.Process.Pid, n.addr)
}

func (r *chaosRun) stopNodes() {
	for _, n := range r.nodes {
		if n.cmd != nil {
			_ = n.cmd.Process.Signal(syscall.SIGTERM)
		}
	}
	for _, n := range r.nodes {
		select {
		case <-n.exited:
		case <-time.After(20 * time.Second):
			_ = n.cmd.Process.Kill()
			<-n.exited
		}
	}
}

// inject runs one fault, from its start to its end (the broker or node back).
func (r *chaosRun) inject(ctx context.Context, sc *scenarioResult) {
	cl := r.cluster
	switch sc.name {
	case "leader-kill":
		leader, err := cl.LeaderOf(ctx, r.topic, 0)
		must(err)
		sc.start = time.Now()
		must(cl.Kill(leader))
		sc.note("node %d (leader of partition 0) SIGKILLed", cl.NodeID(leader))
		time.Sleep(r.c.downFor)
		must(cl.Start(leader))
		sc.end = time.Now()
		sc.note("node %d restarted after %s", cl.NodeID(leader), r.c.downFor)
	case "broker-stall":
		leaders, err := cl.Leaders(ctx, r.topic)
		must(err)
		count := make([]int, cl.Size())
		for _, l := range leaders {
			if l >= 0 {
				count[l]++
			}
		}
		most := 0
		for i := range count {
			if count[i] > count[most] {
				most = i
			}
		}
		sc.start = time.Now()
		must(cl.Pause(most))
		sc.note("node %d (leader of %d of %d partitions) SIGSTOPped", cl.NodeID(most), count[most], len(leaders))
		time.Sleep(r.c.pauseFor)
		must(cl.Resume(most))
		sc.end = time.Now()
		sc.note("node %d SIGCONTed after %s", cl.NodeID(most), r.c.pauseFor)
	case "all-brokers":
		sc.start = time.Now()
		var wg sync.WaitGroup
		errs := make([]error, cl.Size())
		for i := range cl.Size() {
			wg.Go(func() { errs[i] = cl.Stop(i, r.c.brokerStop) })
		}
		wg.Wait()
		sc.note("every node stopped with SIGTERM within %s", time.Since(sc.start).Round(time.Millisecond))
		for _, err := range errs {
			if err != nil {
				sc.note("%v", err)
			}
		}
		time.Sleep(r.c.outage)
		for i := range cl.Size() {
			must(cl.Start(i))
		}
		sc.end = time.Now()
		sc.note("every node started again after %s down", r.c.outage)
	case "gateway-kill":
		a := r.nodes[0]
		conns := metricSum("http://"+a.addr+"/metrics", "sluice_gateway_connections")
		sc.start = time.Now()
		must(a.cmd.Process.Kill())
		<-a.exited
		sc.end = time.Now()
		sc.note("gateway node A SIGKILLed with %.0f connections; its clients resume on B", conns)
	default:
		r.stack.inject(sc)
	}
}

// recoverFrom waits for the cluster to be whole again and the recovery wait to
// pass, brings a killed gateway node back, and checks revocation on each node.
func (r *chaosRun) recoverFrom(ctx context.Context, sc *scenarioResult, i int) {
	if err := r.cluster.WaitHealthy(ctx, 5*time.Minute, r.topics...); err != nil {
		sc.note("NOT HEALTHY: %v", err)
	}
	sc.healthyAfter = time.Since(sc.end)
	sc.note("every partition has 3 in-sync replicas again %s after the fault's end", sc.healthyAfter.Round(100*time.Millisecond))
	time.Sleep(time.Until(sc.end.Add(r.c.recover)))
	if sc.name == "gateway-kill" {
		if r.s.gatewayLogs != "" {
			saved := r.s.gatewayLogs
			r.s.gatewayLogs += "restart-"
			defer func() { r.s.gatewayLogs = saved }()
		}
		r.startNode(r.nodes[0])
		sc.note("node A started again (its former clients stay on B)")
	}
	for _, n := range r.nodes {
		if r.stack != nil {
			rv, line := r.stack.checkRevocation(r.topic, n.name, n.addr)
			sc.revocations = append(sc.revocations, rv)
			sc.note("revocation through the portal's API: %s", line)
			continue
		}
		rv := checkRevocation(ctx, r.kc, r.key, r.catalogTopic, r.topic, n.name, n.addr, fmt.Sprintf("chaos-revoke-%d-%s", i, n.name))
		sc.revocations = append(sc.revocations, rv)
		sc.note("revocation: %s", rv)
	}
	sc.done = time.Now()
}

// loadAvg is the first three fields of /proc/loadavg.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ")
}
