// Package peers times fast.Escape against the Go JSON string escapers on the corpora of
// package corpus (make bench-peers). It is a module of its own so that the peers stay out of
// difffuzz's dependency graph.
package peers
