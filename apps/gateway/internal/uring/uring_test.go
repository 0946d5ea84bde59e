//go:build linux

package uring

import (
	"bytes"
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// newRing skips where the kernel forbids io_uring (a container's seccomp
// profile): the gateway then writes with writev, which other tests cover.
func newRing(t *testing.T, entries uint32) *Ring {
	t.Helper()
	r, err := New(entries)
	if err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOSYS) {
			t.Skipf("io_uring not allowed here: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// socketPair returns a connected pair of non-blocking stream sockets.
func socketPair(t *testing.T) (w, r int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Close(fds[0]); _ = unix.Close(fds[1]) })
	return fds[0], fds[1]
}

func readAll(t *testing.T, fd, n int) []byte {
	t.Helper()
	buf := make([]byte, n+1)
	got, err := unix.Read(fd, buf)
	if err != nil {
		t.Fatal(err)
	}
	return buf[:got]
}

type result struct {
	tag uint64
	res int32
}

func submit(t *testing.T, r *Ring) []result {
	t.Helper()
	var out []result
	if err := r.Submit(func(tag uint64, res int32) { out = append(out, result{tag, res}) }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSendAndSendmsgReachTheirSockets(t *testing.T) {
	r := newRing(t, 8)
	w1, r1 := socketPair(t)
	w2, r2 := socketPair(t)
	one := []byte("hello")
	a, b := []byte("gathered "), []byte("write")
	iov := []unix.Iovec{{Base: &a[0]}, {Base: &b[0]}}
	iov[0].SetLen(len(a))
	iov[1].SetLen(len(b))
	msg := unix.Msghdr{Iov: &iov[0]}
	msg.SetIovlen(len(iov))

	if !r.Send(int32(w1), &one[0], len(one), 7) || !r.Sendmsg(int32(w2), &msg, 9) {
		t.Fatal("a batch of two did not fit a ring of 8")
	}
	got := submit(t, r)
	if len(got) != 2 {
		t.Fatalf("completions: %v, want 2", got)
	}
	byTag := map[uint64]int32{}
	for _, c := range got {
		byTag[c.tag] = c.res
	}
	if byTag[7] != int32(len(one)) || byTag[9] != int32(len(a)+len(b)) {
		t.Fatalf("results by tag: %v", byTag)
	}
	if s := readAll(t, r1, 64); !bytes.Equal(s, one) {
		t.Fatalf("first socket read %q", s)
	}
	if s := readAll(t, r2, 64); string(s) != "gathered write" {
		t.Fatalf("second socket read %q", s)
	}
}

// A socket whose buffer is full answers EAGAIN at once (MSG_DONTWAIT) rather
// than the kernel keeping the send for later, when its buffer may be gone.
func TestAFullSocketCompletesWithEAGAIN(t *testing.T) {
	r := newRing(t, 4)
	w, _ := socketPair(t)
	_ = unix.SetsockoptInt(w, unix.SOL_SOCKET, unix.SO_SNDBUF, 4096)
	chunk := make([]byte, 64<<10)
	for {
		if _, err := unix.Write(w, chunk); err == unix.EAGAIN {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	r.Send(int32(w), &chunk[0], len(chunk), 1)
	got := submit(t, r)
	if len(got) != 1 || got[0].res != -int32(unix.EAGAIN) {
		t.Fatalf("completions: %v, want one -EAGAIN (%d)", got, -int32(unix.EAGAIN))
	}
}

// One failed send does not hold back the others of its batch.
func TestAFailedSendLeavesTheOthers(t *testing.T) {
	r := newRing(t, 4)
	w, rd := socketPair(t)
	dead, _ := socketPair(t)
	_ = unix.Shutdown(dead, unix.SHUT_WR)
	msg := []byte("x")
	r.Send(int32(dead), &msg[0], 1, 1)
	r.Send(int32(w), &msg[0], 1, 2)
	r.Send(-1, &msg[0], 1, 3)
	byTag := map[uint64]int32{}
	for _, c := range submit(t, r) {
		byTag[c.tag] = c.res
	}
	if len(byTag) != 3 || byTag[1] != -int32(unix.EPIPE) || byTag[2] != 1 || byTag[3] != -int32(unix.EBADF) {
		t.Fatalf("results by tag: %v (want 1: -EPIPE, 2: 1, 3: -EBADF)", byTag)
	}
	if s := readAll(t, rd, 8); string(s) != "x" {
		t.Fatalf("read %q", s)
	}
}

// A batch takes at most the ring's entries; the ring is reused batch after batch.
func TestFullBatchAndReuse(t *testing.T) {
	r := newRing(t, 4)
	w, rd := socketPair(t)
	msg := []byte("y")
	for round := range 3 {
		for i := range r.Entries() {
			if !r.Send(int32(w), &msg[0], 1, uint64(i)) {
				t.Fatalf("round %d: send %d refused below the ring's %d entries", round, i, r.Entries())
			}
		}
		if r.Send(int32(w), &msg[0], 1, 99) {
			t.Fatal("a send beyond the ring's entries was taken")
		}
		if got := submit(t, r); len(got) != r.Entries() {
			t.Fatalf("round %d: %d completions, want %d", round, len(got), r.Entries())
		}
	}
	if s := readAll(t, rd, 64); len(s) != 3*r.Entries() {
		t.Fatalf("read %d bytes, want %d", len(s), 3*r.Entries())
	}
}
