package registry

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeRegistry answers GET /schemas/ids/{id} for ids 1..99 and counts requests.
type fakeRegistry struct {
	requests atomic.Int64
	status   atomic.Int64 // when non-zero, every answer has this status
	delay    time.Duration
	auth     atomic.Value // the last Authorization header
}

func (f *fakeRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	f.auth.Store(r.Header.Get("Authorization"))
	time.Sleep(f.delay)
	if s := f.status.Load(); s != 0 {
		w.WriteHeader(int(s))
		return
	}
	w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	switch {
	case r.URL.Path == "/subjects":
		_, _ = w.Write([]byte(`["orders-value","orders-key"]`))
	case r.URL.Path == "/subjects/orders-value/versions/latest":
		_, _ = w.Write([]byte(`{"subject":"orders-value","version":3,"id":7,"schema":"\"string\""}`))
	case strings.HasPrefix(r.URL.Path, "/schemas/ids/") && len(r.URL.Path) <= len("/schemas/ids/99"):
		id := strings.TrimPrefix(r.URL.Path, "/schemas/ids/")
		if id == "42" {
			_, _ = w.Write([]byte(`{"schema":"syntax = \"proto3\"; message M {}","schemaType":"PROTOBUF","references":[{"name":"a.proto","subject":"a","version":1}]}`))
			return
		}
		_, _ = w.Write([]byte(`{"schema":"{\"type\":\"record\",\"name\":\"R` + id + `\",\"fields\":[]}"}`))
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error_code":40403,"message":"Schema not found"}`))
	}
}

func newFake(t *testing.T) (*fakeRegistry, *httptest.Server) {
	f := &fakeRegistry{}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func TestSchemaByIDIsFetchedOnceAndKept(t *testing.T) {
	f, srv := newFake(t)
	c := New(Options{URL: srv.URL + "/"})
	for range 3 {
		s, err := c.SchemaByID(context.Background(), 5)
		if err != nil {
			t.Fatal(err)
		}
		if s.ID != 5 || s.Type != TypeAvro || !strings.Contains(s.Text, `"R5"`) {
			t.Fatalf("got %+v", s)
		}
	}
	if n := f.requests.Load(); n != 1 {
		t.Fatalf("%d requests for one id, want 1", n)
	}
	p, err := c.SchemaByID(context.Background(), 42)
	if err != nil || p.Type != TypeProtobuf || len(p.References) != 1 || p.References[0].Subject != "a" {
		t.Fatalf("protobuf schema: %+v %v", p, err)
	}
}

func TestTheCacheIsBoundedAndKeepsTheRecentlyUsed(t *testing.T) {
	f, srv := newFake(t)
	c := New(Options{URL: srv.URL, CacheSize: 2})
	ctx := context.Background()
	for _, id := range []int{1, 2, 1, 3} { // 2 is the least recently used when 3 arrives
		if _, err := c.SchemaByID(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	before := f.requests.Load()
	if _, err := c.SchemaByID(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if f.requests.Load() != before {
		t.Fatal("id 1 was evicted, but it was used more recently than 2")
	}
	if _, err := c.SchemaByID(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if f.requests.Load() != before+1 {
		t.Fatal("id 2 should have been evicted and fetched again")
	}
	if c.order.Len() != 2 || len(c.byID) != 2 {
		t.Fatalf("cache holds %d/%d, bound is 2", c.order.Len(), len(c.byID))
	}
}

func TestConcurrentCallersShareOneRequest(t *testing.T) {
	f, srv := newFake(t)
	f.delay = 50 * time.Millisecond
	c := New(Options{URL: srv.URL})
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.SchemaByID(context.Background(), 9); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := f.requests.Load(); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}

func TestNotFoundAndUnavailableAreTold(t *testing.T) {
	f, srv := newFake(t)
	c := New(Options{URL: srv.URL})
	_, err := c.SchemaByID(context.Background(), 1234)
	if !errors.Is(err, ErrSchemaNotFound) || errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "schema id 1234") {
		t.Fatalf("a missing id: %v", err)
	}
	f.status.Store(http.StatusServiceUnavailable)
	_, err = c.SchemaByID(context.Background(), 3)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "SCHEMA_REGISTRY_URL") || !strings.Contains(err.Error(), "HTTP 503") {
		t.Fatalf("a failing registry: %v", err)
	}
	f.status.Store(0)
	if _, err := c.SchemaByID(context.Background(), 3); err != nil {
		t.Fatalf("a failure is not cached: %v", err)
	}
	srv.Close()
	_, err = New(Options{URL: srv.URL}).SchemaByID(context.Background(), 4)
	if !errors.Is(err, ErrUnavailable) || strings.Count(err.Error(), srv.URL) != 1 {
		t.Fatalf("an unreachable registry, named once: %v", err)
	}
}

func TestCredentialsAreSentAndNeverInAnError(t *testing.T) {
	f, srv := newFake(t)
	if _, err := New(Options{URL: srv.URL, Username: "sluice", Password: "pw-123"}).Subjects(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := f.auth.Load().(string); got != "Basic c2x1aWNlOnB3LTEyMw==" {
		t.Fatalf("basic auth: %q", got)
	}
	if _, err := New(Options{URL: srv.URL, BearerToken: "tok-456"}).Subjects(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := f.auth.Load().(string); got != "Bearer tok-456" {
		t.Fatalf("bearer: %q", got)
	}
	f.status.Store(http.StatusUnauthorized)
	_, err := New(Options{URL: srv.URL, Username: "sluice", Password: "pw-123"}).SchemaByID(context.Background(), 1)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "refused the credentials") || strings.Contains(err.Error(), "pw-123") {
		t.Fatalf("refused credentials: %v", err)
	}
}

func TestVersionAndSubjects(t *testing.T) {
	_, srv := newFake(t)
	c := New(Options{URL: srv.URL})
	v, err := c.Version(context.Background(), "orders-value", 0)
	if err != nil || v.Version != 3 || v.Schema.ID != 7 || v.Schema.Type != TypeAvro {
		t.Fatalf("latest: %+v %v", v, err)
	}
	if _, err := c.Version(context.Background(), "nope", 2); !errors.Is(err, ErrSchemaNotFound) {
		t.Fatalf("a missing subject: %v", err)
	}
	subjects, err := c.Subjects(context.Background())
	if err != nil || len(subjects) != 2 {
		t.Fatalf("subjects: %v %v", subjects, err)
	}
}

func TestWireFormat(t *testing.T) {
	b := AppendWire(nil, 258)
	b = append(b, 'x')
	id, data, ok := SplitWire(b)
	if !ok || id != 258 || string(data) != "x" {
		t.Fatalf("round trip: %d %q %v", id, data, ok)
	}
	for _, bad := range [][]byte{nil, {0, 0, 0, 1}, {1, 0, 0, 0, 1}, []byte(`{"a":1}`)} {
		if _, _, ok := SplitWire(bad); ok {
			t.Fatalf("%q is not in the wire format", bad)
		}
	}
}
