package main

import (
	"flag"

	"github.com/difffuzz/difffuzz/campaign"
)

// mode is one way of choosing inputs (exhaustive, boundary, random, ...). Each lives in its
// own file and adds itself to modes from init, so modes can be added without touching the
// others.
type mode struct {
	name      string
	order     int                           // position in a campaign
	inDefault bool                          // runs when no mode flag is given
	addFlags  func(fs *flag.FlagSet)        // registers the mode's flags
	selected  func() bool                   // after parsing: was the mode asked for
	check     func(runs bool) error         // after parsing: validate the mode's flags (runs: the mode is part of this campaign)
	part      func(c *common) campaign.Part // the mode as the engine runs and plans it (campaign.Run)
}

var modes []*mode

// names are the names of ms; modeNames those of every mode, which a checkpoint's parts are of.
func names(ms []*mode) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.name
	}
	return out
}

func modeNames() []string { return names(modes) }

func addMode(m *mode) {
	modes = append(modes, m)
	for i := len(modes) - 1; i > 0 && modes[i].order < modes[i-1].order; i-- {
		modes[i], modes[i-1] = modes[i-1], modes[i]
	}
}

// optional is a flag's value and whether it was given (a flag.Value: its String is "" until
// it is).
type optional[T any] struct {
	v     T
	set   bool
	parse func(string) (T, error)
	show  func(T) string
}

func (f *optional[T]) String() string {
	if f == nil || !f.set {
		return ""
	}
	return f.show(f.v)
}

func (f *optional[T]) Set(s string) error {
	v, err := f.parse(s)
	if err != nil {
		return err
	}
	f.v, f.set = v, true
	return nil
}
