package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"unroll/torchload"
)

const (
	// maxRunInputBytes bounds the input part: x is at most torchload.MaxSteps rows of
	// torchload.MaxInput numbers, and a teaching input (T ≤ 256, d ≤ 64) is under 400 KB
	// at 20 characters a number; 8 MiB leaves room for wide inputs without letting the
	// part be a second model file.
	maxRunInputBytes = 8 << 20
	// maxRunBody is the whole multipart body: the model file, the input and the parts'
	// headers and boundaries.
	maxRunBody = torchload.MaxFileBytes + maxRunInputBytes + 64<<10
	// maxModelUploads bounds the uploads read at once: each may hold maxRunBody bytes
	// and its float64 tensors (up to 32 MB more), so 4 cost at most about 360 MB; a fifth
	// is a 503 to retry, not a queue of 58 MB buffers.
	maxModelUploads = 4
)

// modelSlot takes one of the maxModelUploads slots for reading a model file (the
// caller frees it with <-s.models), or answers 503 with Retry-After and reports false:
// a file may take 50 MB of memory while it is read.
func (s *Server) modelSlot(w http.ResponseWriter) bool {
	select {
	case s.models <- struct{}{}:
		return true
	default:
		w.Header().Set("Retry-After", "2")
		writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("%d models are being read already; try again in a moment", maxModelUploads))
		return false
	}
}

// modelsRun serves POST /api/v1/models/run (docs/api.md): a multipart body with the parts
// "model" (a torch.save state_dict or safetensors file) and "input" (JSON), read as a
// stream without temporary files, each under its own limit (413 past it). The model is
// loaded, mapped and run in a compute slot; anything torchload refuses is a 400 with its
// message. The pickle is never executed (package torchload).
func (s *Server) modelsRun(w http.ResponseWriter, r *http.Request) {
	if bodyTooLarge(w, r, maxRunBody) {
		return
	}
	if !s.modelSlot(w) {
		return
	}
	defer func() { <-s.models }()
	model, input, status, msg := readRunParts(w, r)
	if status != 0 {
		writeError(w, status, msg)
		return
	}
	var in torchload.Input
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || dec.More() {
		if err == nil {
			err = errors.New("data after the JSON object")
		}
		writeError(w, http.StatusBadRequest, "the input part is not one JSON object of x, text, vocab, nonlinearity, h0, c0: "+err.Error())
		return
	}
	release, ok := s.acquire(w, r)
	if !ok {
		return
	}
	res, err := runModel(model, in)
	release()
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// runModel loads, maps and runs; every error is the student's file or input.
func runModel(model []byte, in torchload.Input) (*torchload.Result, error) {
	ts, _, err := torchload.Load(model)
	if err != nil {
		return nil, err
	}
	m, err := torchload.Map(ts, torchload.Options{Nonlinearity: in.Nonlinearity})
	if err != nil {
		return nil, err
	}
	return m.RunInput(in)
}

// readRunParts reads the parts "model" and "input", each at most its limit; a non-zero
// status is the answer to send (413 past a limit, 400 for a malformed body).
func readRunParts(w http.ResponseWriter, r *http.Request) (model, input []byte, status int, msg string) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, nil, http.StatusBadRequest, `send multipart/form-data with the parts "model" (the .pt or .safetensors file) and "input" (JSON)`
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxRunBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, nil, http.StatusBadRequest, "the multipart body: " + err.Error()
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, nil, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than the %d-byte limit", tooBig.Limit)
		}
		if err != nil {
			return nil, nil, http.StatusBadRequest, "the multipart body: " + err.Error()
		}
		name := part.FormName()
		var dst *[]byte
		limit := 0
		switch name {
		case "model":
			dst, limit = &model, torchload.MaxFileBytes
		case "input":
			dst, limit = &input, maxRunInputBytes
		default:
			return nil, nil, http.StatusBadRequest, fmt.Sprintf("unknown part %q: send only \"model\" and \"input\"", name)
		}
		if *dst != nil {
			return nil, nil, http.StatusBadRequest, fmt.Sprintf("the part %q is sent twice", name)
		}
		data, err := io.ReadAll(io.LimitReader(part, int64(limit)+1))
		if errors.As(err, &tooBig) {
			return nil, nil, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than the %d-byte limit", tooBig.Limit)
		}
		if err != nil {
			return nil, nil, http.StatusBadRequest, fmt.Sprintf("the part %q: %v", name, err)
		}
		if len(data) > limit {
			return nil, nil, http.StatusRequestEntityTooLarge, fmt.Sprintf("the part %q is larger than its %d-byte limit", name, limit)
		}
		*dst = data
	}
	switch {
	case model == nil:
		return nil, nil, http.StatusBadRequest, `the part "model" is missing: the .pt or .safetensors file`
	case input == nil:
		return nil, nil, http.StatusBadRequest, `the part "input" is missing: {"x": [[…], …]} or {"text": "…", "vocab": […]}`
	}
	return model, input, 0, ""
}
