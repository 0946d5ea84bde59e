package edge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/sluicehq/sluice/apps/gateway/internal/auth"
	"github.com/sluicehq/sluice/apps/gateway/internal/catalog"
	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/schemawire"
)

// AppHeader is the record header carrying the publishing app's id.
const AppHeader = "sluice-app"

// authorize is the one check every transport makes before subscribing or
// publishing: the endpoint exists, allows op, and the token permits it.
func (s *Edge) authorize(c *auth.Claims, p protocol.Path, op protocol.Op) (*catalog.Endpoint, *protocol.Error) {
	if c == nil {
		return nil, protocol.Errorf(protocol.CodeUnauthenticated, "authenticate first")
	}
	if err := s.opt.Verifier.Recheck(c); err != nil {
		return nil, err
	}
	ep := s.opt.Catalog.Resolve(p)
	path := p.String()
	if ep == nil {
		return nil, protocol.Errorf(protocol.CodeNotFound, "no endpoint %s in the catalog", path)
	}
	if !ep.Allows(op) {
		return nil, protocol.Errorf(protocol.CodeOperationNotAllowed, "endpoint %s does not allow %s", path, op)
	}
	if !c.Permissions.Allows(op, path) {
		return nil, protocol.Errorf(protocol.CodeForbidden, "token does not permit %s on %s", op, path)
	}
	return ep, nil
}

// Served is what the hub needs of ep, the catalog endpoint serving a concrete
// path (nil: none): what Hub.Subscribe is given for a subscription authorised
// against ep, and Hub.KeyServed and ParamServed after a catalog change.
func Served(ep *catalog.Endpoint) hub.Served {
	if ep == nil {
		return hub.Served{ByParam: true} // no exact endpoint, nor a parameterised one
	}
	served := hub.Served{Subscribable: ep.Allows(protocol.OpSubscribe), Format: string(ep.Format), ByParam: ep.KeyParam != ""}
	if ks := ep.KeySchema; ks != nil {
		served.KeyEncoding = fmt.Sprintf("%s@%d", ks.Subject, ks.Version)
	}
	return served
}

// servedFor is what Hub.Subscribe is given for a subscription to p authorised
// against ep: Served(ep) with the key's partition key.
func (s *Edge) servedFor(ctx context.Context, ep *catalog.Endpoint, p protocol.Path) (hub.Served, *protocol.Error) {
	served := Served(ep)
	if ep.KeySchema != nil {
		key, err := s.recordKey(ctx, ep, p)
		if err != nil {
			return hub.Served{}, err
		}
		served.PartitionKey = key
	}
	return served, nil
}

// recordKey is the Kafka record key that p's key names on ep: the key's own
// bytes, or, for an endpoint with a key schema, the key encoded with it
// (docs/payload-formats.md, "Keys"): what a publish writes and what the
// partition is computed from. A key the schema cannot encode, or writes
// differently, names no record: 4004.
func (s *Edge) recordKey(ctx context.Context, ep *catalog.Endpoint, p protocol.Path) ([]byte, *protocol.Error) {
	ks := ep.KeySchema
	if ks == nil {
		return []byte(p.Key), nil
	}
	if s.opt.Encoder == nil {
		return nil, protocol.Errorf(protocol.CodeUnavailable, "endpoint %s has registry-encoded keys, but this gateway has no schema registry (SCHEMA_REGISTRY_URL)", ep.Path)
	}
	key, err := s.opt.Encoder.EncodeKey(ctx, ep.Topic, ks.Subject, ks.Version, p.Key)
	switch {
	case errors.Is(err, schemawire.ErrInvalid):
		return nil, protocol.Errorf(protocol.CodeNotFound, "endpoint %s: %s", p.String(), strings.TrimPrefix(err.Error(), schemawire.ErrInvalid.Error()+": "))
	case err != nil:
		return nil, protocol.Errorf(protocol.CodeUnavailable, "endpoint %s: the key: %v", ep.Path, err)
	}
	return key, nil
}

// httpAccess authenticates an SSE or publish request and authorises op on the
// endpoint of its path. The token comes from the Authorization header or, for
// subscribing (EventSource cannot set headers), the access_token parameter.
func (s *Edge) httpAccess(r *http.Request, op protocol.Op) (*auth.Claims, protocol.Path, *catalog.Endpoint, *protocol.Error) {
	token, ok := bearer(r)
	if !ok && op == protocol.OpSubscribe {
		token = r.URL.Query().Get("access_token")
	}
	if token == "" {
		hint := "send the token as Authorization: Bearer <token>"
		if op == protocol.OpSubscribe {
			hint += " or ?access_token="
		}
		return nil, protocol.Path{}, nil, protocol.Errorf(protocol.CodeUnauthenticated, "%s", hint)
	}
	claims, err := s.opt.Verifier.Verify(token)
	if err != nil {
		return nil, protocol.Path{}, nil, err
	}
	p, err := protocol.ParsePath("/" + r.PathValue("path"))
	if err != nil {
		return nil, protocol.Path{}, nil, err
	}
	ep, err := s.authorize(claims, p, op)
	if err != nil {
		return nil, protocol.Path{}, nil, err
	}
	return claims, p, ep, nil
}

// payloadFor turns a publish frame's data into the record value the endpoint's
// format expects, and validates it (format, then JSON Schema). For a
// schema-registry endpoint it is the JSON that inWireFormat encodes.
func payloadFor(ep *catalog.Endpoint, f *protocol.ClientFrame) ([]byte, *protocol.Error) {
	value := f.Data
	switch ep.Format {
	case catalog.FormatJSON, catalog.FormatAvro, catalog.FormatProtobuf, catalog.FormatJSONSchema:
		if f.DataIsString && !f.Base64 {
			value, _ = json.Marshal(string(f.Data)) // a JSON string value keeps its quotes
		}
	case catalog.FormatText:
		if !f.DataIsString {
			return nil, protocol.Errorf(protocol.CodeInvalidPayload, "data: endpoint %s takes text: send a string", f.Endpoint.String())
		}
		if !utf8.Valid(value) {
			return nil, protocol.Errorf(protocol.CodeInvalidPayload, "data: not valid UTF-8 text")
		}
	}
	if err := ep.ValidatePayload(value); err != nil {
		return nil, err
	}
	return value, nil
}

// inWireFormat encodes the JSON value of a publish to a schema-registry
// endpoint with its subject's schema (edge.Options.Encoder); other values pass
// as they are. Producing a client's bytes as they are to such an endpoint
// would put records without the wire format on the topic, so without a
// registry the publish is refused.
func (s *Edge) inWireFormat(ctx context.Context, ep *catalog.Endpoint, value []byte) ([]byte, *protocol.Error) {
	if !ep.Format.RegistryBacked() {
		return value, nil
	}
	if s.opt.Encoder == nil || ep.ValueSchema == nil {
		return nil, protocol.Errorf(protocol.CodeUnavailable, "endpoint %s is %s, but this gateway has no schema registry (SCHEMA_REGISTRY_URL)", ep.Path, ep.Format)
	}
	record, err := s.opt.Encoder.Encode(ctx, ep.Topic, ep.ValueSchema.Subject, ep.ValueSchema.Version, value)
	switch {
	case errors.Is(err, schemawire.ErrInvalid):
		return nil, protocol.Errorf(protocol.CodeInvalidPayload, "data: %s", strings.TrimPrefix(err.Error(), schemawire.ErrInvalid.Error()+": "))
	case err != nil:
		return nil, protocol.Errorf(protocol.CodeUnavailable, "endpoint %s: %v", ep.Path, err)
	}
	return record, nil
}

// publish writes value to the endpoint's topic under key (recordKey) and calls
// done once Kafka acknowledged it, or failed to, or the publish timeout passed:
// done is called exactly once, within PublishTimeout. It returns once the
// record is queued: records of publish calls made one after another (a
// connection's frames, in the order it sent them) are written in that order,
// as one Kafka producer's are. done runs on the Kafka client's goroutine or a
// timer's and must not block.
//
// Why the gateway keeps its own timeout: an idempotent producer does not fail
// a record while a request carrying it is unanswered (failing it could break
// the partition's sequence), so during a broker outage Kafka's answer came
// 86 s after the publish in a fault run (docs/reliability.md). The client is
// answered 5004 at the timeout instead: the record may still be written.
func (s *Edge) publish(ctx context.Context, c *auth.Claims, p protocol.Path, ep *catalog.Endpoint, key, value []byte, done func(protocol.Published, *protocol.Error)) {
	ctx, cancel := context.WithTimeout(ctx, s.opt.PublishTimeout)
	meta, err := s.opt.Kafka.Meta(ctx, p.Topic)
	if err != nil {
		cancel()
		done(protocol.Published{}, kafkaError(p.Topic, err)) // nothing was produced
		return
	}
	var answered atomic.Bool
	answer := func(ack protocol.Published, perr *protocol.Error) {
		if answered.CompareAndSwap(false, true) {
			done(ack, perr)
		}
	}
	stopTimer := context.AfterFunc(ctx, func() {
		answer(protocol.Published{}, protocol.Errorf(protocol.CodePublishUnconfirmed,
			"Kafka did not confirm the message within %s: it may or may not be written (publishing it again may write it twice)", s.opt.PublishTimeout))
	})
	s.opt.Kafka.Produce(ctx, p.Topic, key, value, []hub.Header{{Key: AppHeader, Value: []byte(c.App)}}, func(partition int32, offset int64, err error) {
		stopTimer()
		cancel()
		if err != nil {
			answer(protocol.Published{}, produceError(p.Topic, err))
			return
		}
		// Counted even when the timeout answered first: the message is in Kafka.
		s.opt.Metrics.MessagesIn.Inc()
		s.opt.Metrics.BytesIn.Add(float64(len(value)))
		s.endpointUsage(c.App, ep).Published(int64(len(value)))
		answer(protocol.Published{Type: "published", Endpoint: p.String(), Epoch: meta.Epoch, Partition: partition, Seq: offset}, nil)
	})
}

// produceError is the answer to a publish whose record the producer failed.
// Only a refusal of the record itself (Kafka's, not retriable: too large,
// invalid, not authorised; or the producer's, its buffer full) means it was
// not written. Any other failure (a
// timeout, a connection lost with the request in flight, retries exhausted)
// can come after a broker appended the record: its outcome is unknown.
func produceError(topic string, err error) *protocol.Error {
	if errors.Is(err, hub.ErrTopicAccessDenied) {
		return kafkaError(topic, err)
	}
	if errors.Is(err, hub.ErrNotWritten) {
		return protocol.Errorf(protocol.CodeUnavailable, "%v: not written", err)
	}
	return protocol.Errorf(protocol.CodePublishUnconfirmed, "Kafka did not confirm the message (%v): it may or may not be written (publishing it again may write it twice)", err)
}

func kafkaError(topic string, err error) *protocol.Error {
	if errors.Is(err, hub.ErrTopicNotFound) {
		return protocol.Errorf(protocol.CodeUnavailable, "topic %s does not exist in Kafka", topic)
	}
	if errors.Is(err, hub.ErrTopicAccessDenied) {
		return protocol.Errorf(protocol.CodeTopicAccessDenied, "Kafka denies this gateway access to topic %s: its principal needs an ACL on the topic (an operator must grant it)", topic)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return protocol.Errorf(protocol.CodeUnavailable, "Kafka did not acknowledge in time")
	}
	return protocol.Errorf(protocol.CodeUnavailable, "Kafka unavailable")
}
