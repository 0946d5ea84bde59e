// Package protocol is the gateway's side of packages/protocol/PROTOCOL.md: endpoint
// paths, client frames, server frames and the numeric error codes. It has no
// dependencies on the rest of the gateway so every other package can use it.
package protocol
