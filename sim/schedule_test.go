package sim

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// granted reports whether t holds its slot now.
func granted(t *Ticket) bool {
	select {
	case <-t.Ready():
		return true
	default:
		return false
	}
}

func TestSchedulerPriorityThenOrder(t *testing.T) {
	s := NewScheduler(1)
	holder := s.Request(Interactive)
	if !granted(holder) {
		t.Fatal("the first ticket of an idle scheduler waits")
	}
	train1, train2 := s.Request(Training), s.Request(Training)
	room := s.Request(Room)
	fast := s.Request(Interactive)
	if granted(train1) || granted(room) || granted(fast) {
		t.Fatal("a ticket was granted while the only slot is held")
	}
	var order []string
	names := map[*Ticket]string{train1: "train1", train2: "train2", room: "room", fast: "interactive"}
	current := holder
	for range names {
		current.Release()
		var next *Ticket
		for tk := range names {
			if granted(tk) && !tk.released {
				next = tk
			}
		}
		if next == nil {
			t.Fatalf("after a release no waiter got the slot (order so far %v)", order)
		}
		order = append(order, names[next])
		current = next
	}
	if got, want := strings.Join(order, " "), "interactive room train1 train2"; got != want {
		t.Errorf("slots went to %q, want %q (priority, then first come)", got, want)
	}
}

func TestSchedulerKeepsASlotForInteractive(t *testing.T) {
	s := NewScheduler(2)
	a, b := s.Request(Training), s.Request(Training)
	if !granted(a) || granted(b) {
		t.Fatalf("with 2 slots: training tickets granted %v, %v; want only the first (one slot stays for interactive work)", granted(a), granted(b))
	}
	i := s.Request(Interactive)
	if !granted(i) {
		t.Fatal("an interactive ticket waits while training holds only one of two slots")
	}
	i.Release()
	if granted(b) {
		t.Error("the second training ticket took the interactive slot")
	}
	a.Release()
	if !granted(b) {
		t.Error("the second training ticket did not get the slot the first gave back")
	}
	b.Release()
	// One slot: training may use it (there is nothing to keep back).
	one := NewScheduler(1)
	if tk := one.Request(Training); !granted(tk) {
		t.Error("a one-slot scheduler never lets training run")
	}
}

func TestSchedulerFairTurns(t *testing.T) {
	// Two trainers take turns on one slot: each gives its slot back after a turn
	// and queues again, so neither runs twice in a row while the other waits.
	s := NewScheduler(1)
	holder, _ := s.Acquire(context.Background(), Interactive) // both queue before either runs
	var turns []int
	done := make(chan struct{})
	for id := range 2 {
		go func() {
			for range 5 {
				tk, _ := s.Acquire(context.Background(), Training)
				turns = append(turns, id) // only the slot holder appends
				time.Sleep(time.Millisecond)
				tk.Release()
			}
			done <- struct{}{}
		}()
	}
	for s.Waiting(Training) < 2 {
		time.Sleep(time.Millisecond)
	}
	holder.Release()
	<-done
	<-done
	runs := 0
	for i := 1; i < len(turns); i++ {
		if turns[i] == turns[i-1] {
			runs++
		}
	}
	if runs > 0 || len(turns) != 10 {
		t.Errorf("turns %v: a trainer ran again while the other waited", turns)
	}
}

func TestSchedulerCancelledWaiterLeavesTheQueue(t *testing.T) {
	s := NewScheduler(1)
	holder, _ := s.Acquire(context.Background(), Interactive)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := s.Acquire(ctx, Training); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire with an expired context: got %v, want the deadline", err)
	}
	if n := s.Waiting(Training); n != 0 {
		t.Errorf("%d tickets still wait after their context ended, want 0", n)
	}
	waiting := s.Request(Training)
	waiting.Release() // leaves the queue before it is served
	holder.Release()
	holder.Release() // twice is harmless
	if tk := s.Request(Interactive); !granted(tk) {
		t.Error("the slot was lost: a released waiter or a double release kept it")
	}
}

// slowTrainer trains forever, one step per period.
type slowTrainer struct {
	stepsModel
	period time.Duration
	steps  *int
}

func (m slowTrainer) TrainStep() (Frame, error) {
	time.Sleep(m.period)
	*m.steps++
	return Frame{}, nil
}

func TestReplayStopsWhenTheClientGoes(t *testing.T) {
	steps := 0
	m := slowTrainer{stepsModel: 1, period: 5 * time.Millisecond, steps: &steps}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	err := Replay(ctx, NewScheduler(1), m, MaxTrainSteps)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Replay after its context ended: got %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("Replay went on %v after the client went, want at most one step", took)
	}
	if steps >= MaxTrainSteps || steps == 0 {
		t.Errorf("Replay took %d steps, want some and far fewer than %d", steps, MaxTrainSteps)
	}
}

func TestReplayWaitsItsTurn(t *testing.T) {
	s := NewScheduler(1)
	holder, _ := s.Acquire(context.Background(), Interactive)
	steps := 0
	done := make(chan error)
	go func() { done <- Replay(context.Background(), s, slowTrainer{stepsModel: 1, steps: &steps}, 3) }()
	time.Sleep(20 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("Replay finished (%v) while the only slot was held", err)
	default:
	}
	holder.Release()
	if err := <-done; err != nil || steps != 3 {
		t.Errorf("Replay: err %v after %d steps, want nil after 3", err, steps)
	}
}

func TestRunTrainLimit(t *testing.T) {
	r := newTestRun(t)
	r.SetTrainLimit(5)
	if _, err := r.Apply(Command{Type: TrainCommand, Steps: 6}); err == nil || !strings.Contains(err.Error(), "at most 5 steps") {
		t.Fatalf("train 6 with a limit of 5: got %v, want a refusal naming the limit", err)
	}
	r.Apply(Command{Type: TrainCommand, Steps: 3})
	for r.Training() {
		r.Continue()
	}
	_, err := r.Apply(Command{Type: TrainCommand, Steps: 3})
	if err == nil || !strings.Contains(err.Error(), "at most 2 more") {
		t.Errorf("train 3 after 3 of 5: got %v, want 'at most 2 more'", err)
	}
	r.Apply(Command{Type: TrainCommand, Steps: 2})
	for r.Training() {
		r.Continue()
	}
	if _, err := r.Apply(Command{Type: TrainCommand, Steps: 1}); err == nil || !strings.Contains(err.Error(), "trained the 5 steps") {
		t.Errorf("train after the limit: got %v, want a refusal", err)
	}
	r.Apply(Command{Type: SetCommand, Params: map[string]string{"seed": "3"}})
	if _, err := r.Apply(Command{Type: TrainCommand, Steps: 5}); err != nil {
		t.Errorf("train after a set (a new model): got %v, want it accepted", err)
	}
}

func TestRunProgressBetweenReports(t *testing.T) {
	r := newTestRun(t)
	r.Apply(Command{Type: TrainCommand, Steps: 1000}) // Continue reports every 10 steps
	if _, ok := r.Progress(); ok {
		t.Error("progress before any step")
	}
	if msgs := r.Continue(); len(msgs) != 0 {
		t.Fatalf("the first of 1000 steps sent %d messages, want none (reports every 10)", len(msgs))
	}
	m, ok := r.Progress()
	if !ok {
		t.Fatal("no progress after a step that Continue did not report")
	}
	if got := decode(t, m); got.Header.Type != TrainMessage || got.Header.Meta["done"] != 1.0 || got.Header.Meta["of"] != 1000.0 || got.Header.Meta["loss"] == nil {
		t.Errorf("progress: got %s %v, want train done 1 of 1000 with a loss", got.Header.Type, got.Header.Meta)
	}
	if _, ok := r.Progress(); ok {
		t.Error("the same step reported twice")
	}
	for range 9 {
		r.Continue() // the 10th step is Continue's own report
	}
	if _, ok := r.Progress(); ok {
		t.Error("a step Continue reported was reported again")
	}
}
