package schemawire

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
)

func TestSubjectRecord(t *testing.T) {
	for subject, want := range map[string]string{
		"orders-value":          "",              // TopicNameStrategy
		"orders-key":            "",              // TopicNameStrategy, keys
		"orders-shop.v1.Order":  "shop.v1.Order", // TopicRecordNameStrategy
		"shop.v1.Order":         "shop.v1.Order", // RecordNameStrategy
		"orders-archive-value2": "archive-value2",
	} {
		if got := SubjectRecord("orders", subject); got != want {
			t.Errorf("%s: %q, want %q", subject, got, want)
		}
	}
}

type recordCodec struct{ record string }

func (c recordCodec) Decode(data []byte) ([]byte, error) { return data, nil }

func (c recordCodec) Encode(j []byte) ([]byte, error) {
	if string(j) == "bad" {
		return nil, errors.New("$.x: nope")
	}
	return []byte(c.record + ":" + string(j)), nil
}

// A protobuf subject of a record strategy is compiled for the record it is
// named for; Avro and JSON schemas hold one record and get none. Latest
// versions are looked up again after LatestTTL, pinned ones never.
func TestEncoderCompilesTheSubjectsRecord(t *testing.T) {
	var lookups int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lookups++
		switch {
		case strings.HasPrefix(r.URL.Path, "/subjects/orders-shop.v1.Order/"):
			_, _ = w.Write([]byte(`{"subject":"x","version":1,"id":11,"schema":"syntax","schemaType":"PROTOBUF"}`))
		case strings.HasPrefix(r.URL.Path, "/subjects/shop.v1.Order/"):
			_, _ = w.Write([]byte(`{"subject":"x","version":1,"id":12,"schema":"{}"}`))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	e := NewEncoder(registry.New(registry.Options{URL: srv.URL}), func(_ context.Context, s *registry.Schema, record string) (Encoding, error) {
		return recordCodec{record: record}, nil
	})
	got, err := e.Encode(context.Background(), "orders", "orders-shop.v1.Order", 0, []byte(`{}`))
	if err != nil || string(got[registry.WireHeaderSize:]) != "shop.v1.Order:{}" {
		t.Fatalf("protobuf, topic-record strategy: %q %v", got, err)
	}
	got, err = e.Encode(context.Background(), "orders", "shop.v1.Order", 1, []byte(`{}`))
	if err != nil || string(got[registry.WireHeaderSize:]) != ":{}" {
		t.Fatalf("avro, record strategy: %q %v", got, err)
	}
	if _, err := e.Encode(context.Background(), "orders", "shop.v1.Order", 1, []byte("bad")); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a value that does not fit: %v", err)
	}
	before := lookups
	_, _ = e.Encode(context.Background(), "orders", "shop.v1.Order", 1, []byte(`{}`))
	if lookups != before {
		t.Fatal("a pinned version was looked up again")
	}
}
