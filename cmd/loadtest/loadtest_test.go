package main

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"unroll/sim"
)

// runScenario runs a scenario against a server this test builds and starts, and logs
// the report.
func runScenario(t *testing.T, name string, clients int, d time.Duration) *Result {
	t.Helper()
	sc, ok := scenarioNamed(name)
	if !ok {
		t.Fatalf("no scenario %q", name)
	}
	var log strings.Builder
	r, err := run(context.Background(), config{scenario: sc, clients: clients, duration: d}, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	var text strings.Builder
	r.writeText(&text)
	t.Logf("go run ./cmd/loadtest -scenario %s -clients %d -duration %v\n%s", name, clients, d, text.String())
	return r
}

// checkConnected: every client of every group connected, stayed, read only
// well-formed messages, every frame stamped, and no error message.
func checkConnected(t *testing.T, r *Result) {
	t.Helper()
	for _, c := range commonChecks(r) {
		if c.Status != pass {
			t.Errorf("%s: %s", c.Name, c.Got)
		}
	}
}

// TestShortLoad is the CI form of issue 12's scenarios (a), (b) and (c): a few clients
// for a few seconds against the real server over loopback. Its bounds are loose (CI
// machines are slow and run -race); the full sizes are TestClassroomLoad's.
func TestShortLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server for about 20 s")
	}
	t.Run("sessions", func(t *testing.T) {
		r := runScenario(t, "sessions", 20, 3*time.Second)
		checkConnected(t, r)
		p := r.group("players")
		// Each client asked for 20 frames a second and read every one it got.
		if p.FrameRate.Min < playSpeed/4 {
			t.Errorf("the slowest client got %.1f frames/s, %d frames in all: the server did not keep playing", p.FrameRate.Min, p.Delay.Samples)
		}
		if p.Delay.P99 > lateBound(r) || p.Delay.P50 > 250 {
			t.Errorf("frame delay p50 %.1f ms, p99 %.1f ms (the machine's own wake-ups up to %.0f ms late): frames reach 20 pages late",
				p.Delay.P50, p.Delay.P99, r.Machine.Wakeup.Max)
		}
		if p.Delay.P50 <= 0 || p.Delay.Max < p.Delay.P99 || p.Delay.P99 < p.Delay.P50 {
			t.Errorf("frame delays p50 %v ≤ p99 %v ≤ max %v do not hold", p.Delay.P50, p.Delay.P99, p.Delay.Max)
		}
	})
	t.Run("room", func(t *testing.T) {
		r := runScenario(t, "room", 20, 3*time.Second)
		checkConnected(t, r)
		checkRoom(t, r, "20 followers")
	})
	t.Run("train", func(t *testing.T) {
		r := runScenario(t, "train", 4, 5*time.Second)
		checkConnected(t, r)
		tr := r.group("trainers")
		if tr.Training.Min < 1 || tr.Training.MinOverFair < minFairShare/2 {
			t.Errorf("trainers took %d to %d steps (fair share %.1f): one was starved", tr.Training.Min, tr.Training.Max, tr.Training.FairShare)
		}
		checkRoom(t, r, "4 pages training beside it")
	})
}

// checkRoom: the room's followers received the instructor's frames, in time (loosely),
// as many as the instructor's page did, and every one ended on its final frame.
func checkRoom(t *testing.T, r *Result, while string) {
	t.Helper()
	in, f := r.group("instructor"), r.group("followers")
	if in.FrameRate.Min < playSpeed/4 || in.Delay.P99 > lateBound(r) {
		t.Errorf("the instructor's page got %.1f frames/s, p99 delay %.1f ms, with %s", in.FrameRate.Min, in.Delay.P99, while)
	}
	if f.FrameRate.Min < playSpeed/4 || f.Delay.WorstClientP99 > lateBound(r) {
		t.Errorf("the slowest follower got %.1f frames/s, the worst p99 delay was %.1f ms (the machine's own wake-ups up to %.0f ms late), with %s",
			f.FrameRate.Min, f.Delay.WorstClientP99, r.Machine.Wakeup.Max, while)
	}
	// The same frames: a follower may get fewer (its outbox coalesces them), never more
	// but for one in flight as the window opened (its page read it after the
	// instructor's) and one as it closed.
	if f.Frames > f.Clients*(in.Frames+2) || f.Frames < f.Clients*in.Frames/2 {
		t.Errorf("%d followers got %d frames in all, the instructor's page %d", f.Clients, f.Frames, in.Frames)
	}
	if f.Final == nil || f.Final.Seq == 0 || f.Final.Followers != f.Clients {
		t.Errorf("followers on the instructor's final frame: %+v of %d", f.Final, f.Clients)
	}
}

// lateBound is the p99 frame delay, in ms, the CI form accepts: a second, plus however
// late the machine itself woke a sleeping goroutine meanwhile (a CI machine under -race
// and other packages' tests can stall everything for a while; the frames may be that late
// too, but no later).
func lateBound(r *Result) float64 { return 1000 + r.Machine.Wakeup.Max }

// TestClassroomLoad runs scenarios (a), (b) and (c) at the sizes (300 sessions
// for 30 s, a room of 500 followers for 30 s, 60 trainers beside a room for 60 s) and
// checks the targets; docs/measurements.md quotes it. About three minutes, so
// only when asked:
//
//	UNROLL_LOAD=1 go test ./cmd/loadtest -run ClassroomLoad -v -count=1 -timeout 10m
func TestClassroomLoad(t *testing.T) {
	if os.Getenv("UNROLL_LOAD") == "" {
		t.Skip("set UNROLL_LOAD=1 to measure (about three minutes)")
	}
	for _, name := range []string{"sessions", "room", "train"} {
		t.Run(name, func(t *testing.T) {
			sc, _ := scenarioNamed(name)
			r := runScenario(t, name, sc.clients, sc.duration)
			for _, c := range r.Checks {
				if c.Status == fail {
					t.Errorf("%s: %s", c.Name, c.Got)
				}
			}
		})
	}
}

// TestHistogramQuantiles: the histogram's quantiles are within its 1 % buckets of the
// exact ones, never below them, never above the largest value.
func TestHistogramQuantiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h histogram
	var exact []time.Duration
	for range 100_000 {
		d := time.Duration(math.Exp(rng.NormFloat64()*2+7)) * time.Microsecond / 10 // 0.1 µs to ~1 s, log-normal
		h.add(d)
		exact = append(exact, d)
	}
	slices.Sort(exact)
	for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 0.999, 1} {
		want := exact[int(math.Ceil(q*float64(len(exact))))-1]
		got := h.quantile(q)
		if got < want || float64(got) > float64(max(want, time.Microsecond))*bucketGrowth*1.0001 {
			t.Errorf("q = %v: %v, exact %v (want within 1 %% above)", q, got, want)
		}
	}
	if h.quantile(1) != exact[len(exact)-1] || h.max != exact[len(exact)-1] {
		t.Errorf("max %v, q = 1 %v; the largest is %v", h.max, h.quantile(1), exact[len(exact)-1])
	}
	var a, b histogram
	for i, d := range exact {
		if i%2 == 0 {
			a.add(d)
		} else {
			b.add(d)
		}
	}
	a.merge(&b)
	if a != h {
		t.Error("two halves merged differ from the whole")
	}
	var empty histogram
	if empty.quantile(0.99) != 0 {
		t.Error("an empty histogram has a p99")
	}
}

// TestParseHeader reads what sim encodes, the "sent" stamp included, and refuses a
// message shorter than its header.
func TestParseHeader(t *testing.T) {
	at := time.Date(2026, 11, 25, 9, 0, 0, 123456000, time.UTC)
	b := sim.EncodeMessage(nil, sim.Header{Type: sim.FrameMessage, Seq: 7, Step: 3, Steps: 9, Playing: true, Sent: sim.MillisOf(at),
		Meta: map[string]any{"token": "b"}}, []sim.Array{sim.Vector("H", []float64{1, 2})})
	h, err := parseHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	if h.Type != sim.FrameMessage || h.Seq != 7 || h.Step != 3 || h.Steps != 9 || !h.Playing || !h.Sent.Time().Equal(at) {
		t.Errorf("read %+v (sent %v), want a playing frame, seq 7, step 3 of 9, sent %v", h, h.Sent.Time(), at)
	}
	n := binary.LittleEndian.Uint32(b)
	if _, err := parseHeader(b[:4+n-1]); err == nil {
		t.Error("a message cut inside its header was read")
	}
}

// TestRoomRefused: a lesson socket that names the room without its cookie is not the
// instructor's; dial says the room refused it rather than taking the page's snapshot
// for the room's. With the cookie the same socket leads the room.
func TestRoomRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	ctx := context.Background()
	srv, err := startServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	rm := newRoomRun(roomLesson)
	if err := rm.open(ctx, srv.base); err != nil {
		t.Fatal(err)
	}
	ws := "ws" + strings.TrimPrefix(srv.base, "http")
	if conn, _, _, err := dial(ctx, ws+rm.instructorPath(0), nil); err == nil || !strings.Contains(err.Error(), "refused") {
		if conn != nil {
			conn.Close()
		}
		t.Errorf("without the cookie: %v, want the room's refusal", err)
	}
	conn, first, _, err := dial(ctx, ws+rm.instructorPath(0), rm.header(0))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if first.Type != sim.SnapshotMessage || first.Steps == 0 {
		t.Errorf("the instructor's first message is %+v, want the lesson's snapshot", first)
	}
	if err := rm.end(ctx, srv.base); err != nil {
		t.Error(err)
	}
}
