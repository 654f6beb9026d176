//! A widget's identical calls in flight share one run (`cowork.routines.run`, page 04): the table
//! of runs not yet answered, keyed by routine, calling app and arguments. Every other caller runs
//! its own ([`crate::Workspace::run`]).

use crate::masks::Masks;
use crate::request::RunResult;
use parking_lot::Mutex;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::watch;

/// A run in flight: its answer, and its masks (a caller sharing it must mask what it reads).
type InflightAnswer = (watch::Receiver<Option<RunResult>>, Arc<Masks>);

/// The runs of one workspace not yet answered.
#[derive(Default)]
pub(crate) struct Inflight(Mutex<HashMap<String, InflightAnswer>>);

/// What [`Inflight::claim`] found.
pub(crate) enum Claim {
    /// Nobody runs it: the caller does, and sends the result here when it is done.
    Run(watch::Sender<Option<RunResult>>, Arc<Masks>),
    /// An identical call runs it already: wait for its answer.
    Join(watch::Receiver<Option<RunResult>>, Arc<Masks>),
}

impl Inflight {
    /// Looks `key` up and claims it under one lock: two identical calls arriving together must
    /// not both find the table empty and start two runs (the second then refused for its slot).
    pub fn claim(&self, key: &str) -> Claim {
        let mut table = self.0.lock();
        match table.get(key) {
            Some((answer, masks)) => Claim::Join(answer.clone(), masks.clone()),
            None => {
                let (sender, receiver) = watch::channel(None);
                let masks = Arc::new(Masks::default());
                table.insert(key.to_string(), (receiver, masks.clone()));
                Claim::Run(sender, masks)
            }
        }
    }

    /// Clears `key` if it is still the run `joined` waited on (that run was dropped unanswered).
    pub fn clear_dropped(&self, key: &str, joined: &watch::Receiver<Option<RunResult>>) {
        let mut table = self.0.lock();
        if table.get(key).is_some_and(|(current, _)| current.same_channel(joined)) {
            table.remove(key);
        }
    }

    /// The run of `key` answered: the next identical call starts a new one.
    pub fn finish(&self, key: &str) {
        self.0.lock().remove(key);
    }
}

/// The in-flight table's key: the routine, the calling app and the arguments as canonical JSON
/// (keys sorted at every level), so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one call.
pub(crate) fn inflight_key(routine: &str, caller_app: Option<&str>, args: &Value) -> String {
    format!("{routine}\u{0}{}\u{0}{}", caller_app.unwrap_or(""), canonical(args))
}

/// `value` with every object's keys in sorted order (serde_json keeps insertion order here).
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> =
                map.iter().map(|(k, v)| (k.clone(), canonical(v))).collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn calls_differing_only_in_key_order_share_one_in_flight_key() {
        let a = inflight_key(
            "r",
            None,
            &json!({"s": 2, "b": 1, "n": {"y": [{"q": 1, "p": 2}], "x": null}}),
        );
        let b = inflight_key(
            "r",
            None,
            &json!({"b": 1, "n": {"x": null, "y": [{"p": 2, "q": 1}]}, "s": 2}),
        );
        assert_eq!(a, b);
        assert_ne!(a, inflight_key("r", None, &json!({"b": 1, "s": 3})));
        assert_ne!(
            inflight_key("r", None, &json!([1, 2])),
            inflight_key("r", None, &json!([2, 1])),
            "arrays keep their order"
        );
    }
}
