// Package pytext holds the Python str behaviour that typevet's rules
// depend on, so every package that quotes, trims, splits or classifies
// text the way typevet does shares one implementation:
//
//   - [Strip] and [IsSpace]: str.strip() and str.isspace() (also what
//     Python's re \s matches on str).
//   - [Repr] and [ReprList]: repr(str) and repr(list[str]), the forms
//     typevet puts in messages.
//   - [SplitLines] and [Lines]: str.splitlines().
//   - [IsIdentifier]: str.isidentifier() (Unicode XID rules).
//   - [IsDigit]: str.isdigit() for one character (Numeric_Type Digit or
//     Decimal, so "²" and "①" are digits).
//
// # Unicode versions
//
// Python 3.11 uses Unicode 14; Go's tables are newer. The tests compare
// every predicate with a table that Python 3.11 printed
// (testdata/python-unicode.txt, written by testdata/gen.py) on every code
// point Unicode 14 assigns; code points assigned later may differ.
package pytext
