package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/goleak"

	"unroll/sim"
)

// The leak tests run the ways a page or a curious student leaves the server — a
// thousand websockets opened and dropped every way a connection ends, and a burst of
// bad HTTP requests — against a real server, close it, and then require every
// goroutine started since the test began to have ended (go.uber.org/goleak). Nothing
// is ignored beyond the goroutines that were running before the test (earlier tests'
// leftovers, the testing package's own): the server's own goroutines, httptest's and
// the client's must all be gone once the server and the client's idle connections are
// closed.

// leakWait is how long the goroutines of the last connections may take to end after
// the server closes: a session waits closeGrace for the page's close reply, and a
// cancelled computation notices its context within a training slice.
const leakWait = 10 * time.Second

// TestLeakWebsocketCycles opens and ends 1,000 lesson websockets, 16 at a time, in
// every way a connection ends.
func TestLeakWebsocketCycles(t *testing.T) {
	before := goleak.IgnoreCurrent()
	s, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)), testCatalog, Options{}) // the boom lesson logs a stack on purpose
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close() // a no-op after the Close below; for an early t.Fatal

	const cycles, workers = 1000, 16
	var next atomic.Int64
	var failures []error
	var mu sync.Mutex
	ran := make([]atomic.Int64, len(leakCycles))
	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= cycles {
					return
				}
				k := i % len(leakCycles)
				ran[k].Add(1)
				if err := leakCycles[k].run(ts); err != nil {
					mu.Lock()
					failures = append(failures, fmt.Errorf("cycle %d, %s: %w", i, leakCycles[k].name, err))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d websocket cycles in %v (%d kinds, %d at a time)", cycles, time.Since(start).Round(time.Millisecond), len(leakCycles), workers)
	for i, err := range failures {
		if i == 10 {
			t.Errorf("… and %d more", len(failures)-10)
			break
		}
		t.Error(err)
	}
	ts.Close()
	verifyNoLeaks(t, before)
	waitBudgetReturned(t, s)
}

// leakCycles are the ways a lesson websocket ends: each opens one (or two), uses it,
// and ends it.
var leakCycles = []struct {
	name string
	run  func(ts *httptest.Server) error
}{
	{"clean close after a step", func(ts *httptest.Server) error {
		c, err := leakDial(ts, "/lessons/tiny/ws")
		if err != nil {
			return err
		}
		defer c.Close()
		if _, err := leakReadType(c, sim.SnapshotMessage); err != nil {
			return err
		}
		if err := leakSend(c, sim.Command{Type: sim.StepCommand}); err != nil {
			return err
		}
		if _, err := leakReadType(c, sim.FrameMessage); err != nil {
			return err
		}
		return leakCloseCleanly(c)
	}},
	{"abrupt drop (FIN) after the snapshot", func(ts *httptest.Server) error {
		c, err := leakOpen(ts, "/lessons/tiny/ws?hidden=5&step=3")
		if err != nil {
			return err
		}
		return c.NetConn().Close()
	}},
	{"abrupt drop (RST) after a step", func(ts *httptest.Server) error {
		c, err := leakOpen(ts, "/lessons/tiny/ws")
		if err != nil {
			return err
		}
		_ = leakSend(c, sim.Command{Type: sim.StepCommand})
		return reset(c)
	}},
	{"drop mid-play", func(ts *httptest.Server) error {
		c, err := leakOpen(ts, "/lessons/tiny/ws?input=abcabcabcabcabcabcabcabcabcabcabcabcabc")
		if err != nil {
			return err
		}
		if err := leakSend(c, sim.Command{Type: sim.PlayCommand, Speed: sim.MaxSpeed}); err != nil {
			c.Close()
			return err
		}
		if _, err := leakReadType(c, sim.FrameMessage); err != nil {
			c.Close()
			return err
		}
		return reset(c)
	}},
	{"drop mid-training", func(ts *httptest.Server) error {
		c, err := leakOpen(ts, "/lessons/tiny/ws")
		if err != nil {
			return err
		}
		if err := leakSend(c, sim.Command{Type: sim.TrainCommand, Steps: sim.MaxTrainSteps}); err != nil {
			c.Close()
			return err
		}
		if _, err := leakReadType(c, sim.TrainMessage); err != nil {
			c.Close()
			return err
		}
		return c.NetConn().Close()
	}},
	{"drop while the URL's trained=N is replayed", func(ts *httptest.Server) error {
		c, err := leakOpen(ts, fmt.Sprintf("/lessons/tiny/ws?trained=%d", sim.MaxTrainSteps))
		if err != nil {
			return err
		}
		return reset(c)
	}},
	{"drop before the first message is read", func(ts *httptest.Server) error {
		c, err := leakDial(ts, "/lessons/tiny/ws")
		if err != nil {
			return err
		}
		return c.NetConn().Close()
	}},
	{"drop mid-handshake", func(ts *httptest.Server) error {
		conn, err := net.Dial("tcp", ts.Listener.Addr().String())
		if err != nil {
			return err
		}
		_, _ = io.WriteString(conn, "GET /lessons/tiny/ws HTTP/1.1\r\nHost: "+ts.Listener.Addr().String()+"\r\nUpgrade: websocket\r\n")
		return conn.Close()
	}},
	{"drop while the server writes large frames nobody reads", func(ts *httptest.Server) error {
		c, err := leakDial(ts, "/lessons/big/ws")
		if err != nil {
			return err
		}
		if err := leakSend(c, sim.Command{Type: sim.PlayCommand, Speed: sim.MaxSpeed}); err != nil {
			c.Close()
			return err
		}
		time.Sleep(20 * time.Millisecond) // a few frames fill the socket buffers; the writer blocks
		return reset(c)
	}},
	{"the lesson's model panics", func(ts *httptest.Server) error {
		c, err := leakDial(ts, "/lessons/boom/ws")
		if err != nil {
			return err
		}
		defer c.Close()
		if _, err := leakReadType(c, sim.SnapshotMessage); err != nil {
			return err
		}
		_ = leakSend(c, sim.Command{Type: sim.SeekCommand, Step: 2})
		if code := leakCloseCode(c); code != websocket.CloseInternalServerErr {
			return fmt.Errorf("close code %d, want 1011", code)
		}
		return nil
	}},
	{"invalid commands, then a clean close", func(ts *httptest.Server) error {
		c, err := leakDial(ts, "/lessons/tiny/ws?hidden=999&trained=-1")
		if err != nil {
			return err
		}
		defer c.Close()
		for _, m := range []string{`{`, `{"v":1,"type":"seek","step":1e99}`, `{"v":1,"type":"set","params":{"hidden":"0"}}`} {
			if err := c.WriteMessage(websocket.TextMessage, []byte(m)); err != nil {
				return err
			}
		}
		_ = c.WriteMessage(websocket.BinaryMessage, []byte{0xff})
		return leakCloseCleanly(c)
	}},
	{"an oversize command (1009)", func(ts *httptest.Server) error {
		c, err := leakDial(ts, "/lessons/tiny/ws")
		if err != nil {
			return err
		}
		defer c.Close()
		_ = c.WriteMessage(websocket.TextMessage, bytes.Repeat([]byte(" "), sim.MaxCommandBytes+1))
		if code := leakCloseCode(c); code != websocket.CloseMessageTooBig {
			return fmt.Errorf("close code %d, want 1009", code)
		}
		return nil
	}},
	{"drop after training, resume, then drop again", func(ts *httptest.Server) error {
		c, err := leakDial(ts, "/lessons/tiny/ws")
		if err != nil {
			return err
		}
		first, err := leakReadType(c, sim.SnapshotMessage)
		if err != nil {
			c.Close()
			return err
		}
		if err := leakSend(c, sim.Command{Type: sim.TrainCommand, Steps: 2}); err != nil {
			c.Close()
			return err
		}
		if _, err := leakReadType(c, sim.TrainMessage); err != nil {
			c.Close()
			return err
		}
		_ = c.NetConn().Close()
		c2, err := leakDial(ts, "/lessons/tiny/ws?session="+first.Header.Session+"&seq=2")
		if err != nil {
			return err
		}
		if _, err := leakReadType(c2, sim.SnapshotMessage); err != nil {
			c2.Close()
			return err
		}
		return reset(c2)
	}},
	{"a second connection takes the session over (4001)", func(ts *httptest.Server) error {
		c, err := leakDial(ts, "/lessons/tiny/ws")
		if err != nil {
			return err
		}
		defer c.Close()
		first, err := leakReadType(c, sim.SnapshotMessage)
		if err != nil {
			return err
		}
		c2, err := leakDial(ts, "/lessons/tiny/ws?session="+first.Header.Session+"&seq=1")
		if err != nil {
			return err
		}
		defer c2.Close()
		if code := leakCloseCode(c); code != closeReplaced {
			return fmt.Errorf("the replaced connection closed with %d, want %d", code, closeReplaced)
		}
		return c2.NetConn().Close()
	}},
}

// TestLeakBadRequests sends a burst of bad HTTP requests, 16 at a time: oversize
// bodies, malformed JSON, requests cancelled mid-upload, mid-computation and while an
// export retrains, half-sent headers, and foreign Host names.
func TestLeakBadRequests(t *testing.T) {
	before := goleak.IgnoreCurrent()
	s, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)), testCatalog, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	client := &http.Client{Transport: tr}

	rng := rand.New(rand.NewPCG(9, 9))
	var jobs []func() error
	for range 2 { // bodies just past each limit, streamed so the test holds no copy
		jobs = append(jobs,
			expect(client, ts, "/api/v1/cell", func() io.Reader {
				return io.MultiReader(strings.NewReader(`{"kind":"gru","x":[`), &repeatReader{unit: []byte("1,"), n: maxCellBody / 2})
			}, http.StatusRequestEntityTooLarge, http.StatusBadRequest),
			expect(client, ts, "/api/v1/bleu", func() io.Reader {
				return io.MultiReader(strings.NewReader(`{"candidate":"`), &repeatReader{unit: []byte("a "), n: maxBLEUBody / 2})
			}, http.StatusRequestEntityTooLarge, http.StatusBadRequest))
	}
	for i := range 200 {
		path := []string{"/api/v1/cell", "/api/v1/bleu"}[i%2]
		body := malformedBodies[i%len(malformedBodies)]
		jobs = append(jobs, expect(client, ts, path, func() io.Reader { return strings.NewReader(body) }, http.StatusBadRequest, http.StatusRequestEntityTooLarge))
	}
	for i := range 40 {
		switch i % 5 {
		case 0: // the client gives up halfway through sending its body
			jobs = append(jobs, func() error {
				ctx, cancel := context.WithCancel(context.Background())
				pr, pw := io.Pipe()
				go func() {
					_, _ = io.WriteString(pw, `{"kind":"rnn","x":[[1],[2],`)
					time.Sleep(5 * time.Millisecond)
					cancel()
					pw.CloseWithError(context.Canceled)
				}()
				req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/api/v1/cell", pr)
				return cancelled(client.Do(req))
			})
		case 1: // the client gives up while a large, valid cell computes
			body := mustJSON(t, gruRequest(rng, 64, 64, 256))
			jobs = append(jobs, func() error {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
				defer cancel()
				req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/api/v1/cell", strings.NewReader(body))
				return cancelled(client.Do(req))
			})
		case 2: // an export that retrains trained=N, abandoned (issue 9, section 2)
			jobs = append(jobs, func() error {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
				defer cancel()
				req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/lessons/tiny/plots/state.svg?trained=%d", ts.URL, sim.MaxTrainSteps), nil)
				return cancelled(client.Do(req))
			})
		case 3: // headers never finished (slowloris), then the connection drops
			jobs = append(jobs, func() error {
				conn, err := net.Dial("tcp", ts.Listener.Addr().String())
				if err != nil {
					return err
				}
				_, _ = io.WriteString(conn, "POST /api/v1/cell HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n")
				time.Sleep(5 * time.Millisecond)
				return conn.Close()
			})
		case 4: // a body shorter than its Content-Length, then the connection drops
			jobs = append(jobs, func() error {
				conn, err := net.Dial("tcp", ts.Listener.Addr().String())
				if err != nil {
					return err
				}
				_, _ = io.WriteString(conn, "POST /api/v1/bleu HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n{\"candidate\":\"a")
				time.Sleep(5 * time.Millisecond)
				return conn.Close()
			})
		}
	}
	jobs = append(jobs, func() error { // a foreign Host (DNS rebinding) is refused
		req, _ := http.NewRequest("POST", ts.URL+"/api/v1/cell", strings.NewReader(`{}`))
		req.Host = "evil.example"
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			return fmt.Errorf("Host evil.example: status %d, want 403", resp.StatusCode)
		}
		return nil
	})
	rng.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })

	start := time.Now()
	var next atomic.Int64
	errs := make(chan error, len(jobs))
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(jobs); i = int(next.Add(1) - 1) {
				if err := jobs[i](); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	t.Logf("%d bad requests in %v", len(jobs), time.Since(start).Round(time.Millisecond))
	n := 0
	for err := range errs {
		if n++; n <= 10 {
			t.Error(err)
		}
	}
	tr.CloseIdleConnections()
	ts.Close()
	verifyNoLeaks(t, before)
	waitBudgetReturned(t, s)
}

// TestLeakCheckCatchesALeak proves the check can fail: a goroutine left blocked, as a
// session whose reader nobody cancels would be, is reported with its stack.
func TestLeakCheckCatchesALeak(t *testing.T) {
	before := goleak.IgnoreCurrent()
	stop := make(chan struct{})
	go leakedOnPurpose(stop)
	err := findLeaks(before, 300*time.Millisecond)
	close(stop)
	if err == nil || !strings.Contains(err.Error(), "leakedOnPurpose") {
		t.Fatalf("got %v, want the leaked goroutine reported", err)
	}
	if err := findLeaks(before, leakWait); err != nil {
		t.Fatalf("after it ended: %v", err)
	}
}

func leakedOnPurpose(stop chan struct{}) { <-stop }

// verifyNoLeaks fails the test if a goroutine started after before is still running
// once leakWait has passed.
func verifyNoLeaks(t *testing.T, before goleak.Option) {
	t.Helper()
	if findLeaks(before, leakWait) != nil {
		goleak.VerifyNone(t, before) // reports each one with its stack
	}
}

// findLeaks polls goleak until no goroutine but those of before runs, or wait passes.
func findLeaks(before goleak.Option, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		err := goleak.Find(before) // itself retries for about half a second
		if err == nil || time.Now().After(deadline) {
			return err
		}
	}
}

// waitBudgetReturned fails unless every byte the sessions and exports took from the
// memory budget has come back (a leaked charge would fill the server for good).
func waitBudgetReturned(t *testing.T, s *Server) {
	t.Helper()
	deadline := time.Now().Add(leakWait)
	for s.memory.inUse() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes of the memory budget still taken after every connection ended, want 0", s.memory.inUse())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// malformedBodies are bodies no API accepts.
var malformedBodies = []string{
	``, `{`, `}`, `[]`, `null`, `"x"`, `{"kind":}`, `{"kind":"gru"`, `{"kind":"gru"}{}`, `{} trailing`,
	`{"kind":"gru","x":[[1,2],[3]]}`, `{"kind":"rnn","x":"NaN"}`, `{"kind":"rnn","x":[[NaN]]}`, `{"kind":"rnn","x":[[1e999]]}`,
	`{"unknown":1}`, `{"candidate":1}`, `{"candidate":"a","references":["a"],"max_n":1e99}`,
	`{"candidate":"a","references":"a"}`, `{"kind":"lstm","params":{"W_xi":` + strings.Repeat("[", 20000) + `}`,
	"\xff\xfe{\x00}", `{"kind":"gru","params":{"W_hr":[[1]]},"x":[[1]],"c0":[1]}`,
}

// expect sends body to path and requires one of the statuses, with a JSON error.
func expect(client *http.Client, ts *httptest.Server, path string, body func() io.Reader, codes ...int) func() error {
	return func() error {
		resp, err := client.Post(ts.URL+path, "application/json", body())
		if err != nil {
			if peerClosed(err) {
				return nil // the server answered 413 and closed before the whole body was sent
			}
			return fmt.Errorf("POST %s: %w", path, err)
		}
		defer resp.Body.Close()
		var e struct{ Error string }
		derr := json.NewDecoder(resp.Body).Decode(&e)
		for _, c := range codes {
			if resp.StatusCode == c && derr == nil && e.Error != "" {
				return nil
			}
		}
		return fmt.Errorf("POST %s: status %d (%q, %v), want one of %v with a JSON error", path, resp.StatusCode, e.Error, derr, codes)
	}
}

// cancelled checks a request the client cancelled: it must fail with the context's
// error, or have been answered before the cancellation.
func cancelled(resp *http.Response, err error) error {
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil
		}
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// repeatReader yields unit n times, without holding them all.
type repeatReader struct {
	unit []byte
	n    int
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	written := 0
	for written < len(p) && r.n > 0 {
		k := copy(p[written:], r.unit[r.off:])
		written += k
		r.off += k
		if r.off == len(r.unit) {
			r.off = 0
			r.n--
		}
	}
	if written == 0 {
		return 0, io.EOF
	}
	return written, nil
}

// leakDial opens a lesson websocket as a page of the same origin would.
// leakOpen dials like leakDial and reads the first snapshot; on error nothing stays open.
func leakOpen(ts *httptest.Server, path string) (*websocket.Conn, error) {
	c, err := leakDial(ts, path)
	if err != nil {
		return nil, err
	}
	if _, err := leakReadType(c, sim.SnapshotMessage); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func leakDial(ts *httptest.Server, path string) (*websocket.Conn, error) {
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	c, resp, err := d.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+path, http.Header{"Origin": {ts.URL}})
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", path, err)
	}
	return c, nil
}

func leakSend(c *websocket.Conn, cmd sim.Command) error {
	b, err := json.Marshal(cmd)
	if err != nil {
		return err
	}
	_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return c.WriteMessage(websocket.TextMessage, b)
}

// leakReadType reads messages until one of type typ.
func leakReadType(c *websocket.Conn, typ sim.MessageType) (sim.Message, error) {
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, data, err := c.ReadMessage()
		if err != nil {
			return sim.Message{}, fmt.Errorf("waiting for a %s message: %w", typ, err)
		}
		m, err := sim.DecodeMessage(data)
		if err != nil {
			return sim.Message{}, err
		}
		if m.Header.Type == typ {
			return m, nil
		}
	}
}

// leakCloseCleanly sends a 1000 close frame and waits for the server's reply.
func leakCloseCleanly(c *websocket.Conn) error {
	if err := c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(10*time.Second)); err != nil {
		return err
	}
	if code := leakCloseCode(c); code != websocket.CloseNormalClosure {
		return fmt.Errorf("the server answered our close with %d, want 1000", code)
	}
	return c.Close()
}

// leakCloseCode reads until the connection ends and returns the close code (-1 when
// it ended without a close frame).
func leakCloseCode(c *websocket.Conn) int {
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				return ce.Code
			}
			return -1
		}
	}
}

// reset drops the connection with a TCP RST instead of a FIN, as a dead access point
// or a killed browser process would.
func reset(c *websocket.Conn) error {
	if tc, ok := c.NetConn().(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	return c.NetConn().Close()
}
