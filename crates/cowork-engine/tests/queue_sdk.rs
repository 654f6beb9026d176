//! The queue SDK's method list, in one place: [`METHODS`] says, for every method of
//! `cowork_queue::Call`, what a routine (`ctx.queue(q).<name>`, `ctx.journal.<name>`) and a widget
//! (`cowork.queue.<name>`, `cowork.journal.<name>`) call it, or why that side does not offer it.
//! The three hand-written lists are pinned to it: the runner's wrappers (`runner.mjs`), the
//! widget SDK's (`ui/src/frame/sdk.ts`) and the typings of both (`cowork.d.ts`). Each wrapper must
//! send the method it is listed with and every field of that call, each by the name the call
//! takes (unless [`OMITTED`] says why not). A method added to `Call` fails here until it is
//! placed in the table, and a wrapper added, renamed or sending another method fails until the
//! table, the other files and the typings agree.

use cowork_queue::Call;
use serde_json::json;
use std::collections::BTreeSet;

const RUNNER: &str = include_str!("../src/runner.mjs");
const TYPES: &str = include_str!("../src/cowork.d.ts");
const WIDGET_SDK: &str = include_str!("../../../ui/src/frame/sdk.ts");

/// How one side reaches a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// `ctx.queue(q).<name>` / `cowork.queue.<name>`.
    Queue(&'static str),
    /// `ctx.journal.<name>` / `cowork.journal.<name>`.
    Journal(&'static str),
    /// Not offered on that side, and why.
    No(&'static str),
}
use Reach::{Journal, No, Queue};

/// Page 03 gives a routine `queue(name) → { send, receive, ack, nack, approve, reject, reply,
/// retry, peek, list, counts }`: one queue's work. The workspace-wide views and the tidying are
/// the Tasks view's (a widget's SDK, page 04) and the CLI's.
const ROUTINE_WORKS_ONE_QUEUE: &str = "a routine holds one queue (page 03); this is workspace-wide";
/// Page 04's widget SDK has no batch calls: the batch calls are our extension for throughput,
/// which is where a routine works.
const BATCHES_ARE_A_ROUTINES: &str = "batches are our extension for routines' throughput";

/// Every method of `Call` (its wire name), then the routine's and the widget's way to it.
const METHODS: &[(&str, Reach, Reach)] = &[
    ("send", Queue("send"), Queue("send")),
    ("sendMany", Queue("sendMany"), No(BATCHES_ARE_A_ROUTINES)),
    ("receive", Queue("receive"), Queue("receive")),
    ("receiveMany", Queue("receiveMany"), No(BATCHES_ARE_A_ROUTINES)),
    ("ack", Queue("ack"), Queue("ack")),
    ("ackMany", Queue("ackMany"), No(BATCHES_ARE_A_ROUTINES)),
    ("nack", Queue("nack"), Queue("nack")),
    ("approve", Queue("approve"), Queue("approve")),
    ("reject", Queue("reject"), Queue("reject")),
    ("reply", Queue("reply"), Queue("reply")),
    ("retry", Queue("retry"), Queue("retry")),
    ("peek", Queue("peek"), Queue("peek")),
    // Page 03 names a routine's one-queue listing `list`; page 04 names a widget's `items`, and
    // gives `list()` to the queues themselves.
    ("items", Queue("list"), Queue("items")),
    ("tasks", No(ROUTINE_WORKS_ONE_QUEUE), Queue("tasks")),
    ("counts", Queue("counts"), No("a widget's `list()` answers every queue with its counts")),
    ("queues", No(ROUTINE_WORKS_ONE_QUEUE), Queue("list")),
    ("summary", No(ROUTINE_WORKS_ONE_QUEUE), Queue("summary")),
    ("receivers", No(ROUTINE_WORKS_ONE_QUEUE), Queue("receivers")),
    ("remove", No(ROUTINE_WORKS_ONE_QUEUE), Queue("remove")),
    ("purge", No(ROUTINE_WORKS_ONE_QUEUE), Queue("purge")),
    // A routine's `ctx.journal.add` is its own request (`journal.add`), which fills in `source`.
    ("journalAdd", Journal("add"), Journal("add")),
    ("journalSkills", No(ROUTINE_WORKS_ONE_QUEUE), Journal("skills")),
    ("journalEntries", No(ROUTINE_WORKS_ONE_QUEUE), Journal("entries")),
    ("journalResolve", No(ROUTINE_WORKS_ONE_QUEUE), Journal("resolve")),
];

/// Fields of a call a wrapper does not send, by side ("routine", "widget") and method, and why.
const OMITTED: &[(&str, &str, &str, &str)] =
    &[("widget", "reject", "files", "page 04's reject(q, id, comment) takes no files")];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Routine,
    Widget,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Routine => "routine",
            Side::Widget => "widget",
        }
    }

    fn reach(self, row: &(&'static str, Reach, Reach)) -> Reach {
        match self {
            Side::Routine => row.1,
            Side::Widget => row.2,
        }
    }

    /// The names this side offers in a namespace (`Queue` or `Journal`), with their methods.
    fn offers(self, journal: bool) -> Vec<(&'static str, &'static str)> {
        METHODS
            .iter()
            .filter_map(|row| match (self.reach(row), journal) {
                (Queue(name), false) | (Journal(name), true) => Some((name, row.0)),
                _ => None,
            })
            .collect()
    }
}

/// What serde lists as expected ("expected `a`", "expected `a` or `b`", "expected one of `a`,
/// `b`, …"), or nothing for "there are no fields".
fn listed(error: &str) -> BTreeSet<String> {
    let Some((_, list)) = error.split_once("expected ") else { return BTreeSet::new() };
    let list = list.split(" at line").next().unwrap_or(list);
    list.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// Every method `Call` decodes, as serde spells them.
fn call_methods() -> BTreeSet<String> {
    let error = serde_json::from_value::<Call>(json!({ "method": "?" })).unwrap_err();
    listed(&error.to_string())
}

/// The fields one method's call takes.
fn call_fields(method: &str) -> BTreeSet<String> {
    let error = serde_json::from_value::<Call>(json!({ "method": method, "?": 0 })).unwrap_err();
    let error = error.to_string();
    assert!(error.contains("unknown field"), "{method}: {error}");
    listed(&error)
}

/// `source` without its `/* … */` and `// …` comments (these blocks hold no URL or string with
/// `//` in it).
fn uncommented(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, after)| after);
        } else if rest.starts_with("//") {
            rest = rest.find('\n').map_or("", |at| &rest[at..]);
        } else {
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// The text inside the braces opened by the first `{` at or after `anchor` in `source` (itself
/// found after `within`, when given).
fn block(source: &str, within: Option<&str>, anchor: &str) -> String {
    let start = within.map_or(0, |w| source.find(w).unwrap_or_else(|| panic!("no {w:?}")));
    let at = start + source[start..].find(anchor).unwrap_or_else(|| panic!("no {anchor:?}"));
    let open = at + source[at..].find('{').expect("a brace after the anchor");
    let mut depth = 0;
    for (i, c) in source[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return source[open + 1..open + i].to_string();
                }
            }
            _ => {}
        }
    }
    panic!("{anchor:?} opens a brace that never closes")
}

/// The parts of `text` split at `sep` outside brackets, trimmed, empty ones left out.
fn parts(text: &str, sep: char) -> Vec<String> {
    let (mut parts, mut depth, mut part) = (Vec::new(), 0i32, String::new());
    for c in text.chars() {
        match c {
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => depth -= 1,
            _ => {}
        }
        if c == sep && depth == 0 {
            parts.push(std::mem::take(&mut part));
        } else {
            part.push(c);
        }
    }
    parts.push(part);
    parts.into_iter().map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect()
}

/// The identifier a member starts with.
fn name_of(member: &str) -> String {
    member.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// A JS wrapper: its name, the method it sends (the first string passed to `call`) and the keys
/// of the object it sends, `None` when part of it is spread in (`...options`).
fn wrapper(member: &str, call: &str) -> (String, String, Option<BTreeSet<String>>) {
    let name = name_of(member);
    let opening = format!("{call}(\"");
    let at = member.find(&opening).unwrap_or_else(|| panic!("{name} calls {call}: {member}"));
    let rest = &member[at + opening.len()..];
    let (method, rest) = rest.split_once('"').expect("the method's closing quote");
    let keys = match rest.trim_start_matches(", ").starts_with('{') {
        true => {
            let object = block(rest, None, "{");
            let mut keys = BTreeSet::new();
            for key in parts(&object, ',') {
                if key.starts_with("...") {
                    return (name, method.to_string(), None);
                }
                keys.insert(name_of(&key));
            }
            Some(keys)
        }
        false => None,
    };
    (name, method.to_string(), keys)
}

/// A side's wrappers in one namespace, as a name → (method, keys) list.
type Wrappers = Vec<(String, String, Option<BTreeSet<String>>)>;

fn routine_queue() -> Wrappers {
    let body = block(&uncommented(RUNNER), Some("function makeQueue("), "return {");
    parts(&body, ',').iter().map(|m| wrapper(m, "method")).collect()
}

fn routine_journal() -> Wrappers {
    let ctx = uncommented(RUNNER);
    let body = block(&ctx, Some("queue: makeQueue,"), "journal:");
    parts(&body, ',').iter().map(|m| wrapper(m, "callSync")).collect()
}

fn widget(namespace: &str) -> Wrappers {
    let body = block(
        &uncommented(WIDGET_SDK),
        Some("const cowork = {"),
        &format!("\n    {namespace}: {{"),
    );
    parts(&body, ',').iter().map(|m| wrapper(m, "store")).collect()
}

/// The members a `.d.ts` block declares.
fn declared(within: &str, anchor: &str) -> BTreeSet<String> {
    let body = block(&uncommented(TYPES), Some(within), anchor);
    parts(&body, ';').iter().map(|m| name_of(m)).collect()
}

fn names(offers: &[(&str, &str)]) -> BTreeSet<String> {
    offers.iter().map(|(name, _)| name.to_string()).collect()
}

/// A side's wrappers against the table: the same names, each sending its method and its fields.
fn check_wrappers(side: Side, journal: bool, wrappers: Wrappers) {
    let offers = side.offers(journal);
    let namespace = if journal { "journal" } else { "queue" };
    let found: BTreeSet<String> = wrappers.iter().map(|(name, ..)| name.clone()).collect();
    assert_eq!(
        found,
        names(&offers),
        "the {} SDK's {namespace} wrappers and METHODS differ",
        side.name()
    );
    for (name, sent, keys) in wrappers {
        let method = offers.iter().find(|(n, _)| *n == name).expect("checked above").1;
        // A routine's `ctx.journal.add` is a request of its own, whose arguments are the entry.
        if side == Side::Routine && journal {
            assert_eq!(
                (method, sent.as_str()),
                ("journalAdd", "journal.add"),
                "ctx.journal.{name}"
            );
            continue;
        }
        assert_eq!(
            sent,
            method,
            "the {} SDK's {namespace}.{name} sends another method",
            side.name()
        );
        let Some(mut keys) = keys else { continue };
        if side == Side::Routine {
            keys.insert("queue".into()); // bound by ctx.queue(q)
        }
        let fields = call_fields(method);
        let unknown: Vec<_> = keys.difference(&fields).collect();
        assert!(
            unknown.is_empty(),
            "{}'s {namespace}.{name} sends {unknown:?}, which {method} does not take ({fields:?})",
            side.name()
        );
        for field in fields.difference(&keys) {
            assert!(
                OMITTED.iter().any(|o| (o.0, o.1, o.2) == (side.name(), method, field.as_str())),
                "{}'s {namespace}.{name} does not send {method}'s `{field}`: send it, or say why in OMITTED",
                side.name()
            );
        }
    }
}

#[test]
fn every_method_of_call_is_placed_in_the_table_once() {
    let table: Vec<&str> = METHODS.iter().map(|row| row.0).collect();
    let unique: BTreeSet<String> = table.iter().map(|m| m.to_string()).collect();
    assert_eq!(unique.len(), table.len(), "a method is listed twice");
    assert_eq!(unique, call_methods(), "METHODS and cowork_queue::Call differ");
    for (side, method, field, _) in OMITTED {
        assert!(call_fields(method).contains(*field), "OMITTED: {method} has no field {field}");
        let row =
            METHODS.iter().find(|row| row.0 == *method).expect("an omission of a listed method");
        let reach = if *side == "routine" { row.1 } else { row.2 };
        assert!(!matches!(reach, No(_)), "OMITTED: the {side} SDK does not offer {method} at all");
    }
}

#[test]
fn the_runner_s_wrappers_send_the_methods_the_table_gives_them() {
    check_wrappers(Side::Routine, false, routine_queue());
    check_wrappers(Side::Routine, true, routine_journal());
}

#[test]
fn the_widget_sdk_s_wrappers_send_the_methods_the_table_gives_them() {
    check_wrappers(Side::Widget, false, widget("queue"));
    check_wrappers(Side::Widget, true, widget("journal"));
}

#[test]
fn the_typings_declare_what_each_side_offers() {
    let blocks = [
        (declared("interface CoworkQueue {", "{"), Side::Routine.offers(false), "CoworkQueue"),
        (
            declared("interface CoworkRoutineContext {", "\n  journal: {"),
            Side::Routine.offers(true),
            "CoworkRoutineContext.journal",
        ),
        (
            declared("interface CoworkSDK {", "\n  queue: {"),
            Side::Widget.offers(false),
            "CoworkSDK.queue",
        ),
        (
            declared("interface CoworkSDK {", "\n  journal: {"),
            Side::Widget.offers(true),
            "CoworkSDK.journal",
        ),
    ];
    for (declared, offers, what) in blocks {
        assert_eq!(declared, names(&offers), "cowork.d.ts's {what} and METHODS differ");
    }
}
