package wsframe

import (
	"fmt"
	"testing"
)

// BenchmarkAppend frames a payload the size of a control frame, a small
// message and a large one into a reused buffer: no allocation.
func BenchmarkAppend(b *testing.B) {
	for _, size := range []int{16, 512, 70000} {
		b.Run(fmt.Sprintf("payload=%d", size), func(b *testing.B) {
			payload := make([]byte, size)
			dst := make([]byte, 0, size+MaxHeader)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				dst = Append(dst[:0], OpText, payload)
			}
		})
	}
}

// BenchmarkReaderFeed parses masked client frames fed as one read each (a
// subscribe or publish frame per read, the usual case).
func BenchmarkReaderFeed(b *testing.B) {
	for _, size := range []int{64, 1024} {
		b.Run(fmt.Sprintf("payload=%d", size), func(b *testing.B) {
			frame := clientFrame(true, OpText, make([]byte, size), [4]byte{1, 2, 3, 4})
			r := Reader{Limit: 1 << 20}
			events := 0
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			for b.Loop() {
				if err := r.Feed(frame, func(Event) bool { events++; return true }); err != nil {
					b.Fatal(err)
				}
			}
			if events == 0 {
				b.Fatal("no frame parsed")
			}
		})
	}
}
