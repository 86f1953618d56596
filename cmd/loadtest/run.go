package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// Bounds of one run: every client, goroutine and connection ends with it.
const (
	canaryPeriod  = 5 * time.Millisecond // the canary's sleep: shorter than any delay target, long enough to cost nothing
	maxClients    = 2000                 // a lecture hall of 500 four times over; two sockets (both ends) each stay far below the open-file limit Go raises to
	maxDuration   = 10 * time.Minute     // a measurement, not a soak test
	dialParallel  = 32                   // handshakes in flight at once: a class arriving, not a SYN flood
	connectBudget = 2 * time.Minute      // the whole connect phase; a client not connected by then has failed
	keptProblems  = 5                    // connection problems listed per group
)

// config is one run's settings (the flags).
type config struct {
	scenario *scenario
	clients  int           // the main group's size
	duration time.Duration // the measurement window
	server   string        // the base URL of a running server; empty: build and start one
	pid      int           // a running server's process id, for its CPU and memory
}

func (cfg config) check() error {
	n := 0
	for _, g := range cfg.scenario.groups(cfg.clients) {
		n += g.count
	}
	switch {
	case cfg.clients < 1 || n > maxClients:
		return fmt.Errorf("loadtest: %d clients in all; 1 to %d may connect", n, maxClients)
	case cfg.duration <= 0 || cfg.duration > maxDuration:
		return fmt.Errorf("loadtest: a duration of %v; a run lasts up to %v", cfg.duration, maxDuration)
	}
	return nil
}

// running is one group's clients during a run.
type running struct {
	group
	clients  []*client
	opened   bool // open has run and close has not
	refused  int
	failed   int
	problems []string
	// connectTimes are the handshakes plus first messages (or failures), g.mu.
	connectTimes histogram
	mu           sync.Mutex
}

func (g *running) problem(format string, args ...any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.failed++
	if len(g.problems) < keptProblems {
		g.problems = append(g.problems, fmt.Sprintf(format, args...))
	}
}

// connect opens the group's clients, dialParallel at a time, and starts each one's
// reader (joined by readers); it returns when every client has connected or failed.
func (g *running) connect(ctx context.Context, ws string, w *window, readUntil time.Time, readers *sync.WaitGroup) {
	next := make(chan int)
	var dialers sync.WaitGroup
	for range min(dialParallel, g.count) {
		dialers.Go(func() {
			for i := range next {
				began := time.Now()
				var hdr http.Header
				if g.header != nil {
					hdr = g.header(i)
				}
				conn, first, refused, err := dial(ctx, ws+g.path(i), hdr)
				g.mu.Lock()
				g.connectTimes.add(time.Since(began))
				g.mu.Unlock()
				switch {
				case err != nil:
					g.problem("%v", err)
				case refused:
					g.mu.Lock()
					g.refused++
					g.mu.Unlock()
				default:
					c := newClient(i, conn, first, g.role(), w)
					g.clients[i] = c
					readers.Go(func() { c.read(readUntil) })
				}
			}
		})
	}
	for i := range g.count {
		next <- i
	}
	close(next)
	dialers.Wait()
}

// run carries out one scenario: start the server (unless one is given), connect every
// client, open the window (each client's role begins), wait, close the window (each
// role ends), close every client, then measure and check. It logs its phases to log.
func run(ctx context.Context, cfg config, log io.Writer) (*Result, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	sc := cfg.scenario
	r := &Result{Scenario: sc.name, Issue: sc.issue, About: sc.about, Clients: cfg.clients}
	r.Machine.CPUs, r.Machine.OS, r.Machine.Arch, r.Machine.Go = runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version()

	srv := &server{base: strings.TrimSuffix(cfg.server, "/"), pid: cfg.pid}
	if cfg.server == "" {
		fmt.Fprintln(log, "building and starting ./cmd/server …")
		var err error
		if srv, err = startServer(ctx); err != nil {
			return nil, err
		}
		defer srv.Stop()
		r.Server.Started = true
	}
	r.Server.URL = srv.base
	ws := "ws" + strings.TrimPrefix(srv.base, "http")

	// Connect.
	var groups []*running
	total := 0
	for _, g := range sc.groups(cfg.clients) {
		groups = append(groups, &running{group: g, clients: make([]*client, g.count)})
		total += g.count
	}
	fmt.Fprintf(log, "connecting %d clients …\n", total)
	w := &window{}
	readUntil := time.Now().Add(connectBudget + cfg.duration + readSlack)
	cctx, cancel := context.WithTimeout(ctx, connectBudget)
	defer cancel()
	var readers sync.WaitGroup
	defer func() { // every client closed and every reader ended, whatever happened, and every room ended
		closeAll(groups)
		readers.Wait()
		for _, g := range groups {
			if g.opened {
				_ = g.close(context.Background(), srv.base) // the run has failed already
			}
		}
	}()
	for _, g := range groups { // one group after another: a later one may need an earlier one's (a room's followers)
		if g.open != nil {
			if err := g.open(cctx, srv.base); err != nil {
				return nil, err
			}
			g.opened = g.close != nil
		}
		g.connect(cctx, ws, w, readUntil, &readers)
		if g.required && slices.IndexFunc(g.clients, func(c *client) bool { return c != nil }) < 0 {
			return nil, fmt.Errorf("loadtest: no %s client connected, and the run needs one: %s", g.name, strings.Join(g.problems, "; "))
		}
	}
	cancel()

	// The window.
	serverCPU0, cpuErr := cpuTime(srv.pid)
	selfCPU0, selfErr := cpuTime(os.Getpid())
	serverWait0, serverWaitErr := cpuWait(srv.pid)
	selfWait0, selfWaitErr := cpuWait(os.Getpid())
	allCPU0, allErr := machineCPU()
	w.start = time.Now()
	w.open.Store(true)
	canaryDone := make(chan struct{})
	var canary histogram
	go func() { // ends when the window closes
		defer close(canaryDone)
		canary = wakeups(w)
	}()
	fmt.Fprintf(log, "measuring for %v …\n", cfg.duration)
	k := 0
	for _, g := range groups {
		for _, c := range g.clients {
			if c == nil {
				continue
			}
			if sc.stagger > 0 {
				time.Sleep(time.Until(w.start.Add(sc.stagger * time.Duration(k) / time.Duration(total))))
			}
			k++
			if err := c.role.begin(c); err != nil {
				g.problem("client %d: %v", c.id, err)
			}
		}
	}
	select {
	case <-time.After(time.Until(w.start.Add(cfg.duration))):
	case <-ctx.Done():
		return nil, fmt.Errorf("loadtest: %w", ctx.Err())
	}
	w.open.Store(false)
	end := time.Now()
	<-canaryDone
	r.Machine.Wakeup = DelayResult{Samples: canary.n, P50: ms(canary.quantile(0.5)), P99: ms(canary.quantile(0.99)), Max: ms(canary.max)}
	r.Seconds = end.Sub(w.start).Seconds()
	serverCPU1, _ := cpuTime(srv.pid)
	selfCPU1, _ := cpuTime(os.Getpid())
	serverWait1, _ := cpuWait(srv.pid)
	selfWait1, _ := cpuWait(os.Getpid())
	allCPU1, _ := machineCPU()
	rss, _ := memory(srv.pid, "VmRSS")

	// The end: each role settles, then every client closes.
	fmt.Fprintln(log, "ending …")
	var enders sync.WaitGroup
	for _, g := range groups {
		for _, c := range g.clients {
			if c != nil {
				enders.Go(func() {
					if err := c.role.end(c); err != nil {
						g.problem("client %d: %v", c.id, err)
					}
					c.close()
				})
			}
		}
	}
	enders.Wait()
	readers.Wait()
	for _, g := range groups {
		if g.opened {
			g.opened = false
			if err := g.close(ctx, srv.base); err != nil {
				g.problem("%v", err)
			}
		}
	}
	peak, peakErr := memory(srv.pid, "VmHWM")

	if cpuErr == nil && peakErr == nil {
		cpu := 100 * (serverCPU1 - serverCPU0).Seconds() / r.Seconds
		r.Server.CPUPercent, r.Server.PeakRSSMiB, r.Server.RSSMiB = &cpu, &peak, &rss
	} else {
		r.Server.Unavailable = errNoProc.Error()
	}
	if selfErr == nil {
		cpu := 100 * (selfCPU1 - selfCPU0).Seconds() / r.Seconds
		r.Generator.CPUPercent = &cpu
	}
	if serverWaitErr == nil {
		wait := 100 * (serverWait1 - serverWait0).Seconds() / r.Seconds
		r.Server.CPUWaitPercent = &wait
	}
	if selfWaitErr == nil {
		wait := 100 * (selfWait1 - selfWait0).Seconds() / r.Seconds
		r.Generator.CPUWaitPercent = &wait
	}
	if allErr == nil {
		cpu := 100 * (allCPU1 - allCPU0).Seconds() / r.Seconds
		r.Machine.BusyPercent = &cpu
	}
	if r.Server.Started {
		r.Server.LogWarnings = srv.warningCount()
	}
	for _, g := range groups {
		r.Groups = append(r.Groups, summarize(g, w.start, end))
	}
	r.Checks = append(commonChecks(r), sc.targets(r)...)
	return r, nil
}

// wakeups measures the machine rather than the server: a goroutine of the load
// generator sleeps canaryPeriod again and again while the window is open, and each
// time records how much later than asked it woke. What it sees, every client and the
// server see too (a machine busy with other work, or the generator's own load); a
// frame delay far above it is the server's.
func wakeups(w *window) histogram {
	var h histogram
	for w.open.Load() {
		t := time.Now()
		time.Sleep(canaryPeriod)
		h.add(max(0, time.Since(t)-canaryPeriod))
	}
	return h
}

// closeAll closes every client that is still open (close is idempotent enough: a
// closed connection's close frame fails quietly).
func closeAll(groups []*running) {
	var wg sync.WaitGroup
	for _, g := range groups {
		for _, c := range g.clients {
			if c != nil && !c.closing.Load() {
				wg.Go(c.close)
			}
		}
	}
	wg.Wait()
}

// summarize adds up a group's clients once their readers have ended.
func summarize(g *running, start, end time.Time) *GroupResult {
	window := end.Sub(start)
	res := &GroupResult{Name: g.name, Path: g.path(0), Clients: g.count, Refused: g.refused, Failed: g.failed, Problems: g.problems,
		Connect: Connect{P50: ms(g.connectTimes.quantile(0.5)), Max: ms(g.connectTimes.max)}}
	var all histogram
	var rates []float64
	var trained []int
	var waits []float64
	training := false
	var room *roomRun // a room's followers: the room, and how many ended on its final state
	onFinal := 0
	for _, c := range g.clients {
		if c == nil {
			continue
		}
		s := &c.stats
		res.Connected++
		if s.dropped != nil {
			res.Dropped++
			if len(res.Problems) < keptProblems {
				res.Problems = append(res.Problems, fmt.Sprintf("client %d dropped: %v", c.id, s.dropped))
			}
		}
		res.Messages += s.messages
		res.Frames += s.frames
		res.Snapshots += s.snapshots
		res.News += s.news
		res.Coalesced += s.coalesced
		res.Unstamped += s.unstamped
		res.Bad += s.bad
		res.Errors += s.errorCount
		for _, e := range s.errors {
			if len(res.ErrorTexts) < keptErrors && !slices.Contains(res.ErrorTexts, e) {
				res.ErrorTexts = append(res.ErrorTexts, e)
			}
		}
		all.merge(&s.delays)
		res.Delay.WorstClientP99 = max(res.Delay.WorstClientP99, ms(s.delays.quantile(0.99)))
		switch r := c.role.(type) {
		case player, *instructor:
			rates = append(rates, float64(s.frames)/window.Seconds())
		case follower:
			rates = append(rates, float64(s.frames)/window.Seconds())
			room = r.rm
			if c.onFinal {
				onFinal++
			}
		}
		if _, ok := c.role.(trainer); ok {
			training = true
			trained = append(trained, s.trained)
			wait := s.longestGap
			if !s.finished { // still training at the end: the wait since its last progress counts
				from := s.lastTrain
				if from.IsZero() {
					from = start
				}
				wait = max(wait, end.Sub(from))
			}
			waits = append(waits, wait.Seconds())
		}
	}
	if room != nil {
		f := room.final
		res.Final = &FinalResult{Seq: f.Seq, Step: f.Step, Steps: f.Steps, Followers: onFinal}
	}
	res.Delay.Samples = all.n
	res.Delay.P50, res.Delay.P99, res.Delay.Max = ms(all.quantile(0.5)), ms(all.quantile(0.99)), ms(all.max)
	if len(rates) > 0 {
		res.FrameRate = spreadOf(rates)
	}
	if training {
		t := &TrainingResult{}
		for _, n := range trained {
			t.Total += n
		}
		t.Min, t.Median, t.Max = spread(trained)
		t.FairShare = float64(t.Total) / float64(len(trained))
		if t.FairShare > 0 {
			t.MinOverFair = float64(t.Min) / t.FairShare
		}
		t.StepsPerSecond = float64(t.Total) / window.Seconds()
		t.LongestWait = *spreadOf(waits)
		res.Training = t
	}
	return res
}

func spreadOf(xs []float64) *Spread {
	s := slices.Sorted(slices.Values(xs))
	return &Spread{Min: s[0], Median: s[len(s)/2], Max: s[len(s)-1]}
}

// commonChecks hold for every scenario: every client connected and stayed, and the
// server spoke the protocol, stamping every frame.
func commonChecks(r *Result) []Check {
	var cs []Check
	for _, g := range r.Groups {
		cs = append(cs,
			Check{Name: g.Name + ": every client connected and stayed",
				Got:    fmt.Sprintf("%d of %d connected, %d refused, %d failed, %d dropped", g.Connected, g.Clients, g.Refused, g.Failed, g.Dropped),
				Status: verdict(g.Connected == g.Clients && g.Failed == 0 && g.Dropped == 0)},
			Check{Name: g.Name + ": every message follows the protocol and every frame says when it was sent",
				Got:    fmt.Sprintf("%d against the protocol, %d frames unstamped, %d error messages", g.Bad, g.Unstamped, g.Errors),
				Status: verdict(g.Bad == 0 && g.Unstamped == 0 && g.Errors == 0)},
		)
	}
	return cs
}
