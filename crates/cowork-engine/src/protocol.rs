//! The routine ↔ daemon protocol: every line `runner.mjs` writes on fd 3 and every answer the
//! daemon writes back on fd 4 (asynchronous) or fd 5 (synchronous), as Rust types. This is the one
//! place a `ctx` request is added: a variant here, its op in `runner.mjs`'s `OPS` (a test compares
//! the two), and its handler in `run.rs`.
//!
//! A line that does not decode is answered `BadRequest` naming the field that was missing or of
//! the wrong type; nothing is defaulted behind the routine's back.

use crate::notifications::Delivery;
use crate::request::RunFailure;
pub use cowork_core::error_name::{CtxError, ErrorName};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;

/// Declares the requests: the enum, the list of ops it decodes, and which are synchronous.
macro_rules! requests {
    ($( $(#[doc = $doc:literal])+ $op:literal => $variant:ident($args:ty), $mode:ident; )+) => {
        /// One `ctx` request of a routine, as `{"op": …, "args": …}` on the wire.
        #[derive(Debug, Clone, PartialEq, Deserialize)]
        #[serde(tag = "op", content = "args")]
        pub(crate) enum Request {
            $( $(#[doc = $doc])+ #[serde(rename = $op)] $variant($args), )+
        }

        impl Request {
            /// Every op a routine may send as a request, as it is spelled on the wire.
            pub const OPS: &'static [&'static str] = &[$( $op ),+];

            /// The op as it is spelled on the wire.
            pub fn op(&self) -> &'static str {
                match self {
                    $( Request::$variant(_) => $op, )+
                }
            }

            /// Whether the routine waits for the answer on the synchronous channel (fd 5).
            pub fn is_sync(&self) -> bool {
                match self {
                    $( Request::$variant(_) => requests!(@sync $mode), )+
                }
            }
        }
    };
    (@sync sync) => { true };
    (@sync async) => { false };
}

requests! {
    /// `ctx.db(path).query(sql, params)`: the rows.
    "db.query" => DbQuery(DbStatement), sync;
    /// `ctx.db(path).exec(sql, params)`: the changes ([`DbChanges`]).
    "db.exec" => DbExec(DbStatement), sync;
    /// `transaction(fn)` starts.
    "db.begin" => DbBegin(DbFile), sync;
    /// `transaction(fn)` returned.
    "db.commit" => DbCommit(DbFile), sync;
    /// `transaction(fn)` threw.
    "db.rollback" => DbRollback(DbFile), sync;
    /// `ctx.queue(name).<method>(…)`: one task-queue operation (cowork-queue's [`cowork_queue::Call`]).
    "queue" => Queue(cowork_queue::Call), sync;
    /// `ctx.journal.add({ skill, kind?, text, source? })`: the entry written.
    "journal.add" => JournalAdd(cowork_queue::journal::NewEntry), sync;
    /// `ctx.secrets.get(name)`: the value or null.
    "secrets.get" => SecretsGet(SecretName), sync;
    /// `ctx.secrets.list()`: the names the package may read.
    "secrets.list" => SecretsList(NoArgs), sync;
    /// `ctx.secrets.set(name, value)`.
    "secrets.set" => SecretsSet(SecretValue), sync;
    /// `ctx.credential.fields()`: the key's fields by name.
    "credential.fields" => CredentialFields(NoArgs), sync;
    /// `ctx.credential.status()`: [`CredentialState`].
    "credential.status" => CredentialStatus(NoArgs), sync;
    /// `ctx.credential.token()`: the access token or the key's first field.
    "credential.token" => CredentialToken(TokenArgs), async;
    /// What `ctx.credential.fetch(url)` sends: [`Authorization`].
    "credential.authorize" => CredentialAuthorize(AuthorizeArgs), async;
    /// `ctx.credential.start()`: a sign-in started ([`SignInStarted`]).
    "credential.start" => CredentialStart(NoArgs), async;
    /// `ctx.credential.disconnect()`.
    "credential.disconnect" => CredentialDisconnect(NoArgs), async;
    /// `ctx.routines.run(id, args, {timeoutMs})`: the nested run's result.
    "routines.run" => RoutinesRun(RoutinesRunArgs), async;
    /// `ctx.consent.request(…)` and the question `ctx.command.run` asks first.
    "consent.request" => Consent(ConsentArgs), async;
    /// `ctx.notify(notification)`: [`Notified`]. The notification is the hub's to read.
    "notify" => Notify(Value), async;
    /// `ctx.badge(count)`: the count set.
    "badge" => Badge(BadgeArgs), async;
    /// `ctx.auth.getIdToken()`: the hub's short-lived ID token, or null when signed out.
    "auth.idToken" => AuthIdToken(NoArgs), async;
    /// `ctx.browser.<action>(…)`: the desktop app's browser ([`BrowserArgs`]).
    "browser" => Browser(BrowserArgs), async;
}

/// `ctx.browser.<action>(…, { tabIndex, app, timeoutMs })`: the action, its page and its budget.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BrowserArgs {
    #[serde(default)]
    pub target: cowork_wire::browser::Target,
    /// None: [`cowork_wire::browser::DEFAULT_TIMEOUT_MS`].
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    #[serde(flatten)]
    pub action: cowork_wire::browser::Action,
}

/// A `ctx.db` statement.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DbStatement {
    /// The workspace-relative `.db` file.
    pub path: String,
    pub sql: String,
    /// Positional (`[…]`) or named (`{…}`) parameters; the runner sends `[]` for none.
    pub params: Value,
}

/// The file a `ctx.db` transaction call is about.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DbFile {
    pub path: String,
}

/// A request that takes no arguments (`{}`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoArgs {}

/// `ctx.secrets.get(name)`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SecretName {
    pub name: String,
}

/// `ctx.secrets.set(name, value)`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SecretValue {
    pub name: String,
    pub value: String,
}

/// `ctx.credential.token({force})`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TokenArgs {
    /// Refresh even when the access token has not expired.
    pub force: bool,
}

/// What `ctx.credential.fetch` is about to call.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AuthorizeArgs {
    pub url: String,
    /// Refresh first (the service answered 401).
    pub force: bool,
}

/// `ctx.routines.run(id, args, {timeoutMs})`. `id` and `timeoutMs` are checked by
/// [`RoutinesRunArgs::checked`], whose messages say what the call takes.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct RoutinesRunArgs {
    /// `undefined` leaves the key out; [`RoutinesRunArgs::checked`] refuses it by name.
    #[serde(default)]
    pub id: Value,
    /// `null` (or left out) is `{}`, as `ctx.routines.run(id)` means.
    #[serde(default)]
    pub args: Value,
    #[serde(default)]
    pub timeout_ms: Value,
}

impl RoutinesRunArgs {
    /// The routine id, its arguments and its `timeoutMs`, refused with `BadRequest` before anything
    /// starts when either is not what the call takes.
    pub fn checked(self, max_ms: u64) -> Result<(String, Value, Option<u64>), CtxError> {
        let bad = |message: String| {
            CtxError::new(ErrorName::BadRequest, format!("ctx.routines.run: {message}"))
        };
        let routine = match self.id {
            Value::String(id) => id,
            other => {
                return Err(bad(format!(
                    "the routine id is a string such as \"notes-list\", not {}",
                    json_type(&other)
                )))
            }
        };
        let timeout_ms = match &self.timeout_ms {
            Value::Null => None,
            value => match value.as_u64().filter(|ms| (1..=max_ms).contains(ms)) {
                Some(ms) => Some(ms),
                None => {
                    return Err(bad(format!(
                    "timeoutMs is a whole number of milliseconds from 1 to {max_ms}, not {value}"
                )))
                }
            },
        };
        let args = if self.args.is_null() { Value::Object(Default::default()) } else { self.args };
        Ok((routine, args, timeout_ms))
    }
}

/// How a message names the type of a JSON value a routine passed.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null or undefined",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `ctx.consent.request({value, title, description})`, or `ctx.command.run`'s question (which
/// sends the command, and the command as the value unless `options.value` is given). Other keys a
/// routine passes are not Cowork's and are ignored.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct ConsentArgs {
    pub value: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub command: Option<String>,
}

/// `ctx.badge(count)`; the hub says what a count may be.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BadgeArgs {
    /// `ctx.badge()` leaves the key out: the hub refuses it by name.
    #[serde(default)]
    pub count: Value,
}

/// A line the runner writes that is not a request: nothing answers it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "op", deny_unknown_fields)]
pub(crate) enum Report {
    /// A line of the routine's output: `console.*` (naming its stream) or `ctx.log` (naming none).
    /// The runner sends only the start of a very long line; `cut` says how many bytes it left out.
    #[serde(rename = "log")]
    Log {
        stream: Option<Stream>,
        line: String,
        #[serde(default)]
        cut: u64,
    },
    /// The routine returned.
    #[serde(rename = "done")]
    Done {
        result: Value,
        /// It called `ctx.unchanged()`.
        unchanged: bool,
        /// Why the result was replaced by null (it was not JSON-serializable).
        warning: Option<String>,
    },
    /// The routine threw.
    #[serde(rename = "fail")]
    Fail { error: Thrown },
    /// The routine called `process.exit(code)` before returning: the runner reports it instead
    /// of exiting, and waits to be ended with the orphans it adopted (runner.mjs).
    #[serde(rename = "exit")]
    Exit { code: i32 },
}

impl Report {
    /// Every op of a report, as it is spelled on the wire.
    pub const OPS: &'static [&'static str] = &["log", "done", "fail", "exit"];
}

/// The stream a `console.*` line stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Stream {
    Stdout,
    Stderr,
}

/// What a routine threw.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Thrown {
    /// `e.name`: one of Cowork's, or the routine's own.
    pub name: ErrorName,
    pub message: String,
    pub stack: Option<String>,
    /// Bytes of the message the runner left out (it sends at most 64 Ki characters).
    #[serde(default)]
    pub cut: u64,
}

/// One decoded line of the runner.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Line {
    Report(Report),
    Call(Call),
}

/// A request and what its answer echoes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Call {
    /// Echoed in the answer, so the runner can match it to the promise waiting for it.
    pub id: u64,
    /// Sent `sync: true`: the runner blocks on fd 5 for the answer.
    pub sync: bool,
    pub request: Result<Request, CtxError>,
}

/// The part every request line has besides its op and args.
#[derive(Deserialize)]
struct Envelope {
    id: u64,
    /// Left out by an asynchronous request.
    #[serde(default)]
    sync: bool,
}

/// A line that is not a request or report at all (no op, no id): the runner is not ours.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Malformed(pub String);

/// Decodes one line of the runner. A request whose op is unknown or whose args do not fit still
/// decodes (its answer is the `BadRequest`); only a line that cannot be answered is [`Malformed`].
pub(crate) fn decode(line: &str) -> Result<Line, Malformed> {
    // The common case straight from the text: a request whose envelope and request both decode
    // (a routine taking tasks one at a time sends thousands). Anything else — a report, a request
    // that does not fit, a line that is not JSON — goes the way below, which names what is wrong.
    if let (Ok(envelope), Ok(request)) =
        (serde_json::from_str::<Envelope>(line), serde_json::from_str::<Request>(line))
    {
        let request = Ok(request);
        return Ok(Line::Call(Call { id: envelope.id, sync: envelope.sync, request }));
    }
    let value: Value = serde_json::from_str(line)
        .map_err(|e| Malformed(format!("a line that is not JSON ({e})")))?;
    let Some(op) = value.get("op").and_then(Value::as_str) else {
        return Err(Malformed("a line without an \"op\"".into()));
    };
    if Report::OPS.contains(&op) {
        return typed::<Report>(&value)
            .map(Line::Report)
            .map_err(|e| Malformed(format!("a \"{op}\" line that does not fit: {e}")));
    }
    let envelope = typed::<Envelope>(&value)
        .map_err(|e| Malformed(format!("a \"{op}\" request that cannot be answered: {e}")))?;
    let request = if Request::OPS.contains(&op) {
        typed::<Request>(&value)
            .map_err(|e| CtxError::new(ErrorName::BadRequest, format!("ctx request \"{op}\": {e}")))
    } else {
        Err(CtxError::new(ErrorName::BadRequest, format!("unknown ctx request \"{op}\"")))
    };
    Ok(Line::Call(Call { id: envelope.id, sync: envelope.sync, request }))
}

/// `value` as a `T`, or serde's complaint prefixed with the path of the field it is about
/// (`args.name: invalid type: integer `5`, expected a string`).
fn typed<T: serde::de::DeserializeOwned>(value: &Value) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        match path.as_str() {
            "." => e.inner().to_string(),
            _ => format!("{path}: {}", e.inner()),
        }
    })
}

/// What a request gets back: a value, or the error its promise rejects with.
pub(crate) type Answer = Result<Value, AnswerError>;

/// `value` as an [`Answer`].
pub(crate) fn answer(value: impl Serialize) -> Answer {
    Ok(serde_json::to_value(value).expect("an answer always serializes"))
}

/// The error a request's promise rejects with: `e.name`, `e.message`, and `e.runId` when a nested
/// run failed (it ran, and its audit line says more).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AnswerError {
    pub name: ErrorName,
    pub message: String,
    pub run_id: Option<String>,
}

impl From<CtxError> for AnswerError {
    fn from(error: CtxError) -> Self {
        let message = match error.hint {
            Some(hint) => format!("{} ({hint})", error.message),
            None => error.message,
        };
        AnswerError { name: error.name, message, run_id: None }
    }
}

impl From<RunFailure> for AnswerError {
    fn from(failure: RunFailure) -> Self {
        AnswerError { name: failure.name, message: failure.message, run_id: failure.run_id }
    }
}

/// One answer line, `{"id", "ok"}` or `{"id", "error"}`, newline-terminated.
pub(crate) fn answer_line(id: u64, answer: Answer) -> String {
    typed_answer_line(id, answer)
}

/// [`answer_line`] for an answer of any type that serializes: a `ctx.queue` answer goes from its
/// typed form straight to text, not through a `Value` (seven times the cost for a task).
pub(crate) fn typed_answer_line<T: Serialize>(id: u64, answer: Result<T, AnswerError>) -> String {
    #[derive(Serialize)]
    #[serde(untagged)]
    enum Wire<T> {
        Ok { id: u64, ok: T },
        Error { id: u64, error: AnswerError },
    }
    let wire = match answer {
        Ok(ok) => Wire::Ok { id, ok },
        Err(error) => Wire::Error { id, error },
    };
    let mut line = serde_json::to_string(&wire).expect("an answer always serializes");
    line.push('\n');
    line
}

/// A run's inputs: everything the runner needs to build `ctx` and call the routine, written on
/// its stdin (then closed) when the run is given the process — so a warm spare holds nothing of a
/// run before it is claimed, and only the claimed process can read them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Init {
    /// The staged module to import, as the `file:` URL `import()` takes (worked out here so that
    /// the runner need not load `node:url` for it).
    pub entry: String,
    /// The routine's file as the manifest names it, for messages.
    pub file: String,
    pub args: Value,
    pub workspace_root: PathBuf,
    /// `ctx.data.dir`: `<workspace>/.cowork/data/<app>`.
    pub data_dir: PathBuf,
    pub app: AppRef,
    /// `ctx.identity`, frozen at the start of the run.
    pub identity: crate::account::RunIdentity,
    /// `ctx.auth.getState()`, frozen with it.
    pub auth: crate::account::AuthState,
    pub run_id: String,
    pub routine: String,
    /// `.cowork/data/.gitignore`, written by `ctx.data` when missing.
    pub data_ignore: &'static str,
    /// The task store's Node-API module, which `ctx.queue` loads to run in the routine's process;
    /// `None`: each call is a `queue` request (queue_module.rs).
    pub queue_module: Option<PathBuf>,
}

/// The app a routine belongs to.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AppRef {
    pub name: String,
    pub dir: String,
}

/// `db.exec`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DbChanges {
    pub changes: u64,
    pub last_insert_rowid: i64,
}

/// `credential.status`'s answer: never a token.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CredentialState {
    pub connected: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account: Option<Value>,
}

/// `credential.authorize`'s answer: the header `fetch` adds, none for a key.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Authorization {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authorization: Option<String>,
}

/// `credential.start`'s answer: where the browser signs in.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SignInStarted {
    pub auth_url: String,
}

/// `notify`'s answer.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Notified {
    pub delivery: Delivery,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(line: Value) -> Call {
        match decode(&line.to_string()) {
            Ok(Line::Call(call)) => call,
            other => panic!("not a call: {other:?}"),
        }
    }

    fn refusal(line: Value) -> String {
        let error = call(line).request.unwrap_err();
        assert_eq!(error.name, ErrorName::BadRequest);
        error.message
    }

    /// The SDK's `CoworkErrorName` (what a widget or routine author branches on) is
    /// [`ErrorName`], which core defines and this crate's typings spell.
    #[test]
    fn the_sdk_types_name_exactly_these_errors() {
        let dts = include_str!("cowork.d.ts");
        let start =
            dts.find("type CoworkErrorName =").expect("cowork.d.ts declares CoworkErrorName");
        let union = &dts[start..start + dts[start..].find(';').expect("the union ends")];
        let mut in_sdk: Vec<&str> = union.split('"').skip(1).step_by(2).collect();
        let mut in_rust: Vec<&str> = ErrorName::ALL.iter().map(ErrorName::as_str).collect();
        in_sdk.sort_unstable();
        in_rust.sort_unstable();
        assert_eq!(in_sdk, in_rust, "cowork.d.ts's CoworkErrorName and ErrorName::ALL differ");
    }

    #[test]
    fn a_request_decodes_into_its_variant() {
        let decoded =
            call(json!({"id": 7, "op": "secrets.get", "args": {"name": "a.b"}, "sync": true}));
        assert_eq!((decoded.id, decoded.sync), (7, true));
        assert_eq!(decoded.request, Ok(Request::SecretsGet(SecretName { name: "a.b".into() })));
        assert!(decoded.request.unwrap().is_sync());
        let nested = call(
            json!({"id": 8, "op": "routines.run", "args": {"id": "x", "args": {}, "timeoutMs": null}}),
        );
        assert!(!nested.sync && !nested.request.unwrap().is_sync());
    }

    #[test]
    fn a_missing_or_ill_typed_field_is_a_bad_request_naming_it() {
        assert_eq!(
            refusal(json!({"id": 1, "op": "secrets.get", "args": {}, "sync": true})),
            "ctx request \"secrets.get\": args: missing field `name`"
        );
        assert_eq!(
            refusal(json!({"id": 1, "op": "secrets.set", "args": {"name": "a.b", "value": 5}})),
            "ctx request \"secrets.set\": args.value: invalid type: integer `5`, expected a string"
        );
        assert_eq!(
            refusal(json!({"id": 1, "op": "db.query", "args": {"path": "a.db", "params": []}})),
            "ctx request \"db.query\": args: missing field `sql`"
        );
        assert_eq!(
            refusal(
                json!({"id": 1, "op": "credential.token", "args": {"force": true, "forse": 1}})
            ),
            "ctx request \"credential.token\": args.forse: unknown field `forse`, expected `force`"
        );
        assert_eq!(
            refusal(json!({"id": 1, "op": "db.drop", "args": {}})),
            "unknown ctx request \"db.drop\""
        );
    }

    #[test]
    fn a_line_without_an_id_cannot_be_answered() {
        assert!(decode(r#"{"op": "secrets.list", "args": {}}"#).is_err());
        assert!(decode("not json").is_err());
    }

    #[test]
    fn reports_decode_and_a_thrown_name_of_the_routines_own_passes_through() {
        let fail =
            decode(r#"{"op": "fail", "error": {"name": "RateLimited", "message": "slow down"}}"#);
        assert_eq!(
            fail,
            Ok(Line::Report(Report::Fail {
                error: Thrown {
                    name: ErrorName::Other("RateLimited".into()),
                    message: "slow down".into(),
                    stack: None,
                    cut: 0,
                }
            }))
        );
        let log = decode(r#"{"op": "log", "line": "hi"}"#);
        assert_eq!(log, Ok(Line::Report(Report::Log { stream: None, line: "hi".into(), cut: 0 })));
    }

    #[test]
    fn answers_keep_their_wire_shape() {
        assert_eq!(
            answer_line(3, answer(DbChanges { changes: 1, last_insert_rowid: 2 })),
            "{\"id\":3,\"ok\":{\"changes\":1,\"lastInsertRowid\":2}}\n"
        );
        let error = AnswerError::from(CtxError::new(ErrorName::NotFound, "gone"));
        assert_eq!(
            answer_line(4, Err(error)),
            "{\"id\":4,\"error\":{\"name\":\"NotFound\",\"message\":\"gone\",\"runId\":null}}\n"
        );
    }

    /// The ops `runner.mjs` declares in its `OPS` list.
    fn runner_ops() -> Vec<String> {
        let runner = include_str!("runner.mjs");
        let start = runner.find("export const OPS = [").expect("runner.mjs declares its OPS");
        let list = &runner[start..];
        let list = &list[list.find('[').unwrap() + 1..list.find(']').unwrap()];
        list.split(',')
            .map(|op| op.trim().trim_matches('"').to_string())
            .filter(|op| !op.is_empty())
            .collect()
    }

    #[test]
    fn runner_and_protocol_know_the_same_ops() {
        let runner = runner_ops();
        let ours: Vec<&str> = Request::OPS.iter().chain(Report::OPS).copied().collect();
        for op in &runner {
            assert!(
                ours.contains(&op.as_str()),
                "runner.mjs sends \"{op}\", which protocol.rs does not decode"
            );
        }
        for op in &ours {
            assert!(
                runner.iter().any(|r| r == op),
                "protocol.rs decodes \"{op}\", which runner.mjs's OPS does not list"
            );
        }
    }

    #[test]
    fn runner_mjs_sends_no_op_outside_its_list() {
        let runner = include_str!("runner.mjs");
        let listed = runner_ops();
        // Every literal op in a send/call/callSync must be one of OPS.
        for marker in ["callSync(\"", "call(\"", "op: \""] {
            for (at, _) in runner.match_indices(marker) {
                let rest = &runner[at + marker.len()..];
                let op = &rest[..rest.find('"').unwrap()];
                assert!(
                    listed.iter().any(|l| l == op),
                    "runner.mjs sends \"{op}\" without listing it in OPS"
                );
            }
        }
    }
}

/// Fuzzing the decoder: whatever a routine's process writes on fd 3 — bytes that are not JSON, JSON
/// of any shape, every op with arguments of any shape — decodes without a panic into a report, a
/// call (its request typed, or refused as a `BadRequest` that says why), or a `Malformed` that says
/// what the line was. The committed corpus (`tests/corpus/protocol.jsonl`) runs first; proptest's
/// cases follow (`PROPTEST_CASES=100000 cargo test -p cowork-engine fuzz_` for a long run).
#[cfg(test)]
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn check(line: &str) {
        match decode(line) {
            Ok(Line::Report(_)) => {}
            Ok(Line::Call(Call { request: Ok(request), .. })) => {
                assert!(Request::OPS.contains(&request.op()), "{line}");
            }
            Ok(Line::Call(Call { request: Err(error), .. })) => {
                assert_eq!(error.name, ErrorName::BadRequest, "{line}");
                assert!(
                    error.message.starts_with("ctx request")
                        || error.message.starts_with("unknown ctx request"),
                    "{line}: {}",
                    error.message
                );
            }
            Err(Malformed(what)) => assert!(what.starts_with("a "), "{line}: {what}"),
        }
    }

    /// Any JSON value, a few levels deep.
    pub(crate) fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            ".{0,12}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
                prop::collection::btree_map("[a-zA-Z]{0,8}", inner, 0..6)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    /// Every op the runner sends, and some it does not.
    fn op() -> impl Strategy<Value = String> {
        let known: Vec<&str> = Request::OPS.iter().chain(Report::OPS).copied().collect();
        prop_oneof![prop::sample::select(known).prop_map(String::from), ".{0,10}"]
    }

    #[test]
    fn fuzz_the_committed_corpus_decodes_without_a_panic() {
        for line in include_str!("../tests/corpus/protocol.jsonl").lines() {
            check(line);
        }
    }

    proptest! {
        #[test]
        fn fuzz_any_text_decodes_without_a_panic(line in ".{0,200}") {
            check(&line);
        }

        #[test]
        fn fuzz_any_op_with_any_arguments_is_answered_or_named(
            op in op(),
            id in json(),
            sync in json(),
            args in json(),
            extra in json(),
        ) {
            let mut line = serde_json::json!({ "op": op, "id": id, "sync": sync, "args": args });
            // Reports carry their fields at the top level: give them arbitrary ones too.
            if let (Some(line), Value::Object(extra)) = (line.as_object_mut(), extra) {
                for (key, value) in extra {
                    line.entry(key).or_insert(value);
                }
            }
            check(&line.to_string());
        }
    }
}
