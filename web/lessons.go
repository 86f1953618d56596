package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"unroll/lessons"
	"unroll/sim"
	"unroll/templates"
)

// lesson finds a lesson of the catalog by slug.
func (s *Server) lesson(slug string) (*lessons.Lesson, bool) {
	for _, l := range s.catalog {
		if l.Slug == slug {
			return l, true
		}
	}
	return nil, false
}

// lessonOr404 finds the path's lesson or answers 404.
func (s *Server) lessonOr404(w http.ResponseWriter, r *http.Request) (*lessons.Lesson, bool) {
	l, ok := s.lesson(r.PathValue("slug"))
	if !ok {
		names := make([]string, len(s.catalog))
		for i, l := range s.catalog {
			names[i] = l.Slug
		}
		writeError(w, http.StatusNotFound, "there is no lesson "+strconv.Quote(r.PathValue("slug"))+"; the lessons are "+strings.Join(names, ", "))
	}
	return l, ok
}

// index serves GET /: the lessons in lecture order.
func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, templates.Index(s.catalog))
}

// lessonPage serves GET /lessons/{slug}. An invalid value in the query does not fail
// the page: it renders with that parameter's default and shows the problem.
func (s *Server) lessonPage(w http.ResponseWriter, r *http.Request) {
	l, ok := s.lessonOr404(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	v, err := l.Params.Parse(q)
	problem := ""
	if err != nil {
		problem = err.Error()
	}
	s.render(w, r, templates.LessonPage(l, v, pageQuery(v, q), problem, s.machine, viewOf(l, q)))
}

// viewOf reads how the URL asks the page to be shown: presenter mode (present=1) and
// a spotlit panel (spot=ID, one of the lesson's panels; anything else is none).
func viewOf(l *lessons.Lesson, q url.Values) templates.View {
	v := templates.View{Present: q.Get("present") == "1"}
	if id := q.Get("spot"); slices.ContainsFunc(l.Panels, func(p lessons.Panel) bool { return p.ID == id }) {
		v.Spot = id
	}
	return v
}

// pageQuery is the canonical query of a page's state: its parameter values in a
// stable order, then the step when the URL has a valid one.
func pageQuery(v sim.Values, q url.Values) string {
	out := v.Query()
	if step, err := strconv.Atoi(q.Get("step")); err == nil && step > 0 {
		if out != "" {
			out += "&"
		}
		out += "step=" + strconv.Itoa(step)
	}
	return out
}

// render writes a templ component as an HTML page, linking the static files by their
// hashed URLs; rendering into a buffer first means a template error becomes a clean
// 500, not half a page. The page is revalidated on every visit (no-cache, with an
// ETag of its bytes): it names the assets, so it must never be stale.
func (s *Server) render(w http.ResponseWriter, r *http.Request, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(templates.WithAssets(r.Context(), s.static.page), &buf); err != nil {
		panic(err) // a bug in a template: ServeHTTP logs it and answers 500
	}
	sum := sha256.Sum256(buf.Bytes())
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", plainCache)
	h.Set("ETag", `"`+hex.EncodeToString(sum[:8])+`"`)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(buf.Bytes())) // 304 on If-None-Match
}

// lessonSummary is one entry of GET /api/v1/lessons (docs/api.md).
type lessonSummary struct {
	Slug    string   `json:"slug"`
	Section string   `json:"section"`
	Title   string   `json:"title"`
	Plots   []string `json:"plots"`
}

// lessonList serves GET /api/v1/lessons.
func (s *Server) lessonList(w http.ResponseWriter, r *http.Request) {
	out := make([]lessonSummary, 0, len(s.catalog))
	for _, l := range s.catalog {
		plots := make([]string, 0, len(l.Plots))
		for _, p := range l.Plots {
			plots = append(plots, p.Name)
		}
		out = append(out, lessonSummary{Slug: l.Slug, Section: l.Section, Title: l.Title, Plots: plots})
	}
	writeJSON(w, http.StatusOK, out)
}

// trainedSteps reads "trained", the optimisation steps a page's model has taken since
// it was built: 0 when absent, at most limit (the lesson's MaxTrained, what its page
// offers; 0 for a lesson that does not train).
func trainedSteps(q url.Values, limit int) (int, error) {
	raw := q.Get("trained")
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(raw)
	switch {
	case limit == 0 && err == nil && n == 0:
		return 0, nil
	case limit == 0:
		return 0, fmt.Errorf("this lesson's model does not train: trained must be 0, got %.20q", raw)
	case err != nil || n < 0 || n > limit:
		return 0, fmt.Errorf("trained must be a whole number of training steps from 0 to %d (what this page trains at most: a link's model is trained again from the seed when it opens, and %d steps take the server about half a minute), got %.20q", limit, limit, raw) // at most 20 runes of a paste
	}
	return n, nil
}
