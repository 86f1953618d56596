package zoo

import (
	"bytes"
	"embed"
	"fmt"
	"math"
	"path/filepath"
	"strconv"

	"github.com/google/renameio/v2/maybe"

	"unroll/models"
)

// checkpointFS holds the bundled checkpoints that go run ./cmd/train writes.
//
//go:embed checkpoints
var checkpointFS embed.FS

// readBundled fills ps from the bundled checkpoint file name and returns its metadata.
func readBundled(name string, ps models.Params) (Meta, error) {
	raw, err := checkpointFS.ReadFile("checkpoints/" + name)
	if err != nil {
		return nil, fmt.Errorf("zoo: bundled checkpoint %s is missing (run go run ./cmd/train): %w", name, err)
	}
	meta, err := models.ReadSafetensors(bytes.NewReader(raw), ps)
	if err != nil {
		return nil, fmt.Errorf("zoo: checkpoint %s: %w", name, err)
	}
	return meta, nil
}

// checkpointPerm lets everyone read a checkpoint and only its owner replace it.
const checkpointPerm = 0o644

// saveCheckpoint writes ps (in order) and meta to path in the safetensors format
// (models.WriteSafetensors). Where the platform can rename over a file (every
// Unix) it writes atomically with renameio: a temporary file in the same directory,
// synced and renamed over path, so path holds the old checkpoint or the complete
// new one, never half. On Windows, where renameio offers no atomic replace, it is
// an ordinary write (renameio's maybe package).
func saveCheckpoint(path string, ps models.Params, meta map[string]string) error {
	var buf bytes.Buffer
	if err := models.WriteSafetensors(&buf, ps, meta); err != nil {
		return fmt.Errorf("zoo: saving checkpoint %s: %w", path, err)
	}
	if err := maybe.WriteFile(path, buf.Bytes(), checkpointPerm); err != nil {
		return fmt.Errorf("zoo: saving checkpoint %s: %w", path, err)
	}
	return nil
}

// save writes a model's parameters and meta as the checkpoint file under dir.
func save(dir, file string, m paramModel, meta map[string]string) error {
	return saveCheckpoint(filepath.Join(dir, file), m.Params(), meta)
}

// paramModel is a model with a parameter list in a fixed order.
type paramModel interface{ Params() models.Params }

// bundled is a bundled checkpoint read into a model once, and its metadata.
//
// The model is shared: every page build that only reads the weights uses this one,
// from many sessions' goroutines at once, so nothing may write to it once it is
// loaded — its weights, its gradients (models.BPTTOptions.NoParamGrads for gradient
// norms), its optimiser. A page that trains starts from weights of its own: a copy
// (copyOf), or fresh ones from its seed.
type bundled[M paramModel] struct {
	model M
	meta  Meta
}

// loadBundled reads the bundled checkpoint name into fresh, an untrained model of
// its shape, which becomes the shared model.
func loadBundled[M paramModel](name string, fresh M) (bundled[M], error) {
	meta, err := readBundled(name, fresh.Params())
	if err != nil {
		return bundled[M]{}, err
	}
	return bundled[M]{model: fresh, meta: meta}, nil
}

// copyOf copies the shared weights into fresh, a model of the same shape, and
// returns it: weights of its own, which a page may train.
func (b bundled[M]) copyOf(fresh M) M {
	copyParams(fresh.Params(), b.model.Params())
	return fresh
}

// copyParams copies every value of src into dst, two models of the same shape.
func copyParams(dst, src models.Params) {
	for i, p := range dst {
		p.Value.Copy(src[i].Value)
	}
}

// Meta is a checkpoint's metadata: what cmd/train recorded with the weights (scores,
// settings, seeds), as the text the safetensors header holds.
type Meta map[string]string

// Float reads the number recorded under key (NaN if absent or not a number).
func (m Meta) Float(key string) float64 {
	f, err := strconv.ParseFloat(m[key], 64)
	if err != nil {
		return math.NaN()
	}
	return f
}
