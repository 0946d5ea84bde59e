package quota

import (
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/catalog"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

type limitsOf map[string][]catalog.Limit

func (l limitsOf) AppLimits(app string) []catalog.Limit { return l[app] }

type peersOf map[string]int

func (p peersOf) Connections(app string) int { return p[app] }

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newEnforcer(l limitsOf, p Peers) (*Enforcer, *clock) {
	e := New(l, p)
	c := &clock{t: time.Unix(1_795_000_000, 0)}
	e.now = c.now
	return e, c
}

var plans = limitsOf{
	"free": {
		{Plan: "p-free", Name: "free", Patterns: []string{"/prices/*"}, Connections: 2, SubscriptionsPerConn: 2, PublishPerSecond: 3, DeliveredPerSecond: 5},
		{Plan: "p-orders", Patterns: []string{"/orders/eu"}, Connections: 3},
	},
	"gold": {{Plan: "p-gold", Patterns: []string{"/*"}}},
}

func TestPlanForIsTheFirstMatchingPlan(t *testing.T) {
	e, _ := newEnforcer(plans, nil)
	for path, want := range map[string]string{"/prices/AAPL": "p-free", "/orders/eu": "p-orders", "/orders/us": "", "/prices": ""} {
		got := ""
		if p := e.PlanFor("free", path); p != nil {
			got = p.Plan
		}
		if got != want {
			t.Errorf("%s: plan %q, want %q", path, got, want)
		}
	}
	if e.PlanFor("other", "/prices/AAPL") != nil || e.PlanFor("free", "/prices/A") != e.PlanFor("free", "/prices/B") {
		t.Fatal("plans are per app, compiled once")
	}
}

func TestConnectionsAreCountedHereAndReportedByPeers(t *testing.T) {
	peers := peersOf{}
	e, _ := newEnforcer(plans, peers)
	// free's limit is its largest plan's: 3.
	for i := range 3 {
		if err := e.Open("free"); err != nil {
			t.Fatalf("connection %d: %v", i+1, err)
		}
	}
	if err := e.Open("free"); err == nil || err.Code != protocol.CodeConnectionLimit {
		t.Fatalf("a fourth: %v", err)
	}
	if err := e.Open("gold"); err != nil {
		t.Fatalf("another app is not affected: %v", err)
	}
	e.Close("free")
	e.Close("free")
	peers["free"] = 2 // another node has two
	if err := e.Open("free"); err == nil {
		t.Fatal("1 here + 2 elsewhere is the limit")
	}
	peers["free"] = 1
	if err := e.Open("free"); err != nil {
		t.Fatalf("1 here + 1 elsewhere: %v", err)
	}
	for range 100 {
		if err := e.Open("gold"); err != nil {
			t.Fatal("a plan without a connection limit has none")
		}
	}
}

func TestSubscriptionsPerConnection(t *testing.T) {
	e, _ := newEnforcer(plans, nil)
	p := e.PlanFor("free", "/prices/A")
	if p.AdmitSubscription(1) != nil {
		t.Fatal("a second subscription")
	}
	if err := p.AdmitSubscription(2); err == nil || err.Code != protocol.CodeSubscriptionLimit {
		t.Fatalf("a third: %v", err)
	}
	if e.PlanFor("free", "/orders/eu").AdmitSubscription(100) != nil {
		t.Fatal("a plan without the limit")
	}
}

func TestRatesRefillAndFollowTheNodesShare(t *testing.T) {
	peers := peersOf{}
	e, c := newEnforcer(plans, peers)
	p := e.PlanFor("free", "/prices/A")
	for i := range 3 {
		if err := p.AdmitPublish(); err != nil {
			t.Fatalf("publish %d: %v", i+1, err)
		}
	}
	if err := p.AdmitPublish(); err == nil || err.Code != protocol.CodePublishRate {
		t.Fatalf("a fourth within the second: %v", err)
	}
	c.t = c.t.Add(400 * time.Millisecond)
	if p.AdmitPublish() != nil {
		t.Fatal("0.4 s refills one")
	}
	// Deliveries: 5 a second.
	n := 0
	for p.AdmitDelivery(100) {
		n++
	}
	if n != 5 {
		t.Fatalf("%d deliveries in a second, want 5", n)
	}
	// Half the app's connections are elsewhere: half the rate here.
	if e.Open("free") != nil {
		t.Fatal("open")
	}
	peers["free"] = 1
	c.t = c.t.Add(2 * time.Second)
	n = 0
	for p.AdmitDelivery(100) {
		n++
	}
	if n != 2 { // 2.5 tokens
		t.Fatalf("%d deliveries with half the connections, want 2", n)
	}
}

func TestByteRatesLetALargeMessageThroughAFullBucket(t *testing.T) {
	e, c := newEnforcer(limitsOf{"a": {{Plan: "p", Patterns: []string{"/*"}, DeliveredBytesPerSecond: 1000}}}, nil)
	p := e.PlanFor("a", "/x/y")
	if !p.Limited() || !p.AdmitDelivery(5000) {
		t.Fatal("a message larger than a second's bytes passes a full bucket")
	}
	c.t = c.t.Add(time.Second)
	if p.AdmitDelivery(10) {
		t.Fatal("the large message's debt is paid first")
	}
}

func TestANilEnforcerLimitsNothing(t *testing.T) {
	var e *Enforcer
	if e.Open("a") != nil || e.PlanFor("a", "/x") != nil || e.HasPlans("a") {
		t.Fatal()
	}
	e.Close("a")
	var p *Plan
	if p.AdmitPublish() != nil || p.AdmitSubscription(9) != nil || !p.AdmitDelivery(9) || p.Limited() {
		t.Fatal()
	}
}
