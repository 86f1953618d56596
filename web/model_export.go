package web

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"unroll/lessons"
	"unroll/torchload"
)

// pytorchFileBytes bounds a model.safetensors export and is taken from the memory
// budget with the model: the largest file a lesson exports (the encoder-decoder with
// L = 3 layers a side) is 1.7 MB of float64 tensors, held twice while it is written.
const pytorchFileBytes = 4 << 20

// modelExport serves GET /lessons/{slug}/model.safetensors?{page query}: the page's
// model (as the panel exports find it: the page's session=NAME, else built from the
// query and trained to its trained=N) as a PyTorch state_dict in safetensors, with
// PyTorch's names, and in its metadata what the lesson's script (lessons.PyTorchSnippet)
// reads to compute the page's numbers at its step: for a PyTorchExporter the module, its
// sizes, the inputs and the step (PyTorchModel.File); for a PyTorchProgram what it
// chose. model=NAME is a model the page shows beside its own (lessons.Companions).
func (s *Server) modelExport(w http.ResponseWriter, r *http.Request) {
	l, ok := s.lessonOr404(w, r)
	if !ok {
		return
	}
	if !lessons.HasPyTorch(l.Slug) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("lesson %s has no model to download for PyTorch", l.Slug))
		return
	}
	step, ok := queryStep(w, r)
	if !ok {
		return
	}
	companion := r.URL.Query().Get("model")
	if companion != "" && !slices.ContainsFunc(lessons.Companions(l.Slug), func(c lessons.Companion) bool { return c.Name == companion }) {
		writeError(w, http.StatusBadRequest, lessons.CompanionError(l.Slug, companion).Error())
		return
	}
	m, done, release, ok := s.exportCompute(w, r, l, pytorchFileBytes)
	if !ok {
		return
	}
	defer done()
	var f lessons.PyTorchFile
	var err error
	um := lessons.Unwrap(m)
	if companion != "" {
		c, ok := um.(lessons.PyTorchCompanions)
		if !ok {
			panic(fmt.Sprintf("web: lesson %s names models beside its own but its model is a %T", l.Slug, um))
		}
		f, err = c.PyTorchCompanion(companion, step)
	} else {
		switch pm := um.(type) {
		case lessons.PyTorchProgram: // first: a model may be both, and choose
			f, err = pm.PyTorchFile(step)
		case lessons.PyTorchExporter:
			f, err = pm.PyTorch().File(step)
		default:
			panic(fmt.Sprintf("web: lesson %s says it has a PyTorch model but its model is a %T", l.Slug, um))
		}
	}
	release()
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	meta := maps.Clone(f.Meta)
	if meta == nil {
		meta = map[string]string{}
	}
	meta["format"], meta["lesson"], meta["script"], meta["step"] = "pt", l.Slug, f.Script, strconv.Itoa(f.Step)
	if companion != "" {
		meta["model"] = companion
	}
	var buf bytes.Buffer
	if err := torchload.WriteSafetensors(&buf, f.Tensors, meta); err != nil {
		panic(err) // a bug: Export's tensors are finite and 1-D or 2-D
	}
	if buf.Len() > pytorchFileBytes {
		panic(fmt.Sprintf("web: %s's model.safetensors is %d bytes, past pytorchFileBytes", l.Slug, buf.Len()))
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="model.safetensors"`)
	_, _ = w.Write(buf.Bytes())
}
