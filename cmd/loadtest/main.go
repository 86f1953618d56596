// Command loadtest puts a classroom's load on an Unroll server and measures it (issue
// 12): real websockets on loopback, each speaking docs/protocol.md as a lesson page
// does, a bounded number of them for a bounded time. It reports, per group of
// clients, the frame delay (the frame's "sent" against the time it arrived: p50, p99,
// max), the frames coalesced (seq gaps), the frames per second, the training steps each
// session took against its fair share, whether a room's followers ended on its
// instructor's final frame, and the server's CPU and peak RSS (from /proc, on Linux),
// then checks the targets.
//
//	go run ./cmd/loadtest                           # scenario "sessions": 300 gru players, 30 s
//	go run ./cmd/loadtest -scenario room            # one room: its instructor and 500 followers, 30 s
//	go run ./cmd/loadtest -scenario train           # 60 seq2seq trainers beside a room of 30, 60 s
//	go run ./cmd/loadtest -scenario a -clients 20 -duration 3s -json
//	go run ./cmd/loadtest -server http://127.0.0.1:8080 -pid 4242
//
// Without -server it builds ./cmd/server into a temporary folder, runs it on a free
// port of 127.0.0.1 and stops it at the end (run it inside the unroll module). All
// clients connect from 127.0.0.1: the server limits per address only parked runs and
// rooms (4), a run closes every socket normally, so nothing parks, and it ends the
// room it created.
//
// The exit status is 0 when every check passed, 1 when one failed, 2 when the run
// could not be made.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	name := flag.String("scenario", "sessions", "the load, by name or by its letter in issue 12:"+scenarioNames())
	clients := flag.Int("clients", 0, "the scenario's main group of clients (0: the scenario's size)")
	duration := flag.Duration("duration", 0, "the measurement window (0: the scenario's)")
	server := flag.String("server", "", "the base URL of a running server, e.g. http://127.0.0.1:8080 (empty: build and start ./cmd/server)")
	pid := flag.Int("pid", 0, "with -server: the server's process id, to measure its CPU and memory")
	asJSON := flag.Bool("json", false, "print the result as JSON instead of text")
	flag.Parse()

	sc, ok := scenarioNamed(*name)
	if !ok {
		fmt.Fprintf(os.Stderr, "loadtest: no scenario %q; there are:%s\n", *name, scenarioNames())
		os.Exit(2)
	}
	cfg := config{scenario: sc, clients: sc.clients, duration: sc.duration, server: *server, pid: *pid}
	if *clients != 0 {
		cfg.clients = *clients
	}
	if *duration != 0 {
		cfg.duration = *duration
	}
	if *server == "" && *pid != 0 {
		fmt.Fprintln(os.Stderr, "loadtest: -pid needs -server (a server this program starts is measured anyway)")
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, err := run(ctx, cfg, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		_ = enc.Encode(r)
	} else {
		r.writeText(os.Stdout)
	}
	if r.Failed() {
		os.Exit(1)
	}
}
