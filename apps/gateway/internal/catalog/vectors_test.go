package catalog

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/auth"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// catalogVectors is packages/protocol/vectors/catalog-records.json: records as
// @sluice/db's builders write them, and the state a gateway must hold after
// applying them.
type catalogVectors struct {
	Now   int64 `json:"now"`
	Cases []struct {
		Name    string `json:"name"`
		Records []struct {
			Key      string          `json:"key"`
			Value    json.RawMessage `json:"value"`
			ValueRaw *string         `json:"value_raw"`
		} `json:"records"`
		State struct {
			Endpoints []vectorEndpoint `json:"endpoints"`
			Keys      []struct {
				Kid, Alg, Status string
			} `json:"keys"`
			Apps []struct {
				ID              string `json:"id"`
				TokensNotBefore int64  `json:"tokens_not_before"`
				// Limits, when present, are the app's plans in order (0: no limit).
				Limits *[]struct {
					Plan                    string   `json:"plan"`
					Patterns                []string `json:"patterns"`
					Connections             int64    `json:"connections"`
					SubscriptionsPerConn    int64    `json:"subscriptions_per_connection"`
					PublishPerSecond        int64    `json:"publish_per_second"`
					DeliveredPerSecond      int64    `json:"delivered_per_second"`
					DeliveredBytesPerSecond int64    `json:"delivered_bytes_per_second"`
				} `json:"limits"`
			} `json:"apps"`
			Revoked []struct {
				JTI       string `json:"jti"`
				ExpiresAt int64  `json:"expires_at"`
			} `json:"revoked"`
		} `json:"state"`
		BadRecords     uint64 `json:"bad_records"`
		IgnoredRecords uint64 `json:"ignored_records"`
		Resolves       []struct {
			Topic, Key string
			Endpoint   *string
		} `json:"resolves"`
		Validates []struct {
			Endpoint, Data string
			OK             bool
		} `json:"validates"`
	} `json:"cases"`
}

type vectorEndpoint struct {
	ID            string          `json:"id"`
	Path          string          `json:"path"`
	Topic         string          `json:"topic"`
	Key           *string         `json:"key"`
	KeyParam      *string         `json:"key_param"`
	Operations    []string        `json:"operations"`
	PayloadFormat string          `json:"payload_format"`
	JSONSchema    json.RawMessage `json:"json_schema"`
	ValueSchema   *vectorSubject  `json:"value_schema"`
	KeySchema     *vectorSubject  `json:"key_schema"`
	API           API             `json:"api"`
}

func loadCatalogVectors(t *testing.T) catalogVectors {
	t.Helper()
	b, err := os.ReadFile("../../../../packages/protocol/vectors/catalog-records.json")
	if err != nil {
		t.Fatal(err)
	}
	var v catalogVectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) < 20 {
		t.Fatalf("only %d cases", len(v.Cases))
	}
	return v
}

// gatewayView is an endpoint as the vectors describe it, read from the catalog.
// vectorSubject is a value_schema or key_schema; version null is 0 here.
type vectorSubject struct {
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

func subjectView(s *SubjectSchema) *vectorSubject {
	if s == nil {
		return nil
	}
	return &vectorSubject{Subject: s.Subject, Version: s.Version}
}

func sameSubjectView(a, b *vectorSubject) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func gatewayView(e *Endpoint) vectorEndpoint {
	v := vectorEndpoint{ID: e.ID, Path: e.Path, Topic: e.Topic, PayloadFormat: string(e.Format), API: e.API, Operations: []string{}}
	if e.KeyParam != "" {
		v.KeyParam = &e.KeyParam
	} else {
		v.Key = &e.Key
	}
	if e.Subscribe {
		v.Operations = append(v.Operations, "subscribe")
	}
	if e.Publish {
		v.Operations = append(v.Operations, "publish")
	}
	v.JSONSchema = e.SchemaJSON
	v.ValueSchema, v.KeySchema = subjectView(e.ValueSchema), subjectView(e.KeySchema)
	return v
}

func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	norm := func(r json.RawMessage) string {
		if len(r) == 0 {
			return "null"
		}
		var x any
		if err := json.Unmarshal(r, &x); err != nil {
			t.Fatalf("bad JSON %s: %v", r, err)
		}
		out, _ := json.Marshal(x)
		return string(out)
	}
	return norm(a) == norm(b)
}

func ptr(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}

// Every case of the shared catalog vectors, applied to an empty catalog with the
// gateway's real JWK parser, leaves exactly the state the vector names.
func TestCatalogRecordVectors(t *testing.T) {
	v := loadCatalogVectors(t)
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			cat := New(Options{ParseJWK: auth.ParsePublicJWK})
			cat.now = func() time.Time { return time.Unix(v.Now, 0) }
			for _, r := range c.Records {
				switch {
				case r.ValueRaw != nil:
					cat.Apply(r.Key, []byte(*r.ValueRaw))
				case len(r.Value) == 0 || string(r.Value) == "null":
					cat.Apply(r.Key, nil)
				default:
					cat.Apply(r.Key, r.Value)
				}
			}

			got := cat.Endpoints()
			if len(got) != len(c.State.Endpoints) {
				t.Fatalf("%d endpoints, want %d", len(got), len(c.State.Endpoints))
			}
			want := slices.Clone(c.State.Endpoints)
			slices.SortFunc(want, func(a, b vectorEndpoint) int {
				if a.Path < b.Path {
					return -1
				}
				return 1
			})
			for i, e := range got {
				g, w := gatewayView(e), want[i]
				if g.ID != w.ID || g.Path != w.Path || g.Topic != w.Topic || ptr(g.Key) != ptr(w.Key) || ptr(g.KeyParam) != ptr(w.KeyParam) ||
					!slices.Equal(g.Operations, w.Operations) || g.PayloadFormat != w.PayloadFormat || g.API != w.API {
					t.Errorf("endpoint %d:\n got %+v key=%s param=%s\nwant %+v key=%s param=%s", i, g, ptr(g.Key), ptr(g.KeyParam), w, ptr(w.Key), ptr(w.KeyParam))
				}
				if !sameJSON(t, g.JSONSchema, w.JSONSchema) {
					t.Errorf("endpoint %s: schema %s, want %s", w.ID, g.JSONSchema, w.JSONSchema)
				}
				if !sameSubjectView(g.ValueSchema, w.ValueSchema) || !sameSubjectView(g.KeySchema, w.KeySchema) {
					t.Errorf("endpoint %s: value_schema %+v key_schema %+v, want %+v %+v", w.ID, g.ValueSchema, g.KeySchema, w.ValueSchema, w.KeySchema)
				}
			}

			st := cat.Stats()
			if st.Keys != len(c.State.Keys) || st.Apps != len(c.State.Apps) || st.Revocations != len(c.State.Revoked) {
				t.Errorf("keys/apps/revocations = %d/%d/%d, want %d/%d/%d", st.Keys, st.Apps, st.Revocations, len(c.State.Keys), len(c.State.Apps), len(c.State.Revoked))
			}
			for _, k := range c.State.Keys {
				alg, pub, ok := cat.VerificationKey(k.Kid)
				if !ok || alg != k.Alg || pub == nil {
					t.Errorf("key %s: alg %q, key %v, known %v; want %s", k.Kid, alg, pub, ok, k.Alg)
				}
				cat.mu.RLock()
				status := cat.keys[k.Kid].status
				cat.mu.RUnlock()
				if status != k.Status {
					t.Errorf("key %s: status %q, want %q", k.Kid, status, k.Status)
				}
			}
			for _, a := range c.State.Apps {
				if nbf, known := cat.AppTokensNotBefore(a.ID); !known || nbf != a.TokensNotBefore {
					t.Errorf("app %s: tokens_not_before %d (known %v), want %d", a.ID, nbf, known, a.TokensNotBefore)
				}
				if a.Limits == nil {
					continue
				}
				got := cat.AppLimits(a.ID)
				if len(got) != len(*a.Limits) {
					t.Errorf("app %s: %d limits, want %d", a.ID, len(got), len(*a.Limits))
					continue
				}
				for i, w := range *a.Limits {
					g := got[i]
					if g.Plan != w.Plan || !slices.Equal(g.Patterns, w.Patterns) || g.Connections != w.Connections ||
						g.SubscriptionsPerConn != w.SubscriptionsPerConn || g.PublishPerSecond != w.PublishPerSecond ||
						g.DeliveredPerSecond != w.DeliveredPerSecond || g.DeliveredBytesPerSecond != w.DeliveredBytesPerSecond {
						t.Errorf("app %s: limits[%d] = %+v, want %+v", a.ID, i, g, w)
					}
				}
			}
			for _, r := range c.State.Revoked {
				if !cat.JTIRevoked(r.JTI) {
					t.Errorf("jti %s is not revoked", r.JTI)
				}
				cat.mu.RLock()
				exp := cat.revoked[r.JTI]
				cat.mu.RUnlock()
				if exp != r.ExpiresAt {
					t.Errorf("jti %s: expires_at %d, want %d", r.JTI, exp, r.ExpiresAt)
				}
			}
			if st.BadRecords != c.BadRecords || st.IgnoredRecords != c.IgnoredRecords {
				t.Errorf("bad/ignored records = %d/%d, want %d/%d", st.BadRecords, st.IgnoredRecords, c.BadRecords, c.IgnoredRecords)
			}

			for _, r := range c.Resolves {
				e := cat.Resolve(protocol.Path{Topic: r.Topic, Key: r.Key})
				var id *string
				if e != nil {
					id = &e.ID
				}
				if ptr(id) != ptr(r.Endpoint) {
					t.Errorf("Resolve(%s, %s) = %s, want %s", r.Topic, r.Key, ptr(id), ptr(r.Endpoint))
				}
			}
			for _, p := range c.Validates {
				var e *Endpoint
				for _, x := range got {
					if x.ID == p.Endpoint {
						e = x
					}
				}
				if e == nil {
					t.Fatalf("validates: no endpoint %s", p.Endpoint)
				}
				if err := e.ValidatePayload([]byte(p.Data)); (err == nil) != p.OK {
					t.Errorf("ValidatePayload(%q) = %v, want ok=%v", p.Data, err, p.OK)
				}
			}
		})
	}
}
