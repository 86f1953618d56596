package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"time"

	"unroll/lessons"
	"unroll/models"
	"unroll/sim"
	"unroll/torchload"
)

// A student's own model (issue 16, the yours page): the page POSTs the file to
// /lessons/yours/model?session=NAME, naming its own session (the 128-bit name its
// snapshots carry, which only that page knows). The handler reads the file into memory
// (never to disk), lets torchload read and map it in a compute slot, and hands it to
// that session's simulator, which takes its memory from the server's budget and starts
// a new run of the page's values with the model. The model then lives in that run only:
// it parks with it when the connection drops, and no other page gets it (a room's
// followers get frames; a student's own copy of a room's run is refused while it holds
// one, see room.fork).

const (
	// yoursSlug is the lesson that takes a student's own model.
	yoursSlug = "yours"
	// uploadWait bounds how long the upload waits for its session's simulator: it
	// answers between two commands, and building the run is one forward and one
	// backward pass of at most torchload.MaxTraceValues numbers (well under a second).
	uploadWait = 10 * time.Second
	// maxUploadName bounds the file name the page sends with the file (shown in the facts).
	maxUploadName = 200
	// frameBytesPerValue is what one recorded number costs a run: the trace's float64,
	// the frame's float64 and its float32 on the wire.
	frameBytesPerValue = 20
)

// uploadRequest hands a student's model to the session's simulator, the sole owner of
// its run; reply has room for the answer, so the simulator never waits for it.
type uploadRequest struct {
	up    *lessons.Upload
	reply chan error
}

// uploadCost is what a run with up holds beyond the page's own footprint: the upload
// (its tensors and mapped cells) and the trace and frames of its longest run.
func uploadCost(up *lessons.Upload) int {
	if up == nil {
		return 0
	}
	a := up.Arch
	perStep := len(models.StepValues(a.CellKind())) + 2 // and the gradient norms and the input
	values := min(a.Layers*a.Directions()*torchload.MaxSteps*perStep*a.HiddenSize, torchload.MaxTraceValues)
	if a.Head != nil {
		values += torchload.MaxSteps * a.Head[0] * 3 // logits, the distribution, its frame
	}
	return up.Bytes + frameBytesPerValue*values
}

// yoursUpload serves POST /lessons/yours/model?session=NAME[&name=FILE] (docs/api.md):
// the body is the model file itself, at most torchload.MaxFileBytes.
func (s *Server) yoursUpload(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("slug") != yoursSlug {
		writeError(w, http.StatusNotFound, fmt.Sprintf("lesson %s takes no model file: only /lessons/%s/model does", r.PathValue("slug"), yoursSlug))
		return
	}
	if !sameOrigin(r) {
		writeError(w, http.StatusForbidden, "a model file is accepted only from this server's own pages")
		return
	}
	q := r.URL.Query()
	name, file := q.Get("session"), q.Get("name")
	if name == "" {
		writeError(w, http.StatusBadRequest, "name the page's session: ?session=NAME, as its snapshots say")
		return
	}
	if len(file) > maxUploadName {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("the file name is longer than %d bytes", maxUploadName))
		return
	}
	if file == "" {
		file = "model"
	}
	if bodyTooLarge(w, r, torchload.MaxFileBytes) {
		return
	}
	ss := s.sessions.find(name, yoursSlug)
	if ss == nil {
		writeError(w, http.StatusNotFound, "no open page of the yours lesson has this session: reload the page and drop the file again")
		return
	}
	if !s.modelSlot(w) {
		return
	}
	defer func() { <-s.models }()
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, torchload.MaxFileBytes))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the file is larger than the %d-byte limit (50 MB)", tooBig.Limit))
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, "the file did not arrive whole: "+err.Error())
		return
	case len(data) == 0:
		writeError(w, http.StatusBadRequest, "the body is empty: send the .pt or .safetensors file itself")
		return
	}
	release, ok := s.acquire(w, r)
	if !ok {
		return
	}
	up, err := lessons.ReadUpload(file, data)
	release()
	data = nil // the file is not kept: only its tensors, in the session's run
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), uploadWait)
	defer cancel()
	if err := ss.upload(ctx, up); err != nil {
		status := http.StatusServiceUnavailable
		var bad *badUpload
		if errors.As(err, &bad) {
			status = http.StatusBadRequest
		}
		writeError(w, status, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"architecture": up.Arch, "format": up.Format, "bytes": uploadCost(up)})
}

// badUpload is a model the page's values cannot run (a 400).
type badUpload struct{ msg string }

func (e *badUpload) Error() string { return e.msg }

// upload hands up to the session's simulator and waits for its answer, at most until
// ctx ends.
func (ss *session) upload(ctx context.Context, up *lessons.Upload) error {
	req := uploadRequest{up: up, reply: make(chan error, 1)}
	select {
	case ss.uploads <- req:
	case <-ss.simDone:
		return errors.New("the page's session ended: reload the page and drop the file again")
	case <-ctx.Done():
		return errors.New("the page's session is busy: try again in a moment")
	}
	select {
	case err := <-req.reply:
		return err
	case <-ss.simDone:
		select {
		case err := <-req.reply:
			return err
		default:
			return errors.New("the page's session ended: reload the page and drop the file again")
		}
	case <-ctx.Done():
		return errors.New("the page's session did not answer in time")
	}
}

// withUpload is the simulator's answer to an upload: a new run of the page's values
// with up (or, when the page's input does not fit the model, a generated sequence,
// and the page is told why), its memory taken from the budget in place of the old
// upload's, and the messages that show it: a snapshot numbered after last.
func (ss *session) withUpload(run *sim.Run, up *lessons.Upload, last uint64) (*sim.Run, []sim.Encoded, error) {
	old := uploadCost(lessons.UploadOf(run.Model()))
	cost := uploadCost(up)
	if !ss.srv.memory.take(cost) {
		return nil, nil, errors.New("the server is full: it has no memory for your model now; try again in a minute")
	}
	build := lessons.WithUpload(up)
	v := maps.Clone(run.Values())
	r, err := sim.NewRun(ss.lesson.Params, build, v)
	var note error
	if err != nil {
		fallback := maps.Clone(v)
		fallback["input"] = "generated"
		var err2 error
		if r, err2 = sim.NewRun(ss.lesson.Params, build, fallback); err2 != nil {
			ss.srv.memory.give(cost)
			return nil, nil, &badUpload{msg: "the model cannot run here: " + err2.Error()}
		}
		note = &sim.CommandError{Msg: "your model is loaded, but the input did not fit it (" + err.Error() + "): it reads a generated sequence now"}
	}
	ss.srv.memory.give(old)
	ss.charged += cost - old
	r.SetSession(run.Session())
	r.SetTrainLimit(ss.lesson.MaxTrained)
	r.SetClock(time.Now)
	msgs, _ := r.Apply(sim.Command{Type: sim.ResumeCommand, Seq: last})
	if note != nil {
		msgs = append(msgs, r.Error(note))
	}
	return r, msgs, nil
}
