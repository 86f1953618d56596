package web

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"gonum.org/v1/gonum/mat"

	"unroll/lessons"
	"unroll/models"
	"unroll/sim"
)

// The test lessons: a real GRU over a token string ("tiny"), a model with large
// frames for the slow-reader test ("big"), and one that panics at step 2 ("boom").
var (
	tinySpecs = sim.Specs{
		{Name: "seed", Label: "Seed", Kind: sim.Int, Default: "1", Min: 0, Max: 1 << 30},
		{Name: "hidden", Label: "Hidden units", Kind: sim.Int, Default: "8", Min: 1, Max: 64},
		{Name: "input", Label: "Input", Kind: sim.Text, Default: "abcabcab", MaxLen: 200},
	}
	tinyLesson = &lessons.Lesson{
		Slug: "tiny", Section: "4.3", Title: "A tiny GRU", Summary: "A GRU reads abc.",
		Params: tinySpecs, Build: buildTiny, Trains: true, MaxTrained: sim.MaxTrainSteps,
		SessionBytes: 64 << 10, TrainedBytes: 16 << 10,
		Panels: []lessons.Panel{{ID: "gates", Kind: lessons.Heatmap, Title: "R", Arrays: []string{"R"}, Scale: []float64{0, 1}}},
		Plots: []lessons.Plot{{Name: "state", Title: `\(\|H_t\|\) per step`, XLabel: `\(t\)`, YLabel: `\(\|H_t\|\)`, LogY: true,
			Series: func(m sim.Model) []lessons.Series {
				g := m.(*tinyModel)
				var s lessons.Series
				s.Label = `\(\|H_t\|\)`
				for t, tr := range g.traces {
					s.X = append(s.X, float64(t+1))
					s.Y = append(s.Y, mat.Norm(tr.Next.H, 2))
				}
				return []lessons.Series{s, {Label: "zero", X: []float64{1, 2}, Y: []float64{0, 0}}}
			}}},
	}
	bigSpecs  = sim.Specs{{Name: "seed", Label: "Seed", Kind: sim.Int, Default: "1", Min: 0, Max: 10}}
	bigLesson = &lessons.Lesson{Slug: "big", Section: "0", Title: "Big frames", Params: bigSpecs,
		Build: func(sim.Values) (sim.Model, error) { return bigModel(make([]float64, bigFrameFloats)), nil }}
	boomLesson = &lessons.Lesson{Slug: "boom", Section: "0", Title: "Panics at step 2", Params: bigSpecs,
		Build: func(sim.Values) (sim.Model, error) { return boomModel{}, nil }}
	testCatalog = []*lessons.Lesson{tinyLesson, bigLesson, boomLesson}
)

const tinyAlphabet = "abc"

// tinyModel wraps a models.GRU reading a one-hot input, as a lesson would.
type tinyModel struct {
	cell   *models.GRU
	tokens []string
	traces []*models.StepTrace
}

func buildTiny(v sim.Values) (sim.Model, error) {
	rng := rand.New(rand.NewPCG(uint64(v.Int("seed")), 1))
	m := &tinyModel{cell: models.NewGRU(len(tinyAlphabet), v.Int("hidden"), rng)}
	for _, r := range v.String("input") {
		if !strings.ContainsRune(tinyAlphabet, r) {
			return nil, fmt.Errorf("the input may only use the letters %s", tinyAlphabet)
		}
		m.tokens = append(m.tokens, string(r))
	}
	m.forward()
	return m, nil
}

func (m *tinyModel) forward() {
	m.traces = m.traces[:0]
	var s models.State
	for _, tok := range m.tokens {
		x := mat.NewDense(1, len(tinyAlphabet), nil)
		x.Set(0, strings.Index(tinyAlphabet, tok), 1)
		tr := m.cell.Step(x, s)
		m.traces, s = append(m.traces, tr), tr.Next
	}
}

func (m *tinyModel) Steps() int { return len(m.tokens) }
func (m *tinyModel) Static() sim.Frame {
	return sim.Frame{Meta: map[string]any{"tokens": m.tokens}}
}
func (m *tinyModel) At(t int) sim.Frame {
	tr := m.traces[t-1]
	row := func(d *mat.Dense) []float64 { return mat.Row(nil, 0, d) }
	return sim.Frame{
		Arrays: []sim.Array{sim.Vector("R", row(tr.Gate("R"))), sim.Vector("Z", row(tr.Gate("Z"))),
			sim.Vector("H_tilde", row(tr.Gate("H_tilde"))), sim.Vector("H", row(tr.Gate("H")))},
		Meta: map[string]any{"token": m.tokens[t-1]},
	}
}

// tinyTrainSteps counts every TrainStep of every tiny model: a test that must see no
// training (a fork is copied, never trained again) reads it before and after.
var tinyTrainSteps atomic.Int64

// Fork copies the GRU; the traces are computed again from the copy.
func (m *tinyModel) Fork() (sim.Model, error) {
	c := &tinyModel{cell: models.NewCopier().GRU(m.cell), tokens: m.tokens}
	c.forward()
	return c, nil
}

// TrainStep shrinks W_hz (a deterministic stand-in for an optimiser) and reports a loss.
func (m *tinyModel) TrainStep() (sim.Frame, error) {
	tinyTrainSteps.Add(1)
	m.cell.Whz.Value.Scale(0.9, m.cell.Whz.Value)
	m.forward()
	return sim.Frame{Meta: map[string]any{"loss": mat.Norm(m.traces[len(m.traces)-1].Next.H, 2)}}, nil
}

// bigFrameFloats makes each frame 256 KB, so a page that does not read fills the
// socket buffers within a second of playing.
const bigFrameFloats = 64 << 10

// bigModel has sim.MaxSteps steps whose frames share one large array.
type bigModel []float64

func (m bigModel) Steps() int         { return sim.MaxSteps }
func (m bigModel) Static() sim.Frame  { return sim.Frame{} }
func (m bigModel) At(t int) sim.Frame { return sim.Frame{Arrays: []sim.Array{sim.Vector("X", m)}} }
func (boomModel) Steps() int          { return 4 }
func (boomModel) Static() sim.Frame   { return sim.Frame{} }
func (boomModel) At(t int) sim.Frame {
	if t == 2 {
		panic("boom: a bug in the lesson")
	}
	return sim.Frame{Arrays: []sim.Array{sim.Vector("X", []float64{float64(t)})}}
}

type boomModel struct{}

// newTestServer serves the test lessons.
func newLessonServer(t testing.TB) (*Server, *httptest.Server) {
	t.Helper()
	s, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)), testCatalog, Options{}) // the boom lesson logs a stack on purpose
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

// dial opens a lesson websocket as a page of the same origin would.
func dial(t testing.TB, ts *httptest.Server, path string) *websocket.Conn {
	t.Helper()
	u := "ws" + strings.TrimPrefix(ts.URL, "http") + path
	c, resp, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {ts.URL}})
	if err != nil {
		t.Fatalf("dial %s: %v (response %v)", path, err, resp)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// send writes one command.
func send(t testing.TB, c *websocket.Conn, cmd sim.Command) {
	t.Helper()
	b, err := json.Marshal(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteMessage(websocket.TextMessage, b); err != nil {
		t.Fatal(err)
	}
}

// receive reads and decodes one server message.
func receive(t testing.TB, c *websocket.Conn) sim.Message {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	typ, data, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if typ != websocket.BinaryMessage {
		t.Fatalf("got message type %d, want binary", typ)
	}
	m, err := sim.DecodeMessage(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// closeCode reads until the connection closes and returns the close code.
func closeCode(t testing.TB, c *websocket.Conn) int {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, _, err := c.ReadMessage()
		if err != nil {
			if ce, ok := err.(*websocket.CloseError); ok {
				return ce.Code
			}
			t.Fatalf("got %v, want a close frame", err)
		}
	}
}

// sessionGoroutines counts the goroutines running session code (the goleak idea,
// narrowed to this package's sessions so httptest's own goroutines do not count).
func sessionGoroutines() (int, string) {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	var stacks []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "unroll/web.(*session)") || strings.Contains(g, "unroll/web.(*Server).lessonSocket") ||
			strings.Contains(g, "unroll/web.(*sessionSet)") {
			n++
			stacks = append(stacks, g)
		}
	}
	return n, strings.Join(stacks, "\n\n")
}

// waitNoSessions fails unless every session goroutine ends within a few seconds.
func waitNoSessions(t testing.TB, s *Server) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, stacks := sessionGoroutines()
		if n == 0 && len(s.sessions.all()) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("got %d session goroutines and %d open sessions after the connection ended, want 0:\n%s", n, len(s.sessions.all()), stacks)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var stepCommand = sim.Command{Type: sim.StepCommand}

// testLogger logs to the test's output, so a panic in a lesson shows with its stack.
func testLogger(t testing.TB) *slog.Logger { return slog.New(slog.NewTextHandler(testWriter{t}, nil)) }

type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

func newHTTPTestServer(t testing.TB, h http.Handler) *httptest.Server {
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}
