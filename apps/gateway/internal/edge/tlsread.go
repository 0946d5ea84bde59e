package edge

import "time"

// readTLS reads a TLS WebSocket until it ends: the poller cannot drive it
// (tls.Conn decrypts ahead, so bytes may wait in it while the socket shows
// nothing to read). The goroutine and its buffer are what a TLS connection
// costs over a plain one at rest, on top of tls.Conn's own buffers; a node
// behind a TLS-terminating load balancer serves plain WebSockets and avoids
// both.
func (c *wsConn) readTLS() {
	buf := make([]byte, 4096)
	for {
		n, err := c.nc.Read(buf)
		if n > 0 {
			c.lastRead.Store(time.Now().UnixNano())
			if !c.feed(buf[:n]) {
				return
			}
		}
		if err != nil {
			c.close() // closed here, reset, end of stream or a TLS alert
			return
		}
	}
}
