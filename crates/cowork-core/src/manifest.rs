//! `cowork.json`, an app's manifest: the typed [`Manifest`] and [`validate`], which turns a file
//! into one.
//!
//! Validation is forgiving by design, so that one typo never takes an app away: an invalid `name`
//! or `version` (or a file that is not a JSON object) makes the folder "not an app", but any other
//! bad key is dropped with a [`Problem`] line naming the file and the key, and the rest of the app
//! keeps working. The schema (`schemas/cowork.schema.json`) decides what is well-formed; the rules
//! a schema cannot say — `entry` with `web`, a web app's display, a site app's scope, what a
//! capability carries, the sizes of images and input schemas, files that must exist — are checked
//! here, each dropping only what it concerns.
//!
//! ```
//! use cowork_core::manifest::{validate, Display};
//! let text = r#"{"name": "mail", "version": "1.0.0", "entry": "mail.jsx", "display": "sideways"}"#;
//! let checked = validate(text, std::path::Path::new("/nowhere"), ".cowork/apps/mail/cowork.json").unwrap();
//! assert_eq!(checked.manifest.display, Display::Sidebar);
//! assert_eq!(
//!     checked.problems[0].to_string(),
//!     r#".cowork/apps/mail/cowork.json: "display": "sideways" is not one of sidebar, tab, modal, right — ignored"#
//! );

// One layer per file: what a manifest holds and how its keys deserialize (`types`), how a file
// becomes one (`rules`), and the generic helper of both that knows no manifest type
// (`serde_helpers`, a leaf).
mod rules;
mod serde_helpers;
mod types;

pub use rules::{compile_glob, load, satisfies, stays_inside, validate};
pub use types::{
    Capture, Credential, Display, Download, FileRoute, KeyCredential, Kind, Manifest, OAuth, Open,
    Requirement, Risk, Routine, StatusBar, Validated, Web, DEFAULT_INTERVAL_S, DEFAULT_TIMEOUT_S,
    ICON_LIMIT, INPUT_LIMIT, MANIFEST_FILE, PICTURE_LIMIT, SIGN_IN_PROVIDERS,
};
