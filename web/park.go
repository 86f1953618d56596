package web

import (
	"sync"
	"time"

	"unroll/sim"
)

// A page whose connection drops (Wi-Fi, a laptop lid) reconnects naming its session;
// the run it left — trained weights, playing, a train command half done — waits for it
// here for a while, so the page continues where it was rather than from its URL. Only
// a run that has trained is parked: any other is rebuilt from the page's URL.
const (
	parkTTL      = 2 * time.Minute // longer than the page's backoff (10 s at most); after that the page has moved on
	takeoverWait = 2 * time.Second // how long a reconnect waits for the old session to let go of the run
)

// parking holds the runs of sessions whose connection broke, by session name, until
// their page reconnects or they expire (each on its own timer, so memory is freed on
// time even when nobody parks again). It holds at most maxParkedBytes of runs, counted
// by their footprint, and at most maxParkedPerClient runs of one client: a client past
// its limit evicts its own oldest run, and when the bytes run out the client holding
// the most goes first, so one client cannot evict everyone else.
type parking struct {
	mu    sync.Mutex
	ttl   time.Duration // parkTTL; tests shorten it
	limit int           // maxParkedBytes; tests lower it
	used  int
	runs  map[string]*parkedRun
}

type parkedRun struct {
	name, slug, client string
	run                *sim.Run
	bytes              int
	since              time.Time
	timer              *time.Timer
}

func newParking() *parking {
	return &parking{ttl: parkTTL, limit: maxParkedBytes, runs: map[string]*parkedRun{}}
}

// park keeps run under name for client, counted as bytes; it reports false (and
// keeps nothing) when the run alone is larger than the whole limit.
func (p *parking) park(name, slug, client string, run *sim.Run, bytes int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if bytes > p.limit {
		return false
	}
	if old, ok := p.runs[name]; ok {
		p.drop(old)
	}
	var mine []*parkedRun
	for _, r := range p.runs {
		if r.client == client {
			mine = append(mine, r)
		}
	}
	for len(mine) >= maxParkedPerClient {
		i := oldest(mine)
		p.drop(mine[i])
		mine = append(mine[:i], mine[i+1:]...)
	}
	for p.used+bytes > p.limit {
		p.drop(p.greediest())
	}
	r := &parkedRun{name: name, slug: slug, client: client, run: run, bytes: bytes, since: time.Now()}
	r.timer = time.AfterFunc(p.ttl, func() { p.expire(r) })
	p.runs[name] = r
	p.used += bytes
	return true
}

// take removes and returns the run parked under name for the lesson slug, with the
// bytes it was counted as.
func (p *parking) take(name, slug string) (*sim.Run, int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.runs[name]
	if !ok || r.slug != slug {
		return nil, 0, false
	}
	p.drop(r)
	return r.run, r.bytes, true
}

// fork is a copy of the run parked under name for the lesson slug (it stays parked),
// and whether one is parked there.
func (p *parking) fork(name, slug string) (*sim.Run, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.runs[name]
	if !ok || r.slug != slug {
		return nil, false, nil
	}
	c, err := r.run.Fork()
	return c, true, err
}

// expire drops r when its time is up, unless it was taken or replaced meanwhile.
func (p *parking) expire(r *parkedRun) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.runs[r.name] == r {
		p.drop(r)
	}
}

// clear drops every parked run (the server is shutting down).
func (p *parking) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.runs {
		p.drop(r)
	}
}

// drop forgets r and stops its timer; p.mu is held.
func (p *parking) drop(r *parkedRun) {
	r.timer.Stop()
	delete(p.runs, r.name)
	p.used -= r.bytes
}

// greediest is the oldest run of the client with the most bytes parked; p.mu is held
// and at least one run is parked.
func (p *parking) greediest() *parkedRun {
	bytes := map[string]int{}
	top := ""
	for _, r := range p.runs {
		bytes[r.client] += r.bytes
		if top == "" || bytes[r.client] > bytes[top] {
			top = r.client
		}
	}
	var theirs []*parkedRun
	for _, r := range p.runs {
		if r.client == top {
			theirs = append(theirs, r)
		}
	}
	return theirs[oldest(theirs)]
}

// oldest is the index of the run parked first.
func oldest(rs []*parkedRun) int {
	i := 0
	for j, r := range rs {
		if r.since.Before(rs[i].since) {
			i = j
		}
	}
	return i
}

// stats is how many runs are parked and the bytes they count for.
func (p *parking) stats() (runs, bytes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.runs), p.used
}
