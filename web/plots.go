package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"unroll/data"
	"unroll/figures"
	"unroll/lessons"
	"unroll/sim"
)

// plotExport serves GET /lessons/{slug}/plots/{plot}.{png|svg|pdf}?{page query}: the
// plot drawn for the model the query describes.
func (s *Server) plotExport(w http.ResponseWriter, r *http.Request) {
	l, ok := s.lessonOr404(w, r)
	if !ok {
		return
	}
	name, ext, _ := cutLast(r.PathValue("file"), ".")
	p, ok := findPlot(l, name)
	if !ok {
		names := make([]string, len(l.Plots))
		for i, p := range l.Plots {
			names[i] = p.Name
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("lesson %s has no plot %q; its plots are %s", l.Slug, name, strings.Join(names, ", ")))
		return
	}
	format, ok := figures.ParseFormat(ext)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("plots are exported as .png, .svg or .pdf, not %q", ext))
		return
	}
	opts, err := exportOptions(r.URL.Query())
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	// A PNG's canvas counts against the memory of lesson runs while it is drawn, like
	// the model.
	m, done, release, ok := s.exportCompute(w, r, l, figures.CanvasBytes(format, opts))
	if !ok {
		return
	}
	defer done()
	defer release()
	body, err := figures.Draw(figureOf(p, m), format, opts)
	if err != nil {
		panic(err) // a bug: ServeHTTP logs it and answers 500
	}
	w.Header().Set("Content-Type", format.ContentType())
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="%s-%s.%s"`, l.Slug, p.Name, ext))
	_, _ = w.Write(body)
}

// exportOptions reads an export's own query options: slide=16:9|4:3, theme=light|dark
// and, for a PNG, width=N pixels; each is optional.
func exportOptions(q url.Values) (figures.Options, error) {
	var o figures.Options
	if raw := q.Get("slide"); raw != "" {
		s, ok := figures.ParseSlide(raw)
		if !ok {
			return o, fmt.Errorf("slide must be %s or %s, got %.20q", figures.Wide, figures.Standard, raw) // at most 20 runes of a paste
		}
		o.Slide = s
	}
	if raw := q.Get("theme"); raw != "" {
		t, ok := figures.ParseTheme(raw)
		if !ok {
			return o, fmt.Errorf("theme must be %s or %s, got %.20q", figures.Light, figures.Dark, raw)
		}
		o.Theme = t
	}
	if raw := q.Get("width"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < figures.MinWidth || n > figures.MaxWidth {
			return o, fmt.Errorf("width must be a whole number of pixels from %d to %d, got %.20q", figures.MinWidth, figures.MaxWidth, raw)
		}
		o.Width = n
	}
	return o, nil
}

// cutLast splits s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// findPlot returns lesson l's plot with the given name, and whether it has one.
func findPlot(l *lessons.Lesson, name string) (lessons.Plot, bool) {
	for _, p := range l.Plots {
		if p.Name == name {
			return p, true
		}
	}
	return lessons.Plot{}, false
}

// figureOf is plot p of built model m as the figures package draws it: its curves,
// or its heatmap when the plot declares a Grid.
func figureOf(p lessons.Plot, m sim.Model) figures.Figure {
	f := figures.Figure{Title: p.Title, XLabel: p.XLabel, YLabel: p.YLabel, LogY: p.LogY, YScale: p.Scale, Points: p.Points}
	if p.Grid != nil {
		g := p.Grid(m)
		cols := make([]string, len(g.Cols))
		for c, l := range g.Cols {
			cols[c] = strings.ReplaceAll(l, data.SpaceToken, "·") // the figures' PDF fonts have no ␣
		}
		f.Grid = &figures.Grid{Rows: g.Rows, Cols: cols, Values: g.Values, Lo: g.Lo, Hi: g.Hi}
		return f
	}
	for _, s := range p.Series(m) {
		f.Series = append(f.Series, figures.Series{Label: s.Label, X: s.X, Y: s.Y, Labels: s.Labels})
	}
	return f
}
