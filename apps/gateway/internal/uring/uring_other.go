//go:build !linux

package uring

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Ring is Linux's alone; elsewhere New fails and the gateway writes with writev.
type Ring struct{}

// ErrBroken: see the Linux build.
var ErrBroken = errors.New("io_uring: ring unusable")

// New fails: io_uring is Linux's.
func New(entries uint32) (*Ring, error) { return nil, errors.New("io_uring: Linux only") }

func (r *Ring) Entries() int                                        { return 0 }
func (r *Ring) Send(fd int32, buf *byte, n int, tag uint64) bool    { return false }
func (r *Ring) Sendmsg(fd int32, msg *unix.Msghdr, tag uint64) bool { return false }
func (r *Ring) Submit(done func(tag uint64, res int32)) error       { return ErrBroken }
func (r *Ring) Close()                                              {}
