//go:build unix

package rawio

import (
	"bytes"
	"syscall"
	"testing"
)

func socketPair(t *testing.T) (a, b int) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		if err := syscall.SetNonblock(fd, true); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { syscall.Close(fds[0]); syscall.Close(fds[1]) })
	return fds[0], fds[1]
}

func TestReadReportsNothingThereThenData(t *testing.T) {
	a, b := socketPair(t)
	buf := make([]byte, 64)
	if n, e := Read(uintptr(a), buf); e != syscall.EAGAIN || n > 0 {
		t.Fatalf("empty socket: n=%d errno=%v, want EAGAIN", n, e)
	}
	if n, e := Write(uintptr(b), []byte("hello")); e != 0 || n != 5 {
		t.Fatalf("write: n=%d errno=%v", n, e)
	}
	n, e := Read(uintptr(a), buf)
	if e != 0 || string(buf[:n]) != "hello" {
		t.Fatalf("read: %q errno=%v", buf[:n], e)
	}
	if n, e := Read(uintptr(a), nil); n != 0 || e != 0 {
		t.Fatalf("empty buffer: n=%d errno=%v", n, e)
	}
}

func TestWritevSendsEveryBufferInOrder(t *testing.T) {
	a, b := socketPair(t)
	parts := [][]byte{[]byte("one,"), []byte("two,"), []byte("three")}
	iov := make([]syscall.Iovec, len(parts))
	for i, p := range parts {
		iov[i].Base = &p[0]
		iov[i].SetLen(len(p))
	}
	if n, e := Writev(uintptr(b), iov); e != 0 || n != 13 {
		t.Fatalf("writev: n=%d errno=%v", n, e)
	}
	buf := make([]byte, 64)
	n, _ := Read(uintptr(a), buf)
	if !bytes.Equal(buf[:n], []byte("one,two,three")) {
		t.Fatalf("read %q", buf[:n])
	}
}

func TestWriteStopsWithEAGAINWhenTheBufferIsFull(t *testing.T) {
	_, b := socketPair(t)
	chunk := make([]byte, 64<<10)
	total := 0
	for i := 0; i < 1000; i++ {
		n, e := Write(uintptr(b), chunk)
		if e == syscall.EAGAIN {
			if total == 0 {
				t.Fatal("EAGAIN before anything was written")
			}
			return
		}
		if e != 0 {
			t.Fatalf("errno %v", e)
		}
		total += n
	}
	t.Fatalf("wrote %d bytes to an unread socket without EAGAIN", total)
}

func TestReadOfAClosedPeerIsZeroBytes(t *testing.T) {
	a, b := socketPair(t)
	syscall.Shutdown(b, syscall.SHUT_WR)
	if n, e := Read(uintptr(a), make([]byte, 8)); n != 0 || e != 0 {
		t.Fatalf("n=%d errno=%v, want 0 bytes and no error", n, e)
	}
}
