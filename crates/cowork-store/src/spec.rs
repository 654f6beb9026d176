//! Naming what to act on, as every front end (the CLI, the workbench's routes) takes it: an item
//! of a store as `<team-server>/<name>[@X.Y.Z]`, and an installed app as its folder or its name.

use crate::error::{Result, StoreError};
use crate::place::Place;
use std::path::Path;

/// `<team-server>/<name>[@X.Y.Z]`, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// The team server's slug (or `cowork`, the built-in store).
    pub slug: String,
    /// The item's name.
    pub name: String,
    /// A version named: installed and pinned.
    pub version: Option<String>,
}

/// Reads `<team-server>/<name>[@X.Y.Z]`. The name must be a store item's name, so it can never
/// lead outside `.cowork/apps` once it is a folder.
pub fn parse(spec: &str) -> Result<Spec> {
    let bad = |why: &str| StoreError::BadSpec { spec: spec.to_string(), why: why.to_string() };
    let (path, version) = match spec.split_once('@') {
        Some((path, version)) => (path, Some(version)),
        None => (spec, None),
    };
    let Some((slug, name)) = path.split_once('/') else {
        return Err(bad("it names no team server (<team-server>/<name>)"));
    };
    if slug.is_empty() || name.is_empty() || name.contains('/') {
        return Err(bad("it is not <team-server>/<name>"));
    }
    if !cowork_wire::hub::is_item_name(name) {
        return Err(bad("its name is not a store item's name (^[a-z0-9][a-z0-9-]{0,62}$)"));
    }
    if let Some(version) = version {
        if cowork_wire::hub::Version::parse(version).is_none() {
            return Err(bad("its version is not X.Y.Z"));
        }
    }
    Ok(Spec { slug: slug.to_string(), name: name.to_string(), version: version.map(str::to_owned) })
}

/// The installed app folder `app` names in `place`: the folder (`.cowork/apps/gmail`), its
/// basename, or the store name of a switched-on folder with a receipt (a Keep both copy, switched
/// off, is named only by its folder: `gmail` is the app in use, never the copy beside it). `None`
/// for a local app (no receipt from a store) and for anything else.
pub fn installed_folder(place: &Place, app: &str) -> Option<String> {
    let base = Path::new(app).file_name()?.to_str()?.to_string();
    let from_store =
        |folder: &str| place.receipts.read(folder).ok().flatten().filter(|r| r.store.is_some());
    if cowork_core::discovery::folder_name_rejection(&base).is_none() && from_store(&base).is_some()
    {
        return Some(base);
    }
    let (config, _) = cowork_core::workspace_json::read(&place.workspace);
    place.receipts.folders().ok()?.into_iter().find(|f| {
        from_store(f).is_some_and(|r| r.name == app) && !config.is_app_disabled(&Place::dir_of(f))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_names_a_team_server_an_item_and_maybe_a_version() {
        let spec = parse("acme/gmail@1.2.0").unwrap();
        assert_eq!((spec.slug.as_str(), spec.name.as_str()), ("acme", "gmail"));
        assert_eq!(spec.version.as_deref(), Some("1.2.0"));
        assert_eq!(parse("acme/gmail").unwrap().version, None);
        for bad in
            ["gmail", "acme/", "/gmail", "acme/a/b", "acme/..", "acme/Gmail", "acme/gmail@1.2"]
        {
            let error = parse(bad).unwrap_err();
            assert!(matches!(error, StoreError::BadSpec { .. }), "{bad}: {error}");
        }
    }
}
