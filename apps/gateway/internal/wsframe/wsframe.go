// Package wsframe is the gateway's WebSocket framing (RFC 6455, section 5):
// server frames encoded once and written as they are, and a streaming parser for
// client frames that is fed whatever bytes a non-blocking read returned.
//
// Why not the WebSocket library's connection: it needs a goroutine blocked in a
// read per connection (8 KiB of stack each at rest) and copies every frame into
// its own buffer before a write(2). The gateway instead polls its sockets
// (see edge/poller_linux.go), frames a message once for all its subscribers and
// writes those bytes straight to each socket. The handshake stays with
// gorilla/websocket's Upgrader.
package wsframe

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Opcodes.
const (
	OpContinuation byte = 0x0
	OpText         byte = 0x1
	OpBinary       byte = 0x2
	OpClose        byte = 0x8
	OpPing         byte = 0x9
	OpPong         byte = 0xA
)

// Close codes the gateway itself uses (RFC 6455, section 7.4.1).
const (
	CloseProtocolError = 1002
	CloseNoStatus      = 1005
)

// MaxHeader is the longest server frame header: 2 bytes and a 64-bit length.
const MaxHeader = 10

// PutHeader writes the header of an unmasked final frame of n payload bytes so
// that it ends exactly at the end of hdr (len(hdr) >= MaxHeader) and returns
// where it starts: a payload appended after hdr then needs no copy.
func PutHeader(hdr []byte, op byte, n int) int {
	end := len(hdr)
	switch {
	case n <= 125:
		hdr[end-2], hdr[end-1] = 0x80|op, byte(n)
		return end - 2
	case n <= 0xFFFF:
		hdr[end-4], hdr[end-3] = 0x80|op, 126
		binary.BigEndian.PutUint16(hdr[end-2:], uint16(n))
		return end - 4
	default:
		hdr[end-10], hdr[end-9] = 0x80|op, 127
		binary.BigEndian.PutUint64(hdr[end-8:], uint64(n))
		return end - 10
	}
}

// Append appends a whole unmasked final frame to dst.
func Append(dst []byte, op byte, payload []byte) []byte {
	var hdr [MaxHeader]byte
	start := PutHeader(hdr[:], op, len(payload))
	dst = append(dst, hdr[start:]...)
	return append(dst, payload...)
}

// CloseFrame is a whole close frame with code and reason (reason cut to fit the
// 125 bytes a control frame may carry). CloseNoStatus gives an empty payload.
func CloseFrame(code int, reason string) []byte {
	if code == CloseNoStatus {
		return Append(nil, OpClose, nil)
	}
	if len(reason) > 123 {
		reason = reason[:123]
	}
	p := binary.BigEndian.AppendUint16(make([]byte, 0, 2+len(reason)), uint16(code))
	return Append(nil, OpClose, append(p, reason...))
}

// EventKind says what a client sent.
type EventKind uint8

// What the Reader reports.
const (
	// Message is a whole data message (Op is OpText or OpBinary; Data holds it).
	Message EventKind = iota + 1
	// TooLarge is a data message longer than the limit: its bytes were skipped,
	// not buffered, and the connection stays usable.
	TooLarge
	// Ping, Pong and Close are control frames (Data is their payload; Close
	// also has Code: the peer's status code or CloseNoStatus).
	Ping
	Pong
	Close
)

// Event is one thing the client sent. Data is only valid until the callback
// returns.
type Event struct {
	Kind EventKind
	Op   byte
	Data []byte
	Code int
}

// ProtocolError is a framing violation; the connection must be closed with
// CloseProtocolError.
type ProtocolError struct{ Reason string }

func (e *ProtocolError) Error() string { return "websocket protocol error: " + e.Reason }

func protoErr(format string, args ...any) error {
	return &ProtocolError{Reason: fmt.Sprintf(format, args...)}
}

// ErrStopped is returned by Feed when the callback asked to stop.
var ErrStopped = errors.New("stopped by the callback")

// Reader parses client frames from a byte stream fed in pieces of any size. It
// keeps only what an unfinished frame or message needs, and nothing between
// messages (an idle connection's Reader holds no buffer).
type Reader struct {
	// Limit is the largest data message kept; longer ones are reported as
	// TooLarge and skipped.
	Limit int

	hdr  [14]byte // an incomplete frame header
	nhdr int

	// The frame being read.
	inFrame   bool
	fin       bool
	op        byte
	mask      [4]byte
	maskPos   int
	remaining uint64
	control   []byte // payload of a control frame (≤ 125 bytes)

	// The data message being assembled from its frames.
	msgOp  byte // 0 when no message is open
	msg    []byte
	tooBig bool
}

// Feed parses p, calling emit for every complete event in order. It stops at
// the first protocol error, or when emit returns false (ErrStopped).
func (r *Reader) Feed(p []byte, emit func(Event) bool) error {
	for len(p) > 0 {
		if !r.inFrame {
			n, ok, err := r.readHeader(p)
			if err != nil {
				return err
			}
			p = p[n:]
			if !ok {
				return nil // the header continues in the next piece
			}
			if r.remaining == 0 {
				if !r.finishFrame(emit) {
					return ErrStopped
				}
			}
			continue
		}
		n := len(p)
		if uint64(n) > r.remaining {
			n = int(r.remaining)
		}
		r.payload(p[:n])
		p = p[n:]
		r.remaining -= uint64(n)
		if r.remaining == 0 && !r.finishFrame(emit) {
			return ErrStopped
		}
	}
	return nil
}

// readHeader consumes header bytes from p; ok is true once the header is whole.
func (r *Reader) readHeader(p []byte) (used int, ok bool, err error) {
	need := 2
	for {
		for r.nhdr < need {
			if used == len(p) {
				return used, false, nil
			}
			r.hdr[r.nhdr] = p[used]
			r.nhdr++
			used++
		}
		b0, b1 := r.hdr[0], r.hdr[1]
		full := 2 + 4
		switch b1 & 0x7F {
		case 126:
			full += 2
		case 127:
			full += 8
		}
		if need == full {
			break
		}
		if need == 2 {
			if err := r.checkStart(b0, b1); err != nil {
				return used, false, err
			}
		}
		need = full
	}
	b0, b1 := r.hdr[0], r.hdr[1]
	var length uint64
	switch b1 & 0x7F {
	case 126:
		length = uint64(binary.BigEndian.Uint16(r.hdr[2:4]))
		copy(r.mask[:], r.hdr[4:8])
	case 127:
		length = binary.BigEndian.Uint64(r.hdr[2:10])
		if length>>63 != 0 {
			return used, false, protoErr("frame length has its most significant bit set")
		}
		copy(r.mask[:], r.hdr[10:14])
	default:
		length = uint64(b1 & 0x7F)
		copy(r.mask[:], r.hdr[2:6])
	}
	r.nhdr = 0
	r.inFrame, r.fin, r.op, r.maskPos, r.remaining = true, b0&0x80 != 0, b0&0x0F, 0, length
	if r.op >= OpClose {
		r.control = r.control[:0]
		return used, true, nil
	}
	if r.op != OpContinuation {
		r.msgOp, r.tooBig = r.op, false
	}
	if !r.tooBig && uint64(len(r.msg))+length > uint64(r.Limit) {
		r.tooBig = true
		r.msg = nil
	}
	return used, true, nil
}

// checkStart validates the first two header bytes.
func (r *Reader) checkStart(b0, b1 byte) error {
	if b0&0x70 != 0 {
		return protoErr("reserved bits set without a negotiated extension")
	}
	if b1&0x80 == 0 {
		return protoErr("client frames must be masked")
	}
	op := b0 & 0x0F
	switch op {
	case OpContinuation:
		if r.msgOp == 0 {
			return protoErr("continuation frame without a message to continue")
		}
	case OpText, OpBinary:
		if r.msgOp != 0 {
			return protoErr("new message before the previous one ended")
		}
	case OpClose, OpPing, OpPong:
		if b0&0x80 == 0 {
			return protoErr("fragmented control frame")
		}
		if b1&0x7F > 125 {
			return protoErr("control frame longer than 125 bytes")
		}
	default:
		return protoErr("unknown opcode %d", op)
	}
	return nil
}

// payload unmasks and keeps (or skips) a piece of the current frame's payload.
func (r *Reader) payload(p []byte) {
	if r.op >= OpClose {
		r.control = r.unmask(r.control, p)
		return
	}
	if r.tooBig {
		r.maskPos = (r.maskPos + len(p)) & 3
		return
	}
	if need := len(r.msg) + len(p); need > cap(r.msg) {
		// Grow by doubling, never past the limit. append grows a large slice
		// by a quarter at a time: a message arriving in 4 KiB fragments (as
		// gorilla's client sends anything longer than its write buffer) was
		// copied into ~25 ever larger arrays: ~5 MiB allocated for a 1 MiB
		// message, or for one over the limit before it is refused. Doubling
		// allocates at most twice what was received.
		grown := make([]byte, len(r.msg), min(max(need, 2*cap(r.msg)), max(need, r.Limit)))
		copy(grown, r.msg)
		r.msg = grown
	}
	r.msg = r.unmask(r.msg, p)
}

// unmask appends p to dst, unmasked with the frame's key from maskPos on.
func (r *Reader) unmask(dst, p []byte) []byte {
	start := len(dst)
	dst = append(dst, p...)
	r.maskPos = maskBytes(dst[start:], r.mask, r.maskPos)
	return dst
}

// maskBytes XORs b with the masking key, starting at key position pos, and
// returns the position after b. Eight bytes at a time: a client may send a
// megabyte per message, and byte by byte this loop was a fifth of the
// gateway's CPU samples with 100 clients sending oversized messages.
func maskBytes(b []byte, key [4]byte, pos int) int {
	end := (pos + len(b)) & 3
	var k [8]byte
	for i := range k {
		k[i] = key[(pos+i)&3]
	}
	k64 := binary.LittleEndian.Uint64(k[:])
	for len(b) >= 8 {
		binary.LittleEndian.PutUint64(b, binary.LittleEndian.Uint64(b)^k64)
		b = b[8:]
	}
	// Whole words advanced the key position by multiples of 4: k still
	// lines up with what is left.
	for i := range b {
		b[i] ^= k[i]
	}
	return end
}

// finishFrame reports what a complete frame completed; false when emit said stop.
func (r *Reader) finishFrame(emit func(Event) bool) bool {
	r.inFrame = false
	switch r.op {
	case OpClose, OpPing, OpPong:
		ev := Event{Kind: Ping, Op: r.op, Data: r.control}
		switch r.op {
		case OpClose:
			ev = Event{Kind: Close, Op: OpClose, Code: CloseNoStatus}
			if len(r.control) >= 2 {
				ev.Code = int(binary.BigEndian.Uint16(r.control))
				ev.Data = r.control[2:]
			}
		case OpPong:
			ev.Kind = Pong
		}
		ok := emit(ev)
		r.control = nil
		return ok
	}
	if !r.fin {
		return true
	}
	ev := Event{Kind: Message, Op: r.msgOp, Data: r.msg}
	if r.tooBig {
		ev = Event{Kind: TooLarge, Op: r.msgOp}
	}
	r.msgOp, r.tooBig = 0, false
	ok := emit(ev)
	// Between messages a connection keeps no buffer: client frames are rare
	// (subscribe, publish), connections are many.
	r.msg = nil
	return ok
}
