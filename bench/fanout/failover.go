package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// failoverSettings are the flags of the failover scenario (-failover): gateway
// nodes on one catalog (two by default); the clients start on node A (or, with
// -spread, each on a random node), A is stopped after the warmup and a steady
// measurement window, and every client of A resumes on another node from its
// last position.
type failoverSettings struct {
	graceful, kill             bool
	nodes                      int
	spread                     bool
	proxy, proxyAddr           string
	addrB, debugB              string
	after                      time.Duration
	backoffInitial, backoffMax time.Duration
	profile                    string
	profileSeconds             int
	settle                     time.Duration
	sampleBrokerSockets        bool
}

func (f *failoverSettings) flags() {
	flag.BoolVar(&f.graceful, "failover", false, "failover scenario: stop node A with SIGTERM after the warmup (clients get closing 1012) and measure the resume storm on node B")
	flag.BoolVar(&f.kill, "failover-kill", false, "failover scenario with SIGKILL instead of SIGTERM (no closing frame)")
	flag.IntVar(&f.nodes, "nodes", 2, "failover: gateway nodes; node A uses -gateway-addr, B -gateway-b-addr, node i>1 the port of B + 2(i-1) (its pprof the next port)")
	flag.StringVar(&f.proxy, "proxy", "", `failover: "haproxy" puts Debian's HAProxy in front of the nodes (clients connect to -proxy-addr only; the nodes trust it for X-Forwarded-For and bound connections per client address)`)
	flag.StringVar(&f.proxyAddr, "proxy-addr", "127.0.0.1:18480", "failover: the proxy's listen address")
	flag.BoolVar(&f.spread, "spread", false, "failover: each client starts on a random node and fails over through the others in a random order of its own, instead of all starting on A and moving to B")
	flag.StringVar(&f.addrB, "gateway-b-addr", "127.0.0.1:18082", "failover: node B's listen address")
	flag.StringVar(&f.debugB, "debug-b-addr", "127.0.0.1:18083", "failover: node B's -debug-addr (pprof, /metrics is on the listen address)")
	flag.DurationVar(&f.after, "after", 30*time.Second, "failover: how long to keep publishing after node A's stop")
	flag.DurationVar(&f.settle, "settle", 5*time.Second, "failover: wait after the publisher stops before the clients report (their last messages arrive)")
	flag.DurationVar(&f.backoffInitial, "backoff-initial", 500*time.Millisecond, "failover: clients' first reconnect delay bound (full jitter, doubling per failed attempt; the SDK's default)")
	flag.DurationVar(&f.backoffMax, "backoff-max", 30*time.Second, "failover: clients' reconnect delay cap (the SDK's default)")
	flag.StringVar(&f.profile, "storm-profile", "", "failover: write node B's CPU profile of the storm (from the stop on) to this file")
	flag.IntVar(&f.profileSeconds, "storm-profile-seconds", 20, "failover: length of that profile")
	flag.BoolVar(&f.sampleBrokerSockets, "broker-sockets", true, "failover: sample node B's connections to the broker each second (ss + /proc/<pid>/fd)")
}

func (f *failoverSettings) enabled() bool { return f.graceful || f.kill }

// stormSample is node B's state at one second of the run.
type stormSample struct {
	at         time.Time
	cpuTicks   int64
	kafkaTicks int64 // the broker process's CPU, when it runs on this machine
	brokerOwn  int   // B's established connections to the broker port
	brokerTW   int   // TIME_WAIT sockets to the broker port, any process
	sampleCost time.Duration
}

func orchestrateFailover(s *settings) {
	f := &s.failover
	ctx := context.Background()
	run := strconv.FormatInt(time.Now().Unix(), 36)
	topic, catalogTopic := "bench-"+run, "__sluice_catalog_bench_"+run

	kc, err := newKafkaClient(s.kafka, kgo.ProducerLinger(0), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	must(err)
	defer kc.Close()
	adm := kadm.NewClient(kc)
	_, err = adm.CreateTopic(ctx, 1, 1, map[string]*string{"cleanup.policy": ptr("compact")}, catalogTopic)
	must(err)
	_, err = adm.CreateTopic(ctx, int32(s.partitions), 1, map[string]*string{"retention.ms": ptr("3600000")}, topic)
	must(err)
	defer func() { _, _ = adm.DeleteTopics(context.Background(), runTopics(s, topic, catalogTopic)...) }()
	prepareMetering(ctx, s, adm, run, 1)
	token := catalog(ctx, kc, catalogTopic, topic, jsonEncoding)

	nodes := failoverNodes(s)
	if f.proxy != "" {
		if f.proxy != "haproxy" {
			log.Fatalf("-proxy %q: want haproxy", f.proxy)
		}
		// Behind the proxy each load-generator process is one client address.
		// Bound the connections per address on a node at 1.5 times what one
		// process has on a surviving node after the stop: every client fits
		// only when the node counts them by the X-Forwarded-For address the
		// proxy sets; counted by the peer address (the proxy, 127.0.0.1),
		// a node's share of all clients would be over the bound.
		perProc := (s.clients + s.procs - 1) / s.procs
		bound := perProc*3/(2*(len(nodes)-1)) + 10
		if bound >= s.clients/len(nodes) {
			log.Printf("-proxy: with %d clients over %d nodes the per-address bound (%d) does not test X-Forwarded-For; use more clients or more -procs", s.clients, len(nodes), bound)
		}
		s.gatewayExtra = []string{"-trusted-proxies", "127.0.0.1", "-max-connections-per-address", strconv.Itoa(bound)}
	}
	for i := range nodes {
		nodes[i].cmd = gatewayCmd(s, nodes[i].addr, nodes[i].debug, catalogTopic)
		must(nodes[i].cmd.Start())
	}
	nodeA, nodeB := nodes[0].cmd, nodes[1].cmd
	aExited := make(chan struct{})
	var aExit atomic.Int64 // unix ns
	var aState string
	go func() {
		err := nodeA.Wait()
		aExit.Store(time.Now().UnixNano())
		aState = fmt.Sprint(err)
		if err == nil {
			aState = "exit 0"
		}
		close(aExited)
	}()
	defer func() {
		_ = nodeA.Process.Signal(syscall.SIGTERM)
		<-aExited
		for _, n := range nodes[1:] {
			_ = n.cmd.Process.Signal(syscall.SIGTERM)
			_ = n.cmd.Wait()
		}
	}()
	var urls []string
	for i, n := range nodes {
		waitReady("http://" + n.addr + "/readyz")
		nodes[i].idleRSS = rssKiB(n.cmd.Process.Pid)
		fmt.Printf("node %s pid %d on %s ready; idle RSS %d KiB\n", n.name, n.cmd.Process.Pid, n.addr, nodes[i].idleRSS)
		urls = append(urls, "ws://"+n.addr+"/ws")
	}
	if f.proxy != "" {
		stopProxy, err := startHAProxy(f.proxyAddr, nodes, s.clients*11/10+100)
		must(err)
		defer stopProxy()
		urls = []string{"ws://" + f.proxyAddr + "/ws"}
		fmt.Printf("HAProxy on %s in front of %d nodes\n", f.proxyAddr, len(nodes))
	}
	idleB := nodes[1].idleRSS

	counters := make([]int64, s.keys)
	stopPub, pubDone := make(chan struct{}), make(chan struct{})
	var sent atomic.Int64
	go func() {
		defer close(pubDone)
		publish(kc, topic, counters, s.payload, s.keyPeriod, jsonEncoding, stopPub, &sent)
	}()

	start := time.Now()
	steadyFrom := start.Add(time.Duration(s.clients/max(s.rampPerSec, 1))*time.Second + s.warmup)
	stopAt := steadyFrom.Add(s.measure)
	end := stopAt.Add(f.after)
	clientFlags := []string{"-resume", "-backoff-initial", f.backoffInitial.String(), "-backoff-max", f.backoffMax.String()}
	if f.spread {
		clientFlags = append(clientFlags, "-spread")
	}
	children, outputs := startClients(s, topic, token, strings.Join(urls, ","), stopAt, end, clientFlags...)
	time.Sleep(time.Until(steadyFrom))
	steady0 := sampleNodes(nodes)

	// Node B, sampled every second from 2 s before the stop.
	var samples []stormSample
	var samplesMu sync.Mutex
	stopSampling := make(chan struct{})
	samplingDone := make(chan struct{})
	kafkaPid := listenerPid(s.kafka[strings.LastIndexByte(s.kafka, ':')+1:])
	time.Sleep(time.Until(stopAt.Add(-2 * time.Second)))
	go func() {
		defer close(samplingDone)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			t0 := time.Now()
			smp := stormSample{at: t0, cpuTicks: cpuTicks(nodeB.Process.Pid)}
			if kafkaPid > 0 {
				smp.kafkaTicks = cpuTicksOr0(kafkaPid)
			}
			if f.sampleBrokerSockets {
				smp.brokerOwn, smp.brokerTW = brokerSockets(nodeB.Process.Pid, s.kafka[strings.LastIndexByte(s.kafka, ':')+1:])
			}
			smp.sampleCost = time.Since(t0)
			samplesMu.Lock()
			samples = append(samples, smp)
			samplesMu.Unlock()
			select {
			case <-stopSampling:
				return
			case <-tick.C:
			}
		}
	}()

	time.Sleep(time.Until(stopAt))
	printSteadyWindow(nodes, steady0, sampleNodes(nodes), s.measure)
	connsA := metricSum("http://"+s.gatewayAddr+"/metrics", "sluice_gateway_connections")
	subsA := metricSum("http://"+s.gatewayAddr+"/metrics", "sluice_gateway_subscriptions")
	profileDone := make(chan string, 1)
	if f.profile != "" {
		go func() {
			profileDone <- fetchProfile("http://"+f.debugB+"/debug/pprof/profile?seconds="+strconv.Itoa(f.profileSeconds), f.profile)
		}()
		// Where the catch-ups wait, early in the storm.
		time.AfterFunc(3*time.Second, func() {
			log.Print(fetchProfile("http://"+f.debugB+"/debug/pprof/goroutine?debug=1", f.profile+".goroutines-3s.txt"))
		})
	} else {
		profileDone <- ""
	}
	sig, sigName := syscall.SIGTERM, "SIGTERM"
	if f.kill {
		sig, sigName = syscall.SIGKILL, "SIGKILL"
	}
	stopped := time.Now()
	must(nodeA.Process.Signal(sig))
	fmt.Printf("node A stopped with %s at +%.1fs (%.0f connections, %.0f subscriptions on it); publishing %s more\n",
		sigName, stopped.Sub(start).Seconds(), connsA, subsA, f.after)

	time.Sleep(time.Until(end))
	close(stopPub)
	<-pubDone
	time.Sleep(f.settle)
	close(stopSampling)
	<-samplingDone
	// The surviving nodes, summed (node B alone in the two-node scenario).
	var catchUps, cacheResumes, passes, dropped, connsB float64
	var errFrames []string
	var rssB int64
	for _, n := range nodes[1:] {
		m := "http://" + n.addr + "/metrics"
		catchUps += metricSum(m, "sluice_gateway_catchup_reads_total")
		cacheResumes += metricSum(m, "sluice_gateway_resumes_from_cache_total")
		passes += metricSum(m, "sluice_gateway_catchup_passes_total") // 0 from a gateway older than shared catch-ups
		dropped += metricSum(m, "sluice_gateway_dropped_messages_total")
		errFrames = append(errFrames, n.name+": "+metricLines(m, "sluice_gateway_error_frames_total"))
		connsB += metricSum(m, "sluice_gateway_connections")
		rssB += rssKiB(n.cmd.Process.Pid)
	}
	profileMsg := <-profileDone

	total := collectReports(children, outputs)
	select {
	case <-aExited:
	case <-time.After(15 * time.Second):
		aState = "still running 15 s after the run"
	}

	// Per-client figures, relative to the stop.
	rel := func(ns int64) int64 { return ns - stopped.UnixNano() }
	var notice, resub, first, fresh, firstWait []int64
	var never, neverSub, noFirst, extraOutages, noMsgBefore, behind int
	var missingAtEnd int64
	for _, c := range total.Conns {
		if c.Outages == 0 {
			never++
			continue
		}
		notice = append(notice, rel(c.Down))
		if c.Outages > 1 {
			extraOutages++
		}
		if c.NoMsg {
			noMsgBefore++
		}
		if c.Sub == 0 {
			neverSub++
		} else {
			resub = append(resub, rel(c.Sub))
		}
		if c.First == 0 {
			noFirst++
		} else {
			first = append(first, rel(c.First))
			if c.Sub != 0 {
				// How long the first message waited on B: from when it could
				// be delivered (sent, and the client re-subscribed) to its arrival.
				firstWait = append(firstWait, c.First-max(c.FirstT, c.Sub))
			}
		}
		if c.Fresh != 0 {
			fresh = append(fresh, rel(c.Fresh))
		}
	}
	for _, c := range total.Conns {
		if c.N > 0 && counters[c.K] > c.N {
			behind++
			missingAtEnd += counters[c.K] - c.N
		}
	}

	fmt.Printf("\n== failover (%s), %d clients, %d keys, %d partitions, %d-byte payload, %d processes; reconnect: full jitter, first delay < %s, doubling, cap %s ==\n",
		sigName, s.clients, s.keys, s.partitions, s.payload, len(children), f.backoffInitial, f.backoffMax)
	fmt.Printf("node A:                 %.0f connections at the stop; exited %s after the signal (%s)\n", connsA, since(stopped, aExit.Load()), aState)
	fmt.Printf("clients:                %d connections made, %d subscribed frames; %d disconnected from A (%d closing 1012 frames), %d never disconnected\n",
		total.Connected, total.Subscribed, len(notice), total.Closing1012, never)
	fmt.Printf("                        %d re-subscribed on another node, %d never did; %d got a message after resuming, %d did not; %d had more than one outage; %d resumed from subscribed.seq (no message before the stop); %d failed dials\n",
		len(resub), neverSub, len(first), noFirst, extraOutages, noMsgBefore, total.DialFailures)
	fmt.Printf("stop -> client noticed  ms %s\n", pctLine(notice))
	fmt.Printf("stop -> re-subscribed   ms %s\n", pctLine(resub))
	fmt.Printf("stop -> first message   ms %s\n", pctLine(first))
	fmt.Printf("first message after the resume, from max(its send time, re-subscribed) to arrival  ms %s\n", pctLine(firstWait))
	fmt.Printf("stop -> first message sent after the stop  ms %s\n", pctLine(fresh))
	fmt.Printf("messages:               %d published (%d produce errors); %d received with send time in [stop, stop+%s)\n", sent.Load(), produceErrors.Load(), total.Received, f.after)
	fmt.Printf("lost (holes in n):      %d   duplicates: %d   gaps reported: %d %v   errors: %d\n", total.Lost, total.Duplicates, total.Gaps, total.GapReasons, total.Errors)
	fmt.Printf("missing at the end:     %d messages in %d clients (last n received < last n published, %s after the publisher stopped)\n", missingAtEnd, behind, f.settle)
	fmt.Printf("latency of messages sent after the stop ms p50 %.1f  p99 %.1f  p99.9 %.1f  max %.1f\n",
		total.percentile(0.50), total.percentile(0.99), total.percentile(0.999), float64(total.MaxMicros)/1000)
	fmt.Printf("surviving nodes:        %.0f catch-up reads from Kafka in %.0f passes, %.0f resumes from the cache; %.0f messages dropped (slow consumers); error frames %s; %.0f connections and RSS %d KiB at the end (node B idle %d KiB)\n",
		catchUps, passes, cacheResumes, dropped, strings.Join(errFrames, ", "), connsB, rssB, idleB)
	printStormTimeline(samples, stopped, resub, first, f.sampleBrokerSockets, kafkaPid > 0)
	if profileMsg != "" {
		fmt.Println(profileMsg)
	}
}

// printStormTimeline prints node B's CPU and broker connections per second, with
// how many clients were back by then.
func printStormTimeline(samples []stormSample, stopped time.Time, resub, first []int64, sockets, kafkaCPU bool) {
	if len(samples) < 2 {
		return
	}
	lastBack := stopped.UnixNano()
	if len(first) > 0 {
		lastBack += slices.Max(first)
	}
	var stormTicks, stormKafka int64
	var stormFrom, stormTo time.Time
	maxOwn, twBase := 0, samples[0].brokerTW
	var cost time.Duration
	fmt.Printf("node B per second (t from the stop; CPU %% of one core over the second before; broker = B's connections to the broker; ΔTIME_WAIT = change of TIME_WAIT sockets to the broker port since t=-2, any process):\n")
	fmt.Printf("  %6s %7s %9s %7s %10s %10s %10s\n", "t s", "CPU %", "Kafka CPU", "broker", "ΔTIME_WAIT", "resubscr.", "1st msg")
	for i := 1; i < len(samples); i++ {
		a, b := samples[i-1], samples[i]
		secs := b.at.Sub(a.at).Seconds()
		cpu := 100 * float64(b.cpuTicks-a.cpuTicks) / float64(clockTicks()) / secs
		t := b.at.Sub(stopped)
		cut := t.Nanoseconds()
		brokerCol, twCol, kafkaCol := "-", "-", "-"
		if kafkaCPU {
			kafkaCol = strconv.FormatFloat(100*float64(b.kafkaTicks-a.kafkaTicks)/float64(clockTicks())/secs, 'f', 1, 64)
		}
		if sockets {
			brokerCol, twCol = strconv.Itoa(b.brokerOwn), strconv.Itoa(b.brokerTW-twBase)
		}
		fmt.Printf("  %6.1f %7.1f %9s %7s %10s %10d %10d\n", t.Seconds(), cpu, kafkaCol, brokerCol, twCol, countAtMost(resub, cut), countAtMost(first, cut))
		maxOwn = max(maxOwn, b.brokerOwn)
		cost += b.sampleCost
		if !b.at.Before(stopped) && a.at.UnixNano() <= lastBack {
			if stormFrom.IsZero() {
				stormFrom = a.at
			}
			stormTicks += b.cpuTicks - a.cpuTicks
			stormKafka += b.kafkaTicks - a.kafkaTicks
			stormTo = b.at
		}
	}
	if !stormFrom.IsZero() {
		secs := stormTo.Sub(stormFrom).Seconds()
		fmt.Printf("node B during the storm (%.0f s, until the last client's first message): %.2f s CPU = %.0f%% of a core", secs, float64(stormTicks)/float64(clockTicks()), 100*float64(stormTicks)/float64(clockTicks())/secs)
		if kafkaCPU {
			fmt.Printf("; the broker: %.2f s = %.0f%% of a core", float64(stormKafka)/float64(clockTicks()), 100*float64(stormKafka)/float64(clockTicks())/secs)
		}
		fmt.Println()
	}
	if sockets {
		fmt.Printf("node B's broker connections: at most %d at a sample; sampling cost %.1f ms per sample\n", maxOwn, float64(cost.Microseconds())/1000/float64(len(samples)-1))
	}
}

func countAtMost(sorted []int64, cut int64) int {
	if !sort.SliceIsSorted(sorted, func(i, j int) bool { return sorted[i] < sorted[j] }) {
		slices.Sort(sorted)
	}
	n, _ := slices.BinarySearch(sorted, cut+1)
	return n
}

// pctLine formats p50/p99/max of durations given in ns.
func pctLine(ns []int64) string {
	if len(ns) == 0 {
		return "(none)"
	}
	slices.Sort(ns)
	at := func(q float64) float64 {
		i := int(math.Ceil(q*float64(len(ns)))) - 1
		return float64(ns[max(i, 0)]) / 1e6
	}
	return fmt.Sprintf("p50 %.0f  p90 %.0f  p99 %.0f  max %.0f  (%d clients)", at(0.50), at(0.90), at(0.99), float64(ns[len(ns)-1])/1e6, len(ns))
}

func since(t0 time.Time, ns int64) string {
	if ns == 0 {
		return "?"
	}
	return time.Duration(ns - t0.UnixNano()).Round(time.Millisecond).String()
}

// listenerPid is the pid of the local process listening on port (the Kafka
// broker of the dev stack), or 0.
func listenerPid(port string) int {
	out, err := exec.Command("ss", "-ltnpH", "( sport = :"+port+" )").Output()
	if err != nil {
		return 0
	}
	i := strings.Index(string(out), "pid=")
	if i < 0 {
		return 0
	}
	rest := string(out)[i+4:]
	j := strings.IndexAny(rest, ",)")
	pid, _ := strconv.Atoi(rest[:max(j, 0)])
	return pid
}

func cpuTicksOr0(pid int) int64 {
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/stat", pid)); err != nil {
		return 0
	}
	return cpuTicks(pid)
}

// brokerSockets counts pid's established TCP connections to port (the
// broker's), and all TIME_WAIT sockets to it: the kernel filters by port (ss
// over netlink), pid's socket inodes come from /proc/<pid>/fd.
func brokerSockets(pid int, port string) (own, timeWait int) {
	out, err := exec.Command("ss", "-tnHe", "state", "established", "( dport = :"+port+" )").Output()
	if err != nil {
		return -1, -1
	}
	inodes := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if i := strings.Index(line, "ino:"); i >= 0 {
			rest := line[i+4:]
			if j := strings.IndexByte(rest, ' '); j >= 0 {
				rest = rest[:j]
			}
			inodes[rest] = true
		}
	}
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		link, err := os.Readlink(dir + "/" + e.Name())
		if err == nil && strings.HasPrefix(link, "socket:[") && inodes[link[8:len(link)-1]] {
			own++
		}
	}
	tw, err := exec.Command("ss", "-tnH", "state", "time-wait", "( dport = :"+port+" )").Output()
	if err == nil {
		timeWait = strings.Count(string(tw), "\n")
	}
	return own, timeWait
}

// metricSum adds up every sample of a metric (all label sets) on a /metrics page.
func metricSum(url, name string) float64 {
	var sum float64
	forMetric(url, name, func(_ string, v float64) { sum += v })
	return sum
}

// metricLines lists a labelled metric's samples, e.g. error frames by code.
func metricLines(url, name string) string {
	var parts []string
	forMetric(url, name, func(labels string, v float64) { parts = append(parts, fmt.Sprintf("%s=%.0f", labels, v)) })
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

func forMetric(url, name string, fn func(labels string, v float64)) {
	res, err := http.Get(url)
	if err != nil {
		log.Printf("metrics: %v", err)
		return
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name) || (len(line) > len(name) && line[len(name)] != ' ' && line[len(name)] != '{') {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			continue
		}
		labels := ""
		if i := strings.IndexByte(line, '{'); i >= 0 {
			labels = line[i : strings.IndexByte(line, '}')+1]
		}
		fn(labels, v)
	}
}

// fetchProfile saves a pprof CPU profile and says where it is.
func fetchProfile(url, path string) string {
	res, err := http.Get(url)
	if err != nil {
		return "storm profile: " + err.Error()
	}
	defer res.Body.Close()
	out, err := os.Create(path)
	if err != nil {
		return "storm profile: " + err.Error()
	}
	defer out.Close()
	if _, err := io.Copy(out, res.Body); err != nil {
		return "storm profile: " + err.Error()
	}
	return fmt.Sprintf("node B's CPU profile of the storm: %s (go tool pprof -top %s)", path, path)
}

// failoverNode is one gateway process of the failover scenario.
type failoverNode struct {
	name, addr, debug string
	cmd               *exec.Cmd
	idleRSS           int64
}

// failoverNodes lays out -nodes: A on -gateway-addr, B on -gateway-b-addr,
// the others two ports apart after B.
func failoverNodes(s *settings) []failoverNode {
	f := &s.failover
	if f.nodes < 2 || f.nodes > 26 {
		log.Fatalf("-nodes %d: want 2 to 26", f.nodes)
	}
	nodes := []failoverNode{{name: "A", addr: s.gatewayAddr, debug: s.debugAddr}, {name: "B", addr: f.addrB, debug: f.debugB}}
	host, port, err := net.SplitHostPort(f.addrB)
	must(err)
	p, err := strconv.Atoi(port)
	must(err)
	for i := 2; i < f.nodes; i++ {
		q := p + 2*(i-1)
		nodes = append(nodes, failoverNode{name: string(rune('A' + i)), addr: net.JoinHostPort(host, strconv.Itoa(q)), debug: net.JoinHostPort(host, strconv.Itoa(q+1))})
	}
	return nodes
}

// nodeSample is one node's counters at an instant.
type nodeSample struct {
	cpuTicks         int64
	delivered, conns float64
	rssKiB           int64
}

func sampleNodes(nodes []failoverNode) []nodeSample {
	out := make([]nodeSample, len(nodes))
	for i, n := range nodes {
		m := "http://" + n.addr + "/metrics"
		out[i] = nodeSample{cpuTicks: cpuTicks(n.cmd.Process.Pid), delivered: metricSum(m, "sluice_gateway_messages_out_total"),
			conns: metricSum(m, "sluice_gateway_connections"), rssKiB: rssKiB(n.cmd.Process.Pid)}
	}
	return out
}

// printSteadyWindow prints each node's share of the steady window before the
// stop: what scaling out is judged on (the CPU per delivered message of each
// node should not grow with the number of nodes).
func printSteadyWindow(nodes []failoverNode, a, b []nodeSample, window time.Duration) {
	secs := window.Seconds()
	fmt.Printf("steady window (%s before the stop), per node:\n", window)
	fmt.Printf("  %4s %12s %14s %8s %18s %22s\n", "node", "connections", "delivered/s", "CPU %", "µs per delivered", "RSS KiB per conn (above idle)")
	var ticks int64
	var delivered, conns float64
	var rss, idle int64
	for i, n := range nodes {
		d := b[i].delivered - a[i].delivered
		t := b[i].cpuTicks - a[i].cpuTicks
		cpuSec := float64(t) / float64(clockTicks())
		perMsg := 0.0
		if d > 0 {
			perMsg = cpuSec / d * 1e6
		}
		perConn, aboveIdle := 0.0, 0.0
		if b[i].conns > 0 {
			perConn = float64(b[i].rssKiB) / b[i].conns
			aboveIdle = float64(b[i].rssKiB-n.idleRSS) / b[i].conns
		}
		fmt.Printf("  %4s %12.0f %14.0f %8.1f %18.2f %14.1f (%.1f)\n", n.name, b[i].conns, d/secs, 100*cpuSec/secs, perMsg, perConn, aboveIdle)
		ticks += t
		delivered += d
		conns += b[i].conns
		rss += b[i].rssKiB
		idle += n.idleRSS
	}
	if delivered > 0 && conns > 0 {
		fmt.Printf("  %4s %12.0f %14.0f %8.1f %18.2f %14.1f (%.1f)\n", "all", conns, delivered/secs, 100*float64(ticks)/float64(clockTicks())/secs,
			float64(ticks)/float64(clockTicks())/delivered*1e6, float64(rss)/conns, float64(rss-idle)/conns)
	}
}
