package node

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"regexp"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/config"
)

// The Grafana dashboard (deploy/grafana) names only metrics a gateway node
// exposes: a renamed or removed metric fails here, not as an empty panel.
func TestTheGrafanaDashboardNamesOnlyExistingMetrics(t *testing.T) {
	cfg := config.Defaults()
	cfg.Addr = "127.0.0.1:0"
	n, _, err := Build(cfg, slog.New(slog.NewTextHandler(io.Discard, nil))) // not started: Kafka is not dialled
	if err != nil {
		t.Fatal(err)
	}
	n.Metrics.Connections.WithLabelValues("ws") // vectors appear once they have a child
	n.Metrics.FrameErrors.WithLabelValues("4000")
	n.Metrics.QuotaRefusals.WithLabelValues("publish")
	families, err := n.Metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	exposed := map[string]bool{}
	for _, f := range families {
		exposed[f.GetName()] = true
		if f.GetType().String() == "HISTOGRAM" {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				exposed[f.GetName()+suffix] = true
			}
		}
	}

	b, err := os.ReadFile("../../../../deploy/grafana/sluice-gateway.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		UID    string `json:"uid"`
		Panels []struct {
			Type, Title string
			Targets     []struct{ Expr string }
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	metric := regexp.MustCompile(`\b(?:sluice|go|process)_[a-z0-9_]+\b`)
	queries, named := 0, 0
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			queries++
			names := metric.FindAllString(q.Expr, -1)
			if len(names) == 0 {
				t.Errorf("panel %q: the query %q names no metric", p.Title, q.Expr)
			}
			for _, name := range names {
				named++
				if !exposed[name] {
					t.Errorf("panel %q: %s is not a metric the gateway exposes", p.Title, name)
				}
			}
		}
	}
	if dash.UID == "" || queries < 15 || named < queries {
		t.Fatalf("uid %q, %d queries naming %d metrics", dash.UID, queries, named)
	}
}
