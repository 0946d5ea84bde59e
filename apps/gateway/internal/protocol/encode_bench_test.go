package protocol

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkAppendMessage encodes a "message" frame into a buffer with room
// (hub.newFrame sizes it): no allocation for any payload encoding.
func BenchmarkAppendMessage(b *testing.B) {
	for _, size := range []int{64, 512, 4096} {
		for _, format := range []string{"json", "text", "bytes"} {
			b.Run(fmt.Sprintf("payload=%d/%s", size, format), func(b *testing.B) {
				data := fmt.Appendf(nil, `{"k":1234,"n":5678,"t":1795000000123456789,"p":"%s"}`, strings.Repeat("x", max(size-60, 0)))
				m := &Message{Endpoint: "/bench-topic/k1234", Epoch: "AAAAAAAAAAAAAAAAAAAAAA", Partition: 3, Seq: 123456789,
					TS: 1795000000123, Data: data, Encoding: EncodingFor(format, data)}
				dst := make([]byte, 0, 3*size+256)
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					dst = AppendMessage(dst[:0], m)
				}
			})
		}
	}
}
