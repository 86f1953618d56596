// Command gen writes static/js/palette.js from package palette (go generate in
// palette/): go run ./gen FILE.
package main

import (
	"fmt"
	"os"

	"unroll/palette"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "gen: usage: go run ./gen static/js/palette.js")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], palette.JS(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
