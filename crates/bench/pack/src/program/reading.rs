//! A family as its reader sees one of its tasks: which of the family's values the goal and the
//! world have shown so far, what follows from them, and the task's references worked out as
//! far as those values go. This is what a script written against the family knows, and what
//! the `script` baseline (the `mcpbench-script` crate) plays: it binds what the goal's slots
//! hold and what the servers answer, and follows the family's own references.

use super::{Family, Kind, Step};
use crate::expr::{Expr, Exprs, from_json, to_json, to_text};
use crate::template::{Item, Node};
use jaq_json::Val;
use mcpbench_sim::Rng;
use serde_json::{Map, Value};

/// The key of the object that stands, in a part worked out by [`Family::references_known`],
/// where a value is not known yet: `{"$unknown": "<the expression's source>"}`.
pub const UNKNOWN: &str = "$unknown";

/// A step into a value: an object's field or a list's element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    Key(String),
    Index(usize),
}

/// Puts `value` at `path` in `at`, making the objects and lists on the way (a list's elements
/// before the one placed are `null`, not known). False when `at` is of another kind there.
fn place(at: &mut Value, path: &[Field], value: &Value) -> bool {
    let Some((first, rest)) = path.split_first() else {
        *at = value.clone();
        return true;
    };
    match first {
        Field::Key(key) => {
            if at.is_null() {
                *at = Value::Object(Map::new());
            }
            let Value::Object(map) = at else {
                return false;
            };
            place(map.entry(key.clone()).or_insert(Value::Null), rest, value)
        }
        Field::Index(i) => {
            if at.is_null() {
                *at = Value::Array(Vec::new());
            }
            let Value::Array(items) = at else {
                return false;
            };
            if *i >= 64 {
                return false;
            }
            if items.len() <= *i {
                items.resize(*i + 1, Value::Null);
            }
            place(&mut items[*i], rest, value)
        }
    }
}

/// An expression that only reads a path, `$name`, `$name.field`, `$name[1]` (and longer paths) as the name and the path.
pub fn path(source: &str) -> Option<(&str, Vec<Field>)> {
    let rest = source.trim().strip_prefix('$')?;
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let end = rest.find(|c: char| !ident(c)).unwrap_or(rest.len());
    let (name, mut rest) = rest.split_at(end);
    if name.is_empty() {
        return None;
    }
    let mut fields = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(|c: char| !ident(c)).unwrap_or(after.len());
            if end == 0 {
                return None;
            }
            fields.push(Field::Key(after[..end].to_string()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let (index, after) = after.split_once(']')?;
            fields.push(Field::Index(index.parse().ok()?));
            rest = after;
        } else {
            return None;
        }
    }
    Some((name, fields))
}

/// The path that `rest` starts with (`.title`, `[1].name`), as far as it goes.
fn leading_path(mut rest: &str) -> Vec<Field> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    loop {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(|c: char| !ident(c)).unwrap_or(after.len());
            if end == 0 {
                return out;
            }
            out.push(Field::Key(after[..end].to_string()));
            rest = &after[end..];
        } else if let Some((index, after)) = rest
            .strip_prefix('[')
            .and_then(|r| r.split_once(']'))
            .and_then(|(i, after)| Some((i.parse::<usize>().ok()?, after)))
        {
            out.push(Field::Index(index));
            rest = after;
        } else {
            return out;
        }
    }
}

fn has_null(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(items) => items.iter().any(has_null),
        Value::Object(m) => m.values().any(has_null),
        _ => false,
    }
}

/// How much of a name's value is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    No,
    /// Some fields of an object (`$p.title` read off the goal), the rest not yet.
    Partial,
    Whole,
}

/// The values of a family's names (its `data`, then each step's name) for one task, each
/// known or not.
#[derive(Clone, Debug)]
pub struct Bindings {
    names: Vec<String>,
    vals: Vec<Val>,
    known: Vec<Known>,
    /// Whether the value was worked out by [`Family::derive`] (and is worked out again when
    /// what it reads changes), rather than told.
    derived: Vec<bool>,
}

/// A reader's expression ([`Family::reading`]).
#[derive(Clone, Debug)]
pub struct Reading(Expr);

impl Bindings {
    /// The value of a reader's expression with `answer` as `$answer`, as any expression of the
    /// family is worked out (every name it reads known, nothing owed to parts not known).
    pub fn read(&self, r: &Reading, answer: &Value) -> Option<Value> {
        let mut b = self.clone();
        b.names.push("answer".into());
        b.vals.push(from_json(answer));
        b.known.push(Known::Whole);
        b.derived.push(false);
        b.eval(&r.0)
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn known(&self, name: &str) -> Known {
        self.index(name).map_or(Known::No, |k| self.known[k])
    }

    /// The value of `name` as far as it is known.
    pub fn value(&self, name: &str) -> Option<Value> {
        let k = self.index(name)?;
        (self.known[k] != Known::No)
            .then(|| to_json(&self.vals[k]).ok())
            .flatten()
    }

    /// Binds `name` whole. Whether the name is the family's.
    pub fn set(&mut self, name: &str, value: &Value) -> bool {
        let Some(k) = self.index(name) else {
            return false;
        };
        self.vals[k] = from_json(value);
        self.known[k] = Known::Whole;
        self.derived[k] = false;
        true
    }

    /// Binds the part at `path` of the value `name` (`$p.title`, `$to[1]`), the rest of it
    /// unknown.
    pub fn set_path(&mut self, name: &str, path: &[Field], value: &Value) -> bool {
        let Some(k) = self.index(name) else {
            return false;
        };
        if self.known[k] == Known::Whole {
            return true;
        }
        let mut whole = match self.known[k] {
            Known::Partial => to_json(&self.vals[k]).unwrap_or(Value::Null),
            _ => Value::Null,
        };
        if !place(&mut whole, path, value) {
            return false;
        }
        self.vals[k] = from_json(&whole);
        self.known[k] = Known::Partial;
        true
    }

    /// The part at `path` of `name`'s value, when it is known.
    fn part(&self, name: &str, path: &[Field]) -> Option<Value> {
        let mut at = self.value(name)?;
        for field in path {
            at = match (field, at) {
                (Field::Key(k), Value::Object(mut m)) => m.remove(k)?,
                (Field::Index(i), Value::Array(mut items)) if *i < items.len() => {
                    items.swap_remove(*i)
                }
                _ => return None,
            };
        }
        (!at.is_null()).then_some(at)
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().rposition(|n| n == name)
    }

    fn ready(&self, e: &Expr) -> bool {
        e.reads().iter().all(|&k| self.known[k] != Known::No)
    }

    /// The expression's value, when every name it reads is known and it gives something other
    /// than `null` (a field of a partly known object that is not known yet). An expression
    /// that reads a partly known value could turn a part not known into a value
    /// (`"\($p.sku)-1"` gives `"null-1"`, `$to | length` counts what is not known): it is
    /// worked out only when it reads such a value through known parts alone
    /// ([`Bindings::through_known`]).
    fn eval(&self, e: &Expr) -> Option<Value> {
        if !self.ready(e) || !self.through_known(e) {
            return None;
        }
        e.eval_json(&self.vals).ok().filter(|v| !v.is_null())
    }

    /// Whether every place `e` reads a partly known value is a path to a part known whole
    /// (`$p.title`, `$to[1]`; not `$p`, `$to | length`, `$to[]`), holding no `null`.
    fn through_known(&self, e: &Expr) -> bool {
        let source = e.source();
        e.reads()
            .iter()
            .filter(|&&k| self.known[k] == Known::Partial)
            .all(|&k| {
                let name = &self.names[k];
                let marker = format!("${name}");
                source.match_indices(&marker).all(|(at, _)| {
                    let rest = &source[at + marker.len()..];
                    // `$p` followed by more of a name is another name (`$pn`).
                    if rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
                        return true;
                    }
                    let fields = leading_path(rest);
                    !fields.is_empty() && self.part(name, &fields).is_some_and(|v| !has_null(&v))
                })
            })
    }
}

impl Family {
    /// The family's names for a new task: its `data` known, every step's value not.
    pub fn bindings(&self) -> Bindings {
        let mut names: Vec<String> = self.data_names.clone();
        let mut vals: Vec<Val> = self.data.iter().map(from_json).collect();
        let mut known = vec![Known::Whole; names.len()];
        for step in self.steps.iter().filter(|s| !s.name.is_empty()) {
            names.push(step.name.clone());
            vals.push(Val::Null);
            known.push(Known::No);
        }
        let derived = vec![false; names.len()];
        Bindings {
            names,
            vals,
            known,
            derived,
        }
    }

    /// Works out every `value` step whose names are known (a step drawn only `when` a
    /// condition holds is left alone), in order, again when what it reads has changed, and
    /// back: a step that only reads a path
    /// (`"value": "$project.name"`) tells that part of the value it reads. Until nothing more
    /// follows; whether anything new became known.
    pub fn derive(&self, b: &mut Bindings) -> bool {
        let mut any = false;
        loop {
            let mut more = false;
            for step in &self.steps {
                more |= self.pick_known(step, b);
                let (Kind::Value(e), None) = (&step.kind, &step.when) else {
                    continue;
                };
                let k = b.index(&step.name).expect("a step's name is bound");
                let again = b.derived[k];
                if (b.known[k] != Known::Whole || again)
                    && let Some(v) = b.eval(e)
                    && !(again && b.value(&step.name).as_ref() == Some(&v))
                {
                    b.set(&step.name, &v);
                    b.derived[k] = true;
                    more = true;
                }
                if let (Some(v), Some((from, fields))) = (b.value(&step.name), path(e.source()))
                    && !fields.is_empty()
                    && b.known(from) != Known::Whole
                    && b.part(from, &fields).is_none()
                {
                    more |= b.set_path(from, &fields, &v);
                }
            }
            if !more {
                return any;
            }
            any = true;
        }
    }

    /// A name drawn by `pick` from a list of the family's constants and known in part (the
    /// room's name read off the goal, of `"pick": "$rooms"`) is the one item of the list that
    /// agrees with every part known: a reader of the family's data finds it there. Whether
    /// it became known.
    fn pick_known(&self, step: &Step, b: &mut Bindings) -> bool {
        let Kind::Pick(list) = &step.kind else {
            return false;
        };
        let data = self.data_names.len();
        if step.when.is_some()
            || b.known(&step.name) != Known::Partial
            || list.reads().iter().any(|&k| k >= data)
        {
            return false;
        }
        let (Some(Value::Array(items)), Some(known)) = (b.eval(list), b.value(&step.name)) else {
            return false;
        };
        let mut fits = items.iter().filter(|item| agrees(&known, item));
        match (fits.next(), fits.next()) {
            (Some(item), None) => b.set(&step.name, item),
            _ => false,
        }
    }

    /// The names the goal slot written `source` reads (as [`Family::goal_shapes`] gives it).
    pub fn slot_names(&self, source: &str) -> Option<Vec<String>> {
        let e = self.slot(source)?;
        let names = self.bindings().names;
        Some(e.reads().iter().map(|&k| names[k].clone()).collect())
    }

    /// The texts a goal slot can hold when it writes a name drawn by `pick` from a list that
    /// only the family's constants make (`{$opener}` of `"pick": "$openers"`): a reader knows
    /// them all.
    pub fn slot_choices(&self, source: &str) -> Option<Vec<String>> {
        let (name, fields) = path(source)?;
        if !fields.is_empty() {
            return None;
        }
        let step = self.steps.iter().find(|s| s.name == name)?;
        let Kind::Pick(list) = &step.kind else {
            return None;
        };
        let b = self.bindings();
        let data = self.data_names.len();
        if step.when.is_some() || list.reads().iter().any(|&k| k >= data) {
            return None;
        }
        let Some(Value::Array(items)) = b.eval(list) else {
            return None;
        };
        items.iter().map(|v| to_text(&from_json(v)).ok()).collect()
    }

    /// The text the goal slot written `source` gives with `b`'s values, when they are enough.
    /// A partly known value is read as it stands (a caller compares the text with the goal's).
    pub fn slot_text(&self, source: &str, b: &Bindings) -> Option<String> {
        let e = self.slot(source)?;
        if !b.ready(e) {
            return None;
        }
        e.eval(&b.vals).ok().and_then(|v| to_text(&v).ok())
    }

    /// An expression of a reader's own over the family's names and `$answer` (what a tool
    /// answered), compiled with the pack's definitions `lib`: how a script written against the
    /// family works out a value its references need from what it read.
    pub fn reading(&self, source: &str, lib: &str) -> Result<Reading, Vec<String>> {
        let mut scope = self.bindings().names;
        scope.push("answer".into());
        let mut exprs = Exprs::new(lib);
        let expr = exprs.add(source, &scope, "reading");
        exprs.finish()?;
        Ok(Reading(expr))
    }

    /// The task's references as far as `b`'s values go: each value not known yet is an
    /// object `{"$unknown": source}`, and so is a list a loop walks over one not known.
    pub fn references_known(&self, b: &Bindings) -> Value {
        let mut b = b.clone();
        known_node(&self.references, &mut b, &mut Rng::new(0, 0))
    }

    fn slot(&self, source: &str) -> Option<&Expr> {
        let wordings = (self.steps.iter())
            .filter_map(|s| match &s.kind {
                Kind::Wording(words) => Some(words.as_slice()),
                _ => None,
            })
            .chain(std::iter::once(self.goals.as_slice()));
        wordings
            .flatten()
            .flat_map(|w| w.slots())
            .find(|e| e.source() == source)
    }
}

fn unknown(e: &Expr) -> Value {
    let mut m = Map::new();
    m.insert(UNKNOWN.into(), Value::String(e.source().into()));
    Value::Object(m)
}

fn known_node(node: &Node, b: &mut Bindings, rng: &mut Rng) -> Value {
    match node {
        Node::Literal(v) => v.clone(),
        Node::Expr(e) => b.eval(e).unwrap_or_else(|| unknown(e)),
        Node::Text(w) => {
            let slots = w.slots();
            match slots.iter().find(|e| b.eval(e).is_none()) {
                Some(e) => unknown(e),
                None => match w.render(&b.vals, rng) {
                    Ok(text) => Value::String(text),
                    Err(_) => slots.first().map_or(Value::Null, |e| unknown(e)),
                },
            }
        }
        Node::If {
            cond,
            then,
            otherwise,
        } => match b.eval(cond) {
            Some(Value::Bool(true)) => known_node(then, b, rng),
            Some(Value::Bool(false)) => otherwise
                .as_ref()
                .map_or(Value::Null, |o| known_node(o, b, rng)),
            _ => unknown(cond),
        },
        Node::Array(items) => {
            let mut out = Vec::new();
            for item in items {
                match item {
                    Item::One(Node::If {
                        cond,
                        then,
                        otherwise: None,
                    }) => match b.eval(cond) {
                        Some(Value::Bool(true)) => out.push(known_node(then, b, rng)),
                        Some(_) => {}
                        None => out.push(unknown(cond)),
                    },
                    Item::One(n) => out.push(known_node(n, b, rng)),
                    Item::Each(e) => match b.eval(e) {
                        Some(Value::Array(items)) => out.extend(items),
                        _ => out.push(unknown(e)),
                    },
                    Item::For { list, body, splice } => {
                        let Some(Value::Array(elements)) = b.eval(list) else {
                            out.push(unknown(list));
                            continue;
                        };
                        for element in elements {
                            b.names.push(String::new());
                            b.vals.push(from_json(&element));
                            b.known.push(Known::Whole);
                            b.derived.push(false);
                            let rendered = known_node(body, b, rng);
                            b.names.pop();
                            b.vals.pop();
                            b.known.pop();
                            b.derived.pop();
                            match (rendered, splice) {
                                (Value::Array(items), true) => out.extend(items),
                                (one, _) => out.push(one),
                            }
                        }
                    }
                }
            }
            Value::Array(out)
        }
        Node::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, n)| (k.clone(), known_node(n, b, rng)))
                .collect(),
        ),
    }
}

/// Whether `item` holds every part `known` holds (`null` is a part not known).
fn agrees(known: &Value, item: &Value) -> bool {
    match (known, item) {
        (Value::Null, _) => true,
        (Value::Object(k), Value::Object(i)) => k
            .iter()
            .all(|(f, v)| agrees(v, i.get(f).unwrap_or(&Value::Null))),
        (Value::Array(k), Value::Array(i)) => {
            k.len() <= i.len() && k.iter().zip(i).all(|(k, i)| agrees(k, i))
        }
        (k, i) => k == i,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(
            path("$p.title"),
            Some(("p", vec![Field::Key("title".into())]))
        );
        assert_eq!(path(" $n "), Some(("n", vec![])));
        assert_eq!(
            path("$to[1].a"),
            Some(("to", vec![Field::Index(1), Field::Key("a".into())]))
        );
        assert_eq!(path("$price | euros"), None);
        assert_eq!(path("$a + $b"), None);
    }
}
