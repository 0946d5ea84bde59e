//go:build unix

package kafka

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// brokerPair dials a local listener with dialBroker and returns both ends.
func brokerPair(t *testing.T) (client net.Conn, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	client, err = dialBroker(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	if _, ok := client.(*brokerConn); !ok {
		t.Fatalf("dialBroker returned %T, want *brokerConn", client)
	}
	return client, server
}

func TestBrokerConnCarriesBytesBothWays(t *testing.T) {
	client, server := brokerPair(t)
	// More than a socket buffer holds: Write must wait for room and finish.
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(server, int64(len(big))))
		got <- b
	}()
	if n, err := client.Write(big); err != nil || n != len(big) {
		t.Fatalf("write: n=%d err=%v", n, err)
	}
	if b := <-got; !bytes.Equal(b, big) {
		t.Fatalf("server read %d bytes, different from the %d written", len(b), len(big))
	}
	if _, err := server.Write([]byte("reply")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	n, err := io.ReadAtLeast(client, buf, 5)
	if err != nil || string(buf[:n]) != "reply" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
}

func TestBrokerConnReadDeadlineIsATimeout(t *testing.T) {
	client, server := brokerPair(t)
	client.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err := client.Read(make([]byte, 8))
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("err = %v, want a net.Error timeout wrapping os.ErrDeadlineExceeded", err)
	}
	// The connection stays usable after a timeout, as net.Conn's does.
	client.SetReadDeadline(time.Time{})
	server.Write([]byte("late"))
	buf := make([]byte, 8)
	if n, err := io.ReadAtLeast(client, buf, 4); err != nil || string(buf[:n]) != "late" {
		t.Fatalf("after the timeout: read %q, %v", buf[:n], err)
	}
}

func TestBrokerConnReadsEOFWhenThePeerCloses(t *testing.T) {
	client, server := brokerPair(t)
	server.Close()
	if _, err := client.Read(make([]byte, 8)); err != io.EOF {
		t.Fatalf("err = %v, want io.EOF", err)
	}
}

func TestBrokerConnReportsAReset(t *testing.T) {
	client, server := brokerPair(t)
	server.(*net.TCPConn).SetLinger(0) // close with RST
	server.Close()
	var err error
	for err == nil { // the first write may still be taken before the RST is seen
		_, err = client.Write([]byte("request"))
		if err == nil {
			_, err = client.Read(make([]byte, 8))
		}
	}
	var ne net.Error
	if !errors.As(err, &ne) || ne.Timeout() || !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("err = %v, want a connection reset", err)
	}
}

func TestBrokerConnReadAfterCloseIsErrClosed(t *testing.T) {
	client, _ := brokerPair(t)
	client.Close()
	if _, err := client.Read(make([]byte, 8)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("err = %v, want net.ErrClosed", err)
	}
	if _, err := client.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write err = %v, want net.ErrClosed", err)
	}
}
