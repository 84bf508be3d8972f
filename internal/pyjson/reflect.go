package pyjson

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	objectType        = reflect.TypeFor[Object]()
)

// item starts item i of the array or object opened at depth.
func (e *encoder) item(i, depth int) {
	switch {
	case i > 0:
		e.itemSep(depth + 1)
	case e.opts.Indent > 0:
		e.newline(depth + 1)
	}
}

// closeWith ends the array or object opened at depth that got n items.
func (e *encoder) closeWith(c byte, n, depth int) {
	if n > 0 && e.opts.Indent > 0 {
		e.newline(depth)
	}
	e.buf = append(e.buf, c)
}

// key writes an object key and the key separator.
func (e *encoder) key(k string) {
	e.str(k)
	if e.opts.Compact {
		e.buf = append(e.buf, ':')
	} else {
		e.buf = append(e.buf, ':', ' ')
	}
}

// reflectValue writes any Go value that the type switch of value does not
// cover.
func (e *encoder) reflectValue(v reflect.Value, depth int) {
	if e.err != nil {
		return
	}
	if depth > maxNesting {
		e.fail("nesting deeper than %d levels (a cycle?)", maxNesting)
		return
	}
	if v.Kind() == reflect.Interface {
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return
		}
		v = v.Elem() // the dynamic value decides, as in encoding/json
	}
	if !v.IsValid() {
		e.buf = append(e.buf, "null"...)
		return
	}
	t := v.Type()
	if t == objectType {
		e.object(v.Interface().(Object), depth)
		return
	}
	info := typeInfoOf(t)
	if info.marshaler != noMarshaler {
		e.callMarshaler(v, info, depth)
		return
	}
	e.kindValue(v, info, depth)
}

// kindValue writes v by its kind, without looking for methods.
func (e *encoder) kindValue(v reflect.Value, info *typeInfo, depth int) {
	t := v.Type()
	switch v.Kind() {
	case reflect.Bool:
		e.buf = strconv.AppendBool(e.buf, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	case reflect.Float32:
		e.float(v.Float(), 32)
	case reflect.Float64:
		e.float(v.Float(), 64)
	case reflect.String:
		e.str(v.String())
	case reflect.Pointer:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.reflectValue(v.Elem(), depth)
	case reflect.Struct:
		e.structValue(v, info, depth)
	case reflect.Map:
		e.mapValue(v, depth)
	case reflect.Slice:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return
		}
		if t.Elem().Kind() == reflect.Uint8 && !typeInfoOf(t.Elem()).special() {
			e.bytes(v.Bytes())
			return
		}
		e.listValue(v, depth)
	case reflect.Array:
		e.listValue(v, depth)
	default:
		e.fail("unsupported type %s", t)
	}
}

// bytes writes b as a base64 string, as encoding/json does.
func (e *encoder) bytes(b []byte) {
	e.buf = append(e.buf, '"')
	e.buf = base64.StdEncoding.AppendEncode(e.buf, b)
	e.buf = append(e.buf, '"')
}

func (e *encoder) listValue(v reflect.Value, depth int) {
	n := v.Len()
	e.buf = append(e.buf, '[')
	for i := range n {
		e.item(i, depth)
		e.reflectValue(v.Index(i), depth+1)
	}
	e.closeWith(']', n, depth)
}

func (e *encoder) structValue(v reflect.Value, info *typeInfo, depth int) {
	order := info.fields
	if e.opts.SortKeys {
		order = info.sortedFields
	}
	e.buf = append(e.buf, '{')
	n := 0
	for _, f := range order {
		fv, ok := fieldByIndex(v, f.index)
		if !ok || (f.omitEmpty && isEmpty(fv)) || (f.omitZero && isZero(fv)) {
			continue
		}
		e.item(n, depth)
		n++
		e.key(f.name)
		if f.quoted {
			e.quoted(fv)
			continue
		}
		e.reflectValue(fv, depth+1)
	}
	e.closeWith('}', n, depth)
}

// quoted writes a scalar field tagged ",string" as a JSON string holding
// its JSON text, as encoding/json does.
func (e *encoder) quoted(v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
		inner := encoder{opts: Options{EnsureASCII: e.opts.EnsureASCII}}
		inner.reflectValue(v, 0)
		if inner.err != nil {
			e.fail("%w", inner.err)
			return
		}
		e.str(string(inner.buf))
	default:
		e.reflectValue(v, 0) // encoding/json ignores ",string" on other kinds
	}
}

// fieldByIndex follows an embedded-field path; ok is false when it passes
// through a nil pointer (encoding/json leaves such fields out).
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// isZero is encoding/json's omitzero test: an IsZero() bool method when the
// type has one, else the zero value.
func isZero(v reflect.Value) bool {
	if m, ok := v.Interface().(interface{ IsZero() bool }); ok {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return true
		}
		return m.IsZero()
	}
	return v.IsZero()
}

// mapValue writes a map with its keys sorted: Go maps have no insertion
// order to keep.
func (e *encoder) mapValue(v reflect.Value, depth int) {
	if v.IsNil() {
		e.buf = append(e.buf, "null"...)
		return
	}
	type kv struct {
		key string
		val reflect.Value
	}
	members := make([]kv, 0, v.Len())
	it := v.MapRange()
	for it.Next() {
		k, err := mapKey(it.Key())
		if err != nil {
			e.fail("%w", err)
			return
		}
		members = append(members, kv{k, it.Value()})
	}
	slices.SortFunc(members, func(a, b kv) int { return strings.Compare(a.key, b.key) })
	for i := 1; i < len(members); i++ {
		if members[i].key == members[i-1].key {
			e.fail("object key %q given twice", members[i].key)
			return
		}
	}
	e.buf = append(e.buf, '{')
	for i, m := range members {
		e.item(i, depth)
		e.key(m.key)
		e.reflectValue(m.val, depth+1)
	}
	e.closeWith('}', len(members), depth)
}

// mapKey is the JSON key of a map key, by encoding/json's rules.
func mapKey(k reflect.Value) (string, error) {
	if k.Kind() == reflect.String {
		return k.String(), nil
	}
	if tm, ok := k.Interface().(encoding.TextMarshaler); ok {
		if k.Kind() == reflect.Pointer && k.IsNil() {
			return "", nil
		}
		b, err := tm.MarshalText()
		return string(b), err
	}
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(k.Uint(), 10), nil
	}
	return "", &unsupportedError{k.Type()}
}

type unsupportedError struct{ t reflect.Type }

func (e *unsupportedError) Error() string { return "unsupported map key type " + e.t.String() }

// marshalerKind says which marshaling method a type has.
type marshalerKind uint8

const (
	noMarshaler marshalerKind = iota
	jsonMarshaler
	jsonMarshalerPtr // *T has MarshalJSON; used when the value is addressable
	textMarshaler
	textMarshalerPtr
)

// typeInfo is what the encoder caches per type.
type typeInfo struct {
	marshaler    marshalerKind
	fields       []field // structs only, in field order
	sortedFields []field // the same fields sorted by name
}

// special reports whether the type encodes through a method.
func (ti *typeInfo) special() bool { return ti.marshaler != noMarshaler }

var typeCache sync.Map // reflect.Type -> *typeInfo

func typeInfoOf(t reflect.Type) *typeInfo {
	if ti, ok := typeCache.Load(t); ok {
		return ti.(*typeInfo)
	}
	ti := &typeInfo{}
	switch {
	case t.Implements(marshalerType):
		ti.marshaler = jsonMarshaler
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(marshalerType):
		ti.marshaler = jsonMarshalerPtr
	case t.Implements(textMarshalerType):
		ti.marshaler = textMarshaler
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(textMarshalerType):
		ti.marshaler = textMarshalerPtr
	}
	if t.Kind() == reflect.Struct {
		ti.fields = structFields(t)
		ti.sortedFields = slices.Clone(ti.fields)
		slices.SortFunc(ti.sortedFields, func(a, b field) int { return strings.Compare(a.name, b.name) })
	}
	actual, _ := typeCache.LoadOrStore(t, ti)
	return actual.(*typeInfo)
}

// callMarshaler writes a value through its MarshalJSON or MarshalText.
// A method with a pointer receiver is used only when the value is
// addressable, as in encoding/json.
func (e *encoder) callMarshaler(v reflect.Value, info *typeInfo, depth int) {
	kind := info.marshaler
	switch kind {
	case jsonMarshalerPtr, textMarshalerPtr:
		if !v.CanAddr() {
			e.kindValue(v, info, depth)
			return
		}
		v = v.Addr()
	}
	if v.Kind() == reflect.Pointer && v.IsNil() {
		e.buf = append(e.buf, "null"...)
		return
	}
	switch kind {
	case jsonMarshaler, jsonMarshalerPtr:
		b, err := v.Interface().(json.Marshaler).MarshalJSON()
		if err != nil {
			e.fail("MarshalJSON of %s: %w", v.Type(), err)
			return
		}
		e.reemit(b, v.Type(), depth)
	default:
		b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			e.fail("MarshalText of %s: %w", v.Type(), err)
			return
		}
		e.str(string(b))
	}
}

// field is one JSON member of a struct type.
type field struct {
	name      string
	index     []int // path through embedded structs
	tagged    bool  // the name comes from a json tag
	omitEmpty bool
	omitZero  bool
	quoted    bool // ",string"
}

// structFields lists the JSON members of struct type t with encoding/json's
// rules: exported fields, json tag names, "-" dropped, fields of embedded
// structs without a tag name promoted, and for names given more than once
// the shallowest field winning (a tagged one among equals), or none when
// that is ambiguous.
func structFields(t reflect.Type) []field {
	type level struct {
		typ   reflect.Type
		index []int
	}
	var fields []field
	next := []level{{typ: t}}
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		count := map[reflect.Type]int{}
		for _, l := range current {
			count[l.typ]++
		}
		for _, l := range current {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := range l.typ.NumField() {
				sf := l.typ.Field(i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if sf.Anonymous {
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				index := append(slices.Clip(l.index), i)
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					next = append(next, level{typ: ft, index: index})
					continue
				}
				f := field{name: name, index: index, tagged: name != ""}
				if name == "" {
					f.name = sf.Name
				}
				for _, o := range strings.Split(opts, ",") {
					switch o {
					case "omitempty":
						f.omitEmpty = true
					case "omitzero":
						f.omitZero = true
					case "string":
						f.quoted = true
					}
				}
				fields = append(fields, f)
				if count[l.typ] > 1 {
					// The same struct embedded twice at one depth: its
					// fields cancel each other out.
					fields = append(fields, f)
				}
			}
		}
	}
	// Keep, for each name, the dominant field.
	slices.SortStableFunc(fields, func(a, b field) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := len(a.index) - len(b.index); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	out := fields[:0:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		if f, ok := dominant(fields[i:j]); ok {
			out = append(out, f)
		}
		i = j
	}
	slices.SortFunc(out, func(a, b field) int { return slices.Compare(a.index, b.index) })
	return out
}

// dominant picks the field that wins among fields of one name, sorted by
// depth and then tagged first; ok is false when none does.
func dominant(fields []field) (field, bool) {
	if len(fields) > 1 && len(fields[0].index) == len(fields[1].index) && fields[0].tagged == fields[1].tagged {
		return field{}, false
	}
	return fields[0], true
}
