// Package mutation is mutation testing of the conditions of package fast (docs/DESIGN.md §7):
// it finds the mutation sites of chosen Go functions (Sites), makes one Mutant per site and
// Operator, applies each through `go test -overlay` so that the working tree is never written,
// and runs killers, cheapest first, until one fails (Run). A mutant that does not compile is
// not viable, never killed.
package mutation

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// Operator is how a mutant changes its site.
type Operator string

// The operators of DESIGN.md §7 for Go source.
const (
	OpBoundary  Operator = "relational-boundary" // < ↔ <=, > ↔ >=
	OpNegate    Operator = "relational-negation" // == ↔ !=, < ↔ >=, > ↔ <=
	OpLogical   Operator = "logical"             // && ↔ ||
	OpDropLeft  Operator = "drop-left-operand"   // a && b → b, a || b → b
	OpDropRight Operator = "drop-right-operand"  // a && b → a, a || b → a
	OpRemoveNot Operator = "remove-not"          // !a → a
	OpConstInc  Operator = "constant+1"          // an integer constant in a comparison, mask or cursor advance, plus 1
	OpConstDec  Operator = "constant-1"          // the same, minus 1
)

// Mutant is one change at one site of a Go source file.
type Mutant struct {
	ID       int      // 1-based, in source order
	File     string   // the file's path as given to Sites
	Func     string   // the enclosing function
	Line     int      // 1-based position of the site in File
	Col      int      // 1-based column, in bytes
	EndLine  int      // where the replaced text ends (exclusive), 1-based
	EndCol   int      //
	Operator Operator //
	Original string   // the site's source text
	Mutated  string   // what replaces it
	off, end int      // the site's byte offsets in the source
	patch    *patch   // for a table mutant: how to apply it to a built binary instead
}

// String is "file:line:col operator: original → mutated", on one line (Shown).
func (m Mutant) String() string {
	return fmt.Sprintf("%s:%d:%d %s: %s → %s", m.File, m.Line, m.Col, m.Operator, Shown(m.Original), Shown(m.Mutated))
}

// Shown is source text as a report shows it: on one line, each run of white space (a line
// break and the next line's indentation) as one space, and "(nothing)" for an empty text (a
// seed mutant that deletes an operand).
func Shown(text string) string {
	s := strings.Join(strings.Fields(text), " ")
	if s == "" {
		return "(nothing)"
	}
	return s
}

// Apply returns a copy of src (the source Sites read) with the mutant applied.
func (m Mutant) Apply(src []byte) []byte {
	out := make([]byte, 0, len(src)-(m.end-m.off)+len(m.Mutated))
	out = append(out, src[:m.off]...)
	out = append(out, m.Mutated...)
	return append(out, src[m.end:]...)
}

var (
	boundary = map[token.Token]token.Token{token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR}
	negation = map[token.Token]token.Token{token.EQL: token.NEQ, token.NEQ: token.EQL, token.LSS: token.GEQ, token.GEQ: token.LSS,
		token.GTR: token.LEQ, token.LEQ: token.GTR}
	// constant operands: comparisons, masks and cursor arithmetic.
	constOps = map[token.Token]bool{token.LSS: true, token.LEQ: true, token.GTR: true, token.GEQ: true, token.EQL: true, token.NEQ: true,
		token.AND: true, token.OR: true, token.AND_NOT: true, token.ADD: true, token.SUB: true}
)

// Sites parses the Go source src of file and returns its mutants in source order: in the
// functions named in funcs (every function when funcs is empty), each relational operator
// (boundary and negation), each && and || (swapped, and each operand dropped), each !, and
// each integer constant that is an operand of a comparison, a mask (& | &^), an addition or
// subtraction, a += or -=, a returned value, a call argument or a keyed field (a cursor
// advance: `return cp, 3`, `fail(2)`, `Advance: 1`), plus and minus 1. Conditions of switch
// cases count like any other. It fails when src does not parse or a named function is
// missing.
func Sites(file string, src []byte, funcs []string) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	sc := &goScan{file: file, src: src, fset: fset}
	found := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || (len(funcs) > 0 && !slices.Contains(funcs, fd.Name.Name)) {
			continue
		}
		found[fd.Name.Name] = true
		ast.Inspect(fd.Body, func(n ast.Node) bool { return sc.node(fd.Name.Name, n) })
	}
	for _, name := range funcs {
		if !found[name] {
			return nil, fmt.Errorf("%s: no function %s", file, name)
		}
	}
	out := sc.out
	slices.SortStableFunc(out, func(a, b Mutant) int {
		return cmp.Or(a.off-b.off, a.end-b.end, cmp.Compare(a.Operator, b.Operator), cmp.Compare(a.Mutated, b.Mutated))
	})
	out = slices.CompactFunc(out, func(a, b Mutant) bool {
		return a.off == b.off && a.end == b.end && a.Operator == b.Operator && a.Mutated == b.Mutated
	})
	for i := range out {
		out[i].ID = i + 1
	}
	return out, nil
}

// goScan collects the mutants of a Go file's function bodies.
type goScan struct {
	file string
	src  []byte
	fset *token.FileSet
	out  []Mutant
}

func (sc *goScan) offset(p token.Pos) int { return sc.fset.Position(p).Offset }

func (sc *goScan) text(n ast.Node) string {
	return string(sc.src[sc.offset(n.Pos()):sc.offset(n.End())])
}

func (sc *goScan) add(fn string, at token.Pos, off, end int, op Operator, mutated string) {
	p := sc.fset.Position(at)
	e := sc.fset.Position(sc.fset.File(at).Pos(end))
	sc.out = append(sc.out, Mutant{File: sc.file, Func: fn, Line: p.Line, Col: p.Column, EndLine: e.Line, EndCol: e.Column, Operator: op,
		Original: string(sc.src[off:end]), Mutated: mutated, off: off, end: end})
}

// node adds the mutants of one node of function fn's body (ast.Inspect's visitor).
func (sc *goScan) node(fn string, n ast.Node) bool {
	switch e := n.(type) {
	case *ast.BinaryExpr:
		sc.binary(fn, e)
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			sc.add(fn, e.Pos(), sc.offset(e.Pos()), sc.offset(e.End()), OpRemoveNot, sc.text(e.X))
		}
	case *ast.AssignStmt:
		if e.Tok == token.ADD_ASSIGN || e.Tok == token.SUB_ASSIGN {
			for _, x := range e.Rhs {
				addConst(fn, x, sc.add, sc.offset)
			}
		}
	case *ast.ReturnStmt:
		for _, x := range e.Results {
			addConst(fn, x, sc.add, sc.offset)
		}
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok && (id.Name == "make" || id.Name == "new") {
			return true // sizes, not conditions
		}
		for _, x := range e.Args {
			addConst(fn, x, sc.add, sc.offset)
		}
	case *ast.KeyValueExpr:
		addConst(fn, e.Value, sc.add, sc.offset)
	}
	return true
}

// binary adds a binary expression's mutants: its operator's boundary and negation, && and ||
// swapped and each operand dropped, and its integer constants ±1.
func (sc *goScan) binary(fn string, e *ast.BinaryExpr) {
	opOff := sc.offset(e.OpPos)
	opEnd := opOff + len(e.Op.String())
	if t, ok := boundary[e.Op]; ok {
		sc.add(fn, e.OpPos, opOff, opEnd, OpBoundary, t.String())
	}
	if t, ok := negation[e.Op]; ok {
		sc.add(fn, e.OpPos, opOff, opEnd, OpNegate, t.String())
	}
	if e.Op == token.LAND || e.Op == token.LOR {
		swap := token.LOR
		if e.Op == token.LOR {
			swap = token.LAND
		}
		sc.add(fn, e.OpPos, opOff, opEnd, OpLogical, swap.String())
		sc.add(fn, e.Pos(), sc.offset(e.Pos()), sc.offset(e.End()), OpDropLeft, sc.text(e.Y))
		sc.add(fn, e.Pos(), sc.offset(e.Pos()), sc.offset(e.End()), OpDropRight, sc.text(e.X))
	}
	if constOps[e.Op] {
		for _, x := range []ast.Expr{e.X, e.Y} {
			addConst(fn, x, sc.add, sc.offset)
		}
	}
}

// addConst adds the ±1 mutants of x when it is an integer literal, keeping its base (0x80 →
// 0x81, 0x7f; 3 → 4, 2).
func addConst(fn string, x ast.Expr, add func(string, token.Pos, int, int, Operator, string), offset func(token.Pos) int) {
	lit, ok := ast.Unparen(x).(*ast.BasicLit)
	if !ok || lit.Kind != token.INT {
		return
	}
	v, err := strconv.ParseUint(lit.Value, 0, 64)
	if err != nil {
		return
	}
	format := func(n uint64) string {
		if len(lit.Value) > 2 && (lit.Value[1] == 'x' || lit.Value[1] == 'X') {
			return fmt.Sprintf("0x%0*X", len(lit.Value)-2, n)
		}
		return strconv.FormatUint(n, 10)
	}
	off, end := offset(lit.Pos()), offset(lit.End())
	add(fn, lit.Pos(), off, end, OpConstInc, format(v+1))
	if v > 0 {
		add(fn, lit.Pos(), off, end, OpConstDec, format(v-1))
	}
}
