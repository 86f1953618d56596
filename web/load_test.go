package web

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"unroll/sim"
)

// TestClassroomLoad reruns two of issue 9's attacks on the real lessons and reports the
// figures in docs/measurements.md. It takes about a minute, so it runs only when asked:
//
//	UNROLL_LOAD=1 go test ./web -run ClassroomLoad -v -count=1
func TestClassroomLoad(t *testing.T) {
	if os.Getenv("UNROLL_LOAD") == "" {
		t.Skip("set UNROLL_LOAD=1 to measure (about a minute)")
	}
	s, err := New(slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()

	// 1. Idle seq2seq sockets: the memory each holds, and where admission stops.
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
	before := heap()
	const idle = 300
	var conns []*websocket.Conn
	for range idle {
		c := dial(t, ts, "/lessons/seq2seq/ws")
		receive(t, c)
		conns = append(conns, c)
	}
	per := float64(heap()-before) / idle
	t.Logf("%d idle seq2seq sockets: %.0f KB of heap each (server-side), %d MB of the %d MB budget counted",
		idle, per/1024, s.memory.inUse()>>20, maxSessionBytes>>20)
	for _, c := range conns {
		c.Close()
	}
	waitNoSessions(t, s)

	// 2. 64 students press Train at once on seq2seq while one steps through gru.
	const trainers, window = 64, 20 * time.Second
	var wg sync.WaitGroup
	gaps := make([]time.Duration, trainers) // the longest wait between two progress messages
	counts := make([]int, trainers)
	stop := time.Now().Add(window)
	for i := range trainers {
		c := dial(t, ts, "/lessons/seq2seq/ws")
		receive(t, c)
		send(t, c, sim.Command{Type: sim.TrainCommand, Steps: 200})
		wg.Go(func() {
			defer c.Close()
			last := time.Now()
			for time.Now().Before(stop) {
				_ = c.SetReadDeadline(stop)
				_, data, err := c.ReadMessage()
				if err != nil {
					break
				}
				if m, err := sim.DecodeMessage(data); err == nil && m.Header.Type == sim.TrainMessage {
					gaps[i] = max(gaps[i], time.Since(last))
					last = time.Now()
					counts[i]++
				}
			}
			gaps[i] = max(gaps[i], time.Since(last))
		})
	}
	stepper := dial(t, ts, "/lessons/gru/ws")
	receive(t, stepper)
	var lat []time.Duration
	for time.Now().Before(stop) {
		began := time.Now()
		send(t, stepper, sim.Command{Type: sim.StepCommand})
		receive(t, stepper)
		lat = append(lat, time.Since(began))
		time.Sleep(50 * time.Millisecond)
	}
	wg.Wait()
	slices.Sort(lat)
	slices.Sort(gaps)
	t.Logf("%d seq2seq trainers for %v: progress messages per page min %d max %d; longest wait between two: median %v, worst %v",
		trainers, window, slices.Min(counts), slices.Max(counts), gaps[trainers/2].Round(time.Millisecond), gaps[trainers-1].Round(time.Millisecond))
	t.Logf("a gru page stepping meanwhile: p50 %v, p99 %v, max %v over %d steps",
		lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*99/100].Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond), len(lat))
	if slices.Min(counts) == 0 {
		t.Errorf("a training page got no progress in %v", window)
	}
	if lat[len(lat)*99/100] > 100*time.Millisecond {
		t.Errorf("stepping p99 %v while training: interactive work waited", lat[len(lat)*99/100])
	}
}
