package main

import (
	"errors"
	"flag"
	"strconv"
)

// decimal is an int flag read in base 10 only: flag.Int takes 010 for 8 and 0x10 for 16, which
// a count of workers or examples or a length given with a leading zero should not silently be.
type decimal struct{ p *int }

func (d decimal) String() string {
	if d.p == nil {
		return "0"
	}
	return strconv.Itoa(*d.p)
}

func (d decimal) Set(s string) error {
	v, err := strconv.ParseInt(s, 10, strconv.IntSize)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return errors.New("value out of range")
	case err != nil:
		return errors.New("not a decimal integer")
	}
	*d.p = int(v)
	return nil
}

// decimalVar defines an int flag read in base 10 (decimal) with its default, like fs.IntVar;
// the usage names its argument in backquotes (flag.UnquoteUsage).
func decimalVar(fs *flag.FlagSet, p *int, name string, value int, usage string) {
	*p = value
	fs.Var(decimal{p}, name, usage)
}

// decimalFlag is decimalVar for a new int, like fs.Int.
func decimalFlag(fs *flag.FlagSet, name string, value int, usage string) *int {
	p := new(int)
	decimalVar(fs, p, name, value, usage)
	return p
}
