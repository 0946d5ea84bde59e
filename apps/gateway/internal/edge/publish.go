package edge

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"

	"github.com/sluicehq/sluice/apps/gateway/internal/catalog"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// servePublish is POST /pub/{topic}/{key}: the body is the payload.
func (s *Edge) servePublish(w http.ResponseWriter, r *http.Request) {
	claims, p, ep, perr := s.httpAccess(r, protocol.OpPublish)
	if perr != nil {
		writeProblem(w, perr)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, protocol.MaxFrameBytes+1))
	if err != nil {
		writeProblem(w, protocol.Errorf(protocol.CodeBadFrame, "body: could not be read"))
		return
	}
	if len(body) > protocol.MaxFrameBytes {
		writeProblem(w, protocol.Errorf(protocol.CodeFrameTooLarge, "body: larger than %d bytes", protocol.MaxFrameBytes))
		return
	}
	if perr := checkContentType(ep, r.Header.Get("Content-Type")); perr != nil {
		writeProblem(w, perr)
		return
	}
	if perr := ep.ValidatePayload(body); perr != nil {
		writeProblem(w, perr)
		return
	}
	body, perr = s.inWireFormat(r.Context(), ep, body)
	if perr != nil {
		writeProblem(w, perr)
		return
	}
	key, perr := s.recordKey(r.Context(), ep, p)
	if perr == nil {
		perr = s.admitPublish(claims.App, p.String())
	}
	if perr != nil {
		writeProblem(w, perr)
		return
	}
	var ack protocol.Published
	acked := make(chan struct{})
	s.publish(r.Context(), claims, p, ep, key, body, func(a protocol.Published, e *protocol.Error) {
		ack, perr = a, e
		close(acked)
	})
	<-acked
	if perr != nil {
		writeProblem(w, perr)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]any{"endpoint": ack.Endpoint, "epoch": ack.Epoch, "partition": ack.Partition, "seq": ack.Seq})
}

// checkContentType refuses a body whose declared type contradicts the endpoint's
// format (a missing Content-Type is accepted: curl users often omit it).
func checkContentType(ep *catalog.Endpoint, header string) *protocol.Error {
	if header == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(header)
	if err != nil {
		return protocol.Errorf(protocol.CodeBadFrame, "Content-Type: %q is not a media type", header)
	}
	switch ep.Format {
	case catalog.FormatJSON, catalog.FormatAvro, catalog.FormatProtobuf, catalog.FormatJSONSchema:
		if mt != "application/json" && !hasJSONSuffix(mt) {
			return protocol.Errorf(protocol.CodeInvalidPayload, "Content-Type: endpoint %s takes application/json, not %s", ep.Path, mt)
		}
	case catalog.FormatText:
		if len(mt) < 5 || mt[:5] != "text/" {
			return protocol.Errorf(protocol.CodeInvalidPayload, "Content-Type: endpoint %s takes text/plain, not %s", ep.Path, mt)
		}
	}
	return nil
}

func hasJSONSuffix(mt string) bool { return len(mt) > 5 && mt[len(mt)-5:] == "+json" }
