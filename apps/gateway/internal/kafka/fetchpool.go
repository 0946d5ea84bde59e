package kafka

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/twmb/franz-go/pkg/kgo"
)

// fetchPools lends the live consumers' fetches their memory: the buffers
// compressed record batches are decompressed into and the slices their records
// are decoded into (kgo.WithPools). Without them every fetch allocated both,
// a third of the fan-out path's allocation, and the collector ran that much
// more often. A record goes back through hub.Record.Buffer (*kgo.Record's
// Recycle) once the hub has routed it; a batch's memory returns here when its
// last record has.
//
// Pools are by capacity class (powers of two), so that what a Get returns is
// never smaller than its class and a large buffer is not lent for a small batch.
type fetchPools struct {
	bytes   [poolClasses]sync.Pool // *[]byte
	records [poolClasses]sync.Pool // *[]kgo.Record
}

const (
	minPoolBits = 6  // the smallest class: 64 items (bytes or records)
	poolClasses = 20 // up to 32 Mi items; larger ones are neither lent nor kept
	// maxLent is the largest class. A size read from a batch is data from
	// the broker, and the buffer is made before the client checks the size
	// against its own bound: beyond this nothing is lent.
	maxLent = 1 << (poolClasses - 1 + minPoolBits)
)

// decompressGuess is how much larger than its compressed size a batch is
// assumed to be when its format does not say (gzip, lz4); a batch that is
// larger grows its buffer, and the grown one comes back to a larger class.
const decompressGuess = 8

// decompressedSize is how large a compressed batch will be: snappy (raw or in
// the Java client's xerial framing) and zstd frames state it; otherwise, or
// when that cannot be read, a guess. A codec decompresses into the lent buffer
// only when it is large enough, and allocates its own otherwise.
func decompressedSize(compressed []byte, codec kgo.CompressionCodecType) int {
	guess := len(compressed) * decompressGuess
	switch codec {
	case kgo.CodecSnappy:
		if len(compressed) > 16 && bytes.HasPrefix(compressed, xerialPrefix) {
			if n, ok := xerialSize(compressed[16:]); ok {
				return n
			}
		} else if n, err := s2.DecodedLen(compressed); err == nil {
			return n
		}
	case kgo.CodecZstd:
		var h zstd.Header
		if h.Decode(compressed) == nil && h.HasFCS && h.FrameContentSize <= maxLent {
			return int(h.FrameContentSize)
		}
	}
	return guess
}

// xerialPrefix starts snappy in the Java client's framing: a 16-byte header,
// then blocks, each a big-endian length and a raw snappy block.
var xerialPrefix = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// xerialSize sums the sizes of the blocks b holds (after the header).
func xerialSize(b []byte) (n int, ok bool) {
	for len(b) >= 4 {
		size := int(binary.BigEndian.Uint32(b))
		if size > len(b)-4 {
			return 0, false
		}
		block, err := s2.DecodedLen(b[4 : 4+size])
		if err != nil {
			return 0, false
		}
		n += block
		b = b[4+size:]
	}
	return n, len(b) == 0
}

var livePools = &fetchPools{}

// classFor is the smallest class whose items hold n; ok is false past the
// largest.
func classFor(n int) (c int, ok bool) {
	c = max(bits.Len(uint(max(n, 1)-1))-minPoolBits, 0)
	return c, c < poolClasses
}

// classOf is the largest class a capacity fills; ok is false below the
// smallest and past the largest.
func classOf(capacity int) (c int, ok bool) {
	c = bits.Len(uint(capacity)) - 1 - minPoolBits
	return c, c >= 0 && c < poolClasses
}

// GetDecompressBytes implements kgo.PoolDecompressBytes.
func (p *fetchPools) GetDecompressBytes(compressed []byte, codec kgo.CompressionCodecType) []byte {
	want := decompressedSize(compressed, codec)
	c, ok := classFor(want)
	if !ok {
		return nil // the codec allocates, once the client has checked the size
	}
	if b, _ := p.bytes[c].Get().(*[]byte); b != nil {
		return (*b)[:0]
	}
	return make([]byte, 0, 1<<(c+minPoolBits))
}

// PutDecompressBytes implements kgo.PoolDecompressBytes (the client zeroed b).
func (p *fetchPools) PutDecompressBytes(b []byte) {
	if c, ok := classOf(cap(b)); ok {
		b = b[:0]
		p.bytes[c].Put(&b)
	}
}

// GetRecords implements kgo.PoolRecords.
func (p *fetchPools) GetRecords(n int) []kgo.Record {
	c, ok := classFor(n)
	if !ok {
		return make([]kgo.Record, 0, n)
	}
	if r, _ := p.records[c].Get().(*[]kgo.Record); r != nil {
		return (*r)[:0]
	}
	return make([]kgo.Record, 0, 1<<(c+minPoolBits))
}

// PutRecords implements kgo.PoolRecords (each record was zeroed by its Recycle).
func (p *fetchPools) PutRecords(r []kgo.Record) {
	if c, ok := classOf(cap(r)); ok {
		r = r[:0]
		p.records[c].Put(&r)
	}
}
