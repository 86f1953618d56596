package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"unroll/sim"
)

// What the clients of the issue's scenarios do.
const (
	playSpeed  = 20   // steps per second: the issue's pace for a student playing and for the instructor
	trainSteps = 1000 // one Train press on seq2seq (its MaxTrained): no trainer finishes within a run
	delayLimit = 100 * time.Millisecond
	rssLimit   = 1024.0 // MiB: the issue's bound on the server's memory, also its budget for lesson runs
	// minFrameShare is the part of its pace a playing client must receive: a server
	// that falls behind sends frames late (which "sent" shows) or fewer of them (which
	// this catches).
	minFrameShare = 0.9
	// minFairShare: no trainer may train less than half of the steps an equal share
	// of the training would give it.
	minFairShare = 0.5
)

// A scenario is one load the issue names: groups of clients that each do one thing,
// and the targets their results must meet. The table below is the generator's whole
// repertoire; a new scenario is one more entry with its groups, a role for what its
// clients do, and its targets.
type scenario struct {
	name     string        // the -scenario value
	issue    string        // the issue's letter for it
	about    string        // one line for -h and the report
	clients  int           // the default -clients: the issue's size
	duration time.Duration // the default -duration
	// stagger spreads the clients' begins evenly over this long from the window's
	// start: independent students press Play at unrelated moments (their frames do not
	// all fall due in the same millisecond), while a class told "press Train now" (0)
	// does it at once.
	stagger time.Duration
	// groups builds the clients: n is -clients, the size of the scenario's main group.
	groups func(n int) []group
	// targets are the scenario's goals, checked against a finished run (besides the
	// checks every run gets: all connected, no drops, no protocol errors).
	targets func(r *Result) []Check
}

// group is count clients that open the same kind of socket and play the same role.
type group struct {
	name  string
	count int
	path  func(i int) string // client i's socket: /lessons/{slug}/ws?{query}
	role  func() role        // a fresh role per client
	// header, if set, is sent with client i's handshake (a room's cookie).
	header func(i int) http.Header
	// open, if set, runs before the group connects (it creates the room its path
	// names), and close after every client of the run has closed (it ends the room);
	// base is the server's URL.
	open, close func(ctx context.Context, base string) error
	// required: the run cannot go on without one of its clients (the room's instructor).
	required bool
}

// role is what one client does: it starts its load when the window opens (begin),
// may answer the messages the window brings (message, on the client's reader
// goroutine), and settles when the window closes (end, before the client closes).
type role interface {
	begin(c *client) error
	message(c *client, h *header)
	end(c *client) error
}

var scenarios = []scenario{
	{
		name: "sessions", issue: "a", clients: 300, duration: 30 * time.Second, stagger: time.Second / playSpeed,
		about: fmt.Sprintf("independent sessions, each playing the gru lesson at %d steps/s", playSpeed),
		groups: func(n int) []group {
			return []group{{name: "players", count: n, path: gruPath, role: newPlayer}}
		},
		targets: func(r *Result) []Check {
			p := r.group("players")
			return []Check{
				delayBelow("p99 frame delay", p, p.Delay.P99),
				framesKeptUp(p),
				rssBelow(r),
			}
		},
	},
	{
		name: "room", issue: "b", clients: 500, duration: 30 * time.Second,
		about: fmt.Sprintf("one room: its instructor plays gru at %d steps/s, its followers draw the same frames", playSpeed),
		groups: func(n int) []group {
			return newRoomRun(roomLesson).groups(n)
		},
		targets: func(r *Result) []Check {
			f := r.group("followers")
			return []Check{
				delayBelow("every follower's p99 frame delay", f, f.Delay.WorstClientP99),
				framesKeptUp(f),
				everyFollowerOnFinal(f),
				rssBelow(r),
			}
		},
	},
	{
		name: "train", issue: "c", clients: 60, duration: 60 * time.Second,
		about: fmt.Sprintf("students press Train (%d steps) on seq2seq from scratch at once, while an instructor's room of %d followers plays gru at %d steps/s",
			trainSteps, classFollowers, playSpeed),
		groups: func(n int) []group {
			return append([]group{{name: "trainers", count: n, path: seq2seqScratchPath, role: newTrainer}},
				newRoomRun(roomLesson).groups(classFollowers)...)
		},
		targets: func(r *Result) []Check {
			t, in, f := r.group("trainers"), r.group("instructor"), r.group("followers")
			return []Check{
				everyTrainerProgressed(t),
				fairShare(t),
				delayBelow("the instructor's p99 frame delay", in, in.Delay.P99),
				delayBelow("every follower's p99 frame delay", f, f.Delay.WorstClientP99),
				framesKeptUp(f),
				everyFollowerOnFinal(f),
			}
		},
	},
}

// scenarioNamed finds a scenario by name or by its letter in the issue.
func scenarioNamed(name string) (*scenario, bool) {
	for i, s := range scenarios {
		if s.name == name || s.issue == name {
			return &scenarios[i], true
		}
	}
	return nil, false
}

// scenarioNames lists the scenarios for -h.
func scenarioNames() string {
	var b strings.Builder
	for _, s := range scenarios {
		fmt.Fprintf(&b, "\n  %-9s (%s) %d clients, %v: %s", s.name, s.issue, s.clients, s.duration, s.about)
	}
	return b.String()
}

// gruPath is a gru page at its defaults (a checksum example, the bundled weights).
func gruPath(int) string { return "/lessons/gru/ws" }

// seq2seqScratchPath is a seq2seq page that trains from random weights, each with its
// own seed (its own minibatches), as students who changed the seed would.
func seq2seqScratchPath(i int) string {
	return fmt.Sprintf("/lessons/seq2seq/ws?start=scratch&seed=%d", i+1)
}

// player plays its lesson at playSpeed, and again from the start each time it ends:
// a student watching a sequence over and over.
type player struct{}

func newPlayer() role { return player{} }

func (player) begin(c *client) error {
	return c.send(sim.Command{Type: sim.PlayCommand, Speed: playSpeed})
}

func (player) message(c *client, h *header) {
	if h.Type == sim.FrameMessage && !h.Playing && h.Step == h.Steps {
		_ = c.send(sim.Command{Type: sim.PlayCommand, Speed: playSpeed}) // a failed send shows as a drop
	}
}

func (player) end(*client) error { return nil }

// trainer presses Train once. Its progress messages say how many steps it has taken
// ("done"); at the window's end it just closes, which stops its training within a
// step (a Pause would make the server score the model once more, 60 times at once).
type trainer struct{}

func newTrainer() role { return trainer{} }

func (trainer) begin(c *client) error {
	return c.send(sim.Command{Type: sim.TrainCommand, Steps: trainSteps})
}

func (trainer) message(*client, *header) {}

func (trainer) end(*client) error { return nil }

// The targets' checks.

func delayBelow(what string, g *GroupResult, p99 float64) Check {
	c := Check{Name: fmt.Sprintf("%s < %v", what, delayLimit), Got: fmt.Sprintf("%.1f ms (worst client's p99 %.1f ms)", p99, g.Delay.WorstClientP99)}
	if g.Delay.Samples == 0 {
		c.Got, c.Status = "no frames", fail
		return c
	}
	c.Status = verdict(p99 < ms(delayLimit))
	return c
}

func framesKeptUp(g *GroupResult) Check {
	c := Check{Name: fmt.Sprintf("every %s client receives ≥ %.0f %% of %d frames/s", strings.TrimSuffix(g.Name, "s"), 100*minFrameShare, playSpeed)}
	if g.FrameRate == nil {
		c.Got, c.Status = "no frames", fail
		return c
	}
	c.Got = fmt.Sprintf("slowest %.1f/s, median %.1f/s", g.FrameRate.Min, g.FrameRate.Median)
	c.Status = verdict(g.FrameRate.Min >= minFrameShare*playSpeed)
	return c
}

func rssBelow(r *Result) Check {
	c := Check{Name: fmt.Sprintf("server peak RSS < %.0f MiB", rssLimit)}
	if r.Server.PeakRSSMiB == nil {
		c.Got, c.Status = r.Server.Unavailable, unknown
		return c
	}
	c.Got = fmt.Sprintf("%.0f MiB", *r.Server.PeakRSSMiB)
	c.Status = verdict(*r.Server.PeakRSSMiB < rssLimit)
	return c
}

func everyTrainerProgressed(g *GroupResult) Check {
	c := Check{Name: "every trainer trains"}
	if g.Training == nil {
		c.Got, c.Status = "no trainer connected", fail
		return c
	}
	c.Got = fmt.Sprintf("the slowest took %d steps", g.Training.Min)
	c.Status = verdict(g.Training.Min > 0 && g.Connected == g.Clients)
	return c
}

func everyFollowerOnFinal(g *GroupResult) Check {
	c := Check{Name: "every follower ends on the instructor's final frame"}
	if g.Final == nil || g.Final.Seq == 0 {
		c.Got, c.Status = "the instructor's page did not settle on a final frame", fail
		return c
	}
	c.Got = fmt.Sprintf("%d of %d followers (seq %d, step %d of %d)", g.Final.Followers, g.Clients, g.Final.Seq, g.Final.Step, g.Final.Steps)
	c.Status = verdict(g.Final.Followers == g.Clients)
	return c
}

func fairShare(g *GroupResult) Check {
	c := Check{Name: fmt.Sprintf("every trainer ≥ %.0f %% of the fair share", 100*minFairShare)}
	if g.Training == nil || g.Training.FairShare == 0 {
		c.Got, c.Status = "no training", fail
		return c
	}
	c.Got = fmt.Sprintf("slowest %d steps, fair share %.1f: %.2f of it", g.Training.Min, g.Training.FairShare, g.Training.MinOverFair)
	c.Status = verdict(g.Training.MinOverFair >= minFairShare)
	return c
}
