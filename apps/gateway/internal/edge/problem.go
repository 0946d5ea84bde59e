package edge

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// writeProblem answers an HTTP request with an RFC 9457 problem document carrying
// the protocol code.
func writeProblem(w http.ResponseWriter, err *protocol.Error) {
	status := err.Code.HTTPStatus()
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="sluice"`)
	}
	if err.Code == protocol.CodePublishRate || err.Code == protocol.CodeConnectionLimit || err.Code == protocol.CodeAddressLimit {
		w.Header().Set("Retry-After", "1") // a rate refills within a second; a connection may close
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type":   "about:blank",
		"title":  http.StatusText(status),
		"status": status,
		"detail": err.Message,
		"code":   err.Code,
	})
}

func codeLabel(c protocol.Code) string { return strconv.Itoa(int(c)) }
