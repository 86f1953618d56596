package lessons

import (
	"bytes"
	"embed"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
)

// checkpointFS holds the bundled checkpoints that go run ./cmd/train writes.
//
//go:embed checkpoints
var checkpointFS embed.FS

// checkpoint is a parsed bundled checkpoint: a copy of its weights, in the Params()
// order of the model it was read into, and its metadata.
type checkpoint struct {
	values []*mat.Dense
	meta   map[string]string
}

// readBundled fills ps from the bundled checkpoint file name and returns its metadata.
func readBundled(name string, ps models.Params) (map[string]string, error) {
	raw, err := checkpointFS.ReadFile("checkpoints/" + name)
	if err != nil {
		return nil, fmt.Errorf("lessons: bundled checkpoint %s is missing (run go run ./cmd/train): %w", name, err)
	}
	meta, err := models.ReadSafetensors(bytes.NewReader(raw), ps)
	if err != nil {
		return nil, fmt.Errorf("lessons: checkpoint %s: %w", name, err)
	}
	return meta, nil
}

// parseBundled reads the bundled checkpoint name through ps (a fresh model's
// parameters) and keeps a copy of the weights, so every page build can start from them.
func parseBundled(name string, ps models.Params) (checkpoint, error) {
	meta, err := readBundled(name, ps)
	if err != nil {
		return checkpoint{}, err
	}
	ck := checkpoint{meta: meta}
	for _, p := range ps {
		ck.values = append(ck.values, mat.DenseCopyOf(p.Value))
	}
	return ck, nil
}

// into copies the checkpoint's weights into ps, a fresh model of the same shape.
func (ck checkpoint) into(ps models.Params) {
	for i, p := range ps {
		p.Value.Copy(ck.values[i])
	}
}

// copyParams copies every value of src into dst, two models of the same shape.
func copyParams(dst, src models.Params) {
	for i, p := range dst {
		p.Value.Copy(src[i].Value)
	}
}
