package web

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The attacks of issue 9 on /api/v1/bleu and /api/v1/cell, run against a real server
// on a loopback port. Each must get a fast 400 or 413 (or a bounded 200), and the
// process must not grow by attackMemoryBound while the server handles it.
//
// Memory is measured three ways, all over the whole test process (server and client):
// the bytes allocated during the attack (runtime.MemStats.TotalAlloc, an upper bound on
// what the server can have held), the peak of HeapInuse sampled every millisecond, and
// on Linux the peak resident set (VmHWM after resetting it through /proc/self/clear_refs).
// The request bodies are built before the measurement starts.
//
//	go test ./web -run Attack -v
const (
	attackMemoryBound = 64 << 20
	attackTimeBound   = 5 * time.Second // "fast": the answers take milliseconds; this leaves room for -race on a busy machine
	// attackAbort stops the test binary when the heap grows past it: against an
	// unbounded server (the code before issue 9) the attacks take gigabytes, and the
	// machine running the tests must survive the failure.
	attackAbort = 1 << 30
)

// TestAttackBLEUOneMegabyte: "a " × 500,000 with max_n 8 was a 455 MB reply and 2.8 GB RSS.
func TestAttackBLEUOneMegabyte(t *testing.T) {
	body := []byte(`{"candidate": "` + strings.Repeat("a ", 500_000) + `", "references": ["a"], "max_n": 8}`)
	runAttack(t, "/api/v1/bleu", 1, body, 400, "candidate: 500000 words is over the limit of 256")
}

// TestAttackBLEUThreeMegabytes: a 3.6 MB request was 9.9 GB RSS and no reply in 60 s.
func TestAttackBLEUThreeMegabytes(t *testing.T) {
	body := []byte(`{"candidate": "` + strings.Repeat("a ", 1_800_000) + `", "references": ["a"], "max_n": 8}`)
	runAttack(t, "/api/v1/bleu", 1, body, 400, "candidate: 1800000 words is over the limit of 256")
}

// TestAttackBLEUManyReferences: "a " × 400 against 2,000 copies of itself was a 274 MB reply.
func TestAttackBLEUManyReferences(t *testing.T) {
	sentence := strings.Repeat("a ", 400)
	refs := strings.TrimSuffix(strings.Repeat(`"`+sentence+`", `, 2000), ", ")
	body := []byte(`{"candidate": "` + sentence + `", "references": [` + refs + `], "max_n": 8}`)
	runAttack(t, "/api/v1/bleu", 1, body, 400, "references: 2000 references is over the limit of 16")
}

// TestAttackBLEULargestLegal: the largest sentence-form answer (256 words against 16
// references of 256 words, max_n 8) is a bounded 200.
func TestAttackBLEULargestLegal(t *testing.T) {
	sentence := strings.TrimSpace(strings.Repeat("a ", 256))
	refs := strings.TrimSuffix(strings.Repeat(`"`+sentence+`", `, 16), ", ")
	body := []byte(`{"candidate": "` + sentence + `", "references": [` + refs + `], "max_n": 8}`)
	runAttack(t, "/api/v1/bleu", 1, body, 200, "")
}

// TestAttackCellParallel: four parallel 20 MiB malformed bodies reached 3.2 GB RSS. Five
// shapes, each sent four times at once: x that never closes, x of five million rows
// (valid JSON, which encoding/json used to decode whole before any limit), a params
// object of a million unknown names, a weight of 8,000 rows, and one 20 MiB string.
func TestAttackCellParallel(t *testing.T) {
	const size = 20 << 20
	grow := func(prefix, unit, suffix string) []byte {
		var b bytes.Buffer
		b.Grow(size + len(unit) + len(suffix))
		b.WriteString(prefix)
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strings.ReplaceAll(unit, "#", strconv.Itoa(i)))
		}
		b.WriteString(suffix)
		return b.Bytes()
	}
	row := "[" + strings.TrimSuffix(strings.Repeat("0.12345678901234567,", 256), ",") + "]"
	for _, tc := range []struct {
		name, mention string
		body          []byte
	}{
		{"x never closed", "x: 513 or more time steps is over the limit of 512", grow(`{"x": [`, "[0]", "")},
		{"x of five million rows", "x: 513 or more time steps is over the limit of 512", grow(`{"kind": "gru", "x": [`, "[0]", "]}")},
		{"params of unknown names", "params.p0: not a gru parameter", grow(`{"kind": "gru", "params": {`, `"p#": [[0]]`, "}}")},
		{"a weight of 8,000 rows", "params.W_hh: hidden size h = 257 or more is over the limit of 256", grow(`{"kind": "gru", "params": {"W_hh": [`, row, "]}}")},
		{"a 20 MiB string", "longer than 1024 bytes", grow(`{"kind": "`, "abcdefgh", `"}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runAttack(t, "/api/v1/cell", 4, tc.body, 400, tc.mention)
		})
	}
}

// TestAttackCellLargestLegal: the largest legal /cell request, four at once, is a
// bounded 200 (each holds its 787,968 numbers while it computes).
func TestAttackCellLargestLegal(t *testing.T) {
	if testing.Short() {
		t.Skip("four 20 MB requests")
	}
	var b bytes.Buffer
	b.WriteString(`{"kind": "lstm", "params": {`)
	num := func(i int) string { return fmt.Sprintf("-0.%017d", 12345678901234567+i%1000) }
	mat := func(r, c int) {
		b.WriteByte('[')
		for i := range r {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('[')
			for j := range c {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(num(i*c + j))
			}
			b.WriteByte(']')
		}
		b.WriteByte(']')
	}
	for i, g := range []string{"i", "f", "o", "c"} {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"W_x%s":`, g)
		mat(256, 256)
		fmt.Fprintf(&b, `,"W_h%s":`, g)
		mat(256, 256)
		fmt.Fprintf(&b, `,"b_%s":[%s]`, g, strings.TrimSuffix(strings.Repeat("0.5,", 256), ","))
	}
	b.WriteString(`}, "x": `)
	mat(512, 256)
	b.WriteString(`, "dh": `)
	mat(512, 256)
	b.WriteString(`}`)
	// Each request holds its numbers (6.3 MB), the run's trace and a 29 MB answer (T × 6
	// × h numbers and every gradient), about 60 MB at its peak: bounded by the limits,
	// not by attackMemoryBound. Four take seconds of computation, more under -race.
	runAttackBounded(t, "/api/v1/cell", 4, b.Bytes(), 200, "", 512<<20, time.Minute)
}

func runAttack(t *testing.T, path string, parallel int, body []byte, wantCode int, mention string) {
	t.Helper()
	runAttackBounded(t, path, parallel, body, wantCode, mention, attackMemoryBound, attackTimeBound)
}

// runAttackBounded sends body to path from parallel clients at once and checks each
// answer against timeBound and the memory figures against bound.
func runAttackBounded(t *testing.T, path string, parallel int, body []byte, wantCode int, mention string, bound uint64, timeBound time.Duration) {
	t.Helper()
	_, ts := newLessonServer(t)
	bystander := []byte(`{"kind":"rnn","params":{"W_xh":[[1]],"W_hh":[[0.5]],"b_h":[0]},"x":[[1],[2]]}`)
	if a := rawPost(t, ts, "/api/v1/cell", bystander); a.code != 200 { // warm up the server and the client
		t.Fatalf("bystander before the attack: %d %s", a.code, a.msg)
	}

	m := startMemoryWatch(t)
	answers := make([]answerStats, parallel)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() { answers[i] = rawPost(t, ts, path, body) })
	}
	time.Sleep(5 * time.Millisecond)
	by := rawPost(t, ts, "/api/v1/cell", bystander)
	wg.Wait()
	fig := m.stop()

	for i, a := range answers {
		t.Logf("%s, %d-byte body, client %d: %d in %v, %d-byte answer %.160q", path, len(body), i+1, a.code, a.took.Round(time.Millisecond), a.size, a.msg)
		if a.code != wantCode || !strings.Contains(a.msg, mention) {
			t.Errorf("client %d: got %d %.300q, want %d mentioning %q", i+1, a.code, a.msg, wantCode, mention)
		}
		if a.took > timeBound {
			t.Errorf("client %d: the answer took %v, want under %v", i+1, a.took, timeBound)
		}
	}
	t.Logf("bystander's /cell step during the attack: %d in %v", by.code, by.took.Round(time.Millisecond))
	if by.code != 200 {
		t.Errorf("bystander during the attack: %d %s", by.code, by.msg)
	}
	t.Logf("memory during the attack: allocated %.1f MiB, heap in use peak +%.1f MiB, %s", mib(fig.allocated), mib(fig.heapPeak), fig.rssText())
	if fig.allocated > bound {
		t.Errorf("the process allocated %.1f MiB during the attack, want under %.0f MiB", mib(fig.allocated), mib(bound))
	}
	if fig.heapPeak > bound {
		t.Errorf("the heap in use grew by %.1f MiB during the attack, want under %.0f MiB", mib(fig.heapPeak), mib(bound))
	}
	if fig.rssPeak > bound {
		t.Errorf("the peak resident set grew by %.1f MiB during the attack, want under %.0f MiB", mib(fig.rssPeak), mib(bound))
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

type answerStats struct {
	code int
	msg  string // the start of the answer
	size int64  // bytes of the answer's body
	took time.Duration
}

// rawPost sends body over its own TCP connection and reads the answer while it is still
// writing, as an attacker's client would: the server may answer, and close, before it
// has read the whole body. It keeps only the first 2 KB of the answer.
func rawPost(t *testing.T, ts *httptest.Server, path string, body []byte) answerStats {
	start := time.Now()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Error(err)
		return answerStats{}
	}
	defer conn.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
			path, ts.Listener.Addr(), len(body))
		_, _ = conn.Write(body) // fails once the server has answered and closed
	}()
	defer func() { conn.Close(); <-done }()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Errorf("POST %s: no answer: %v", path, err)
		return answerStats{took: time.Since(start)}
	}
	defer resp.Body.Close()
	head := make([]byte, 2048)
	n, _ := io.ReadFull(resp.Body, head)
	rest, _ := io.Copy(io.Discard, resp.Body)
	return answerStats{code: resp.StatusCode, msg: string(head[:n]), size: int64(n) + rest, took: time.Since(start)}
}

// memoryWatch samples the process's memory from start to stop.
type memoryWatch struct {
	t        *testing.T
	base     runtime.MemStats
	baseRSS  int64 // VmRSS after the reset, -1 without /proc
	peakHeap uint64
	quit     chan struct{}
	done     chan struct{}
}

type memoryFigures struct {
	allocated, heapPeak, rssPeak uint64
	rssKnown                     bool
}

func (f memoryFigures) rssText() string {
	if !f.rssKnown {
		return "peak RSS not measured (no /proc/self/clear_refs)"
	}
	return fmt.Sprintf("peak RSS +%.1f MiB", mib(f.rssPeak))
}

func startMemoryWatch(t *testing.T) *memoryWatch {
	runtime.GC()
	debug.FreeOSMemory() // what the attack touches shows in the resident set again
	m := &memoryWatch{t: t, baseRSS: -1, quit: make(chan struct{}), done: make(chan struct{})}
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Logf("cannot reset the peak RSS (%v): it is not measured", err)
	} else {
		m.baseRSS = procStatus(t, "VmRSS")
	}
	runtime.ReadMemStats(&m.base)
	m.peakHeap = m.base.HeapInuse
	go func() {
		defer close(m.done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		var s runtime.MemStats
		for {
			select {
			case <-m.quit:
				return
			case <-tick.C:
			}
			runtime.ReadMemStats(&s)
			m.peakHeap = max(m.peakHeap, s.HeapInuse)
			if s.HeapInuse > m.base.HeapInuse+attackAbort {
				panic(fmt.Sprintf("%s: the heap grew by %.0f MiB during the attack: the server is not bounded (stopping before the machine runs out of memory)",
					t.Name(), mib(s.HeapInuse-m.base.HeapInuse)))
			}
		}
	}()
	return m
}

func (m *memoryWatch) stop() memoryFigures {
	close(m.quit)
	<-m.done
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	f := memoryFigures{allocated: s.TotalAlloc - m.base.TotalAlloc, heapPeak: max(m.peakHeap, s.HeapInuse) - m.base.HeapInuse}
	if m.baseRSS >= 0 {
		if hwm := procStatus(m.t, "VmHWM"); hwm >= 0 {
			f.rssKnown, f.rssPeak = true, uint64(max(0, hwm-m.baseRSS))
		}
	}
	return f
}

// procStatus reads a "kB" line of /proc/self/status, in bytes; -1 when missing.
func procStatus(t *testing.T, key string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Logf("no /proc/self/status: %v", err)
		return -1
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return -1
}
