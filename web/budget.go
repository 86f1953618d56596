package web

import (
	"net"
	"net/http"
	"sync"

	"unroll/lessons"
)

// Memory the server may spend on lesson runs, counted with each lesson's declared
// footprint (lessons.Lesson.SessionBytes and TrainedBytes, checked against measurements
// by the lessons tests).
const (
	// maxSessionBytes bounds the open lesson websockets and the exports being drawn:
	// 1 GiB leaves an 8 GB laptop room for its browser and slides, and holds 1,000
	// students on any lesson (each counted at its largest parameters), or about 160
	// who have all trained a seq2seq model.
	maxSessionBytes = 1 << 30
	// sessionOverhead is what a websocket costs beyond its run: three goroutine stacks,
	// gorilla's read and write buffers, the outbox and the decoded commands.
	sessionOverhead = 64 << 10
	// maxParkedBytes bounds the runs of dropped connections waiting for their pages:
	// a whole class whose access point rebooted, 200 students with a trained model each.
	maxParkedBytes = 512 << 20
	// maxParkedPerClient is how many runs one address may have waiting: a student has
	// a tab or two open, and a client that drops 500 sockets only evicts its own runs.
	maxParkedPerClient = 4
)

// budget is a pool of bytes that sessions, exports and parked runs take from and give
// back to; nothing is admitted past it. It is safe for concurrent use.
type budget struct {
	mu    sync.Mutex
	limit int
	used  int
}

// take reserves n bytes and reports whether they were free.
func (b *budget) take(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit {
		return false
	}
	b.used += n
	return true
}

// give returns n bytes taken before.
func (b *budget) give(n int) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// inUse is the bytes taken now.
func (b *budget) inUse() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// footprint is what one run of l holds: untrained, or trained (its own weights).
func footprint(l *lessons.Lesson, trained bool) int {
	if trained {
		return l.SessionBytes + l.TrainedBytes
	}
	return l.SessionBytes
}

// clientOf names the machine a request came from (its IP address), for the limits
// that are per client. Behind a proxy every student would share the proxy's address:
// Unroll is served directly, on a laptop in the lecture hall.
func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
