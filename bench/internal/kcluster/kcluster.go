// Package kcluster runs a local three-node Apache Kafka (KRaft) for the fault
// scenarios of the benchmarks: every node is a combined broker and controller
// (process.roles=broker,controller) in a JVM of its own with a small heap, the
// three controllers form a static 3-voter quorum, and the cluster replicates
// like a production one (default replication factor 3, min.insync.replicas 2,
// unclean leader election off). A benchmark starts it, kills, stops, pauses and
// restarts single nodes, and removes it at the end.
//
// The jars are the ones the stack launcher caches (packages/stack/src/kafka.ts):
// <repo>/.sluice/cache/kafka-4.1.1/libs, filled by `./sluice start` once.
package kcluster

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// KafkaVersion is the version whose jars the stack caches.
const KafkaVersion = "4.1.1"

// ErrNoKafka means the jars or java are missing: a caller (a test) may skip.
var ErrNoKafka = errors.New("kcluster: Kafka jars or java not found")

// Options lay out the cluster. Zero values take the defaults.
type Options struct {
	// Dir holds the nodes' properties, data and logs; default: a new temporary
	// directory, removed by Close (a given one, empty or absent, is kept).
	Dir string
	// Nodes is the number of combined broker+controller nodes (default 3).
	Nodes int
	// BasePort: node i listens for clients on BasePort+2i and for the
	// controller quorum on BasePort+2i+1 (default 39190).
	BasePort int
	// Host is the listen and advertised address (default 127.0.0.1).
	Host string
	// Heap is -Xmx of each JVM (default 512m; -Xms is half of it).
	Heap string
	// Libs is the directory of Kafka's jars (default: $SLUICE_KAFKA_LIBS, else
	// .sluice/cache/kafka-4.1.1/libs in this checkout or its main worktree).
	Libs string
	// Java is the java binary (default: $SLUICE_JAVA, $JAVA_HOME/bin/java, java).
	Java string
}

// Cluster is a running local cluster. Its methods are safe for concurrent use.
type Cluster struct {
	opts    Options
	ownDir  bool
	nodes   []*node
	admin   *kadm.Client
	kclient *kgo.Client
}

// node is one JVM; cmd and exited change on every (re)start.
type node struct {
	id         int // Kafka node.id: index + 1
	port       int
	props, log string
	mu         sync.Mutex
	cmd        *exec.Cmd
	exited     chan struct{}
}

// Start formats the nodes' storage and starts every node, returning once the
// cluster answers with all its brokers registered.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	c := &Cluster{opts: opts}
	if c.opts.Dir == "" {
		dir, err := os.MkdirTemp("", "sluice-kcluster-")
		if err != nil {
			return nil, err
		}
		c.opts.Dir, c.ownDir = dir, true
	} else if err := os.MkdirAll(c.opts.Dir, 0o755); err != nil {
		return nil, err
	}
	for i := range opts.Nodes {
		n := &node{id: i + 1, port: opts.BasePort + 2*i}
		n.props = filepath.Join(c.opts.Dir, fmt.Sprintf("node-%d.properties", n.id))
		n.log = filepath.Join(c.opts.Dir, fmt.Sprintf("node-%d.log", n.id))
		if err := os.WriteFile(n.props, []byte(c.opts.properties(i, filepath.Join(c.opts.Dir, fmt.Sprintf("data-%d", n.id)))), 0o644); err != nil {
			return nil, c.fail(err)
		}
		c.nodes = append(c.nodes, n)
	}
	if err := c.format(ctx); err != nil {
		return nil, c.fail(err)
	}
	for i := range c.nodes {
		if err := c.Start(i); err != nil {
			return nil, c.fail(err)
		}
	}
	if err := c.waitBrokers(ctx, 120*time.Second); err != nil {
		return nil, c.fail(err)
	}
	var err error
	c.kclient, err = kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.RequestRetries(2))
	if err != nil {
		return nil, c.fail(err)
	}
	c.admin = kadm.NewClient(c.kclient)
	if err := c.waitWritable(ctx, 120*time.Second); err != nil {
		return nil, c.fail(err)
	}
	return c, nil
}

func (o *Options) defaults() error {
	if o.Nodes == 0 {
		o.Nodes = 3
	}
	if o.BasePort == 0 {
		o.BasePort = 39190
	}
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.Heap == "" {
		o.Heap = "512m"
	}
	if o.Java == "" {
		o.Java = defaultJava()
	}
	if _, err := exec.LookPath(o.Java); err != nil {
		return fmt.Errorf("%w: java (%s): %v; install Java 17+ or set SLUICE_JAVA", ErrNoKafka, o.Java, err)
	}
	if o.Libs == "" {
		libs, err := FindLibs()
		if err != nil {
			return err
		}
		o.Libs = libs
	}
	return nil
}

func defaultJava() string {
	if j := os.Getenv("SLUICE_JAVA"); j != "" {
		return j
	}
	if h := os.Getenv("JAVA_HOME"); h != "" {
		return filepath.Join(h, "bin", "java")
	}
	return "java"
}

// FindLibs finds the stack's cached Kafka jars: $SLUICE_KAFKA_LIBS, or
// .sluice/cache/kafka-<version>/libs in the working directory, one of its
// parents, or the main worktree of the checkout (a `git worktree` has no
// .sluice of its own).
func FindLibs() (string, error) {
	if l := os.Getenv("SLUICE_KAFKA_LIBS"); l != "" {
		return l, nil
	}
	rel := filepath.Join(".sluice", "cache", "kafka-"+KafkaVersion, "libs")
	var roots []string
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			roots = append(roots, d)
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if out, err := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-common-dir").Output(); err == nil {
		roots = append(roots, filepath.Dir(strings.TrimSpace(string(out))))
	}
	for _, r := range roots {
		libs := filepath.Join(r, rel)
		if _, err := os.Stat(filepath.Join(libs, ".complete")); err == nil {
			return libs, nil
		}
	}
	return "", fmt.Errorf("%w: no %s in this checkout or its main worktree: run `./sluice start` once (it fetches Kafka's jars), or set SLUICE_KAFKA_LIBS", ErrNoKafka, rel)
}

// properties is node i's server.properties.
func (o *Options) properties(i int, dataDir string) string {
	var voters []string
	for j := range o.Nodes {
		voters = append(voters, fmt.Sprintf("%d@%s:%d", j+1, o.Host, o.BasePort+2*j+1))
	}
	rf := min(3, o.Nodes)
	isr := max(1, rf-1)
	lines := []string{
		"# Written by bench/internal/kcluster for one run.",
		"process.roles=broker,controller",
		"node.id=" + strconv.Itoa(i+1),
		// A static quorum: every node is a voter from the start, so one format
		// with the cluster id is enough (no --initial-controllers).
		"controller.quorum.voters=" + strings.Join(voters, ","),
		"controller.listener.names=CONTROLLER",
		"inter.broker.listener.name=PLAINTEXT",
		fmt.Sprintf("listeners=PLAINTEXT://%s:%d,CONTROLLER://%s:%d", o.Host, o.BasePort+2*i, o.Host, o.BasePort+2*i+1),
		fmt.Sprintf("advertised.listeners=PLAINTEXT://%s:%d", o.Host, o.BasePort+2*i),
		"listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
		"log.dirs=" + dataDir,
		"num.partitions=3",
		"default.replication.factor=" + strconv.Itoa(rf),
		"min.insync.replicas=" + strconv.Itoa(isr),
		"auto.create.topics.enable=false",
		// An acknowledged write must survive a leader's loss: only an in-sync
		// replica may become leader.
		"unclean.leader.election.enable=false",
		"offsets.topic.replication.factor=" + strconv.Itoa(rf),
		"offsets.topic.num.partitions=3",
		"transaction.state.log.replication.factor=" + strconv.Itoa(rf),
		"transaction.state.log.min.isr=" + strconv.Itoa(isr),
		"transaction.state.log.num.partitions=1",
		"share.coordinator.state.topic.replication.factor=" + strconv.Itoa(rf),
		"share.coordinator.state.topic.min.isr=" + strconv.Itoa(isr),
		"group.initial.rebalance.delay.ms=0",
		"log.retention.hours=24",
		// A node that comes back gives its partitions' leadership back soon
		// (the default check is every 300 s): the scenarios find a balanced
		// cluster again after their recovery wait.
		"leader.imbalance.check.interval.seconds=10",
	}
	return strings.Join(lines, "\n") + "\n"
}

// jvm is a command running a Kafka main class with the cluster's JVM options.
func (c *Cluster) jvm(ctx context.Context, heap string, mainClass string, args ...string) *exec.Cmd {
	xms := heap
	if n, err := strconv.Atoi(strings.TrimSuffix(heap, "m")); err == nil && strings.HasSuffix(heap, "m") {
		xms = strconv.Itoa(max(n/2, 64)) + "m"
	}
	full := append([]string{
		"-Xmx" + heap, "-Xms" + xms, "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
		"-Djava.awt.headless=true",
		// slf4j-simple (the stack's jars): warnings and errors, and the lines
		// that say a node is up or shutting down.
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
		"-Dorg.slf4j.simpleLogger.log.kafka.server.KafkaRaftServer=info",
		"-Dorg.slf4j.simpleLogger.showDateTime=true",
		"-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
		"-cp", filepath.Join(c.opts.Libs, "*"), mainClass,
	}, args...)
	cmd := exec.CommandContext(ctx, c.opts.Java, full...)
	cmd.Dir = c.opts.Dir
	// If the benchmark dies, its JVMs die with it (Linux; tied to the thread
	// that started them, which the Go runtime does not end while it runs).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}

// format writes every node's storage with one new cluster id, in parallel.
func (c *Cluster) format(ctx context.Context) error {
	id := newClusterID()
	errs := make([]error, len(c.nodes))
	var wg sync.WaitGroup
	for i, n := range c.nodes {
		wg.Go(func() {
			cmd := c.jvm(ctx, "256m", "kafka.tools.StorageTool", "format", "-t", id, "-c", n.props)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("formatting node %d: %v: %s", n.id, err, out)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// newClusterID is 16 random bytes in URL-safe base64 without padding, not
// starting with "-" (the storage tool would read it as an option).
func newClusterID() string {
	for {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		if id := base64.RawURLEncoding.EncodeToString(b); id[0] != '-' {
			return id
		}
	}
}

// Brokers are the client listeners of every node.
func (c *Cluster) Brokers() []string {
	var out []string
	for _, n := range c.nodes {
		out = append(out, net.JoinHostPort(c.opts.Host, strconv.Itoa(n.port)))
	}
	return out
}

// Bootstrap is Brokers as one comma-separated list.
func (c *Cluster) Bootstrap() string { return strings.Join(c.Brokers(), ",") }

// Dir is where the properties, data and logs (node-<id>.log) are.
func (c *Cluster) Dir() string { return c.opts.Dir }

// Size is the number of nodes.
func (c *Cluster) Size() int { return len(c.nodes) }

// NodeID is Kafka's node.id of node i (index + 1).
func (c *Cluster) NodeID(i int) int32 { return int32(c.nodes[i].id) }

// Pid is node i's process id, or 0 when it is not running.
func (c *Cluster) Pid(i int) int {
	n := c.nodes[i]
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil || isClosed(n.exited) {
		return 0
	}
	return n.cmd.Process.Pid
}

// Start (re)starts node i with the data it has; a running node is left alone.
func (c *Cluster) Start(i int) error {
	n := c.nodes[i]
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd != nil && !isClosed(n.exited) {
		return nil
	}
	logf, err := os.OpenFile(n.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(logf, "==== kcluster: starting node %d at %s\n", n.id, time.Now().Format(time.RFC3339Nano))
	cmd := c.jvm(context.Background(), c.opts.Heap, "kafka.Kafka", n.props)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("starting node %d: %w", n.id, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(exited)
	}()
	n.cmd, n.exited = cmd, exited
	return nil
}

// signal sends sig to node i and returns its exit channel (nil: not running).
func (c *Cluster) signal(i int, sig syscall.Signal) (<-chan struct{}, error) {
	n := c.nodes[i]
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil || isClosed(n.exited) {
		return nil, nil
	}
	return n.exited, n.cmd.Process.Signal(sig)
}

// Kill ends node i with SIGKILL (no shutdown at all) and waits for it to exit.
func (c *Cluster) Kill(i int) error {
	exited, err := c.signal(i, syscall.SIGKILL)
	if exited != nil {
		<-exited
	}
	return err
}

// Stop ends node i with SIGTERM (a controlled shutdown: it hands its
// leaderships over first) and waits for it; after timeout it kills it and
// says so.
func (c *Cluster) Stop(i int, timeout time.Duration) error {
	// A stopped (SIGSTOPped) JVM would never see the SIGTERM.
	_, _ = c.signal(i, syscall.SIGCONT)
	exited, err := c.signal(i, syscall.SIGTERM)
	if exited == nil || err != nil {
		return err
	}
	select {
	case <-exited:
		return nil
	case <-time.After(timeout):
		_ = c.Kill(i)
		return fmt.Errorf("node %d did not stop within %s of SIGTERM; killed", c.nodes[i].id, timeout)
	}
}

// Pause freezes node i (SIGSTOP): its sockets stay open and silent, as behind
// a network stall.
func (c *Cluster) Pause(i int) error {
	_, err := c.signal(i, syscall.SIGSTOP)
	return err
}

// Resume lets a paused node i go on (SIGCONT).
func (c *Cluster) Resume(i int) error {
	_, err := c.signal(i, syscall.SIGCONT)
	return err
}

// Admin is an admin client of the cluster (closed by Close).
func (c *Cluster) Admin() *kadm.Client { return c.admin }

// NodeIndex is the index of the node with Kafka node.id id, or -1.
func (c *Cluster) NodeIndex(id int32) int {
	return slices.IndexFunc(c.nodes, func(n *node) bool { return int32(n.id) == id })
}

// LeaderOf is the index of the node leading topic's partition (-1: none).
func (c *Cluster) LeaderOf(ctx context.Context, topic string, partition int32) (int, error) {
	leaders, err := c.Leaders(ctx, topic)
	if err != nil {
		return -1, err
	}
	l, ok := leaders[partition]
	if !ok {
		return -1, fmt.Errorf("%s has no partition %d", topic, partition)
	}
	return l, nil
}

// Leaders maps each partition of topic to the index of its leader's node (-1: none).
func (c *Cluster) Leaders(ctx context.Context, topic string) (map[int32]int, error) {
	md, err := c.admin.Metadata(ctx, topic)
	if err != nil {
		return nil, err
	}
	td, ok := md.Topics[topic]
	if !ok || td.Err != nil {
		return nil, fmt.Errorf("metadata of %s: %v", topic, td.Err)
	}
	out := map[int32]int{}
	for p, d := range td.Partitions {
		out[p] = c.NodeIndex(d.Leader)
	}
	return out, nil
}

// Healthy reports whether every partition of topics has every node in its ISR
// (and a leader); not says which partition is not, for messages.
func (c *Cluster) Healthy(ctx context.Context, topics ...string) (ok bool, not string, err error) {
	md, err := c.admin.Metadata(ctx, topics...)
	if err != nil {
		return false, "", err
	}
	for _, t := range topics {
		td, found := md.Topics[t]
		if !found || td.Err != nil {
			return false, t + ": not in the metadata", nil
		}
		for _, d := range td.Partitions.Sorted() {
			if d.Leader < 0 || len(d.ISR) < len(d.Replicas) || len(d.Replicas) < min(3, len(c.nodes)) {
				return false, fmt.Sprintf("%s/%d leader %d ISR %v of %v", t, d.Partition, d.Leader, d.ISR, d.Replicas), nil
			}
		}
	}
	return true, "", nil
}

// WaitHealthy waits until every partition of topics has all its replicas in
// sync again (see Healthy), or timeout.
func (c *Cluster) WaitHealthy(ctx context.Context, timeout time.Duration, topics ...string) error {
	deadline := time.Now().Add(timeout)
	var last string
	for {
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		ok, not, err := c.Healthy(qctx, topics...)
		cancel()
		if ok {
			return nil
		}
		if err != nil {
			last = err.Error()
		} else {
			last = not
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster not healthy after %s: %s", timeout, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// waitBrokers waits until the cluster lists every node as a broker. Each try
// asks with a new client: a client made while the nodes were starting kept
// answering from a node that listed only itself (seen once in three starts).
func (c *Cluster) waitBrokers(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := c.brokersRegistered(ctx)
		if err == nil {
			return nil
		}
		for i, n := range c.nodes {
			if c.Pid(i) == 0 {
				return fmt.Errorf("node %d exited during start; see %s", n.id, n.log)
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster not up after %s (%v)", timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (c *Cluster) brokersRegistered(ctx context.Context) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.RequestRetries(0))
	if err != nil {
		return err
	}
	defer cl.Close()
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	md, err := kadm.NewClient(cl).BrokerMetadata(qctx)
	if err != nil {
		return err
	}
	if len(md.Brokers) != len(c.nodes) {
		return fmt.Errorf("brokers %v of %d registered", md.Brokers.NodeIDs(), len(c.nodes))
	}
	return nil
}

// readyTopic is written once at start to know the cluster takes writes.
const readyTopic = "__kcluster_ready"

// waitWritable waits until an idempotent acks=all write to an RF-3 topic
// succeeds. Registered brokers are not enough: for a moment after that the
// brokers answer a producer's InitProducerID with COORDINATOR_LOAD_IN_PROGRESS,
// and a benchmark's first timings should not include that.
func (c *Cluster) waitWritable(ctx context.Context, timeout time.Duration) error {
	rf := int16(min(3, len(c.nodes)))
	if _, err := c.admin.CreateTopic(ctx, 1, rf, nil, readyTopic); err != nil {
		return fmt.Errorf("creating %s: %w", readyTopic, err)
	}
	deadline := time.Now().Add(timeout)
	for {
		cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.RequiredAcks(kgo.AllISRAcks()), kgo.DefaultProduceTopic(readyTopic))
		if err != nil {
			return err
		}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err = cl.ProduceSync(pctx, kgo.StringRecord("ready")).FirstErr()
		cancel()
		cl.Close()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster takes no writes after %s: %w", timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// Close kills every node (the data is thrown away, so no shutdown is owed to
// it) and removes the directory if Start made it.
func (c *Cluster) Close() error {
	if c.kclient != nil {
		c.kclient.Close()
	}
	for i := range c.nodes {
		_ = c.Kill(i)
	}
	if c.ownDir {
		return os.RemoveAll(c.opts.Dir)
	}
	return nil
}

// fail cleans up after a failed Start.
func (c *Cluster) fail(err error) error {
	// Keep the logs of a failed start: they say why.
	c.ownDir = false
	_ = c.Close()
	return fmt.Errorf("%w (logs in %s)", err, c.opts.Dir)
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
