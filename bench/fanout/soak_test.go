package main

import (
	"math"
	"testing"
	"time"
)

func TestSlopePerHour(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	var xs []soakSample
	for i := 0; i < 7; i++ { // +100 KiB every 10 minutes, with noise that cancels out
		noise := []float64{3, -3, 0, 2, -2, 1, -1}[i]
		xs = append(xs, soakSample{at: t0.Add(time.Duration(i) * 10 * time.Minute), rss: 1000 + 100*float64(i) + noise})
	}
	got := slopePerHour(xs, func(x soakSample) float64 { return x.rss })
	if math.Abs(got-600) > 5 {
		t.Fatalf("slope %.1f KiB/hour, want about 600", got)
	}
	if flat := slopePerHour(xs[:1], func(x soakSample) float64 { return x.rss }); flat != 0 {
		t.Fatalf("one sample: slope %.1f, want 0", flat)
	}
}

func TestSoakChurnParse(t *testing.T) {
	for in, want := range map[string]float64{"1%": 0.01, "0.05": 0.05, "": 0} {
		k := soakSettings{churn: in}
		k.parse()
		if math.Abs(k.frac-want) > 1e-12 {
			t.Errorf("-churn %q: %g, want %g", in, k.frac, want)
		}
	}
}
