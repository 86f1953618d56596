package web

import (
	"net"
	"sync"
	"testing"
)

// holdProxy is a TCP proxy between a browser and a test server that can hold the
// traffic without closing anything: a "silent drop", the hall's Wi-Fi losing every
// packet while both ends think the connection is open. While held it forwards nothing
// either way (what arrives is kept, as TCP keeps retransmitting it) and delivers it,
// in order, once released; a connection's close (FIN) is held like its data. A
// connection the browser opens during the hold reaches the server only if the browser
// still wants it at the release: one it gave up meanwhile never arrives, as a SYN lost
// on a dead network never does.
type holdProxy struct {
	ln     net.Listener
	target string

	mu       sync.Mutex
	held     bool
	released chan struct{} // closed by release; a new one while held
	conns    map[net.Conn]struct{}
	wg       sync.WaitGroup // every goroutine of every connection
}

// newHoldProxy listens on 127.0.0.1 and forwards to target (host:port) until the
// test ends.
func newHoldProxy(t *testing.T, target string) *holdProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &holdProxy{ln: ln, target: target, released: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	close(p.released)
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	return p
}

// addr is the proxy's host:port.
func (p *holdProxy) addr() string { return p.ln.Addr().String() }

// hold stops forwarding.
func (p *holdProxy) hold() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.held {
		p.held, p.released = true, make(chan struct{})
	}
}

// release forwards again, what was held first.
func (p *holdProxy) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held {
		p.held = false
		close(p.released)
	}
}

// gate is closed while traffic flows; held reports whether it is held now.
func (p *holdProxy) gate() (<-chan struct{}, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.released, p.held
}

// track remembers c for close; it reports false when the proxy is closing.
func (p *holdProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

// close stops the proxy: the listener and every connection, and waits for its goroutines.
func (p *holdProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.conns = nil
	if p.held {
		p.held = false
		close(p.released)
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *holdProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			c.Close()
			return
		}
		p.wg.Go(func() { p.serve(c) })
	}
}

// chunks is one direction's data read and not yet forwarded; eof says the reader
// has seen the end (or an error) after the last chunk.
type chunks struct {
	mu    sync.Mutex
	cond  *sync.Cond
	queue [][]byte
	eof   bool
}

func newChunks() *chunks {
	c := &chunks{}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// fill reads src into c until src ends.
func (c *chunks) fill(src net.Conn) {
	for {
		buf := make([]byte, 32<<10)
		n, err := src.Read(buf)
		c.mu.Lock()
		if n > 0 {
			c.queue = append(c.queue, buf[:n])
		}
		if err != nil {
			c.eof = true
		}
		c.cond.Broadcast()
		c.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// next waits for the next chunk; ok is false at the end.
func (c *chunks) next() ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.queue) == 0 && !c.eof {
		c.cond.Wait()
	}
	if len(c.queue) == 0 {
		return nil, false
	}
	b := c.queue[0]
	c.queue = c.queue[1:]
	return b, true
}

// ended reports whether the reader has seen the end.
func (c *chunks) ended() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.eof
}

// serve carries one browser connection: a reader and a forwarder each way.
func (p *holdProxy) serve(client net.Conn) {
	defer client.Close()
	up := newChunks()
	p.wg.Go(func() { up.fill(client) })
	if gate, held := p.gate(); held { // opened during the hold: it reaches the server at the release, if still wanted
		<-gate
		if up.ended() {
			return
		}
	}
	server, err := net.Dial("tcp", p.target)
	if err != nil || !p.track(server) {
		if server != nil {
			server.Close()
		}
		return
	}
	defer server.Close()
	down := newChunks()
	p.wg.Go(func() { down.fill(server) })
	var both sync.WaitGroup
	both.Go(func() { p.forward(up, server) })
	both.Go(func() { p.forward(down, client) })
	both.Wait()
}

// forward writes src's chunks to dst whenever the proxy is not held, then half-closes
// dst (or closes it, when a write failed: the other end is gone).
func (p *holdProxy) forward(src *chunks, dst net.Conn) {
	for {
		b, ok := src.next()
		gate, _ := p.gate()
		<-gate
		if !ok {
			if tc, isTCP := dst.(*net.TCPConn); isTCP {
				_ = tc.CloseWrite()
			}
			return
		}
		if _, err := dst.Write(b); err != nil {
			dst.Close() // its reader ends, and so does the other direction
			return
		}
	}
}
