package edge

// poller tells WebSocket connections when their socket has bytes to read, so
// none needs a goroutine blocked in a read. After watch (and after each call
// of the connection's onReadable), the poller reports the socket once; the
// connection calls rearm when it has read what was there.
type poller interface {
	watch(c *wsConn) error
	rearm(c *wsConn) error
	forget(c *wsConn)
	close()
}
