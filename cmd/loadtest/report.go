package main

import (
	"fmt"
	"io"
	"strings"
)

// Result is one run's report; -json prints it as it is.
type Result struct {
	Scenario string  `json:"scenario"`
	Issue    string  `json:"issue"`
	About    string  `json:"about"`
	Clients  int     `json:"clients"` // -clients: the main group's size
	Seconds  float64 `json:"seconds"` // the measurement window
	Machine  struct {
		CPUs int    `json:"cpus"`
		OS   string `json:"os"`
		Arch string `json:"arch"`
		Go   string `json:"go"`
		// BusyPercent is how busy all processors were over the window, in % of one
		// (100 × CPUs is all): the server, the generator and whatever else ran.
		BusyPercent *float64 `json:"busy_percent,omitempty"`
		// Wakeup is how late a goroutine of the generator woke from its 5 ms sleeps
		// over the window (wakeups): the machine's own scheduling delay.
		Wakeup DelayResult `json:"wakeup_lateness"`
	} `json:"machine"`
	Server    ServerResult `json:"server"`
	Generator struct {
		CPUPercent     *float64 `json:"cpu_percent,omitempty"`      // of one core, over the window
		CPUWaitPercent *float64 `json:"cpu_wait_percent,omitempty"` // as ServerResult's
	} `json:"generator"`
	Groups []*GroupResult `json:"groups"`
	Checks []Check        `json:"checks"`
}

// ServerResult is what the server's process did over the window.
type ServerResult struct {
	URL        string   `json:"url"`
	Started    bool     `json:"started"`               // this run built and started it
	CPUPercent *float64 `json:"cpu_percent,omitempty"` // user + system, of one core, over the window
	// CPUWaitPercent is the time its threads were ready to run but waited for a
	// processor, over the window, in % of it (schedstat): 100 % is a thread's worth
	// of waiting throughout.
	CPUWaitPercent *float64 `json:"cpu_wait_percent,omitempty"`
	PeakRSSMiB     *float64 `json:"peak_rss_mib,omitempty"`
	RSSMiB         *float64 `json:"rss_mib,omitempty"` // at the window's end
	Unavailable    string   `json:"unavailable,omitempty"`
	LogWarnings    int      `json:"log_warnings"` // WARN and ERROR lines of a server it started
}

// GroupResult sums up one group's clients.
type GroupResult struct {
	Name      string   `json:"name"`
	Path      string   `json:"path"` // the first client's socket
	Clients   int      `json:"clients"`
	Connected int      `json:"connected"`
	Refused   int      `json:"refused"` // closed 1013: the server's memory budget was full
	Failed    int      `json:"failed"`  // could not connect, or a command could not be sent
	Dropped   int      `json:"dropped"` // the connection ended before we closed it
	Problems  []string `json:"problems,omitempty"`
	Connect   Connect  `json:"connect_ms"`

	Messages   int      `json:"messages"`
	Frames     int      `json:"frames"`
	Snapshots  int      `json:"snapshots"` // in the window: a follower that fell behind is sent one
	News       int      `json:"room_news"` // a room's room and view messages
	Coalesced  int      `json:"coalesced"` // seq gaps: messages replaced by newer ones before they were sent
	Unstamped  int      `json:"unstamped"` // frames without "sent"
	Bad        int      `json:"bad"`       // messages against the protocol
	Errors     int      `json:"errors"`    // error messages
	ErrorTexts []string `json:"error_texts,omitempty"`

	FrameRate *Spread         `json:"frame_rate,omitempty"` // frames per second per client
	Delay     DelayResult     `json:"delay"`
	Training  *TrainingResult `json:"training,omitempty"`
	Final     *FinalResult    `json:"final,omitempty"` // a room's followers
}

// FinalResult is the room's final state, as its instructor's page saw it after its
// pause, and how many followers ended on it.
type FinalResult struct {
	Seq       uint64 `json:"seq"` // 0: the instructor's page did not settle
	Step      int    `json:"step"`
	Steps     int    `json:"steps"`
	Followers int    `json:"followers"`
}

// Connect is how long a client took to connect: the websocket handshake and the first
// snapshot (the server builds the page's model first), in milliseconds.
type Connect struct {
	P50 float64 `json:"p50"`
	Max float64 `json:"max"`
}

// Spread is the minimum, median and maximum over clients.
type Spread struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// DelayResult is the frame delay (receive time minus "sent") in milliseconds, over
// every frame of the group, and the largest p99 of one client.
type DelayResult struct {
	Samples        int     `json:"samples"`
	P50            float64 `json:"p50_ms"`
	P99            float64 `json:"p99_ms"`
	Max            float64 `json:"max_ms"`
	WorstClientP99 float64 `json:"worst_client_p99_ms"`
}

// TrainingResult is the optimisation steps each client's model took over the window.
type TrainingResult struct {
	Total          int     `json:"total"`
	Min            int     `json:"min"`
	Median         int     `json:"median"`
	Max            int     `json:"max"`
	FairShare      float64 `json:"fair_share"`    // Total / clients
	MinOverFair    float64 `json:"min_over_fair"` // Min / FairShare
	StepsPerSecond float64 `json:"steps_per_second"`
	// LongestWait is, per client, the longest time without a progress message
	// (from the window's start, between messages, to its end): its median and
	// maximum over clients, in seconds.
	LongestWait Spread `json:"longest_wait_s"`
}

// status is a check's outcome.
type status string

const (
	pass    status = "PASS"
	fail    status = "FAIL"
	unknown status = "N/A" // could not be measured here (no /proc)
)

func verdict(ok bool) status {
	if ok {
		return pass
	}
	return fail
}

// Check is one target and what the run measured against it.
type Check struct {
	Name   string `json:"name"`
	Got    string `json:"got"`
	Status status `json:"status"`
}

// group finds a group's result by name; a scenario's targets name only its own groups.
func (r *Result) group(name string) *GroupResult {
	for _, g := range r.Groups {
		if g.Name == name {
			return g
		}
	}
	panic("loadtest: no group " + name)
}

// Failed reports whether a check failed.
func (r *Result) Failed() bool {
	for _, c := range r.Checks {
		if c.Status == fail {
			return true
		}
	}
	return false
}

// writeText prints r for a person.
func (r *Result) writeText(w io.Writer) {
	fmt.Fprintf(w, "scenario %s (issue 12 %s): %s\n", r.Scenario, r.Issue, r.About)
	fmt.Fprintf(w, "machine: %d CPUs, %s/%s, %s; window %.1f s\n", r.Machine.CPUs, r.Machine.OS, r.Machine.Arch, r.Machine.Go, r.Seconds)
	s := r.Server
	how := "already running"
	if s.Started {
		how = fmt.Sprintf("started here; %d WARN/ERROR lines in its log", s.LogWarnings)
	}
	fmt.Fprintf(w, "server %s (%s)\n", s.URL, how)
	if s.CPUPercent != nil {
		fmt.Fprintf(w, "  CPU %.0f %% of one core (%d cores: %d %% is all), peak RSS %.0f MiB, RSS at the end %.0f MiB\n",
			*s.CPUPercent, r.Machine.CPUs, 100*r.Machine.CPUs, *s.PeakRSSMiB, *s.RSSMiB)
	} else {
		fmt.Fprintf(w, "  CPU and RSS %s\n", s.Unavailable)
	}
	if c := s.CPUWaitPercent; c != nil {
		fmt.Fprintf(w, "  its threads waited for a processor %.0f %% of the window (ready to run, while others ran)\n", *c)
	}
	if c := r.Generator.CPUPercent; c != nil {
		fmt.Fprintf(w, "load generator: CPU %.0f %% of one core", *c)
		if c := r.Generator.CPUWaitPercent; c != nil {
			fmt.Fprintf(w, ", waited for a processor %.0f %%", *c)
		}
		fmt.Fprintln(w)
	}
	if b := r.Machine.BusyPercent; b != nil {
		other := *b
		for _, c := range []*float64{s.CPUPercent, r.Generator.CPUPercent} {
			if c != nil {
				other -= *c
			}
		}
		fmt.Fprintf(w, "the whole machine: %.0f %% of one core busy, %.0f %% of it neither the server nor the generator\n", *b, max(0, other))
	}
	if k := r.Machine.Wakeup; k.Samples > 0 {
		fmt.Fprintf(w, "a goroutine sleeping 5 ms woke late by p50 %.2f ms, p99 %.2f ms, max %.1f ms (the machine's scheduling delay)\n", k.P50, k.P99, k.Max)
	}
	for _, g := range r.Groups {
		fmt.Fprintf(w, "%s (%d × %s): %d connected (handshake and first snapshot p50 %.0f ms, max %.0f ms), %d refused, %d failed, %d dropped\n",
			g.Name, g.Clients, g.Path, g.Connected, g.Connect.P50, g.Connect.Max, g.Refused, g.Failed, g.Dropped)
		for _, p := range g.Problems {
			fmt.Fprintf(w, "  ! %s\n", p)
		}
		fmt.Fprintf(w, "  messages %d, frames %d, snapshots %d, room news %d, coalesced %d, unstamped %d, against the protocol %d, error messages %d\n",
			g.Messages, g.Frames, g.Snapshots, g.News, g.Coalesced, g.Unstamped, g.Bad, g.Errors)
		for _, e := range g.ErrorTexts {
			fmt.Fprintf(w, "  error: %s\n", e)
		}
		if f := g.FrameRate; f != nil {
			fmt.Fprintf(w, "  frames per second per client: min %.1f, median %.1f, max %.1f\n", f.Min, f.Median, f.Max)
		}
		if d := g.Delay; d.Samples > 0 {
			fmt.Fprintf(w, "  frame delay: p50 %.2f ms, p99 %.2f ms, max %.1f ms; worst client's p99 %.2f ms (%d frames)\n",
				d.P50, d.P99, d.Max, d.WorstClientP99, d.Samples)
		}
		if t := g.Training; t != nil {
			fmt.Fprintf(w, "  training steps per session: min %d, median %d, max %d; fair share %.1f (min = %.2f of it); %d in all, %.1f steps/s\n",
				t.Min, t.Median, t.Max, t.FairShare, t.MinOverFair, t.Total, t.StepsPerSecond)
			fmt.Fprintf(w, "  longest wait for progress per session: median %.2f s, max %.2f s\n", t.LongestWait.Median, t.LongestWait.Max)
		}
		if f := g.Final; f != nil {
			fmt.Fprintf(w, "  on the instructor's final frame (seq %d, step %d of %d): %d of %d\n", f.Seq, f.Step, f.Steps, f.Followers, g.Clients)
		}
	}
	fmt.Fprintln(w, "checks:")
	for _, c := range r.Checks {
		fmt.Fprintf(w, "  %-4s %s: %s\n", c.Status, c.Name, strings.TrimSpace(c.Got))
	}
}
