package web

import (
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"unroll/lessons"
	"unroll/sim"
	"unroll/static"
)

// fetch sends method to url with header and returns status, headers and body (the
// default client's transport undoes its own gzip).
func fetch(t *testing.T, method, url string, header http.Header) (int, http.Header, string) {
	t.Helper()
	resp, body := do(t, http.DefaultClient, method, url, header)
	return resp.StatusCode, resp.Header, string(body)
}

// do sends one request through client and returns the response and its whole body.
func do(t *testing.T, client *http.Client, method, url string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func TestLessonRoutes(t *testing.T) {
	_, ts := newLessonServer(t)
	tests := []struct {
		name, method, path string
		status             int
		contentType, body  string
	}{
		{"index", "GET", "/", 200, "text/html", "A tiny GRU"},
		{"lesson page", "GET", "/lessons/tiny?seed=3&hidden=5&step=2", 200, "text/html", "tiny"},
		{"bad value renders with the problem", "GET", "/lessons/tiny?hidden=999", 200, "text/html", "between 1 and 64"},
		{"unknown lesson", "GET", "/lessons/nope", 404, "application/json", `"there is no lesson \"nope\"; the lessons are tiny, big, boom"`},
		{"lesson list", "GET", "/api/v1/lessons", 200, "application/json", `{"slug":"tiny","section":"4.3","title":"A tiny GRU","plots":["state"]}`},
		{"wrong method", "POST", "/lessons/tiny", 405, "application/json", "use GET"},
		{"wrong method on list", "DELETE", "/api/v1/lessons", 405, "application/json", "use GET"},
		{"unknown static", "GET", "/static/nope.js", 404, "application/json", "no static file"},
		{"no directory listing", "GET", "/static/", 404, "application/json", "no static file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, h, body := fetch(t, tt.method, ts.URL+tt.path, nil)
			if status != tt.status || !strings.HasPrefix(h.Get("Content-Type"), tt.contentType) || !strings.Contains(body, tt.body) {
				t.Errorf("got %d %s %.300s, want %d %s containing %q", status, h.Get("Content-Type"), body, tt.status, tt.contentType, tt.body)
			}
		})
	}
}

func TestLessonListOrder(t *testing.T) {
	_, ts := newLessonServer(t)
	_, _, body := fetch(t, "GET", ts.URL+"/api/v1/lessons", nil)
	var got []lessonSummary
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Slug != "tiny" || got[1].Slug != "big" || got[2].Slug != "boom" || got[1].Plots == nil {
		t.Errorf("got %+v, want tiny, big, boom in catalog order with plots lists (never null)", got)
	}
}

func TestStaticCaching(t *testing.T) {
	_, ts := newLessonServer(t)
	var path string
	_ = fs.WalkDir(static.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && path == "" && strings.HasSuffix(p, ".js") {
			path = p
		}
		return nil
	})
	if path == "" {
		t.Skip("package static has no .js file yet")
	}
	status, h, body := fetch(t, "GET", ts.URL+"/static/"+path, nil)
	want, _ := fs.ReadFile(static.FS, path)
	// The plain URL is revalidated on every use (issue 22: the pages link the
	// content-hashed URLs, which TestAssetsHashed checks, and those are immutable).
	if status != 200 || body != string(want) || h.Get("ETag") == "" || h.Get("Cache-Control") != plainCache ||
		!strings.Contains(h.Get("Content-Type"), "javascript") {
		t.Fatalf("got %d, ETag %q, Cache-Control %q, type %q; want 200 with the file, an ETag, %q and a JavaScript type",
			status, h.Get("ETag"), h.Get("Cache-Control"), h.Get("Content-Type"), plainCache)
	}
	status, _, _ = fetch(t, "GET", ts.URL+"/static/"+path, http.Header{"If-None-Match": {h.Get("ETag")}})
	if status != http.StatusNotModified {
		t.Errorf("revalidation: got %d, want 304", status)
	}
}

// TestRealCatalog serves the real lessons: every page renders, every socket answers
// with a snapshot and steps, every plot exports.
func TestRealCatalog(t *testing.T) {
	s, err := New(testLogger(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := newHTTPTestServer(t, s)
	for _, l := range lessons.Catalog() {
		t.Run(l.Slug, func(t *testing.T) {
			if status, _, body := fetch(t, "GET", ts.URL+"/lessons/"+l.Slug, nil); status != 200 {
				t.Fatalf("page: got %d %.200s, want 200", status, body)
			}
			c := dial(t, ts, "/lessons/"+l.Slug+"/ws")
			if m := receive(t, c); m.Header.Type != "snapshot" {
				t.Fatalf("got %s, want a snapshot", m.Header.Type)
			}
			send(t, c, stepCommand)
			if m := receive(t, c); m.Header.Type != "frame" || (m.Header.Steps > 0 && m.Header.Step != 1) {
				t.Fatalf("got %s at step %d, want the frame of step 1", m.Header.Type, m.Header.Step)
			}
			for _, p := range l.Plots {
				if status, _, body := fetch(t, "GET", ts.URL+"/lessons/"+l.Slug+"/plots/"+p.Name+".svg", nil); status != 200 {
					t.Errorf("plot %s: got %d %.200s, want 200", p.Name, status, body)
				}
			}
		})
	}
}

// TestPlotsAtParameterEnds exports every plot of every lesson with one parameter at a
// time moved to an end of its range, or one notch above its low end, or to each of its
// choices: valid input never gets
// a 500. (bptt's gradient plot once did at truncation 1, where every point sits at 1 on
// a log axis.)
func TestPlotsAtParameterEnds(t *testing.T) {
	s, err := New(testLogger(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := newHTTPTestServer(t, s)
	for _, l := range lessons.Catalog() {
		if len(l.Plots) == 0 {
			continue
		}
		var queries []string
		for _, p := range l.Params {
			switch p.Kind {
			case sim.Int, sim.Float:
				// The ends and one slider notch in from the low end (0 often means "off").
				for _, v := range []float64{p.Min, min(p.Min+max(p.Step, 1), p.Max), p.Max} {
					queries = append(queries, p.Name+"="+strconv.FormatFloat(v, 'f', -1, 64))
				}
			case sim.Choice:
				for _, c := range p.Choices {
					queries = append(queries, p.Name+"="+url.QueryEscape(c))
				}
			}
		}
		t.Run(l.Slug, func(t *testing.T) {
			for _, q := range queries {
				for _, p := range l.Plots {
					path := "/lessons/" + l.Slug + "/plots/" + p.Name + ".svg?" + q
					if status, _, body := fetch(t, "GET", ts.URL+path, nil); status != 200 {
						t.Errorf("%s: got %d %.200s, want 200", path, status, body)
					}
				}
			}
		})
	}
}
