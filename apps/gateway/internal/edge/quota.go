package edge

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/quota"
	"github.com/sluicehq/sluice/apps/gateway/internal/usage"
)

// This file applies the apps' plans (package quota) where the edge serves
// them: a session is admitted against the app's connection limit, a
// subscription against its plan's subscriptions per connection, a publish
// against its publish rate, and each message for a session against its
// delivery rates (refused messages become a gap with reason "quota").

// admit admits a new session of app against its connection limit.
func (s *Edge) admit(app string) *protocol.Error {
	perr := s.opt.Quota.Open(app)
	if perr != nil {
		s.opt.Meter.App(app).RefusedConnection()
		s.opt.Metrics.QuotaRefusals.WithLabelValues("connection").Inc()
	}
	return perr
}

// admitSubscription checks a subscription of app to path against its plan,
// given the paths the session already subscribes to.
func (s *Edge) admitSubscription(app, path string, current []string) *protocol.Error {
	plan := s.opt.Quota.PlanFor(app, path)
	if plan == nil || plan.SubscriptionsPerConn == 0 {
		return nil
	}
	under := 0
	for _, p := range current {
		if s.opt.Quota.PlanFor(app, p) == plan {
			under++
		}
	}
	perr := plan.AdmitSubscription(under)
	if perr != nil {
		s.opt.Meter.App(app).Endpoint(endpointOf(s.opt.Catalog, path)).Refused(usage.RefusedSubscription, 1)
		s.opt.Metrics.QuotaRefusals.WithLabelValues("subscription").Inc()
	}
	return perr
}

// admitPublish takes a publish of app to path from its plan's rate.
func (s *Edge) admitPublish(app, path string) *protocol.Error {
	perr := s.opt.Quota.PlanFor(app, path).AdmitPublish()
	if perr != nil {
		s.opt.Meter.App(app).Endpoint(endpointOf(s.opt.Catalog, path)).Refused(usage.RefusedPublish, 1)
		s.opt.Metrics.QuotaRefusals.WithLabelValues("publish").Inc()
	}
	return perr
}

// limitDeliveries makes q apply app's delivery rates when the app has plans
// (a session of an app without any costs nothing per message; one made before
// the app got its first plan is not rate limited).
func (s *Edge) limitDeliveries(q *outQueue, app string) {
	if !s.opt.Quota.HasPlans(app) {
		return
	}
	q.mu.Lock()
	q.quota = &deliveryQuota{edge: s, app: app, byPath: map[string]deliveryPlan{}, refusedDeliveries: s.opt.Metrics.QuotaRefusals.WithLabelValues("delivery")}
	q.mu.Unlock()
}

// deliveryQuota is a session's view of its app's delivery rates: the plan of
// each path it is sent, looked up once a second. Used under outQueue.mu.
type deliveryQuota struct {
	edge *Edge
	app  string
	// refusedDeliveries is the metric's child, looked up once.
	refusedDeliveries prometheus.Counter
	byPath            map[string]deliveryPlan
	// runs are the gaps of refused messages not yet taken by the writer, by
	// endpoint and place: a refused message extends its run's gap.
	runs map[runKey]*protocol.Gap
}

type deliveryPlan struct {
	plan  *quota.Plan
	usage *usage.Endpoint
	at    time.Time
}

type runKey struct {
	endpoint, epoch string
	partition       int32
}

// admit reports whether f may be delivered; when not, it records the refusal
// and returns the gap to queue in its place (nil when the refusal extends a
// gap already queued).
func (d *deliveryQuota) admit(f *hub.Frame, now time.Time) (ok bool, gap *protocol.Gap) {
	dp, found := d.byPath[f.Endpoint]
	if !found || now.Sub(dp.at) >= time.Second {
		if len(d.byPath) >= maxMeteredPaths {
			clear(d.byPath)
		}
		dp = deliveryPlan{plan: d.edge.opt.Quota.PlanFor(d.app, f.Endpoint), at: now}
		if dp.plan.Limited() {
			dp.usage = d.edge.opt.Meter.App(d.app).Endpoint(endpointOf(d.edge.opt.Catalog, f.Endpoint))
		}
		d.byPath[f.Endpoint] = dp
	}
	k := runKey{f.Endpoint, f.Epoch, f.Partition}
	if !dp.plan.Limited() || dp.plan.AdmitDelivery(len(f.JSON())) {
		if d.runs != nil {
			delete(d.runs, k) // a delivered message ends the run
		}
		return true, nil
	}
	dp.usage.Refused(usage.RefusedDelivered, 1)
	d.refusedDeliveries.Inc()
	if g := d.runs[k]; g != nil {
		g.ToSeq = f.Seq + 1 // the endpoint's messages in between were refused too
		return false, nil
	}
	if d.runs == nil {
		d.runs = map[runKey]*protocol.Gap{}
	}
	g := &protocol.Gap{Type: "gap", Endpoint: f.Endpoint, Epoch: f.Epoch, Partition: f.Partition, FromSeq: f.Seq, ToSeq: f.Seq + 1, Reason: "quota"}
	d.runs[k] = g
	return false, g
}

// taken forgets the runs: their gaps went to the writer, so a later refusal
// starts a new one.
func (d *deliveryQuota) taken() { clear(d.runs) }
