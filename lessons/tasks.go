package lessons

import (
	"fmt"

	"unroll/data"
	"unroll/sim"
)

// taskInput reads the task and input parameters the GRU and LSTM pages share: the
// task, the text used (the task's example when the input is empty) and its tokens.
func taskInput(v sim.Values) (task *data.Task, text string, ids []int, err error) {
	task, ok := data.FindTask(v.String("task"))
	if !ok {
		return nil, "", nil, fmt.Errorf("there is no task %q", v.String("task"))
	}
	text = v.String("input")
	if text == "" {
		text = task.Default
	}
	ids, err = task.Parse(text)
	return task, text, ids, err
}

// argmax is the index of the largest element of v (the first of equals).
func argmax(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// b2f is 1 for true and 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func fill(v []float64, x float64) {
	for i := range v {
		v[i] = x
	}
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
