package wsframe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// clientFrame builds a masked client frame.
func clientFrame(fin bool, op byte, payload []byte, mask [4]byte) []byte {
	b0 := op
	if fin {
		b0 |= 0x80
	}
	out := []byte{b0}
	switch n := len(payload); {
	case n <= 125:
		out = append(out, 0x80|byte(n))
	case n <= 0xFFFF:
		out = append(out, 0x80|126)
		out = binary.BigEndian.AppendUint16(out, uint16(n))
	default:
		out = append(out, 0x80|127)
		out = binary.BigEndian.AppendUint64(out, uint64(n))
	}
	out = append(out, mask[:]...)
	for i, c := range payload {
		out = append(out, c^mask[i&3])
	}
	return out
}

type got struct {
	Kind EventKind
	Op   byte
	Data string
	Code int
}

func feedAll(t testing.TB, r *Reader, chunks ...[]byte) ([]got, error) {
	var out []got
	for _, c := range chunks {
		err := r.Feed(c, func(e Event) bool {
			out = append(out, got{e.Kind, e.Op, string(e.Data), e.Code})
			return true
		})
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

var m = [4]byte{0x12, 0x34, 0x56, 0x78}

func TestReaderParsesEveryFrameKindWhateverTheChunking(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 300)   // 16-bit length
	huge := bytes.Repeat([]byte("y"), 70000) // 64-bit length
	var stream []byte
	stream = append(stream, clientFrame(true, OpText, []byte(`{"type":"ping"}`), m)...)
	stream = append(stream, clientFrame(false, OpText, []byte("hel"), m)...)
	stream = append(stream, clientFrame(true, OpPing, []byte("p!"), m)...) // between fragments
	stream = append(stream, clientFrame(false, OpContinuation, []byte("lo "), m)...)
	stream = append(stream, clientFrame(true, OpContinuation, []byte("world"), m)...)
	stream = append(stream, clientFrame(true, OpBinary, long, m)...)
	stream = append(stream, clientFrame(true, OpText, huge, m)...)
	stream = append(stream, clientFrame(true, OpPong, nil, m)...)
	stream = append(stream, clientFrame(true, OpClose, append([]byte{0x03, 0xE8}, "bye"...), m)...)
	want := []got{
		{Message, OpText, `{"type":"ping"}`, 0},
		{Ping, OpPing, "p!", 0},
		{Message, OpText, "hello world", 0},
		{Message, OpBinary, string(long), 0},
		{TooLarge, OpText, "", 0},
		{Pong, OpPong, "", 0},
		{Close, OpClose, "bye", 1000},
	}
	for _, size := range []int{1, 2, 3, 7, 13, 64, 4096, len(stream)} {
		r := &Reader{Limit: 65536}
		var chunks [][]byte
		for i := 0; i < len(stream); i += size {
			chunks = append(chunks, stream[i:min(i+size, len(stream))])
		}
		out, err := feedAll(t, r, chunks...)
		if err != nil {
			t.Fatalf("chunks of %d: %v", size, err)
		}
		if !reflect.DeepEqual(out, want) {
			t.Fatalf("chunks of %d:\n got %.200v\nwant %.200v", size, out, want)
		}
		if r.nhdr != 0 || r.inFrame || r.msgOp != 0 || r.msg != nil || r.control != nil {
			t.Fatalf("chunks of %d: reader keeps state after whole messages", size)
		}
	}
}

func TestReaderRejectsProtocolViolations(t *testing.T) {
	cases := map[string][]byte{
		"unmasked":                {0x81, 0x01, 'x'},
		"reserved bit":            {0xC1, 0x80, 0, 0, 0, 0},
		"unknown opcode":          {0x83, 0x80, 0, 0, 0, 0},
		"lone continuation":       clientFrame(true, OpContinuation, []byte("x"), m),
		"fragmented control":      clientFrame(false, OpPing, nil, m),
		"long control":            clientFrame(true, OpPing, bytes.Repeat([]byte("p"), 126), m),
		"new message mid-message": append(clientFrame(false, OpText, []byte("a"), m), clientFrame(true, OpText, []byte("b"), m)...),
		"length msb":              {0x81, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	}
	for name, stream := range cases {
		r := &Reader{Limit: 1024}
		_, err := feedAll(t, r, stream)
		var pe *ProtocolError
		if !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want a ProtocolError", name, err)
		}
	}
}

func TestReaderStopsWhenTheCallbackSaysSo(t *testing.T) {
	r := &Reader{Limit: 1024}
	stream := append(clientFrame(true, OpText, []byte("a"), m), clientFrame(true, OpText, []byte("b"), m)...)
	n := 0
	err := r.Feed(stream, func(Event) bool { n++; return false })
	if !errors.Is(err, ErrStopped) || n != 1 {
		t.Fatalf("err = %v after %d events", err, n)
	}
}

// The server side: what PutHeader/Append write is what a WebSocket client reads.
func TestServerFramesAreReadByAWebSocketClient(t *testing.T) {
	for _, n := range []int{0, 1, 125, 126, 65535, 65536, 200000} {
		payload := bytes.Repeat([]byte("z"), n)
		buf := make([]byte, MaxHeader, MaxHeader+n)
		buf = append(buf, payload...)
		start := PutHeader(buf[:MaxHeader], OpText, n)
		wire := buf[start:]
		if !bytes.Equal(wire, Append(nil, OpText, payload)) {
			t.Fatalf("%d: PutHeader and Append disagree", n)
		}
		typ, data, err := readWithGorilla(wire)
		if err != nil || typ != websocket.TextMessage || !bytes.Equal(data, payload) {
			t.Fatalf("%d bytes: type %d, %d bytes, err %v", n, typ, len(data), err)
		}
	}
	if _, _, err := readWithGorilla(CloseFrame(4009, "token revoked")); !websocket.IsCloseError(err, 4009) || err.(*websocket.CloseError).Text != "token revoked" {
		t.Fatalf("close frame read as %v", err)
	}
}

func FuzzReader(f *testing.F) {
	f.Add(clientFrame(true, OpText, []byte(`{"type":"subscribe"}`), m), uint8(3))
	f.Add(append(clientFrame(false, OpText, []byte("a"), m), clientFrame(true, OpContinuation, []byte("b"), m)...), uint8(1))
	f.Add(clientFrame(true, OpClose, []byte{0x03, 0xE8}, m), uint8(2))
	f.Add(clientFrame(true, OpBinary, bytes.Repeat([]byte("q"), 200), m), uint8(50))
	f.Fuzz(func(t *testing.T, stream []byte, size uint8) {
		// Whatever the bytes, the reader never panics, never keeps more than the
		// limit, and reports the same events however the stream is cut.
		whole := &Reader{Limit: 64}
		want, werr := feedAll(t, whole, stream)
		step := int(size) + 1
		r := &Reader{Limit: 64}
		var out []got
		var err error
		for i := 0; i < len(stream) && err == nil; i += step {
			err = r.Feed(stream[i:min(i+step, len(stream))], func(e Event) bool {
				out = append(out, got{e.Kind, e.Op, string(e.Data), e.Code})
				return true
			})
			if len(r.msg) > 64 {
				t.Fatalf("reader keeps %d bytes over a limit of 64", len(r.msg))
			}
		}
		if (err == nil) != (werr == nil) || !reflect.DeepEqual(out, want) {
			t.Fatalf("chunked %v %v != whole %v %v", out, err, want, werr)
		}
		for _, e := range out {
			if e.Kind == Message && len(e.Data) > 64 {
				t.Fatalf("message of %d bytes over the limit", len(e.Data))
			}
		}
	})
}

// readWithGorilla has a real WebSocket client read wire as the server's first
// frame.
func readWithGorilla(wire []byte) (int, []byte, error) {
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		_, _ = ws.NetConn().Write(wire)
		time.Sleep(100 * time.Millisecond)
		_ = ws.NetConn().Close()
	}))
	defer srv.Close()
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		return 0, nil, fmt.Errorf("dial: %w", err)
	}
	defer c.Close()
	return c.ReadMessage()
}

func TestMaskBytesMatchesTheKeyByteByByte(t *testing.T) {
	key := [4]byte{0x9a, 0x01, 0xfe, 0x37}
	for n := 0; n <= 40; n++ {
		for pos := 0; pos < 4; pos++ {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(i * 7)
			}
			want := make([]byte, n)
			for i := range want {
				want[i] = b[i] ^ key[(pos+i)&3]
			}
			if end := maskBytes(b, key, pos); end != (pos+n)&3 {
				t.Fatalf("n=%d pos=%d: end %d, want %d", n, pos, end, (pos+n)&3)
			}
			if !bytes.Equal(b, want) {
				t.Fatalf("n=%d pos=%d:\n got %x\nwant %x", n, pos, b, want)
			}
		}
	}
}

// A message in 4 KiB fragments (how gorilla's client sends one longer than its
// write buffer) costs at most about twice its size in allocations, whether it
// is kept or refused as too large (append's growth by a quarter cost ~5×).
func TestReaderAllocatesAboutTwiceAFragmentedMessage(t *testing.T) {
	const limit = 1 << 20
	for _, size := range []int{limit, limit + 1024} {
		payload := bytes.Repeat([]byte("z"), size)
		var frames [][]byte
		for i := 0; i < size; i += 4096 {
			op := OpContinuation
			if i == 0 {
				op = OpText
			}
			frames = append(frames, clientFrame(i+4096 >= size, op, payload[i:min(i+4096, size)], m))
		}
		r := &Reader{Limit: limit}
		var kind EventKind
		var n int
		emit := func(e Event) bool { kind, n = e.Kind, len(e.Data); return true }
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, f := range frames {
			if err := r.Feed(f, emit); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		switch {
		case size <= limit && (kind != Message || n != size):
			t.Fatalf("size %d: got kind %v, %d bytes", size, kind, n)
		case size > limit && kind != TooLarge:
			t.Fatalf("size %d: got kind %v, want TooLarge", size, kind)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 5*limit/2 {
			t.Fatalf("size %d: %d bytes allocated, want at most %d", size, alloc, 5*limit/2)
		}
	}
}
