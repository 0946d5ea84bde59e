package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// scenarioCount is what the clients and the publisher saw in one scenario's
// window (from its fault's start to the end of its recovery wait and checks).
type scenarioCount struct {
	produceErrors int
	// Holes in a client's n, by what Kafka says of the missing messages: lost
	// (acknowledged, in Kafka, never delivered, no gap frame before the
	// hole), reported (the same after a gap frame), kafkaLost (acknowledged but
	// not in Kafka), unacked (never acknowledged: the publisher's failure, not a loss).
	lost, reported, kafkaLost, unacked int64
	dups                               int64
	// late: an n of an earlier hole arriving after later ones (out of order,
	// not a duplicate; its hole is counted above too); lateAcked: of them,
	// acknowledged ones (out of order although acknowledged in order).
	late, lateAcked       int64
	gaps                  map[string]int64
	falseGaps             []string // gaps whose reason is not true
	affected, unrecovered int
	fromEnd, fromStart    []int64 // ns, per affected client
	// fromEndByNode is fromEnd by the node (index of r.nodes) whose message
	// ended the client's silence: a node that comes back late shows here.
	fromEndByNode map[int][]int64
	// The same by the transport of the client that saw it (chaos_transports.go).
	byTransport [2]transportCount
}

// report prints one block per scenario, then the end-of-run counts.
func (r *chaosRun) report(results []*scenarioResult, total clientReport, pub loadPublisher, holds *kafkaHolds, probe *kafkaProbe, start, pubStopped time.Time) {
	led := pub.ledger()
	fmt.Printf("\n== chaos: %d clients on 2 gateway nodes (spread, resuming like the SDK; %s), %d keys once per %s, %d partitions (RF 3, min ISR 2), %d-byte payload ==\n",
		r.s.clients, transportMix(total), r.s.keys, r.s.keyPeriod, r.s.partitions, r.s.payload)
	fmt.Printf("load: %d sent, %d acknowledged (direct producer and any gateway publishers), %d produce errors (direct producer); clients: %d connections made, %d subscribed, %d failed dials; %d events dropped (over the bound)\n",
		led.sent.Load(), led.nAcked, len(led.failTimes), total.Connected, total.Subscribed, total.DialFailures, total.EventsDropped)
	if len(total.SSERefused) > 0 {
		fmt.Printf("SSE requests answered with an HTTP error (status/code): %s\n", fmtReasons(total.SSERefused))
	}
	if len(led.failShown) > 0 {
		fmt.Printf("first produce errors: %s\n", strings.Join(led.failShown, " | "))
	}
	fmt.Printf("Kafka holds (read back from the log start): %d records, %d repeated n (written twice), %d read errors\n", holds.records, holds.repeats, holds.readErrors)

	// Windows: before the first fault, each scenario, and after the last one.
	type window struct {
		name     string
		from, to int64
		sc       *scenarioResult
	}
	var windows []window
	prev := start.UnixNano()
	for _, sc := range results {
		windows = append(windows, window{"(before the faults)", prev, sc.start.UnixNano(), nil})
		windows = append(windows, window{sc.name, sc.start.UnixNano(), sc.done.UnixNano(), sc})
		prev = sc.done.UnixNano()
	}
	windows = append(windows, window{"(after the faults)", prev, time.Now().UnixNano(), nil})
	windows = slices.DeleteFunc(windows, func(w window) bool { return w.sc == nil && w.to-w.from < int64(time.Second) })

	counts := make([]scenarioCount, len(windows))
	in := func(t int64) int {
		for i, w := range windows {
			if t >= w.from && t < w.to {
				return i
			}
		}
		return -1
	}
	for i, w := range windows {
		counts[i].gaps = map[string]int64{}
		counts[i].fromEndByNode = map[int][]int64{}
		counts[i].produceErrors = led.failuresIn(w.from, w.to)
	}
	for _, e := range total.Events {
		i := in(e.At)
		if i < 0 {
			continue
		}
		cnt := &counts[i]
		tc := &cnt.byTransport[transportIndex(e.SSE)]
		switch e.Kind {
		case "dup":
			cnt.dups++
			tc.dups++
		case "late":
			cnt.late++
			tc.late++
			if led.isAcked(e.K, e.From) {
				cnt.lateAcked++
			}
		case "hole":
			for n := e.From; n <= e.To; n++ {
				switch {
				case !led.isAcked(e.K, n):
					cnt.unacked++
					tc.unacked++
				case !holds.has(e.K, n):
					cnt.kafkaLost++
					tc.kafkaLost++
				case e.Reported:
					cnt.reported++
					tc.reported++
				default:
					cnt.lost++
					tc.lost++
				}
			}
		case "gap":
			cnt.gaps[e.Reason]++
			tc.gaps++
			// Only retention may drop what is in the log: the topic keeps an
			// hour and is never recreated or repartitioned during the run, so
			// a retention gap over offsets Kafka still holds, or an epoch or
			// repartitioned gap, is false. slow_consumer and quota cannot be
			// checked from here (the client's queue is the gateway's).
			switch e.Reason {
			case "retention":
				if e.From >= holds.logStart[int32(e.Partition)] {
					cnt.falseGaps = append(cnt.falseGaps, fmt.Sprintf("retention gap on partition %d seq %d..%d, log start %d", e.Partition, e.From, e.To, holds.logStart[int32(e.Partition)]))
				}
			case "epoch", "repartitioned":
				cnt.falseGaps = append(cnt.falseGaps, fmt.Sprintf("%s gap on partition %d seq %d..%d (the topic did not change)", e.Reason, e.Partition, e.From, e.To))
			}
		}
	}
	// Recovery per client: a client is affected by a fault when one of its
	// stalls overlaps the fault's window, or it is silent at the window's end
	// (for longer than the stall bound: it never recovered within the window).
	// It recovered with the message that ended its last stall in the window.
	bound := int64(r.c.stallBound)
	for i, w := range windows {
		if w.sc == nil {
			continue
		}
		end, st := w.sc.end.UnixNano(), w.sc.start.UnixNano()
		for _, c := range total.Conns {
			var back int64
			backAt := 0
			silentAtEnd := c.Last <= w.to-bound
			for _, s := range c.Stalls {
				switch {
				case s.To > w.to && s.From <= w.to-bound:
					silentAtEnd = true
				case s.To > w.from && s.To <= w.to && s.To > back:
					back, backAt = s.To, s.URL
				}
			}
			if back == 0 && !silentAtEnd {
				continue
			}
			counts[i].affected++
			tc := &counts[i].byTransport[transportIndex(c.SSE)]
			tc.affected++
			if silentAtEnd {
				counts[i].unrecovered++
				tc.unrecovered++
				continue
			}
			counts[i].fromEnd = append(counts[i].fromEnd, max(back-end, 0))
			counts[i].fromEndByNode[backAt] = append(counts[i].fromEndByNode[backAt], max(back-end, 0))
			counts[i].fromStart = append(counts[i].fromStart, back-st)
			tc.fromEnd = append(tc.fromEnd, max(back-end, 0))
		}
	}

	var gwCounts []map[string]*pubCount
	var gwTotal map[string]*pubCount
	if r.gwPub != nil {
		bounds := make([][2]int64, len(windows))
		for i, w := range windows {
			bounds[i] = [2]int64{w.from, w.to}
		}
		gwCounts, gwTotal = r.gwPub.counts(bounds)
	}
	for i, w := range windows {
		cnt := counts[i]
		fmt.Printf("\n-- %s --\n", w.name)
		if w.sc != nil {
			for _, n := range w.sc.notes {
				fmt.Printf("  %s\n", n)
			}
			fmt.Printf("  fault lasted %s; recovery window until %s after its end\n", w.sc.end.Sub(w.sc.start).Round(100*time.Millisecond), w.sc.done.Sub(w.sc.end).Round(100*time.Millisecond))
		}
		fmt.Printf("  lost (acknowledged, in Kafka, never delivered, no gap): %d   after a gap frame: %d   acknowledged but not in Kafka: %d   never acknowledged (publisher's failures): %d\n",
			cnt.lost, cnt.reported, cnt.kafkaLost, cnt.unacked)
		fmt.Printf("  duplicates delivered: %d   produce errors: %d   gaps: %s   late (a hole's n after later ones, out of order in Kafka): %d (%d acknowledged)\n",
			cnt.dups, cnt.produceErrors, fmtReasons(cnt.gaps), cnt.late, cnt.lateAcked)
		if mx, mean, n := holds.appendDelay(w.from, w.to); n > 0 {
			fmt.Printf("  records sent in the window: %d; send -> Kafka's append: max %.1f s, mean %.2f s (publisher retries and leaderless partitions)\n", n, mx, mean)
		}
		for j, g := range cnt.falseGaps {
			if j == 5 {
				fmt.Printf("  ... %d more false gaps\n", len(cnt.falseGaps)-5)
				break
			}
			fmt.Printf("  FALSE GAP: %s\n", g)
		}
		if w.sc != nil {
			fmt.Printf("  affected clients (a silence over %s or a lost connection in the window): %d; never recovered in the window: %d\n", r.c.stallBound, cnt.affected, cnt.unrecovered)
			fmt.Printf("  fault's end -> client's first message again  ms %s\n", pctLine(cnt.fromEnd))
			for n, node := range r.nodes {
				if ms := cnt.fromEndByNode[n]; len(ms) > 0 {
					fmt.Printf("    served again by node %s                      ms %s\n", node.name, pctLine(ms))
				}
			}
			fmt.Printf("  fault's start -> client's first message again ms %s\n", pctLine(cnt.fromStart))
			fmt.Printf("  Kafka-only consumer (publisher -> Kafka -> plain consumer): %s\n", probeSilences(probe, w.from, w.to, w.sc))
		}
		printTransportCounts("  ", cnt.byTransport, w.sc != nil)
		if gwCounts != nil {
			printPubCounts("  ", gwCounts[i])
		}
	}

	// The end: every acknowledged message a client's key got after the last
	// one it received is missing for good (the publisher stopped settle before).
	var missing, missingClients, missingKafka int64
	for _, c := range total.Conns {
		last := c.N
		had := false
		for n := last + 1; n <= led.lastSent[c.K]; n++ {
			if led.isAcked(c.K, n) {
				missing++
				had = true
				if !holds.has(c.K, n) {
					missingKafka++
				}
			}
		}
		if had {
			missingClients++
		}
	}
	var ackedNotHeld int64
	for k := range led.lastSent {
		for n := int64(1); n <= led.lastSent[k]; n++ {
			if led.isAcked(k, n) && !holds.has(k, n) {
				ackedNotHeld++
			}
		}
	}
	fmt.Printf("\n-- end of run (publisher stopped, then %s) --\n", r.c.settle)
	fmt.Printf("  acknowledged but never delivered at the end: %d messages in %d clients (%d of them not in Kafka)\n", missing, missingClients, missingKafka)
	fmt.Printf("  acknowledged by Kafka but not in the topic: %d (must be 0)\n", ackedNotHeld)
	fmt.Printf("  whole run: %d holes, %d duplicates, %d late, %d gaps %s, %d errors (error or unexpected closing frames)\n", total.Lost, total.Duplicates, total.Late, total.Gaps, fmtReasons(total.GapReasons), total.Errors)
	printRunByTransport("  ", total, led)
	for _, n := range r.nodes {
		m := "http://" + n.addr + "/metrics"
		fmt.Printf("  node %s: %.0f connections at the end, %.0f dropped (slow consumers), error frames %s\n", n.name,
			metricSum(m, "sluice_gateway_connections"), metricSum(m, "sluice_gateway_dropped_messages_total"), metricLines(m, "sluice_gateway_error_frames_total"))
	}
	fmt.Printf("  Kafka node logs: %s/node-<id>.log (removed at exit unless -kafka-dir)\n", r.cluster.Dir())
	if r.gwPub != nil {
		r.gwPub.printSummary(gwTotal)
	}
}

// probeSilences says which partitions the plain consumer heard nothing from
// for longer than the stall bound in [from, to), and when each came back.
func probeSilences(p *kafkaProbe, from, to int64, sc *scenarioResult) string {
	var parts []string
	for _, part := range slices.Sorted(maps.Keys(p.silences)) {
		for _, s := range p.silences[part] {
			// A silence belongs to the window it began in (its last record
			// came up to a second before the fault).
			if s.From >= from-int64(time.Second) && s.From < to-int64(time.Second) {
				parts = append(parts, fmt.Sprintf("p%d silent %.1f s, back %+.1f s from the fault's end", part, float64(s.To-s.From)/1e9, float64(s.To-sc.end.UnixNano())/1e9))
			}
		}
	}
	if len(parts) == 0 {
		return "no partition silent"
	}
	return strings.Join(parts, "; ")
}

func fmtReasons(m map[string]int64) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
