//! The manifest's rules: reading and validating a `cowork.json` into a [`Manifest`]. The schema's
//! issues are mapped to the part of the manifest each drops, then the rules a schema cannot say run
//! on the typed manifest, each dropping only what it concerns with a [`Problem`] line.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use super::types::{
    Display, Kind, Manifest, Validated, DEFAULT_TIMEOUT_S, ICON_LIMIT, INPUT_LIMIT, MANIFEST_FILE,
    PICTURE_LIMIT, SIGN_IN_PROVIDERS,
};
use crate::schema::{self, dotted, quote, Issue, Problem, Segment};

/// The routine keys that describe it as a tool: a bad one is reset to its safe default and the
/// routine stays.
const TOOL_KEYS: [&str; 6] =
    ["readOnly", "destructive", "reachesOthers", "description", "input", "timeout"];

/// Whether a capability at `available` meets a `uses` line asking for `required`: the same major,
/// and `available` at least `required`. Anything that is not a semver version meets nothing.
pub fn satisfies(required: &str, available: &str) -> bool {
    match (semver::Version::parse(required), semver::Version::parse(available)) {
        (Ok(required), Ok(available)) => required.major == available.major && available >= required,
        _ => false,
    }
}

/// Reads and validates `<app_folder>/cowork.json`; `label` is the file as problems name it
/// (workspace-relative, e.g. `.cowork/apps/mail/cowork.json`).
///
/// `Err` means the folder is not an app, with the reasons.
pub fn load(app_folder: &Path, label: &str) -> Result<Validated, Vec<Problem>> {
    let text = fs::read_to_string(app_folder.join(MANIFEST_FILE)).map_err(|e| {
        vec![Problem::new(label, None, format!("failed to read the file ({e}) — not an app"))]
    })?;
    validate(&text, app_folder, label)
}

/// Validates a manifest's text. `app_folder` is where its files are looked up (icons, routines);
/// `label` is the file as problems name it.
///
/// `Err` means the folder is not an app: the text is not a JSON object, or its `name` or
/// `version` is missing or invalid.
pub fn validate(text: &str, app_folder: &Path, label: &str) -> Result<Validated, Vec<Problem>> {
    let not_an_app =
        |message: String| vec![Problem::new(label, None, format!("{message} — not an app"))];
    let value: Value =
        serde_json::from_str(text).map_err(|e| not_an_app(crate::schema::not_json(text, &e)))?;
    let Value::Object(mut object) = value else {
        return Err(not_an_app(format!("is {}, not a JSON object", quote(&value))));
    };
    // Declared is declared: a `kind` or `uses` whose value is dropped as invalid below still
    // puts the package under the capability model (at the safe default), never back to a
    // pre-capability package's unrestricted access.
    let kind_declared = object.contains_key("kind");
    let declares_uses = object.contains_key("uses");
    let mut report = Report { file: label, problems: Vec::new() };
    report.schema_issues(&mut object)?;
    if let Some(Value::String(name)) = object.get("name") {
        if let Some(why) = crate::reserved_names::reserved_name(name) {
            return Err(vec![Problem::new(
                label,
                Some("name".to_owned()),
                format!("\"name\": {} is {why} — not an app", quote(&Value::String(name.clone()))),
            )]);
        }
    }
    report.deprecated_keys(&mut object);
    let display_declared = object.contains_key("display");
    let mut manifest: Manifest = serde_json::from_value(Value::Object(object))
        .map_err(|e| not_an_app(format!("failed to read the validated manifest ({e})")))?;
    manifest.kind_declared = kind_declared;
    manifest.declares_uses = declares_uses;
    if manifest.title.is_empty() {
        manifest.title = manifest.name.clone();
    }
    report.rules(&mut manifest, app_folder, display_declared);
    Ok(Validated { manifest, problems: report.problems })
}

/// Why a routine's `input` cannot describe the named arguments an agent passes, if it cannot.
fn input_problem(input: &Value) -> Option<String> {
    if let Err(why) = crate::schema::Schema::of(input) {
        return Some(format!("is not a JSON Schema ({why})"));
    }
    (input.get("type") != Some(&Value::String("object".into()))).then(|| {
        format!(
            "has \"type\": {}, and a routine's arguments are named: it must be {{\"type\": \"object\", \"properties\": {{…}}}}",
            input.get("type").map_or("none".to_owned(), quote)
        )
    })
}

/// The part of a manifest a problem drops or resets.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Unit {
    /// `name` or `version`: the folder is not an app.
    NotAnApp,
    /// A top-level key.
    Key(String),
    /// One entry of `routines`, `fileRouting` or `uses`.
    Entry(String, String),
    /// One tool key of a routine: reset to its safe default.
    ToolKey(String, String),
}

impl Unit {
    fn of(path: &[Segment]) -> Unit {
        let keys: Vec<&str> = path.iter().take(3).map_while(Segment::key).collect();
        match keys.as_slice() {
            [] | ["name" | "version", ..] => Unit::NotAnApp,
            ["routines", id, key] if TOOL_KEYS.contains(key) => {
                Unit::ToolKey(id.to_string(), key.to_string())
            }
            [map @ ("routines" | "fileRouting" | "uses"), entry, ..] => {
                Unit::Entry(map.to_string(), entry.to_string())
            }
            [key, ..] => Unit::Key(key.to_string()),
        }
    }

    fn path(&self) -> Vec<Segment> {
        let keys: Vec<&str> = match self {
            Unit::NotAnApp => Vec::new(),
            Unit::Key(key) => vec![key],
            Unit::Entry(map, entry) => vec![map, entry],
            Unit::ToolKey(id, key) => vec!["routines", id, key],
        };
        keys.into_iter().map(Segment::from).collect()
    }

    /// Whether dropping `self` already drops `other`.
    fn covers(&self, other: &Unit) -> bool {
        let (outer, inner) = (self.path(), other.path());
        !matches!(self, Unit::NotAnApp) && outer.len() < inner.len() && inner.starts_with(&outer)
    }

    /// What happens to the unit, as the end of a problem line.
    fn consequence(&self, issue_path: &[Segment]) -> String {
        let own = issue_path == self.path();
        let what = match self {
            Unit::NotAnApp => return "not an app".to_owned(),
            Unit::ToolKey(_, key) => match key.as_str() {
                "timeout" => format!("left at {DEFAULT_TIMEOUT_S}"),
                "description" | "input" => "left out".to_owned(),
                _ => "left at false".to_owned(),
            },
            Unit::Key(_) | Unit::Entry(..) => "ignored".to_owned(),
        };
        if own {
            what
        } else {
            format!("\"{}\" {what}", dotted(&self.path()))
        }
    }

    fn drop_from(&self, object: &mut Map<String, Value>) {
        if let Some((key, outer)) = self.path().split_last() {
            remove_at(object, outer, key);
        }
    }
}

/// Removes `key` from the object found by walking `path` from `object`, if there is one.
fn remove_at(object: &mut Map<String, Value>, path: &[Segment], key: &Segment) {
    let mut node = object;
    for step in path {
        match step.key().and_then(|step| node.get_mut(step)).and_then(Value::as_object_mut) {
            Some(next) => node = next,
            None => return,
        }
    }
    if let Some(key) = key.key() {
        node.shift_remove(key);
    }
}

/// Collects the problem lines of one manifest.
struct Report<'a> {
    file: &'a str,
    problems: Vec<Problem>,
}

impl Report<'_> {
    fn push(&mut self, key: &str, message: String) {
        self.problems.push(Problem::new(self.file, Some(key.to_owned()), message));
    }

    /// Checks the object against the schema and drops each unit with an issue. `Err` when the
    /// `name` or `version` is bad.
    fn schema_issues(&mut self, object: &mut Map<String, Value>) -> Result<(), Vec<Problem>> {
        let issues: Vec<(Unit, Issue)> = schema::manifest()
            .check(&Value::Object(object.clone()))
            .into_iter()
            .map(|issue| (Unit::of(&issue.path), issue))
            .collect();
        let fatal: Vec<Problem> = issues
            .iter()
            .filter(|(unit, _)| *unit == Unit::NotAnApp)
            .map(|(unit, issue)| {
                Problem::new(
                    self.file,
                    Some(issue.key()),
                    format!("{} — {}", issue.describe(), unit.consequence(&issue.path)),
                )
            })
            .collect();
        if !fatal.is_empty() {
            return Err(fatal);
        }
        let units: BTreeSet<&Unit> = issues.iter().map(|(unit, _)| unit).collect();
        for (unit, issue) in &issues {
            if units.iter().any(|outer| outer.covers(unit)) {
                continue;
            }
            self.push(
                &issue.key(),
                format!("{} — {}", issue.describe(), unit.consequence(&issue.path)),
            );
        }
        for unit in units {
            unit.drop_from(object);
        }
        Ok(())
    }

    /// Drops the keys the schema marks `deprecated`, at the top and in each routine, with a line.
    fn deprecated_keys(&mut self, object: &mut Map<String, Value>) {
        let schema = schema::manifest();
        for (key, replaced_by) in schema.deprecated_keys("") {
            if object.shift_remove(key).is_some() {
                self.push(key, no_longer_read(key, replaced_by));
            }
        }
        let Some(Value::Object(routines)) = object.get_mut("routines") else {
            return;
        };
        for (id, routine) in routines.iter_mut() {
            let Some(routine) = routine.as_object_mut() else {
                continue;
            };
            for (key, replaced_by) in schema.deprecated_keys("/$defs/routine/else") {
                if routine.shift_remove(key).is_some() {
                    let dotted_key = format!("routines.{id}.{key}");
                    self.push(&dotted_key, no_longer_read(&dotted_key, replaced_by));
                }
            }
        }
    }

    /// The rules beyond the schema, each dropping only what it concerns.
    fn rules(&mut self, m: &mut Manifest, folder: &Path, display_declared: bool) {
        self.capability_rules(m);
        self.web_rules(m, display_declared);
        if m.open.is_some() && m.display != Display::Sidebar {
            m.open = None;
            self.push(
                "open",
                format!(
                    "\"open\" is for a \"sidebar\" app only, and this one is {} — ignored",
                    quote(&json_of(&m.display))
                ),
            );
        }
        if m.uses.remove(&m.name).is_some() {
            let key = format!("uses.{}", m.name);
            self.push(&key, format!("\"{key}\" is the app's own name — ignored"));
        }
        self.routine_rules(m, folder);
        self.route_rules(m);
        if let Some(bar) = &m.status_bar {
            if m.routine(&bar.routine).is_none() {
                let message = format!("\"statusBar.routine\": {} is not one of this app's routines — \"statusBar\" ignored", quote(&json_of(&bar.routine)));
                m.status_bar = None;
                self.push("statusBar.routine", message);
            }
        }
        self.image_rules(m, folder);
    }

    fn capability_rules(&mut self, m: &mut Manifest) {
        if m.kind == Kind::Capability {
            self.credential_name_rule(m);
            let carried = [
                ("entry", m.entry.take().is_some()),
                ("fileRouting", !std::mem::take(&mut m.file_routing).is_empty()),
                ("uses", !std::mem::take(&mut m.uses).is_empty()),
                ("capture", !std::mem::take(&mut m.capture).is_empty()),
            ];
            for (key, was_there) in carried {
                if was_there {
                    self.push(key, format!("\"{key}\" does not apply to a capability — ignored"));
                }
            }
        } else if m.credential.take().is_some() {
            self.push(
                "credential",
                "\"credential\" belongs to a capability (\"kind\": \"capability\") only — ignored"
                    .to_owned(),
            );
        }
    }

    /// A key (or an own-client sign-in) is named after its capability, and a shared sign-in after
    /// its provider (page 12), so a capability named `google` with a key would be a second
    /// connection called `google` next to the shared Google sign-in: `cowork credential connect
    /// google` could not tell them apart, and one would take the other's place. The capability is
    /// the one to rename; a sign-in-only capability of that name just joins the shared sign-in.
    fn credential_name_rule(&mut self, m: &mut Manifest) {
        let Some(credential) = &m.credential else { return };
        let named_after_it =
            credential.key.is_some() || credential.oauth.as_ref().is_some_and(|o| o.own_client);
        if named_after_it && SIGN_IN_PROVIDERS.contains(&m.name.as_str()) {
            m.credential = None;
            let name = &m.name;
            self.push(
                "credential",
                format!("\"credential\": a key or own sign-in is named after its capability, and \"{name}\" is the name of the shared {name} sign-in — rename the capability; ignored"),
            );
        }
    }

    fn web_rules(&mut self, m: &mut Manifest, display_declared: bool) {
        if m.entry.is_some() && m.web.take().is_some() {
            self.push(
                "web",
                "\"web\" is set together with \"entry\" — \"entry\" wins, \"web\" ignored"
                    .to_owned(),
            );
        }
        let Some(web) = m.web.as_mut() else { return };
        if web.index.is_some() {
            if web.scope.take().is_some() {
                self.push(
                    "web.scope",
                    "\"web.scope\" is for a site app (\"web.url\") only — ignored".to_owned(),
                );
            }
            if display_declared && m.display != Display::Tab {
                self.push("display", format!("\"display\": {} does not apply to a web app, which is always \"tab\" — ignored", quote(&json_of(&m.display))));
            }
            m.display = Display::Tab;
        } else if let Some(url) = web.url.clone() {
            for (key, was_there) in [
                ("web.open", web.open.take().is_some()),
                ("web.download", web.download.take().is_some()),
            ] {
                if was_there {
                    self.push(key, format!("\"{key}\" does not apply to a site app — ignored"));
                }
            }
            if !std::mem::take(&mut m.file_routing).is_empty() {
                self.push(
                    "fileRouting",
                    "\"fileRouting\" does not apply to a site app — ignored".to_owned(),
                );
            }
            if let Some(scope) = web.scope.take_if(|scope| !scope_fits(&url, scope)) {
                self.push(
                    "web.scope",
                    format!(
                        "\"web.scope\": {} is not a start of \"web.url\" on its origin — ignored",
                        quote(&json_of(&scope))
                    ),
                );
            }
            web.scope.get_or_insert_with(|| default_scope(&url));
            if !display_declared {
                m.display = Display::Tab;
            } else if m.display == Display::Modal {
                self.push("display", "\"display\": \"modal\" does not apply to a site app (tab, sidebar or right) — ignored".to_owned());
                m.display = Display::Tab;
            }
        }
    }

    fn routine_rules(&mut self, m: &mut Manifest, folder: &Path) {
        let mut lines = Vec::new();
        m.routines.retain_mut(|routine| {
            let key = format!("routines.{}", routine.id);
            if !folder.join(&routine.file).is_file() {
                lines.push((
                    key.clone(),
                    format!(
                        "\"{key}\": the file {} does not exist — ignored",
                        quote(&json_of(&routine.file))
                    ),
                ));
                return false;
            }
            // A symlink (or a symlinked folder on the way) would run code from outside the app.
            if !stays_inside(folder, &routine.file) {
                lines.push((
                    key.clone(),
                    format!(
                        "\"{key}\": the file {} leads outside the app folder (a symlink) — ignored",
                        quote(&json_of(&routine.file))
                    ),
                ));
                return false;
            }
            if let Some(size) = routine
                .input
                .as_ref()
                .map(|input| input.to_string().len())
                .filter(|size| *size > INPUT_LIMIT)
            {
                routine.input = None;
                lines.push((
                    format!("{key}.input"),
                    format!("\"{key}.input\" is larger than 8 KB ({size} bytes) — left out"),
                ));
            }
            // Agents call a routine with named arguments, checked against this schema: one that
            // is not an object's, or not a schema at all, would refuse every call.
            if let Some(why) = routine.input.as_ref().and_then(input_problem) {
                routine.input = None;
                lines.push((format!("{key}.input"), format!("\"{key}.input\" {why} — left out")));
            }
            if routine.read_only && (routine.destructive || routine.reaches_others) {
                let other = if routine.destructive { "destructive" } else { "reachesOthers" };
                routine.read_only = false;
                lines.push((
                    format!("{key}.readOnly"),
                    format!("\"{key}.readOnly\": true cannot go with \"{other}\" — left at false"),
                ));
            }
            true
        });
        for (key, message) in lines {
            self.push(&key, message);
        }
    }

    fn route_rules(&mut self, m: &mut Manifest) {
        let index = m.web.as_ref().and_then(|w| w.index.clone());
        let mut lines = Vec::new();
        m.file_routing.retain(|route| {
            let key = format!("fileRouting.{}", route.glob);
            let said = format!("\"{key}\": {}", quote(&json_of(&route.file)));
            let why = if let Err(e) = compile_glob(&route.glob) {
                Some(format!("\"{key}\" is not a valid glob ({e}) — ignored"))
            } else if route.is_folder_route() && !is_widget(&route.file) {
                Some(format!("{said} is not a .jsx or .tsx, which a folder route needs — ignored"))
            } else if route.opens_web_app() && index.as_deref() != Some(route.file.as_str()) {
                Some(format!("{said} is not this app's \"web.index\" — ignored"))
            } else {
                None
            };
            match why {
                Some(message) => {
                    lines.push((key, message));
                    false
                }
                None => true,
            }
        });
        for (key, message) in lines {
            self.push(&key, message);
        }
    }

    fn image_rules(&mut self, m: &mut Manifest, folder: &Path) {
        // A codicon icon is no file: only an image icon is checked.
        let icon_limit = m.icon_file().map(|_| ICON_LIMIT);
        for (key, slot, limit) in
            [("icon", &mut m.icon, icon_limit), ("banner", &mut m.banner, Some(PICTURE_LIMIT))]
        {
            let (Some(file), Some(limit)) = (slot.as_deref(), limit) else {
                continue;
            };
            if let Err(why) = check_image(folder, file, limit) {
                self.push(key, format!("\"{key}\": {} {why} — ignored", quote(&json_of(file))));
                *slot = None;
            }
        }
        let failing = m.screenshots.iter().flatten().enumerate().find_map(|(i, shot)| {
            check_image(folder, shot, PICTURE_LIMIT).err().map(|why| (i, shot.clone(), why))
        });
        if let Some((i, shot, why)) = failing {
            let key = format!("screenshots[{i}]");
            self.push(
                &key,
                format!("\"{key}\": {} {why} — \"screenshots\" ignored", quote(&json_of(&shot))),
            );
            m.screenshots = None;
        }
    }
}

fn no_longer_read(key: &str, replaced_by: Option<&str>) -> String {
    match replaced_by {
        Some(instead) => format!("\"{key}\" is no longer read (replaced by {instead}) — ignored"),
        None => format!("\"{key}\" is no longer read — ignored"),
    }
}

fn json_of<T: Serialize + ?Sized>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn is_widget(file: &str) -> bool {
    file.ends_with(".jsx") || file.ends_with(".tsx")
}

/// Compiles a `fileRouting` glob the way routes match: workspace-relative, `*` never crossing a
/// `/`, a folder route's trailing `/` left out.
pub fn compile_glob(glob: &str) -> Result<globset::GlobMatcher, globset::Error> {
    let pattern = glob.strip_suffix('/').unwrap_or(glob);
    Ok(globset::GlobBuilder::new(pattern).literal_separator(true).build()?.compile_matcher())
}

/// Whether `file` (relative to `folder`), symlinks resolved, is inside `folder`.
pub fn stays_inside(folder: &Path, file: &str) -> bool {
    match (folder.join(file).canonicalize(), folder.canonicalize()) {
        (Ok(real), Ok(base)) => real.starts_with(&base),
        _ => false,
    }
}

/// Why an image file in the app folder cannot be used, if it cannot.
fn check_image(folder: &Path, file: &str, limit: u64) -> Result<(), String> {
    let path = folder.join(file);
    let meta = fs::symlink_metadata(&path).map_err(|_| "does not exist".to_owned())?;
    if meta.file_type().is_symlink() {
        return Err("is a symlink".to_owned());
    }
    if !meta.is_file() {
        return Err("is not a file".to_owned());
    }
    // A symlinked folder on the way would lead outside the app.
    if !stays_inside(folder, file) {
        return Err("leads outside the app folder".to_owned());
    }
    if meta.len() > limit {
        let shown = if limit >= 1024 * 1024 {
            format!("{} MB", limit / (1024 * 1024))
        } else {
            format!("{} KB", limit / 1024)
        };
        return Err(format!("is larger than {shown}"));
    }
    Ok(())
}

/// `scheme://host[:port]` of an address.
fn origin(url: &str) -> Option<&str> {
    let start = url.find("://")? + 3;
    let end = url[start..].find(['/', '?', '#']).map_or(url.len(), |i| start + i);
    Some(&url[..end])
}

/// A site app's default scope: `url` up to its last `/` (the origin and `/` when it has no path).
fn default_scope(url: &str) -> String {
    let Some(origin) = origin(url) else {
        return url.to_owned();
    };
    let path_end = url.find(['?', '#']).unwrap_or(url.len());
    match url[..path_end].rfind('/') {
        Some(i) if i >= origin.len() => url[..=i].to_owned(),
        _ => format!("{origin}/"),
    }
}

/// Whether `scope` is on `url`'s origin and a start of it (a trailing `/` aside).
fn scope_fits(url: &str, scope: &str) -> bool {
    origin(url).map(str::to_ascii_lowercase) == origin(scope).map(str::to_ascii_lowercase)
        && url.starts_with(scope.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::DEFAULT_INTERVAL_S;

    #[test]
    fn the_defaults_here_are_the_schemas() {
        let default =
            |pointer: &str| schema::manifest().node(pointer).and_then(|n| n["default"].as_u64());
        assert_eq!(
            default("/$defs/routine/else/properties/timeout"),
            Some(u64::from(DEFAULT_TIMEOUT_S))
        );
        assert_eq!(
            default("/properties/statusBar/properties/interval"),
            Some(u64::from(DEFAULT_INTERVAL_S))
        );
        let tool_keys =
            schema::manifest().node("/$defs/routine/else/properties").unwrap().as_object().unwrap();
        assert!(TOOL_KEYS.iter().all(|key| tool_keys.contains_key(*key)));
    }

    #[test]
    fn satisfies_means_same_major_and_at_least() {
        assert!(satisfies("1.2.0", "1.2.0"));
        assert!(satisfies("1.2.0", "1.9.3"));
        assert!(!satisfies("1.2.0", "1.1.9"));
        assert!(!satisfies("1.2.0", "2.0.0"));
        assert!(!satisfies("0.2.0", "1.0.0"));
        assert!(!satisfies("1.0", "1.0.0"));
        assert!(!satisfies("1.0.0", "1.0.0-beta"));
    }

    #[test]
    fn default_scope_is_url_up_to_its_last_slash() {
        assert_eq!(default_scope("https://web.whatsapp.com/"), "https://web.whatsapp.com/");
        assert_eq!(default_scope("https://chatgpt.com"), "https://chatgpt.com/");
        assert_eq!(default_scope("https://x.com/app/index.html?a=/b"), "https://x.com/app/");
    }

    #[test]
    fn scope_must_be_a_start_of_url_on_its_origin() {
        assert!(scope_fits("https://x.com/app/page", "https://x.com/app/"));
        assert!(scope_fits("https://x.com/app", "https://x.com/app/"));
        assert!(!scope_fits("https://x.com/app", "https://y.com/"));
        assert!(!scope_fits("https://x.com/app", "https://x.com/other/"));
        assert!(!scope_fits("https://x.com/", "http://x.com/"));
    }

    #[test]
    fn globs_do_not_cross_folders_with_a_single_star() {
        let g = compile_glob("*.csv").unwrap();
        assert!(g.is_match("a.csv") && !g.is_match("d/a.csv"));
        let g = compile_glob("**/*.csv").unwrap();
        assert!(g.is_match("a.csv") && g.is_match("d/e/a.csv"));
        assert!(compile_glob("Projects/*/").unwrap().is_match("Projects/x"));
    }
}
