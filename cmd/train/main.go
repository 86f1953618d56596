// Command train writes the bundled checkpoints: it trains every entry of zoo.Bundled
// (or those named with -only) from its fixed seeds and writes its files. It is
// deterministic: the same command writes byte-identical files.
//
//	go run ./cmd/train                          # writes zoo/checkpoints/*.safetensors
//	go run ./cmd/train -out /tmp/ck -steps 500  # a quick try elsewhere
//	go run ./cmd/train -only seq2seq            # only the sequence-to-sequence models
//	go run ./cmd/train -only gru,lstm           # several entries
//	go run ./cmd/train -list                    # the entries and their files
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"unroll/zoo"
)

func main() {
	out := flag.String("out", filepath.Join("zoo", "checkpoints"), "directory to write the checkpoints to")
	steps := flag.Int("steps", 0, "training minibatches per model instead of each recipe's own (0: the recipe's, which reproduces the bundled files)")
	only := flag.String("only", "", "train these entries only, comma-separated: "+strings.Join(zoo.Names(), ", "))
	list := flag.Bool("list", false, "list the entries and their files, and train nothing")
	flag.Parse()
	if *list {
		for _, e := range zoo.Bundled {
			fmt.Printf("%-10s %s\n           %s\n", e.Name, e.About, strings.Join(e.Files, " "))
		}
		return
	}
	entries, err := selected(*only)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil { // before training: -only seq2seq takes minutes
		log.Fatal(err)
	}
	opts := zoo.Options{Steps: *steps, Log: os.Stdout}
	for _, e := range entries {
		start := time.Now()
		if err := e.Train(*out, opts); err != nil {
			log.Fatalf("%s: %v", e.Name, err)
		}
		fmt.Printf("== %s: %d files in %.1fs\n", e.Name, len(e.Files), time.Since(start).Seconds())
	}
}

// selected is the entries named in only (comma-separated), in zoo.Bundled order;
// every entry when only is empty.
func selected(only string) ([]zoo.Entry, error) {
	if only == "" {
		return zoo.Bundled, nil
	}
	want := map[string]bool{}
	for name := range strings.SplitSeq(only, ",") {
		name = strings.TrimSpace(name)
		if _, ok := zoo.Find(name); !ok {
			return nil, fmt.Errorf("-only: no entry called %q; the entries are %s (or leave -only out to train them all)",
				name, strings.Join(zoo.Names(), ", "))
		}
		want[name] = true
	}
	var entries []zoo.Entry
	for _, e := range zoo.Bundled {
		if want[e.Name] {
			entries = append(entries, e)
		}
	}
	return entries, nil
}
