package web

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"image/gif"
	"image/png"
	"strings"
	"testing"

	"unroll/sim"
)

// TestPanelExport: the tiny lesson's gate heatmap in every format, at the URL's step.
func TestPanelExport(t *testing.T) {
	_, ts := newLessonServer(t)
	get := func(path string) (int, string, string) {
		t.Helper()
		status, h, body := fetch(t, "GET", ts.URL+path, nil)
		return status, h.Get("Content-Type"), body
	}
	if status, typ, body := get("/lessons/tiny/panels/gates.png?step=3"); status != 200 || typ != "image/png" {
		t.Fatalf("png: got %d %s %.200s", status, typ, body)
	} else if img, err := png.Decode(strings.NewReader(body)); err != nil || img.Bounds().Dx() < 1600 {
		t.Errorf("png: %v, %v", err, img.Bounds())
	}
	if status, typ, body := get("/lessons/tiny/panels/gates.svg?step=3"); status != 200 || typ != "image/svg+xml" || !strings.Contains(body, "step 3 of 8") {
		t.Errorf("svg: got %d %s %.300s, want the title with the step", status, typ, body)
	}
	if status, _, body := get("/lessons/tiny/panels/gates.pdf?step=3"); status != 200 || !strings.HasPrefix(body, "%PDF") {
		t.Errorf("pdf: got %d %.20q", status, body)
	}
	// The CSV holds R_t of steps 1..3, 8 units each, with a header naming them.
	status, typ, body := get("/lessons/tiny/panels/gates.csv?step=3&hidden=8")
	if status != 200 || !strings.HasPrefix(typ, "text/csv") {
		t.Fatalf("csv: got %d %s", status, typ)
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "symbol,step,t,index,value" || len(rows) != 1+3*8 || rows[len(rows)-1][1] != "3" {
		t.Errorf("csv: header %v and %d rows (last %v), want 24 values of steps 1..3", rows[0], len(rows)-1, rows[len(rows)-1])
	}
	// The GIF runs through every step (8 for abcabcab), whatever the URL's step.
	status, typ, body = get("/lessons/tiny/panels/gates.gif?step=2")
	if status != 200 || typ != "image/gif" {
		t.Fatalf("gif: got %d %s %.200s", status, typ, body)
	}
	g, err := gif.DecodeAll(strings.NewReader(body))
	if err != nil || len(g.Image) != 8 || g.LoopCount != 0 {
		t.Errorf("gif: %v, %d frames, loop %d; want 8 frames, looping", err, len(g.Image), g.LoopCount)
	}
	for _, tt := range []struct {
		path   string
		status int
		says   string
	}{
		{"/lessons/tiny/panels/nope.png", 404, "its panels are gates"},
		{"/lessons/tiny/panels/gates.bmp", 404, ".gif"},
		{"/lessons/tiny/panels/gates.png?step=-2", 400, "step must be"},
		{"/lessons/tiny/panels/gates.png?step=0", 400, "step forward"},
		{"/lessons/tiny/panels/gates.png?hidden=999", 400, "Hidden units must be"},
		{"/lessons/tiny/panels/gates.png?session=gone", 404, "session has ended"},
	} {
		if status, _, body := get(tt.path); status != tt.status || !strings.Contains(body, tt.says) {
			t.Errorf("%s: got %d %.200s, want %d saying %q", tt.path, status, body, tt.status, tt.says)
		}
	}
}

// TestPanelExportOfTheSession: an export naming the page's session draws the
// session's trained model, copied: the same numbers as the URL's trained=N replay,
// and no training step taken for it.
func TestPanelExportOfTheSession(t *testing.T) {
	s, ts := newLessonServer(t)
	c := dial(t, ts, "/lessons/tiny/ws?seed=3&step=8")
	name := receive(t, c).Header.Session
	send(t, c, sim.Command{Type: sim.TrainCommand, Steps: 4})
	for m := receive(t, c); m.Header.Type != sim.SnapshotMessage; m = receive(t, c) {
	}
	get := func(q string) string {
		status, _, body := fetch(t, "GET", ts.URL+"/lessons/tiny/panels/gates.csv?seed=3&step=8&"+q, nil)
		if status != 200 {
			t.Fatalf("%s: got %d %.200s", q, status, body)
		}
		return body
	}
	before := tinyTrainSteps.Load()
	fromSession := get("session=" + name)
	if n := tinyTrainSteps.Load() - before; n != 0 {
		t.Errorf("the session's export trained %d steps; it must copy the session's model", n)
	}
	if replayed := get("trained=4"); fromSession != replayed {
		t.Errorf("the session's export differs from the replay of trained=4")
	}
	if untrained := get(""); untrained == fromSession {
		t.Errorf("the session's export is the untrained model's")
	}
	// Parked: the page dropped its connection; the run waits, and exports still copy it.
	c.NetConn().Close()
	waitNoSessions(t, s)
	if n, _ := s.parked.stats(); n != 1 {
		t.Fatalf("%d runs parked, want the trained session's", n)
	}
	if parked := get("session=" + name); parked != fromSession {
		t.Errorf("the parked session's export differs from the live one's")
	}
	if n, _ := s.parked.stats(); n != 1 {
		t.Errorf("the export took the parked run away (%d parked)", n)
	}
}

// TestFigurePack: the ZIP holds each panel in every format, its CSV and a README that
// names the URL of the view.
func TestFigurePack(t *testing.T) {
	_, ts := newLessonServer(t)
	status, h, body := fetch(t, "GET", ts.URL+"/lessons/tiny/figures.zip?step=5&hidden=4", nil)
	if status != 200 || h.Get("Content-Type") != "application/zip" {
		t.Fatalf("got %d %s %.200s", status, h.Get("Content-Type"), body)
	}
	z, err := zip.NewReader(bytes.NewReader([]byte(body)), int64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_, _ = b.ReadFrom(r)
		r.Close()
		files[f.Name] = b.String()
	}
	for _, name := range []string{"gates.png", "gates.svg", "gates.pdf", "gates.csv", "README.md"} {
		if files[name] == "" {
			t.Errorf("the pack has no %s (it has %d files)", name, len(files))
		}
	}
	if r := files["README.md"]; !strings.Contains(r, "/lessons/tiny?hidden=4&input=abcabcab&seed=1&step=5") || !strings.Contains(r, "| hidden | 4 |") {
		t.Errorf("the README does not reproduce the view:\n%s", r)
	}
}
