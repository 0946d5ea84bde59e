package kafka

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"

	"github.com/twmb/franz-go/pkg/kgo"
)

// What a Get lends holds at least what was asked, also after slices of odd
// sizes came back.
func TestFetchPoolsLendEnoughAndFileByCapacity(t *testing.T) {
	p := &fetchPools{}
	for _, n := range []int{0, 1, 63, 64, 65, 1000, 4096, 100_000} {
		if b := p.GetDecompressBytes(make([]byte, n), kgo.CodecGzip); cap(b) < n*decompressGuess || len(b) != 0 {
			t.Errorf("bytes for %d compressed: len %d cap %d, want empty with room for %d", n, len(b), cap(b), n*decompressGuess)
		}
		if r := p.GetRecords(n); cap(r) < n {
			t.Errorf("records for %d: cap %d", n, cap(r))
		}
	}
	// A buffer the client grew to 5000 bytes is filed in the 4096 class: a
	// later get of that class or the next is never short.
	p.PutDecompressBytes(make([]byte, 5000))
	p.PutRecords(make([]kgo.Record, 10)) // below every class: not kept
	for _, n := range []int{1000, 1024, 1025} {
		if b := p.GetDecompressBytes(make([]byte, n), kgo.CodecGzip); cap(b) < n*decompressGuess {
			t.Errorf("bytes for %d compressed after a put: cap %d", n, cap(b))
		}
	}
	if r := p.GetRecords(10); cap(r) < 64 {
		t.Errorf("records after a put: cap %d, want 64 or more", cap(r))
	}
}

// Snappy (raw and in the Java client's framing) and zstd state their size: the
// buffer lent is exactly large enough for the codec to decode into it.
func TestDecompressedSizeIsReadFromTheBatch(t *testing.T) {
	batch := bytes.Repeat([]byte(`{"k":1,"p":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`), 300)
	raw := s2.EncodeSnappy(nil, batch)
	var xerial []byte
	xerial = append(xerial, xerialPrefix...)
	xerial = append(xerial, 0, 0, 0, 1, 0, 0, 0, 1)
	for _, part := range [][]byte{batch[:5000], batch[5000:]} {
		block := s2.EncodeSnappy(nil, part)
		xerial = binary.BigEndian.AppendUint32(xerial, uint32(len(block)))
		xerial = append(xerial, block...)
	}
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	zst := enc.EncodeAll(batch, nil)
	for _, tc := range []struct {
		name       string
		compressed []byte
		codec      kgo.CompressionCodecType
	}{{"snappy", raw, kgo.CodecSnappy}, {"xerial", xerial, kgo.CodecSnappy}, {"zstd", zst, kgo.CodecZstd}} {
		if got := decompressedSize(tc.compressed, tc.codec); got != len(batch) {
			t.Errorf("%s: %d, want %d (%d compressed)", tc.name, got, len(batch), len(tc.compressed))
		}
	}
	// A broken frame falls back to the guess.
	if got := decompressedSize(xerial[:30], kgo.CodecSnappy); got != 30*decompressGuess {
		t.Errorf("a cut xerial frame: %d, want the guess", got)
	}
	// Beyond the largest class nothing is lent: the codec allocates, after the
	// client checked the size against its bound.
	if b := (&fetchPools{}).GetDecompressBytes(make([]byte, 8<<20), kgo.CodecGzip); b != nil {
		t.Errorf("a 64 MiB guess: lent %d bytes", cap(b))
	}
}

func TestPoolClasses(t *testing.T) {
	for _, tc := range []struct{ n, class int }{{0, 0}, {1, 0}, {64, 0}, {65, 1}, {128, 1}, {129, 2}} {
		if c, ok := classFor(tc.n); !ok || c != tc.class {
			t.Errorf("classFor(%d) = %d, want %d", tc.n, c, tc.class)
		}
	}
	for _, tc := range []struct {
		cap, class int
		ok         bool
	}{{63, 0, false}, {64, 0, true}, {127, 0, true}, {128, 1, true}, {1 << 26, 0, false}} {
		if c, ok := classOf(tc.cap); ok != tc.ok || (ok && c != tc.class) {
			t.Errorf("classOf(%d) = %d %v, want %d %v", tc.cap, c, ok, tc.class, tc.ok)
		}
	}
}
