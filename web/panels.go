package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"unroll/exports"
	"unroll/figures"
	"unroll/lessons"
	"unroll/sim"
)

// Panel exports (docs/api.md): every panel of a page as a slide figure, the numbers
// behind it, an animation of it, and the figure pack of the whole view. The model is
// the page's own session's when the request names it (session=NAME, live or parked:
// copied by its owner, never trained again), else built from the query and, for
// trained=N, trained in turns with the request's context, so that a client that goes
// away stops the work.

// gifWidth is an animation's width unless the query says: 1280 px keeps a 30-step
// heatmap's GIF near 1 MB, small enough for a slide deck, and sharp on a 720p projector.
const gifWidth = 1280

// panelFormats are the panel exports' file types beyond figures' (png, svg, pdf).
var panelFormats = map[string]string{"csv": "text/csv; charset=utf-8", "gif": "image/gif"}

// panelExport serves GET /lessons/{slug}/panels/{panel}.{png|svg|pdf|csv|gif}?{page query}.
func (s *Server) panelExport(w http.ResponseWriter, r *http.Request) {
	l, ok := s.lessonOr404(w, r)
	if !ok {
		return
	}
	id, ext, _ := cutLast(r.PathValue("file"), ".")
	p, ok := exports.Find(l, id)
	if !ok {
		var names []string
		for _, p := range exports.Panels(l) {
			names = append(names, p.ID)
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("lesson %s has no exportable panel %q; its panels are %s", l.Slug, id, strings.Join(names, ", ")))
		return
	}
	format, isFigure := figures.ParseFormat(ext)
	contentType, isOther := panelFormats[ext]
	if !isFigure && !isOther {
		writeError(w, http.StatusNotFound, fmt.Sprintf("panels are exported as .png, .svg, .pdf, .csv or .gif, not %q", ext))
		return
	}
	opts, err := exportOptions(r.URL.Query())
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	extra := figures.CanvasBytes(format, opts)
	if ext == "gif" {
		if opts.Width == 0 {
			opts.Width = gifWidth
		}
		extra = figures.CanvasBytes(figures.PNG, opts) + figures.MaxAnimationBytes
	}
	v, done, ok := s.exportView(w, r, l, ext == "gif", extra)
	if !ok {
		return
	}
	defer done()
	var body []byte
	switch {
	case ext == "csv":
		body = exports.CSV(v, p)
	case ext == "gif":
		body, err = exports.GIF(r.Context(), v, p, opts, s.drawTurn(r.Context()))
	default:
		contentType = format.ContentType()
		var f figures.Figure
		if f, err = exports.Panel(v, p); err == nil {
			release, ok := s.acquire(w, r)
			if !ok {
				return
			}
			body, err = figures.Draw(f, format, opts)
			release()
		}
	}
	if !s.exportFailed(w, r, err) {
		w.Header().Set("Content-Type", contentType)
		name := fmt.Sprintf("%s-%s-step%d.%s", l.Slug, p.ID, v.Step(), ext)
		if ext == "gif" {
			name = fmt.Sprintf("%s-%s-steps1-%d.gif", l.Slug, p.ID, v.Step())
		}
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
		_, _ = w.Write(body)
	}
}

// figurePack serves GET /lessons/{slug}/figures.zip?{page query}: every panel of the
// view as PNG, SVG, PDF and CSV, with a README that reproduces the view.
func (s *Server) figurePack(w http.ResponseWriter, r *http.Request) {
	l, ok := s.lessonOr404(w, r)
	if !ok {
		return
	}
	opts, err := exportOptions(r.URL.Query())
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	v, done, ok := s.exportView(w, r, l, false, figures.CanvasBytes(figures.PNG, opts))
	if !ok {
		return
	}
	defer done()
	vals, _ := l.Params.Parse(r.URL.Query())
	page := "http://" + r.Host + "/lessons/" + l.Slug
	if q := pageQuery(vals, r.URL.Query()); q != "" {
		page += "?" + q
	}
	if t := r.URL.Query().Get("trained"); t != "" && t != "0" {
		page += "&trained=" + t
	}
	body, err := exports.Pack(r.Context(), v, page, vals, opts, s.drawTurn(r.Context()))
	if !s.exportFailed(w, r, err) {
		w.Header().Set("Content-Type", "application/zip")
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-step%d-figures.zip"`, l.Slug, v.Step()))
		_, _ = w.Write(body)
	}
}

// exportFailed answers an export's error, if any, and reports whether it did: a
// cancelled request, a panel with nothing to draw yet (400: the page's state), or a
// bug (500).
func (s *Server) exportFailed(w http.ResponseWriter, r *http.Request, err error) bool {
	switch {
	case err == nil:
		return false
	case r.Context().Err() != nil:
		writeError(w, http.StatusServiceUnavailable, "the request was cancelled")
	case strings.HasPrefix(err.Error(), "exports: "):
		writeError(w, http.StatusBadRequest, strings.TrimPrefix(err.Error(), "exports: "))
	default:
		panic(err) // a bug: ServeHTTP logs it and answers 500
	}
	return true
}

// drawTurn is an exports.Turn on the server's scheduler: drawing comes first, like
// /cell, one figure a turn.
func (s *Server) drawTurn(ctx context.Context) exports.Turn {
	return func() (func(), error) {
		t, err := s.sched.Acquire(ctx, sim.Interactive)
		if err != nil {
			return nil, err
		}
		return t.Release, nil
	}
}

// exportModel is the model an export draws: the model of the page's session when the
// query names one (session=NAME) that is live or parked, copied by its owner; else
// one built from the query and trained to its trained=N, in turns with every page's
// training, stopping when the client goes. It holds the model's memory, and extra
// bytes (a PNG's canvas), from the server's budget until done is called. It answers
// the request itself when it fails.
func (s *Server) exportModel(w http.ResponseWriter, r *http.Request, l *lessons.Lesson, extra int) (m sim.Model, done func(), ok bool) {
	q := r.URL.Query()
	vals, err := l.Params.Parse(q)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return nil, nil, false
	}
	trained, err := trainedSteps(q, l.MaxTrained)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return nil, nil, false
	}
	session := q.Get("session")
	cost := footprint(l, trained > 0 || session != "") + extra
	if !s.memory.take(cost) {
		writeError(w, http.StatusServiceUnavailable, "the server is full: it has no memory to draw this export now; try again in a minute")
		return nil, nil, false
	}
	done = func() { s.memory.give(cost) }
	fail := func(status int, msg string) (sim.Model, func(), bool) {
		done()
		writeError(w, status, msg)
		return nil, nil, false
	}
	if session != "" {
		run, err := s.sessionCopy(r.Context(), session, l.Slug)
		switch {
		case errors.Is(err, errNoSession):
			return fail(http.StatusNotFound, err.Error())
		case err != nil:
			return fail(http.StatusBadRequest, err.Error())
		}
		if up := lessons.UploadOf(run.Model()); up != nil { // a student's own model: its frames are its size, not the example's
			more := uploadCost(up) - up.Bytes // the weights are the session's, shared
			if !s.memory.take(more) {
				return fail(http.StatusServiceUnavailable, "the server is full: it has no memory to draw this export now; try again in a minute")
			}
			cost += more
		}
		return lessons.Unwrap(run.Model()), done, true // the model Build made, as the plots read it
	}
	if m, err = l.Build(vals); err == nil {
		// the page's training retaken from the seed, in turns with every page's; it
		// stops within a turn when the client goes
		err = sim.Replay(r.Context(), s.sched, m, trained)
	}
	if r.Context().Err() != nil {
		return fail(http.StatusServiceUnavailable, "the request was cancelled while the model trained")
	}
	if err != nil {
		return fail(http.StatusBadRequest, strings.TrimPrefix(err.Error(), "sim: "))
	}
	return m, done, true
}

// queryStep is the query's step= (0 when absent), or a 400 and false.
func queryStep(w http.ResponseWriter, r *http.Request) (int, bool) {
	raw := r.URL.Query().Get("step")
	if raw == "" {
		return 0, true
	}
	step, err := strconv.Atoi(raw)
	if err != nil || step < 0 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("step must be a whole number from 0 up, got %.20q", raw))
		return 0, false
	}
	return step, true
}

// exportCompute is exportModel's model and a compute slot to run it in: release gives
// back the slot, done the memory (after release).
func (s *Server) exportCompute(w http.ResponseWriter, r *http.Request, l *lessons.Lesson, extra int) (m sim.Model, done, release func(), ok bool) {
	m, done, ok = s.exportModel(w, r, l, extra)
	if !ok {
		return nil, nil, nil, false
	}
	if release, ok = s.acquire(w, r); !ok {
		done()
		return nil, nil, nil, false
	}
	return m, done, release, true
}

// exportView is the view an export draws: exportModel's model stepped to the query's
// step, or to its last when toEnd (an animation runs through every step).
func (s *Server) exportView(w http.ResponseWriter, r *http.Request, l *lessons.Lesson, toEnd bool, extra int) (v exports.View, done func(), ok bool) {
	step, ok := queryStep(w, r)
	if !ok {
		return v, nil, false
	}
	m, done, release, ok := s.exportCompute(w, r, l, extra)
	if !ok {
		return v, nil, false
	}
	if toEnd {
		step = m.Steps()
	}
	v, err := exports.NewView(r.Context(), l, m, step)
	v.Values, _ = l.Params.Parse(r.URL.Query()) // exportModel has checked them
	release()
	if err != nil {
		done()
		writeError(w, http.StatusServiceUnavailable, "the request was cancelled")
		return v, nil, false
	}
	return v, done, true
}

// errNoSession: the session an export names is neither open nor parked.
var errNoSession = errors.New("that page's session has ended: reload the page, or export without session= to rebuild the view from its URL")

// sessionCopy is a copy of the run of session name of lesson slug: made by its
// simulator while the session is open, or from its parked run.
func (s *Server) sessionCopy(ctx context.Context, name, slug string) (*sim.Run, error) {
	if ss := s.sessions.find(name, slug); ss != nil {
		ctx, cancel := context.WithTimeout(ctx, forkWait)
		defer cancel()
		run, err := ss.fork(ctx)
		if err == nil {
			return run, nil
		}
		if !errors.Is(err, errLeadGone) {
			return nil, fmt.Errorf("the page's model could not be copied: %w", err)
		}
	}
	run, ok, err := s.parked.fork(name, slug)
	switch {
	case !ok:
		return nil, errNoSession
	case err != nil:
		return nil, fmt.Errorf("the page's model could not be copied: %w", err)
	}
	return run, nil
}
