package web

import (
	"sync"
	"time"

	"unroll/sim"
)

// A page whose connection drops (Wi-Fi, a laptop lid) reconnects naming its session;
// the run it left — trained weights, playing, a train command half done — waits for it
// here for a while, so the page continues where it was rather than from its URL.
const (
	parkTTL      = 2 * time.Minute // longer than the page's backoff (10 s at most); after that the page has moved on
	maxParked    = 64              // runs waiting at once; a trained translator with its frames is a few MB
	takeoverWait = 2 * time.Second // how long a reconnect waits for the old session to let go of the run
)

// parking holds the runs of sessions whose connection broke, by session name, until
// their page reconnects or they expire. Expired runs are dropped on the next park or
// take, so it needs no goroutine of its own.
type parking struct {
	mu   sync.Mutex
	runs map[string]parkedRun
}

type parkedRun struct {
	slug  string
	run   *sim.Run
	since time.Time
}

// park keeps run under name; when maxParked runs wait already, the oldest goes.
func (p *parking) park(name, slug string, run *sim.Run, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expire(now)
	if p.runs == nil {
		p.runs = map[string]parkedRun{}
	}
	if len(p.runs) >= maxParked {
		oldest := ""
		for k, r := range p.runs {
			if oldest == "" || r.since.Before(p.runs[oldest].since) {
				oldest = k
			}
		}
		delete(p.runs, oldest)
	}
	p.runs[name] = parkedRun{slug: slug, run: run, since: now}
}

// take removes and returns the run parked under name for the lesson slug.
func (p *parking) take(name, slug string, now time.Time) (*sim.Run, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expire(now)
	r, ok := p.runs[name]
	if !ok || r.slug != slug {
		return nil, false
	}
	delete(p.runs, name)
	return r.run, true
}

func (p *parking) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.runs)
}

// expire drops the runs parked longer than parkTTL; p.mu is held.
func (p *parking) expire(now time.Time) {
	for k, r := range p.runs {
		if now.Sub(r.since) > parkTTL {
			delete(p.runs, k)
		}
	}
}
