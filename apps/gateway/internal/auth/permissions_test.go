package auth

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

func TestParsePattern(t *testing.T) {
	cases := []struct {
		entry     string
		canonical string // "" = invalid
		why       string // fragment of the error for invalid entries
	}{
		{"/orders/eu", "/orders/eu", ""},
		{"/prices/BRK%2eB", "/prices/BRK.B", ""},
		{"/prices/BRK%2EB", "/prices/BRK.B", ""},
		{"/news/café", "/news/caf%C3%A9", ""},
		{"/news/caf%c3%a9", "/news/caf%C3%A9", ""},
		{"/vehicles/1/speed", "/vehicles/1/speed", ""},
		{"/prices/%2A", "/prices/%2A", ""},
		{"/*", "/*", ""},
		{"/prices/*", "/prices/*", ""},
		{"/pr%69ces/*", "/prices/*", ""},
		{"/vehicles/1/*", "/vehicles/1/*", ""},
		{"/news/caf%C3%A9/*", "/news/caf%C3%A9/*", ""},
		{"/a.b_c-d/*", "/a.b_c-d/*", ""},

		{"", "", "empty"},
		{"prices/*", "", "start with /"},
		{"*", "", "start with /"},
		{"/", "", "topic and a key"},
		{"/prices", "", "topic and a key"},
		{"/prices/", "", "empty segment"},
		{"//*", "", "not a valid Kafka topic"},
		{"/prices//*", "", "empty segment"},
		{"/a*", "", "whole last segment"},
		{"/prices/a*", "", "whole last segment"},
		{"/prices/*a", "", "whole last segment"},
		{"/*/x", "", "whole last segment"},
		{"/prices/*/*", "", "whole last segment"},
		{"/prices/**", "", "whole last segment"},
		{"/**", "", "whole last segment"},
		{"/prices/a/b*", "", "whole last segment"},
		{"/bad topic/*", "", "may only hold"},
		{"/./*", "", "not a valid Kafka topic"},
		{"/../x", "", "not a valid Kafka topic"},
		{"/%zz/*", "", "percent-encoding"},
		{"/prices/%zz", "", "percent-encoding"},
		{"/prices/a%2Fb", "", "'/'"},
		{"/prices/a%2Fb/*", "", "'/'"},
		{"/prices/%00", "", "control character"},
		{"/" + strings.Repeat("t", 250) + "/*", "", "not a valid Kafka topic"},
		{"/prices/" + strings.Repeat("k", 1025), "", "longer than"},
	}
	for _, tc := range cases {
		p, err := parsePattern(tc.entry)
		if tc.canonical == "" {
			if err == nil {
				t.Errorf("%q: accepted as %q, want an error", tc.entry, p.canonical)
			} else if !strings.Contains(err.Error(), tc.why) {
				t.Errorf("%q: error %q does not contain %q", tc.entry, err, tc.why)
			}
			if ValidatePattern(tc.entry) == nil {
				t.Errorf("%q: ValidatePattern accepted it", tc.entry)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.entry, err)
			continue
		}
		if p.canonical != tc.canonical {
			t.Errorf("%q: canonical %q, want %q", tc.entry, p.canonical, tc.canonical)
		}
		if strings.HasSuffix(tc.canonical, "/*") != (p.prefix != "") {
			t.Errorf("%q: prefix %q", tc.entry, p.prefix)
		}
	}
}

func TestAllows(t *testing.T) {
	p, err := NewPermissions(
		[]string{"/prices/*", "/news/caf%C3%A9", "/vehicles/1/*"},
		[]string{"/orders/eu"},
		[]string{"/chat/room%2A"},
	)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		op   protocol.Op
		path string
		want bool
	}{
		{protocol.OpSubscribe, "/prices/AAPL", true},
		{protocol.OpSubscribe, "/prices/a/b", true},
		{protocol.OpSubscribe, "/prices", false},
		{protocol.OpSubscribe, "/prices/", true}, // not canonical, but strictly below /prices
		{protocol.OpSubscribe, "/pricesX/AAPL", false},
		{protocol.OpPublish, "/prices/AAPL", false},
		{protocol.OpSubscribe, "/news/caf%C3%A9", true},
		{protocol.OpSubscribe, "/news/caf%C3%A9/x", false},
		{protocol.OpSubscribe, "/vehicles/1/speed", true},
		{protocol.OpSubscribe, "/vehicles/1", false},
		{protocol.OpSubscribe, "/vehicles/10/speed", false},
		{protocol.OpPublish, "/orders/eu", true},
		{protocol.OpSubscribe, "/orders/eu", false},
		{protocol.OpPublish, "/orders/eu/x", false},
		{protocol.OpPublish, "/orders/us", false},
		{protocol.OpSubscribe, "/chat/room%2A", true},
		{protocol.OpPublish, "/chat/room%2A", true},
		{protocol.OpPublish, "/chat/roomX", false},
		{protocol.Op(0), "/chat/room%2A", false},
		{protocol.Op(99), "/prices/AAPL", false},
		{protocol.OpSubscribe, "", false},
	}
	for _, tc := range cases {
		if got := p.Allows(tc.op, tc.path); got != tc.want {
			t.Errorf("Allows(%s, %q) = %v, want %v", tc.op, tc.path, got, tc.want)
		}
	}
}

func TestAllowsWildcardAll(t *testing.T) {
	p, err := NewPermissions(nil, nil, []string{"/*"})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/a/b", "/prices/AAPL", "/x/y/z"} {
		if !p.Allows(protocol.OpSubscribe, path) || !p.Allows(protocol.OpPublish, path) {
			t.Errorf("/* should allow %s", path)
		}
	}
	if p.Allows(protocol.OpSubscribe, "") || p.Allows(protocol.OpSubscribe, "prices/AAPL") {
		t.Error("/* matches only paths")
	}
}

func TestAllowsZeroValueAndHandBuilt(t *testing.T) {
	var zero Permissions
	if zero.Allows(protocol.OpSubscribe, "/a/b") {
		t.Error("zero Permissions allows nothing")
	}
	hand := Permissions{Sub: []string{"/prices/BRK%2eB"}, Pub: []string{"/orders/*"}}
	if !hand.Allows(protocol.OpSubscribe, "/prices/BRK.B") || !hand.Allows(protocol.OpPublish, "/orders/eu") {
		t.Error("hand-built Permissions should be compiled on the fly")
	}
	bad := Permissions{Sub: []string{"/prices/*", "/prices/a*"}}
	if bad.Allows(protocol.OpSubscribe, "/prices/AAPL") {
		t.Error("a hand-built Permissions with an invalid entry must refuse everything")
	}
}

func TestAllowsManyExactEntries(t *testing.T) {
	var entries []string
	for i := range 3 * exactSetThreshold {
		entries = append(entries, fmt.Sprintf("/t/k%d", i))
	}
	p, err := NewPermissions(entries, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.compiled.subscribe.exactSet == nil {
		t.Fatal("expected the map matcher above the threshold")
	}
	for _, e := range entries {
		if !p.Allows(protocol.OpSubscribe, e) {
			t.Errorf("%s not allowed", e)
		}
	}
	if p.Allows(protocol.OpSubscribe, "/t/k999") || p.Allows(protocol.OpPublish, "/t/k1") {
		t.Error("allowed too much")
	}
}

func TestNewPermissionsErrorNamesEntry(t *testing.T) {
	_, err := NewPermissions([]string{"/a/b"}, []string{"/ok/x", "/bad*"}, nil)
	if err == nil || !strings.Contains(err.Error(), `permissions.pub[1] "/bad*"`) {
		t.Fatalf("error = %v, want one naming permissions.pub[1]", err)
	}
}

func TestPermissionsJSON(t *testing.T) {
	var p Permissions
	if err := json.Unmarshal([]byte(`{"sub":["/prices/BRK%2eB","/prices/*"],"all":[]}`), &p); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Sub, []string{"/prices/BRK.B", "/prices/*"}) {
		t.Errorf("Sub = %q, want canonical entries", p.Sub)
	}
	if !p.Allows(protocol.OpSubscribe, "/prices/BRK.B") {
		t.Error("unmarshalled permissions should be compiled")
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"sub":["/prices/BRK.B","/prices/*"],"pub":[],"all":[]}`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
	var q Permissions
	if err := json.Unmarshal(b, &q); err != nil || !reflect.DeepEqual(q.Sub, p.Sub) {
		t.Errorf("round trip: %v %q", err, q.Sub)
	}
	for _, bad := range []string{`{"sub":["/a*"]}`, `{"sub":"/a/b"}`, `[]`, `{"pub":[1]}`} {
		var r Permissions
		if err := json.Unmarshal([]byte(bad), &r); err == nil {
			t.Errorf("Unmarshal(%s) accepted", bad)
		}
	}
	var n Permissions
	if err := json.Unmarshal([]byte(`null`), &n); err != nil || n.Allows(protocol.OpSubscribe, "/a/b") {
		t.Errorf("null: %v", err)
	}
	// Inside a struct, as another package would embed it.
	var wrapper struct {
		P Permissions `json:"permissions"`
	}
	if err := json.Unmarshal([]byte(`{"permissions":{"pub":["/orders/*"]}}`), &wrapper); err != nil || !wrapper.P.Allows(protocol.OpPublish, "/orders/eu") {
		t.Errorf("embedded: %v", err)
	}
}

func TestAllowsDoesNotAllocate(t *testing.T) {
	var many []string
	for i := range 20 {
		many = append(many, fmt.Sprintf("/t/k%d", i))
	}
	p, err := NewPermissions(append(many, "/prices/*"), []string{"/orders/eu"}, []string{"/vehicles/1/*"})
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"/prices/AAPL", "/t/k7", "/orders/eu", "/vehicles/1/speed", "/nope/x"}
	allocs := testing.AllocsPerRun(200, func() {
		for _, path := range paths {
			p.Allows(protocol.OpSubscribe, path)
			p.Allows(protocol.OpPublish, path)
		}
	})
	if allocs != 0 {
		t.Fatalf("Allows allocates %.1f times per run", allocs)
	}
}
