package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"unroll/lessons"
	"unroll/sim"
)

// The tests of issue 9's attacks on sessions, parking, training and host names: each
// reproduces the attack and checks it is bounded.

// slowModel trains by spinning the CPU for spin per step (as a real model would), and
// counts its steps in steps.
type slowModel struct {
	spin  time.Duration
	steps *atomic.Int64
}

func (slowModel) Steps() int        { return 3 }
func (slowModel) Static() sim.Frame { return sim.Frame{} }
func (slowModel) At(t int) sim.Frame {
	return sim.Frame{Arrays: []sim.Array{sim.Vector("X", []float64{float64(t)})}}
}
func (m slowModel) TrainStep() (sim.Frame, error) {
	for end := time.Now().Add(m.spin); time.Now().Before(end); {
	}
	m.steps.Add(1)
	return sim.Frame{Meta: map[string]any{"loss": 1.0}}, nil
}

// slowSteps counts every TrainStep of the slow lesson's models.
var slowSteps atomic.Int64

var slowLesson = &lessons.Lesson{
	Slug: "slow", Section: "0", Title: "Trains slowly", Params: bigSpecs, Trains: true, MaxTrained: 5000,
	SessionBytes: 1 << 10, TrainedBytes: 1 << 10,
	Build: func(sim.Values) (sim.Model, error) {
		return slowModel{spin: 2 * time.Millisecond, steps: &slowSteps}, nil
	},
	Plots: []lessons.Plot{{Name: "x", Title: "x", XLabel: "t", YLabel: "x", Series: func(sim.Model) []lessons.Series {
		return []lessons.Series{{Label: "x", X: []float64{1, 2}, Y: []float64{1, 2}}}
	}}},
}

// newLimitServer serves the test lessons and the slow one.
func newLimitServer(t testing.TB, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	s, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)), append(append([]*lessons.Lesson(nil), testCatalog...), slowLesson), opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

// dialFrom opens a lesson websocket from the local address ip (another student's
// machine, on loopback); it reports false when this system cannot bind ip.
func dialFrom(t testing.TB, ts *httptest.Server, ip, path string) (*websocket.Conn, bool) {
	t.Helper()
	d := websocket.Dialer{NetDialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}
	c, _, err := d.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+path, http.Header{"Origin": {ts.URL}})
	if err != nil {
		if strings.Contains(err.Error(), "assign requested address") || strings.Contains(err.Error(), "can't assign") {
			return nil, false
		}
		t.Fatalf("dial %s from %s: %v", path, ip, err)
	}
	t.Cleanup(func() { c.Close() })
	return c, true
}

// trainOne trains the page's model one step and returns the session name and the
// snapshot after training.
func trainOne(t testing.TB, c *websocket.Conn) (string, sim.Message) {
	t.Helper()
	name := receive(t, c).Header.Session
	send(t, c, sim.Command{Type: sim.TrainCommand, Steps: 1})
	for {
		if m := receive(t, c); m.Header.Type == sim.SnapshotMessage {
			return name, m
		}
	}
}

func TestSocketUntrainedRunParksNothing(t *testing.T) {
	s, ts := newLessonServer(t)
	c := dial(t, ts, "/lessons/tiny/ws?step=2")
	name := receive(t, c).Header.Session
	c.NetConn().Close() // dropped, but the URL replays this run exactly
	waitNoSessions(t, s)
	if n, _ := s.parked.stats(); n != 0 {
		t.Errorf("an untrained run was parked (%d runs)", n)
	}
	c2 := dial(t, ts, "/lessons/tiny/ws?step=2&session="+name+"&seq=1")
	if m := receive(t, c2); m.Header.Type != sim.SnapshotMessage || m.Header.Step != 2 || m.Header.Seq != 2 {
		t.Errorf("reconnect: got %s at step %d seq %d, want the URL's run at step 2, seq 2", m.Header.Type, m.Header.Step, m.Header.Seq)
	}
}

// TestSocketResumeStaysInItsLesson: a session name ends or takes a run only from an
// upgraded websocket of the same lesson, never from another lesson or a plain GET.
func TestSocketResumeStaysInItsLesson(t *testing.T) {
	_, ts := newLessonServer(t)
	victim := dial(t, ts, "/lessons/tiny/ws")
	name, _ := trainOne(t, victim)

	other := dial(t, ts, "/lessons/big/ws?session="+name+"&seq=1")
	if m := receive(t, other); m.Header.Session == name {
		t.Errorf("the big lesson's socket took the tiny lesson's session %q", name)
	}
	resp, err := http.Get(ts.URL + "/lessons/tiny/ws?session=" + name + "&seq=1") // no upgrade
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a plain GET of the websocket: got %d, want 400", resp.StatusCode)
	}
	send(t, victim, stepCommand)
	if m := receive(t, victim); m.Header.Type != sim.FrameMessage {
		t.Errorf("the victim's socket: got %s, want its frame (it was left alone)", m.Header.Type)
	}
}

func TestSocketAdmittedByMemory(t *testing.T) {
	s, ts := newLessonServer(t)
	per := footprint(tinyLesson, false) + sessionOverhead
	s.memory.limit = 2*per + tinyLesson.TrainedBytes // two sessions, one of which may train
	a, b := dial(t, ts, "/lessons/tiny/ws"), dial(t, ts, "/lessons/tiny/ws")
	receive(t, a)
	receive(t, b)
	full := dial(t, ts, "/lessons/tiny/ws")
	_ = full.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err := full.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != closeFull || !strings.Contains(ce.Text, "the server is full") {
		t.Fatalf("a third session over the budget: got %v, want close %d saying the server is full", err, closeFull)
	}
	// The admitted sessions are untouched; one trains (there is room for one), then
	// the other cannot.
	send(t, a, sim.Command{Type: sim.TrainCommand, Steps: 1})
	for receive(t, a).Header.Type != sim.SnapshotMessage {
	}
	send(t, b, sim.Command{Type: sim.TrainCommand, Steps: 1})
	if m := receive(t, b); m.Header.Type != sim.ErrorMessage || !strings.Contains(fmt.Sprint(m.Header.Meta["message"]), "server is full") {
		t.Errorf("training past the budget: got %s %v, want an error saying the server is full", m.Header.Type, m.Header.Meta)
	}
	a.Close()
	b.Close()
	waitNoSessions(t, s)
	if used := s.memory.inUse(); used != 0 {
		t.Errorf("%d bytes of the budget still taken after every session ended", used)
	}
}

// TestSocketClassDropsAndResumes: 200 students, each on their own machine, trained a
// model when the access point rebooted; every one of them gets their run back.
func TestSocketClassDropsAndResumes(t *testing.T) {
	s, ts := newLessonServer(t)
	const students = 200
	names := make([]string, students)
	snaps := make([]sim.Message, students)
	for i := range students {
		c, ok := dialFrom(t, ts, fmt.Sprintf("127.0.%d.%d", 1+i/200, 2+i%200), "/lessons/tiny/ws")
		if !ok {
			t.Skip("this system cannot bind loopback addresses other than 127.0.0.1, which the test uses as the students' machines")
		}
		names[i], snaps[i] = trainOne(t, c)
		c.NetConn().Close()
	}
	waitParked(t, s, students)
	for i := range students {
		c, _ := dialFrom(t, ts, fmt.Sprintf("127.0.%d.%d", 1+i/200, 2+i%200), fmt.Sprintf("/lessons/tiny/ws?session=%s&seq=%d", names[i], snaps[i].Header.Seq))
		if m := receive(t, c); m.Header.Session != names[i] || m.Header.Trained != 1 {
			t.Fatalf("student %d: got session %q trained %d, want their own run %q, trained 1", i, m.Header.Session, m.Header.Trained, names[i])
		}
	}
}

// TestSocketOneClientEvictsOnlyItsOwn: one client's 500 quick drops of trained runs
// evict nobody else's parked run.
func TestSocketOneClientEvictsOnlyItsOwn(t *testing.T) {
	s, ts := newLessonServer(t)
	victim, ok := dialFrom(t, ts, "127.0.0.2", "/lessons/tiny/ws")
	if !ok {
		t.Skip("this system cannot bind loopback addresses other than 127.0.0.1, which the test uses as two machines")
	}
	name, snap := trainOne(t, victim)
	victim.NetConn().Close()
	waitParked(t, s, 1)
	for range 500 {
		c, _ := dialFrom(t, ts, "127.0.0.3", "/lessons/tiny/ws")
		trainOne(t, c)
		c.NetConn().Close()
	}
	waitNoSessions(t, s)
	if n, _ := s.parked.stats(); n != 1+maxParkedPerClient {
		t.Errorf("%d runs parked, want the victim's and the attacker's last %d", n, maxParkedPerClient)
	}
	back, _ := dialFrom(t, ts, "127.0.0.2", fmt.Sprintf("/lessons/tiny/ws?session=%s&seq=%d", name, snap.Header.Seq))
	if m := receive(t, back); m.Header.Session != name || m.Header.Trained != 1 {
		t.Errorf("the victim got session %q trained %d, want its own run %q back", m.Header.Session, m.Header.Trained, name)
	}
}

// TestTrainingIsFairAndInteractiveFirst: 16 pages train at once on a CPU-bound model;
// they take turns (they all finish at about the same time, none waits for the others
// to finish), and a page that steps meanwhile is answered at once.
func TestTrainingIsFairAndInteractiveFirst(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs two CPUs: with one, training and stepping share it")
	}
	_, ts := newLimitServer(t, Options{})
	const pages, steps = 16, 40
	var wg sync.WaitGroup
	start := time.Now()
	finished := make([]time.Duration, pages)
	for i := range pages {
		c := dial(t, ts, "/lessons/slow/ws")
		receive(t, c)
		send(t, c, sim.Command{Type: sim.TrainCommand, Steps: steps})
		wg.Go(func() {
			for {
				if m := receive(t, c); m.Header.Type == sim.SnapshotMessage {
					finished[i] = time.Since(start)
					return
				}
			}
		})
	}
	stepper := dial(t, ts, "/lessons/tiny/ws")
	receive(t, stepper)
	var took []time.Duration
	for range 30 {
		began := time.Now()
		send(t, stepper, stepCommand)
		receive(t, stepper)
		took = append(took, time.Since(began))
		time.Sleep(10 * time.Millisecond)
	}
	slices.Sort(took)
	median := took[len(took)/2]
	wg.Wait()
	first, last := finished[0], finished[0]
	for _, f := range finished {
		first, last = min(first, f), max(last, f)
	}
	t.Logf("16 pages × %d steps of 2 ms: first done after %v, last after %v; interactive steps meanwhile: median %v, slowest %v", steps, first, last, median, took[len(took)-1])
	if first < last/2 {
		t.Errorf("the first page finished after %v and the last after %v: pages did not take turns", first, last)
	}
	// Stepping never queues behind training (it takes no turn); with one CPU kept for
	// interactive work it is answered in well under a millisecond here, and with every
	// CPU training it waits for Go's scheduler to preempt a trainer (~10 ms). The bound
	// is loose because other test packages share the CPUs; that one CPU is kept is
	// TestSchedulerKeepsASlotForInteractive's job.
	if median > 50*time.Millisecond {
		t.Errorf("steps took %v (median) while others trained: interactive work waited behind training", median)
	}
}

// TestExportStopsWhenTheClientGoes: an abandoned export of a long training stops
// training within a second, and frees its turn for the next one.
func TestExportStopsWhenTheClientGoes(t *testing.T) {
	s, ts := newLimitServer(t, Options{})
	for _, path := range []string{"/lessons/slow/plots/x.svg?trained=5000", "/lessons/slow/figures.zip?trained=5000"} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+path, nil)
		before := slowSteps.Load()
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			t.Fatalf("%s: an export of 5000 × 2 ms answered %d within 300 ms; the test shows nothing", path, resp.StatusCode)
		}
		cancel()
		time.Sleep(time.Second)
		settled := slowSteps.Load()
		time.Sleep(300 * time.Millisecond)
		if after := slowSteps.Load(); after != settled {
			t.Errorf("%s: training went on after the client left: %d steps then %d more", path, settled-before, after-settled)
		}
		if used := s.memory.inUse(); used != 0 {
			t.Errorf("%s: %d bytes of the budget still taken after the export was abandoned", path, used)
		}
	}
	// Past the lesson's cap, an export is refused at once.
	resp, err := http.Get(ts.URL + "/lessons/slow/plots/x.svg?trained=5001")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "from 0 to 5000") {
		t.Errorf("trained past the cap: got %d %s, want 400 naming the cap", resp.StatusCode, body)
	}
}

// TestHostNames: DNS rebinding. A page of evil.example whose name points at the
// server's loopback address is refused, for pages, the API and websockets alike.
func TestHostNames(t *testing.T) {
	_, ts := newLessonServer(t)
	get := func(host, origin, path string, upgrade bool) int {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		req.Host = host
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if upgrade {
			req.Header.Set("Connection", "Upgrade")
			req.Header.Set("Upgrade", "websocket")
			req.Header.Set("Sec-WebSocket-Version", "13")
			req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	port := ts.Listener.Addr().(*net.TCPAddr).Port
	cases := []struct {
		host, origin, path string
		upgrade            bool
		want               int
	}{
		{"evil.example", "http://evil.example", "/lessons/tiny/ws", true, http.StatusForbidden},
		{"evil.example:" + fmt.Sprint(port), "", "/api/v1/lessons", false, http.StatusForbidden},
		{"evil.example", "", "/", false, http.StatusForbidden},
		{"localhost:" + fmt.Sprint(port), "http://localhost:" + fmt.Sprint(port), "/lessons/tiny/ws", true, http.StatusSwitchingProtocols},
		{"127.0.0.1:" + fmt.Sprint(port), "", "/lessons/tiny/ws", true, http.StatusSwitchingProtocols}, // no Origin: a script, allowed
		{fmt.Sprintf("[::1]:%d", port), "", "/healthz", false, http.StatusOK},
		{"unroll.localhost", "", "/healthz", false, http.StatusOK},
		{"localhost:" + fmt.Sprint(port), "http://evil.example", "/lessons/tiny/ws", true, http.StatusForbidden}, // a foreign page
	}
	for _, c := range cases {
		if got := get(c.host, c.origin, c.path, c.upgrade); got != c.want {
			t.Errorf("Host %q Origin %q %s: got %d, want %d", c.host, c.origin, c.path, got, c.want)
		}
	}
	// A server told its name answers to it.
	_, named := newLimitServer(t, Options{Hosts: []string{"Unroll.Example.edu"}})
	req, _ := http.NewRequest(http.MethodGet, named.URL+"/healthz", nil)
	req.Host = "unroll.example.edu:8080"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("a name given with -allow-host: got %v %v, want 200", resp, err)
	}
}

func TestHostsOfAnAddress(t *testing.T) {
	if got := Hosts(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, []string{"a.example"}); strings.Join(got, " ") != "a.example" {
		t.Errorf("on loopback: got %v, want only the allowed name (loopback names are always allowed)", got)
	}
	if got := Hosts(&net.TCPAddr{IP: net.IPv4(192, 168, 1, 20), Port: 8080}, nil); strings.Join(got, " ") != "192.168.1.20" {
		t.Errorf("on one LAN address: got %v, want that address", got)
	}
	all := Hosts(&net.TCPAddr{IP: net.IPv4zero, Port: 8080}, nil)
	hasLoopback := false
	for _, h := range all {
		hasLoopback = hasLoopback || h == "127.0.0.1"
	}
	if !hasLoopback {
		t.Errorf("on 0.0.0.0: got %v, want every interface's address (127.0.0.1 among them)", all)
	}
	p := newHostPolicy(all)
	for _, h := range []string{"LOCALHOST:80", "[::1]:8080", "127.0.0.1"} {
		if !p.allows(h) {
			t.Errorf("%q refused", h)
		}
	}
	if p.allows("evil.example") || p.allows("localhost.evil.example") {
		t.Error("a foreign name was allowed")
	}
}
