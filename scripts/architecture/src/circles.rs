//! Import circles among a crate's modules.
//!
//! A module's dependencies are lifted to the level where the two modules part: `a::x` naming
//! `b::y` makes `a` depend on `b` (siblings under the root), and `a::x` naming `a::z` makes `x`
//! depend on `z` (siblings under `a`). A module and the modules inside it are one unit, so a
//! child naming its parent (`super::Shared`) or a parent its child is no edge: declaring a child
//! is already owning it. A circle is then a set of siblings each reaching the others (a strongly
//! connected component of more than one module, found with Tarjan's algorithm).

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::modules::Crate;

/// One dependency between two sibling modules, with the first place that makes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// The module that depends (its path from the crate root).
    pub from: String,
    /// The module it depends on.
    pub to: String,
    /// The file of the first path that makes the edge.
    pub file: PathBuf,
    /// Its line.
    pub line: u32,
    /// The path as written.
    pub written: String,
}

/// Modules that reach one another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Circle {
    /// The modules (paths from the crate root), sorted.
    pub modules: Vec<String>,
    /// The edges among them, sorted, each with the first place that makes it.
    pub edges: Vec<Edge>,
}

/// The lifted edges of a crate, each once with its first place.
pub fn edges(krate: &Crate) -> Vec<Edge> {
    let mut edges: BTreeMap<(String, String), Edge> = BTreeMap::new();
    for (index, module) in krate.modules.iter().enumerate() {
        for r in &module.refs {
            for target in krate.named(index, &r.path) {
                let (from, to) = (&module.path, &krate.modules[target].path);
                let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
                if common == from.len() || common == to.len() {
                    continue;
                }
                let (from, to) = (from[..=common].join("::"), to[..=common].join("::"));
                edges.entry((from.clone(), to.clone())).or_insert_with(|| Edge {
                    from,
                    to,
                    file: module.file.clone(),
                    line: r.line,
                    written: r.path.join("::"),
                });
            }
        }
    }
    edges.into_values().collect()
}

/// The crate's circles, sorted by their modules.
pub fn circles(krate: &Crate) -> Vec<Circle> {
    let edges = edges(krate);
    let mut nodes: Vec<&str> =
        edges.iter().flat_map(|e| [e.from.as_str(), e.to.as_str()]).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let index = |name: &str| nodes.binary_search(&name).expect("every end of an edge is a node");
    let mut successors = vec![Vec::new(); nodes.len()];
    for edge in &edges {
        successors[index(&edge.from)].push(index(&edge.to));
    }
    let mut circles: Vec<Circle> = strongly_connected(&successors)
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            let mut modules: Vec<String> =
                component.iter().map(|&n| nodes[n].to_string()).collect();
            modules.sort();
            let edges = edges
                .iter()
                .filter(|e| modules.contains(&e.from) && modules.contains(&e.to))
                .cloned()
                .collect();
            Circle { modules, edges }
        })
        .collect();
    circles.sort_by(|a, b| a.modules.cmp(&b.modules));
    circles
}

/// Tarjan's strongly connected components of a graph given as each node's successors.
fn strongly_connected(successors: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        successors: &'a [Vec<usize>],
        next: usize,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        components: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &s.successors[v] {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(index) if s.on_stack[w] => s.low[v] = s.low[v].min(index),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().expect("v is on the stack");
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.components.push(component);
        }
    }
    let n = successors.len();
    let mut state = State {
        successors,
        next: 0,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        components: Vec::new(),
    };
    for v in 0..n {
        if state.index[v].is_none() {
            visit(&mut state, v);
        }
    }
    state.components
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::Path;

    fn load(files: &[(&str, &str)]) -> (tempfile::TempDir, Crate) {
        let dir = tempfile::tempdir().unwrap();
        for (name, contents) in files {
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, contents).unwrap();
        }
        let krate = Crate::load(&dir.path().join("lib.rs")).unwrap();
        (dir, krate)
    }

    fn modules(circles: &[Circle]) -> Vec<Vec<String>> {
        circles.iter().map(|c| c.modules.clone()).collect()
    }

    #[test]
    fn two_siblings_naming_each_other_are_a_circle_with_where_each_edge_is() {
        let (dir, krate) = load(&[
            ("lib.rs", "mod a; mod b; mod c;"),
            ("a.rs", "use crate::b::B;\npub struct A;"),
            ("b.rs", "pub struct B;\nfn f() { crate::a::A; }"),
            ("c.rs", "use crate::a::A;"),
        ]);
        let found = circles(&krate);
        assert_eq!(modules(&found), [["a", "b"]]);
        let edges: Vec<(String, String, u32, String)> = found[0]
            .edges
            .iter()
            .map(|e| {
                let file = e.file.strip_prefix(dir.path()).unwrap().display().to_string();
                (format!("{} → {}", e.from, e.to), file, e.line, e.written.clone())
            })
            .collect();
        assert_eq!(
            edges,
            [
                ("a → b".into(), "a.rs".into(), 1, "crate::b::B".into()),
                ("b → a".into(), "b.rs".into(), 2, "crate::a::A".into())
            ]
        );
    }

    #[test]
    fn a_circle_through_a_re_export_of_the_root_is_found() {
        let (_dir, krate) = load(&[
            ("lib.rs", "mod engine; mod workspace; pub use workspace::Workspace;"),
            ("engine.rs", "pub struct Engine; fn f() -> crate::Workspace { todo!() }"),
            ("workspace.rs", "use crate::engine::Engine; pub struct Workspace;"),
        ]);
        assert_eq!(modules(&circles(&krate)), [["engine", "workspace"]]);
    }

    #[test]
    fn naming_a_module_to_reach_its_re_export_depends_on_it_too() {
        let (_dir, krate) = load(&[
            ("lib.rs", "mod error_name; mod protocol; mod request;"),
            ("error_name.rs", "pub struct ErrorName;"),
            ("protocol.rs", "pub use crate::error_name::ErrorName; use crate::request::Failure;"),
            ("request.rs", "use crate::protocol::ErrorName; pub struct Failure;"),
        ]);
        assert_eq!(modules(&circles(&krate)), [["protocol", "request"]]);
        let request = edges(&krate)
            .into_iter()
            .filter(|e| e.from == "request")
            .map(|e| e.to)
            .collect::<Vec<_>>();
        assert_eq!(request, ["error_name", "protocol"]);
    }

    #[test]
    fn parents_and_children_naming_each_other_are_no_circle() {
        let (_dir, krate) = load(&[
            ("lib.rs", "mod a; pub struct Root; fn f() { a::child::g(); }"),
            ("a.rs", "pub mod child; pub struct Shared;"),
            ("a/child.rs", "use super::Shared; use crate::Root; pub fn g() {}"),
        ]);
        assert_eq!(modules(&circles(&krate)), Vec::<Vec<String>>::new());
    }

    #[test]
    fn nested_modules_lift_to_the_siblings_where_they_part() {
        let (_dir, krate) = load(&[
            ("lib.rs", "mod a; mod b;"),
            ("a.rs", "mod x; mod y;"),
            ("a/x.rs", "use super::y::Y; use crate::b::B; pub struct X;"),
            ("a/y.rs", "use super::x::X; pub struct Y;"),
            ("b.rs", "pub struct B;"),
        ]);
        assert_eq!(modules(&circles(&krate)), [["a::x", "a::y"]]);
        let a_to_b = edges(&krate).into_iter().find(|e| e.from == "a").unwrap();
        assert_eq!((a_to_b.to.as_str(), a_to_b.written.as_str()), ("b", "crate::b::B"));
    }

    #[test]
    fn a_ring_of_three_is_one_circle_and_a_tail_stays_out() {
        let (_dir, krate) = load(&[
            ("lib.rs", "mod a; mod b; mod c; mod d;"),
            ("a.rs", "use crate::b::f;"),
            ("b.rs", "pub fn f() { crate::c::g() }"),
            ("c.rs", "pub fn g() { crate::a::h(); crate::d::i() }"),
            ("d.rs", "pub fn i() {}"),
        ]);
        assert_eq!(modules(&circles(&krate)), [["a", "b", "c"]]);
        assert!(Path::new(&krate.modules[0].file).ends_with("lib.rs"));
    }
}
