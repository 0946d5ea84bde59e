package protocol

import "fmt"

// Code is a protocol error code (in error frames and problem+json bodies) and,
// for the 4xxx codes that end a connection, its WebSocket close code.
type Code int

// The codes of PROTOCOL.md, section "Errors".
const (
	CodeBadFrame            Code = 4000
	CodeUnauthenticated     Code = 4001
	CodeForbidden           Code = 4003
	CodeNotFound            Code = 4004
	CodeOperationNotAllowed Code = 4005
	CodeTokenExpired        Code = 4008
	CodeTokenRevoked        Code = 4009
	CodeFrameTooLarge       Code = 4013
	CodeInvalidPayload      Code = 4022
	CodeTooManySubs         Code = 4029
	CodeAlreadySubscribed   Code = 4090
	// The quota codes: the app's plan (CATALOG.md, app records) refuses a
	// connection (also the close code), a subscription, or a publish.
	CodeConnectionLimit   Code = 4291
	CodeSubscriptionLimit Code = 4292
	CodePublishRate       Code = 4293
	// CodeAddressLimit refuses a WebSocket or SSE connection from a client
	// address that holds the node's per-address bound (an HTTP 429 answering
	// the request, before any frame).
	CodeAddressLimit Code = 4294
	CodeInternal     Code = 5000
	CodeUnavailable  Code = 5003
	// CodePublishUnconfirmed answers a publish whose record Kafka did not
	// confirm within the publish timeout, or failed after it was sent: it may
	// or may not be written.
	CodePublishUnconfirmed Code = 5004
	// CodeTopicAccessDenied: Kafka's ACLs deny the gateway's own principal the
	// topic (not the client's token): an operator must grant it.
	CodeTopicAccessDenied Code = 5030

	// CloseServiceRestart is the WebSocket close code a node sends when it shuts
	// down: reconnect (to any node) and resume.
	CloseServiceRestart Code = 1012
	// CloseSlowConsumer ends a connection whose queue overflowed under the
	// "disconnect" policy.
	CloseSlowConsumer Code = 4029
)

// HTTPStatus maps a code to the HTTP status of SSE/publish problem responses.
func (c Code) HTTPStatus() int {
	switch c {
	case CodeBadFrame, CodeFrameTooLarge:
		return 400
	case CodeUnauthenticated, CodeTokenExpired, CodeTokenRevoked:
		return 401
	case CodeForbidden:
		return 403
	case CodeNotFound:
		return 404
	case CodeOperationNotAllowed:
		return 405
	case CodeInvalidPayload:
		return 422
	case CodeTooManySubs, CodeConnectionLimit, CodeSubscriptionLimit, CodePublishRate, CodeAddressLimit:
		return 429
	case CodeAlreadySubscribed:
		return 409
	case CodeUnavailable:
		return 503
	case CodePublishUnconfirmed:
		return 504
	case CodeInternal, CodeTopicAccessDenied:
		return 500
	default:
		return 500
	}
}

// Error is a protocol error: what goes into an error frame or a problem response.
// Message is for people and names the bad field where there is one.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Message) }

// Errorf builds an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Op is what a client does on an endpoint.
type Op uint8

// The two operations an endpoint may allow and a token may permit.
const (
	OpSubscribe Op = iota + 1
	OpPublish
)

func (o Op) String() string {
	switch o {
	case OpSubscribe:
		return "subscribe"
	case OpPublish:
		return "publish"
	}
	return "unknown"
}
