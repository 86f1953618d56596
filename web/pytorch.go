package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"unroll/lessons"
	"unroll/torchload"
)

// pytorchFileBytes bounds a model.safetensors export and is taken from the memory
// budget with the model: the largest model a lesson exports (the character language
// model) is a few hundred kB of float64 tensors, held twice while the file is written.
const pytorchFileBytes = 4 << 20

// pytorchModule is the torch.nn class of each kind torchload.Export writes, and the
// keyword arguments it needs beyond the sizes.
var pytorchModule = map[string]struct{ Class, Options string }{
	torchload.KindGRU:     {"GRU", "{}"},
	torchload.KindLSTM:    {"LSTM", "{}"},
	torchload.KindRNNTanh: {"RNN", `{"nonlinearity": "tanh"}`},
	torchload.KindRNNReLU: {"RNN", `{"nonlinearity": "relu"}`},
}

// modelExport serves GET /lessons/{slug}/model.safetensors?{page query}: the page's
// model (as the panel exports find it: the page's session=NAME, else built from the
// query and trained to its trained=N) as a PyTorch state_dict in safetensors, with
// PyTorch's names (torchload.Export), and in its metadata what lessons.PyTorchSnippet
// needs to compute H_t at the page's step: the module, its sizes, the inputs, the step.
func (s *Server) modelExport(w http.ResponseWriter, r *http.Request) {
	l, ok := s.lessonOr404(w, r)
	if !ok {
		return
	}
	if !lessons.HasPyTorch(l.Slug) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("lesson %s has no model PyTorch has (nn.RNN, nn.GRU, nn.LSTM) to download", l.Slug))
		return
	}
	step := 0
	if raw := r.URL.Query().Get("step"); raw != "" {
		var err error
		if step, err = strconv.Atoi(raw); err != nil || step < 0 {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("step must be a whole number from 0 up, got %.20q", raw))
			return
		}
	}
	m, done, ok := s.exportModel(w, r, l, pytorchFileBytes)
	if !ok {
		return
	}
	defer done()
	pe, ok := lessons.Unwrap(m).(lessons.PyTorchExporter)
	if !ok {
		panic(fmt.Sprintf("web: lesson %s says it has a PyTorch model but its model is a %T", l.Slug, m))
	}
	release, ok := s.acquire(w, r)
	if !ok {
		return
	}
	p := pe.PyTorch()
	release()
	ts, arch, err := torchload.ExportStack(p.Stack(), p.Head)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	T := p.Steps()
	if step == 0 || step > T { // before the first step or past the last: the whole input's H_T
		step = T
	}
	mod := pytorchModule[arch.Kind]
	options := map[string]any{}
	_ = json.Unmarshal([]byte(mod.Options), &options)
	if arch.Layers > 1 {
		options["num_layers"] = arch.Layers
	}
	if arch.Bidirectional {
		options["bidirectional"] = true
	}
	opts, _ := json.Marshal(options)
	meta := map[string]string{
		"format":      "pt",
		"lesson":      l.Slug,
		"module":      mod.Class,
		"options":     string(opts),
		"input_size":  strconv.Itoa(arch.InputSize),
		"hidden_size": strconv.Itoa(arch.HiddenSize),
		"step":        strconv.Itoa(step),
		"prefix":      torchload.ExportPrefix,
		"head":        torchload.ExportHead,
	}
	if p.X != nil { // numbers, one row a step
		x, _ := json.Marshal(p.X)
		meta["x"] = string(x)
	} else {
		inputs, _ := json.Marshal(p.Inputs)
		meta["inputs"] = string(inputs)
	}
	var buf bytes.Buffer
	if err := torchload.WriteSafetensors(&buf, ts, meta); err != nil {
		panic(err) // a bug: Export's tensors are finite and 1-D or 2-D
	}
	if buf.Len() > pytorchFileBytes {
		panic(fmt.Sprintf("web: %s's model.safetensors is %d bytes, past pytorchFileBytes", l.Slug, buf.Len()))
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="model.safetensors"`)
	_, _ = w.Write(buf.Bytes())
}
