package edge

import (
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/catalog"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/usage"
)

// pathResolver serves /prices/{s} and /news/{n}.
type pathResolver struct{}

func (pathResolver) Resolve(p protocol.Path) *catalog.Endpoint {
	switch p.Topic {
	case "prices":
		return &catalog.Endpoint{ID: "e-prices", Path: "/prices/{s}"}
	case "news":
		return &catalog.Endpoint{ID: "e-news", Path: "/news/{n}"}
	}
	return nil
}

// A session's meter resolves each path to its catalog endpoint once, and
// keeps no map while the session is sent one path only (most are): a map per
// session was a few hundred bytes of every connection.
func TestDeliveryMeterResolvesEachPathOnceAndMapsOnlyASecond(t *testing.T) {
	app := usage.NewMeter().App("a1")
	d := newDeliveryMeter(app, pathResolver{})
	prices := app.Endpoint("e-prices", "/prices/{s}")
	news := app.Endpoint("e-news", "/news/{n}")
	if got := d.endpoint("/prices/AAPL"); got != prices {
		t.Fatalf("/prices/AAPL: %p, want the prices endpoint %p", got, prices)
	}
	if d.endpoint("/prices/AAPL") != prices || d.byPath != nil {
		t.Fatalf("one path: map %v, want none", d.byPath)
	}
	if got := d.endpoint("/news/1"); got != news {
		t.Fatalf("/news/1: %p, want the news endpoint %p", got, news)
	}
	if len(d.byPath) != 2 || d.byPath["/prices/AAPL"] != prices || d.byPath["/news/1"] != news {
		t.Fatalf("two paths: map %v, want both", d.byPath)
	}
	if d.endpoint("/prices/AAPL") != prices || d.endpoint("/news/1") != news || d.endpoint("/prices/MSFT") != prices {
		t.Fatal("alternating paths resolve to the wrong endpoints")
	}
	if got := d.endpoint("/gone/x"); got != app.Endpoint("", "/gone/x") {
		t.Fatalf("a path the catalog does not serve: %p, want the app's counters under the path itself", got)
	}
}
