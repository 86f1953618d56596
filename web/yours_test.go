package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"unroll/lessons"
	"unroll/sim"
	"unroll/torchload"
)

// yoursServer is the real catalog's server, with its Server for the memory budget.
func yoursServer(t *testing.T) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

// yoursFixture is a torchload fixture's PyTorch numbers and the yours page's query
// that feeds its input.
type yoursFixture struct {
	Architecture torchload.Architecture `json:"architecture"`
	Input        torchload.Input        `json:"input"`
	Steps        []torchload.Steps      `json:"steps"`
}

func readYours(t *testing.T, name string) (yoursFixture, url.Values) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(torchFixtures, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f yoursFixture
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	q := url.Values{}
	if f.Input.Text != "" {
		voc, _ := json.Marshal(f.Input.Vocab)
		q.Set("input", "text")
		q.Set("text", f.Input.Text)
		q.Set("vocab", string(voc))
	} else {
		var rows []string
		for _, r := range f.Input.X {
			var cells []string
			for _, x := range r {
				cells = append(cells, strconv.FormatFloat(x, 'g', -1, 64))
			}
			rows = append(rows, strings.Join(cells, ","))
		}
		q.Set("input", "csv")
		q.Set("csv", strings.Join(rows, ";"))
	}
	return f, q
}

// postFile sends body as a model file for session name and returns the status and the
// answer's "error" (or the whole answer).
func postFile(t *testing.T, ts *httptest.Server, slug, session string, body io.Reader, h http.Header) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/lessons/"+slug+"/model?"+url.Values{"session": {session}, "name": {"model.pt"}}.Encode(), body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("the answer is not JSON: %v", err)
	}
	return resp.StatusCode, out
}

// staticFact is the static fact labelled label of a snapshot.
func staticFact(m sim.Message, label string) any {
	for _, f := range m.Header.StaticFacts {
		if f.Label == label {
			return f.Value
		}
	}
	return nil
}

// TestYoursUploadStreamsPyTorchGates: through a real server and websocket, a page of the
// yours lesson uploads a committed fixture file (the 2-layer bidirectional GRU as
// torch.save, the character GRU with embedding and head as safetensors) bound to its
// session; its socket then gets a snapshot of the student's model, and the frames it
// steps through carry every gate and state of every layer and direction as PyTorch
// computed them, to 1e-5. The memory the upload holds is taken from the server's budget
// and given back when the page leaves.
func TestYoursUploadStreamsPyTorchGates(t *testing.T) {
	for _, c := range []struct{ name, ext string }{{"gru_bi2", ".pt"}, {"char_gru", ".safetensors"}} {
		t.Run(c.name+c.ext, func(t *testing.T) {
			s, ts := yoursServer(t)
			f, q := readYours(t, c.name)
			conn := dial(t, ts, "/lessons/yours/ws?"+q.Encode())
			first := receive(t, conn)
			if first.Header.Type != sim.SnapshotMessage || first.Header.Session == "" {
				t.Fatalf("first message: %+v", first.Header)
			}
			if file, _ := staticFact(first, "model file").(string); !strings.Contains(file, "example") {
				t.Errorf("before an upload the page says it runs %q, want the example", file)
			}
			before := s.memory.inUse()
			file, err := os.ReadFile(filepath.Join(torchFixtures, c.name+c.ext))
			if err != nil {
				t.Fatal(err)
			}
			status, out := postFile(t, ts, "yours", first.Header.Session, bytes.NewReader(file), nil)
			if status != http.StatusOK {
				t.Fatalf("upload: %d %v", status, out)
			}
			snap := receive(t, conn)
			if snap.Header.Type != sim.SnapshotMessage || snap.Header.Seq <= first.Header.Seq || snap.Header.Steps != len(f.Steps[0].Gates["H"]) {
				t.Fatalf("after the upload: %+v, want a snapshot of %d steps numbered after %d", snap.Header, len(f.Steps[0].Gates["H"]), first.Header.Seq)
			}
			if got, _ := staticFact(snap, "model file").(string); !strings.Contains(got, "model.pt") {
				t.Errorf("after the upload the page says %q, want the file's name", got)
			}
			if got := s.memory.inUse() - before; got != uploadCost(lessonsUpload(t, file)) {
				t.Errorf("the upload took %d bytes of the budget, want uploadCost = %d", got, uploadCost(lessonsUpload(t, file)))
			}
			h := f.Architecture.HiddenSize
			for step := 1; step <= snap.Header.Steps; step++ {
				send(t, conn, stepCommand)
				fr := receive(t, conn)
				if fr.Header.Type != sim.FrameMessage || fr.Header.Step != step {
					t.Fatalf("step %d: got %+v", step, fr.Header)
				}
				arrays := map[string]sim.Array{}
				for _, a := range fr.Arrays {
					arrays[a.Name] = a
				}
				for _, st := range f.Steps {
					for gate, byT := range st.Gates {
						name := gate
						if st.Direction == 1 {
							name += "_rev"
						}
						a, ok := arrays[name]
						if !ok {
							t.Fatalf("step %d: no array %s", step, name)
						}
						for j, want := range byT[step-1] {
							if got := a.Data[st.Layer*h+j]; math.Abs(got-want) > 1e-5 {
								t.Errorf("step %d layer %d %s[%d]: got %.7f want %.7f (PyTorch)", step, st.Layer+1, name, j, got, want)
							}
						}
					}
				}
			}
			conn.Close()
			waitNoSessions(t, s)
			if got := s.memory.inUse(); got != 0 {
				t.Errorf("after the page left, %d bytes of the budget are still taken", got)
			}
		})
	}
}

// lessonsUpload reads file as the server does, for its cost.
func lessonsUpload(t *testing.T, file []byte) *lessons.Upload {
	t.Helper()
	up, err := lessons.ReadUpload("model.pt", file)
	if err != nil {
		t.Fatal(err)
	}
	return up
}

// TestYoursUploadPrivate: the upload lives in its page's session only. Another page of
// the same lesson still runs the example; a page whose connection drops gets its
// model back when it reconnects naming its session (parking), and a page that names
// no session, as a shared link does, does not.
func TestYoursUploadPrivate(t *testing.T) {
	s, ts := yoursServer(t)
	_, q := readYours(t, "char_gru")
	conn := dial(t, ts, "/lessons/yours/ws?"+q.Encode())
	first := receive(t, conn)
	other := dial(t, ts, "/lessons/yours/ws?"+q.Encode())
	receive(t, other)
	file, _ := os.ReadFile(filepath.Join(torchFixtures, "char_gru.pt"))
	if status, out := postFile(t, ts, "yours", first.Header.Session, bytes.NewReader(file), nil); status != http.StatusOK {
		t.Fatalf("upload: %d %v", status, out)
	}
	snap := receive(t, conn)
	// The page's own exports draw its model (they name its session): the reset gate,
	// which the example LSTM does not have.
	csv := get(t, ts, "/lessons/yours/panels/R.csv?"+q.Encode()+"&step=3&session="+url.QueryEscape(first.Header.Session))
	if !strings.HasPrefix(csv, "symbol,step,t,layer,unit,value\nR_t,") || strings.Count(csv, "\n") < 3 {
		t.Errorf("the page's export of R: %.200q", csv)
	}
	send(t, other, sim.Command{Type: sim.ResumeCommand})
	if got, _ := staticFact(receive(t, other), "model file").(string); !strings.Contains(got, "example") {
		t.Errorf("another page sees %q, want the example", got)
	}
	conn.UnderlyingConn().Close() // the Wi-Fi drops: no close frame
	waitParked(t, s, 1)
	back := dial(t, ts, "/lessons/yours/ws?"+q.Encode()+"&session="+url.QueryEscape(first.Header.Session)+"&seq="+strconv.FormatUint(snap.Header.Seq, 10))
	if got, _ := staticFact(receive(t, back), "model file").(string); !strings.Contains(got, "model.pt") {
		t.Errorf("reconnected, the page runs %q, want its upload back", got)
	}
	fresh := dial(t, ts, "/lessons/yours/ws?"+q.Encode())
	if got, _ := staticFact(receive(t, fresh), "model file").(string); !strings.Contains(got, "example") {
		t.Errorf("the shared link runs %q, want the example", got)
	}
}

// TestYoursUploadRefusals: a hostile pickle is a 400 naming the global it calls (and
// nothing runs: torchload's security tests hold that), garbage and an empty body are
// 400s, a file past 50 MB a 413, an unknown session or another lesson a 404, and a
// post from another site a 403. The page's run is unchanged by each.
func TestYoursUploadRefusals(t *testing.T) {
	_, ts := yoursServer(t)
	conn := dial(t, ts, "/lessons/yours/ws")
	name := receive(t, conn).Header.Session
	hostile, err := os.ReadFile(filepath.Join(torchFixtures, "hostile_os_system.pt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what, slug, session string
		body                io.Reader
		header              http.Header
		status              int
		says                string
	}{
		{"hostile pickle", "yours", name, bytes.NewReader(hostile), nil, 400, "system"},
		{"garbage", "yours", name, strings.NewReader("this is not a model"), nil, 400, "torchload"},
		{"empty", "yours", name, strings.NewReader(""), nil, 400, "empty"},
		{"oversize", "yours", name, bytes.NewReader(make([]byte, torchload.MaxFileBytes+1)), nil, 413, "limit"},
		{"unknown session", "yours", "nobody", bytes.NewReader(hostile), nil, 404, "session"},
		{"another lesson", "gru", name, bytes.NewReader(hostile), nil, 404, "yours"},
		{"another site", "yours", name, bytes.NewReader(hostile), http.Header{"Origin": {"http://evil.example"}}, 403, "own pages"},
	} {
		status, out := postFile(t, ts, c.slug, c.session, c.body, c.header)
		msg, _ := out["error"].(string)
		if status != c.status || !strings.Contains(msg, c.says) {
			t.Errorf("%s: got %d %q, want %d saying %q", c.what, status, msg, c.status, c.says)
		}
	}
	send(t, conn, sim.Command{Type: sim.ResumeCommand})
	if got, _ := staticFact(receive(t, conn), "model file").(string); !strings.Contains(got, "example") {
		t.Errorf("after the refusals the page runs %q, want the example", got)
	}
}

// TestYoursRoomFollowersGetFramesNotWeights: an instructor who loaded their own model
// and then teaches live (the page reconnects naming its session and the room) leads the
// room with it; a follower gets its frames; a student who explores on their own is told
// that the instructor's file stays on their page, and starts from the link with the
// example.
func TestYoursRoomFollowersGetFramesNotWeights(t *testing.T) {
	_, ts := yoursServer(t)
	_, q := readYours(t, "char_gru")
	page := dial(t, ts, "/lessons/yours/ws?"+q.Encode())
	first := receive(t, page)
	file, _ := os.ReadFile(filepath.Join(torchFixtures, "char_gru.pt"))
	if status, out := postFile(t, ts, "yours", first.Header.Session, bytes.NewReader(file), nil); status != http.StatusOK {
		t.Fatalf("upload: %d %v", status, out)
	}
	snap := receive(t, page)
	created, secret := startRoom(t, ts, "yours")
	lead := leadDial(t, ts, "/lessons/yours/ws?"+q.Encode()+"&session="+url.QueryEscape(first.Header.Session)+"&seq="+strconv.FormatUint(snap.Header.Seq, 10), created.Code, secret)
	got := until(t, lead, "the lead's snapshot", isType(sim.SnapshotMessage))
	if m, _ := sim.DecodeMessage(got[len(got)-1].data); !strings.Contains(fmt.Sprint(staticFact(m, "model file")), "model.pt") {
		t.Fatalf("the room's run is %v, want the instructor's model", staticFact(m, "model file"))
	}
	lead.do(t, stepCommand)
	until(t, lead, "step 1", func(h sim.Header) bool { return h.Type == sim.FrameMessage && h.Step == 1 })

	f := dialWith(t, ts, "/rooms/"+created.Code+"/ws", nil)
	got = until(t, f, "the room's snapshot", isType(sim.SnapshotMessage))
	roomSnap, _ := sim.DecodeMessage(got[len(got)-1].data)
	if !strings.Contains(fmt.Sprint(staticFact(roomSnap, "model file")), "model.pt") || len(roomSnap.Arrays) == 0 {
		t.Fatalf("the follower sees %v with %d arrays, want the instructor's model's frames", staticFact(roomSnap, "model file"), len(roomSnap.Arrays))
	}
	fork := dialWith(t, ts, "/lessons/yours/ws?"+q.Encode()+"&fork="+created.Code, nil)
	msgs := until(t, fork, "the reason", isType(sim.ErrorMessage))
	if msg, _ := msgs[len(msgs)-1].h.Meta["message"].(string); !strings.Contains(msg, "own model file stays on their page") {
		t.Errorf("the exploring student is told %q, want that the file stays with the instructor", msg)
	}
	own, _ := sim.DecodeMessage(msgs[0].data)
	if msgs[0].h.Type != sim.SnapshotMessage || !strings.Contains(fmt.Sprint(staticFact(own, "model file")), "example") {
		t.Errorf("the exploring student's page runs %v, want the example", staticFact(own, "model file"))
	}
}

// TestModelsRunInitialState: POST /api/v1/models/run takes h0 (PyTorch's h_0 for batch 1):
// the 3-layer RNN run over x_5…x_9 from the h_n of x_1…x_4 answers the whole run's
// outputs; a wrong shape is a 400 that says what h0 must be.
func TestModelsRunInitialState(t *testing.T) {
	ts := newTestServer(t)
	model, err := os.ReadFile(filepath.Join(torchFixtures, "rnn_tanh3.pt"))
	if err != nil {
		t.Fatal(err)
	}
	x := [][]float64{{1, 0, -1}, {0.5, 0.2, 0}, {-1, 1, 0.3}, {0, 0, 1}, {0.7, -0.2, 0.1}, {1, 1, 1}}
	run := func(in map[string]any) (int, torchload.Result, string) {
		body, _ := json.Marshal(in)
		status, out := postModel(t, ts, [][2]string{{"model", string(model)}, {"input", string(body)}})
		var res torchload.Result
		_ = json.Unmarshal(out, &res)
		var e struct{ Error string }
		_ = json.Unmarshal(out, &e)
		return status, res, e.Error
	}
	_, whole, _ := run(map[string]any{"x": x})
	_, first, _ := run(map[string]any{"x": x[:2]})
	status, rest, msg := run(map[string]any{"x": x[2:], "h0": first.HN})
	if status != http.StatusOK {
		t.Fatalf("with h0: %d %s", status, msg)
	}
	for i, row := range rest.Output {
		for j, v := range row {
			if math.Abs(v-whole.Output[2+i][j]) > 1e-12 {
				t.Fatalf("output[%d][%d] from h0: got %v, want the whole run's %v", i, j, v, whole.Output[2+i][j])
			}
		}
	}
	if status, _, msg := run(map[string]any{"x": x, "h0": [][]float64{{0}}}); status != http.StatusBadRequest || !strings.Contains(msg, "layers·directions = 3") {
		t.Errorf("a wrong h0: %d %q", status, msg)
	}
}
