package main

import (
	"fmt"
	"strings"
)

// A fault run's clients subscribe over WebSocket or, with -sse-fraction, over
// Server-Sent Events; both count through the same code (client.go), and the
// report splits what they saw by transport: an SSE stream resumes through
// another path of the gateway (Last-Event-ID, a subscription per request),
// whose faults would hide in the WebSocket majority.

var transportNames = [2]string{"ws", "sse"}

func transportIndex(sse bool) int {
	if sse {
		return 1
	}
	return 0
}

// transportCount is scenarioCount's subscriber figures for one transport.
type transportCount struct {
	lost, reported, kafkaLost, unacked int64
	dups, late, gaps                   int64
	affected, unrecovered              int
	fromEnd                            []int64 // ns, per recovered client
}

// transportMix says how many clients each transport had.
func transportMix(total clientReport) string {
	var n [2]int
	for _, c := range total.Conns {
		n[transportIndex(c.SSE)]++
	}
	return fmt.Sprintf("%d WebSocket, %d SSE", n[0], n[1])
}

// printTransportCounts prints one window's subscriber figures by transport
// (recovery too when the window is a fault's).
func printTransportCounts(indent string, by [2]transportCount, fault bool) {
	for i, t := range by {
		line := fmt.Sprintf("%s%-3s lost %d, after a gap frame %d, not in Kafka %d, never acknowledged %d; duplicates %d; late %d; gaps %d",
			indent, transportNames[i], t.lost, t.reported, t.kafkaLost, t.unacked, t.dups, t.late, t.gaps)
		if fault {
			line += fmt.Sprintf("; affected %d, never recovered %d; fault's end -> first message again ms %s", t.affected, t.unrecovered, pctLine(t.fromEnd))
		}
		fmt.Println(line)
	}
}

// printRunByTransport prints the whole run's counts per transport from the
// clients' own records: clients, connections, failed connects, holes,
// duplicates, gaps, errors, and acknowledged messages never delivered at
// the end.
func printRunByTransport(indent string, total clientReport, led *ackLedger) {
	type sum struct {
		clients                                     int
		conns, dialFails, holes, dups, late, gaps   int64
		errs                                        int64
		missing, missingClients, outages, noMessage int64
	}
	var by [2]sum
	for _, c := range total.Conns {
		s := &by[transportIndex(c.SSE)]
		s.clients++
		s.conns += c.Connects
		s.dialFails += c.DialFails
		s.holes += c.Holes
		s.dups += c.Dups
		s.late += c.Late
		s.gaps += c.Gaps
		s.errs += c.Errs
		s.outages += int64(c.Outages)
		if c.N == 0 {
			s.noMessage++
		}
		had := false
		for n := c.N + 1; c.K < len(led.lastSent) && n <= led.lastSent[c.K]; n++ {
			if led.isAcked(c.K, n) {
				s.missing++
				had = true
			}
		}
		if had {
			s.missingClients++
		}
	}
	var lines []string
	for i, s := range by {
		lines = append(lines, fmt.Sprintf("%s%-3s %d clients: %d connections made (%d lost), %d failed connects; holes %d, duplicates %d, late %d, gaps %d, errors %d; acknowledged but never delivered at the end %d in %d clients; %d clients never got a message",
			indent, transportNames[i], s.clients, s.conns, s.outages, s.dialFails, s.holes, s.dups, s.late, s.gaps, s.errs, s.missing, s.missingClients, s.noMessage))
	}
	fmt.Println(strings.Join(lines, "\n"))
}
