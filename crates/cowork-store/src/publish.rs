//! `cowork publish [folder] … --type workspace|workspace-component|template|course`: package a
//! folder (page 05) and publish it to one or more team servers' stores, each answering on its
//! own — or, with no team server, write the package to a file.
//!
//! What is packaged: a workspace whole (never its `.cowork/data`, `.cowork/local` or
//! `workspace.json`); with `--items`, just those paths (a folder whole, plus any `_shared/`
//! helpers above them), exactly one making it a workspace-component; a course as its published
//! folder ([`crate::course`]). The type defaults to `assets.json`'s `item` block, then to what
//! the selection implies; a template needs a subtype.

use crate::course;
use crate::error::{Result, StoreError};
use crate::pack::{self, Scope, Skipped};
use crate::remote::Remote;
use cowork_wire::hub::{
    is_item_name, CardUpdate, Host, ItemKind, ManifestFile, Publish, Published, TemplateSubtype,
};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// What `cowork publish` was asked.
#[derive(Debug, Clone, Default)]
pub struct PublishOptions {
    /// The folder (absolute).
    pub folder: PathBuf,
    /// `--items`: paths relative to the folder.
    pub items: Vec<String>,
    /// `--type`; none = `assets.json`'s item block, then what the selection implies.
    pub kind: Option<ItemKind>,
    /// `--subtype` (a template needs one).
    pub subtype: Option<TemplateSubtype>,
    /// `--requires desktop|web`.
    pub requires: Vec<Host>,
    /// `--version`; none = the server assigns the next patch.
    pub version: Option<String>,
    /// `--name`; none = `assets.json`'s, else the folder's (a component's or template's manifest `name`).
    pub name: Option<String>,
    /// The store card: `--title`, `--description`, `--tags`, `--screenshot`.
    pub card: CardUpdate,
    /// The image `--screenshot` names (the workspace's last capture): the card's first screenshot
    /// while it has none.
    pub screenshot: Option<PathBuf>,
}

/// A card image's limit (page 07: screenshots at most 1 MB each).
pub const MAX_SCREENSHOT_BYTES: usize = 1024 * 1024;

/// The Content-Type of a raster image, by its first bytes; `None` for anything else (an SVG
/// included: it can carry script, so neither a card nor the workbench takes one as a screenshot).
pub fn image_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() > 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// The screenshot file `path`'s bytes, refused by name when it is no image or over the limit.
fn screenshot_bytes(path: &Path) -> Result<Vec<u8>> {
    let what = format!("the screenshot {}", path.display());
    let bytes = std::fs::read(path).map_err(|e| StoreError::io("read", path, e))?;
    if bytes.len() > MAX_SCREENSHOT_BYTES {
        return Err(StoreError::TooLarge {
            what,
            why: format!("{} bytes: a screenshot is at most 1 MB", bytes.len()),
        });
    }
    if image_type(&bytes).is_none() {
        return Err(StoreError::Invalid {
            what,
            why: "it is not a PNG, JPEG, GIF or WebP image".into(),
        });
    }
    Ok(bytes)
}

/// A folder packaged for a store.
#[derive(Debug, Clone)]
pub struct Package {
    /// The item's name in the store.
    pub name: String,
    /// What the item is.
    pub kind: ItemKind,
    /// What a template scaffolds.
    pub subtype: Option<TemplateSubtype>,
    /// Each file as published, and where its bytes are.
    pub files: Vec<(ManifestFile, PathBuf)>,
    /// What was left out, and why.
    pub skipped: Vec<Skipped>,
    /// `--items` that are not there (reported, not packaged).
    pub missing: Vec<String>,
    /// A course's outline.
    pub outline: Option<String>,
    /// The card: the options', with `assets.json`'s item block underneath.
    pub card: CardUpdate,
}

impl Package {
    /// The files' bytes together.
    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|(f, _)| f.size).sum()
    }
}

/// `assets.json`'s `item` block.
#[derive(Debug, Clone, Default, Deserialize)]
struct ItemBlock {
    #[serde(rename = "type")]
    kind: Option<ItemKind>,
    subtype: Option<TemplateSubtype>,
    name: Option<String>,
    title: Option<String>,
    description: Option<String>,
    tags: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
struct Assets {
    #[serde(default)]
    item: ItemBlock,
}

fn assets(folder: &Path) -> ItemBlock {
    std::fs::read(folder.join("assets.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<Assets>(&b).ok())
        .map(|a| a.item)
        .unwrap_or_default()
}

/// Whether `folder` is `<workspace>/.cowork/courses/<name>`.
fn course_workspace(folder: &Path) -> Option<PathBuf> {
    let courses = folder.parent()?;
    let dot = courses.parent()?;
    (courses.file_name()? == "courses" && dot.file_name()? == ".cowork")
        .then(|| dot.parent().map(Path::to_path_buf))
        .flatten()
}

/// Packages `options.folder`.
pub fn package(options: &PublishOptions) -> Result<Package> {
    let folder = &options.folder;
    let block = assets(folder);
    let base_name =
        |dir: &Path| dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    let course_ws = course_workspace(folder);
    let kind = options.kind.or(block.kind).unwrap_or(if course_ws.is_some() {
        ItemKind::Course
    } else if options.items.len() == 1 || folder.join("cowork.json").is_file() {
        ItemKind::WorkspaceComponent
    } else {
        ItemKind::Workspace
    });
    let subtype = options.subtype.or(block.subtype);
    if kind == ItemKind::Template && subtype.is_none() {
        return Err(StoreError::Invalid {
            what: folder.display().to_string(),
            why: "a template needs a subtype: --subtype app|routine|skill|workspace".into(),
        });
    }
    if kind != ItemKind::Template && subtype.is_some() {
        return Err(StoreError::Invalid {
            what: folder.display().to_string(),
            why: format!("only a template has a subtype, not a {kind}"),
        });
    }
    if kind == ItemKind::App {
        return Err(StoreError::Invalid {
            what: folder.display().to_string(),
            why: "apps are published with `cowork push`".into(),
        });
    }
    let mut card = options.card.clone();
    card.title = card.title.or(block.title);
    card.description = card.description.or(block.description);
    card.tags = card.tags.or(block.tags);
    let mut missing = Vec::new();
    let mut skipped = Vec::new();
    let mut outline = None;
    let (default_name, files): (String, Vec<(ManifestFile, PathBuf)>) = match kind {
        ItemKind::Course => {
            let workspace = course_ws.clone().ok_or_else(|| StoreError::Invalid {
                what: folder.display().to_string(),
                why: "a course is a folder .cowork/courses/<name>/ of a workspace".into(),
            })?;
            let course =
                course::read(&workspace, folder).map_err(|problems| StoreError::Invalid {
                    what: format!("the course {}", base_name(folder)),
                    why: problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "),
                })?;
            outline = Some(course.outline());
            card.title = card.title.or(Some(course.title.clone()));
            (course.name.clone(), course.files)
        }
        _ if options.items.len() == 1 => {
            let item = folder.join(&options.items[0]);
            if !item.exists() {
                return Err(StoreError::NotFound {
                    what: format!("the item {}", options.items[0]),
                });
            }
            let (files, left) = pack_dir(&item, Scope::default())?;
            skipped = left;
            (manifest_name(&item).unwrap_or_else(|| base_name(&item)), files)
        }
        _ if !options.items.is_empty() => {
            let mut files = Vec::new();
            for item in &options.items {
                let path = folder.join(item);
                if !path.exists() {
                    missing.push(item.clone());
                    continue;
                }
                let rel = item.trim_end_matches('/').to_string();
                for shared in shared_helpers(folder, &rel) {
                    let (found, _) = pack_dir(&folder.join(&shared), Scope::default())?;
                    files.extend(found.into_iter().map(|(mut f, p)| {
                        f.path = format!("{shared}/{}", f.path);
                        (f, p)
                    }));
                }
                if path.is_dir() {
                    let (found, left) = pack_dir(&path, Scope::default())?;
                    skipped.extend(left);
                    files.extend(found.into_iter().map(|(mut f, p)| {
                        f.path = format!("{rel}/{}", f.path);
                        (f, p)
                    }));
                } else {
                    let (size, sha256) = pack::hash_file(&path)?;
                    files.push((ManifestFile { path: rel, size, sha256 }, path));
                }
            }
            files.sort_by(|a, b| a.0.path.cmp(&b.0.path));
            files.dedup_by(|a, b| a.0.path == b.0.path);
            (base_name(folder), files)
        }
        _ => {
            let scope = Scope { workspace: folder.join(".cowork").is_dir() };
            let (files, left) = pack_dir(folder, scope)?;
            skipped = left;
            let name = match kind {
                ItemKind::WorkspaceComponent | ItemKind::Template => {
                    manifest_name(folder).unwrap_or_else(|| base_name(folder))
                }
                _ => base_name(folder),
            };
            (name, files)
        }
    };
    let name = options.name.clone().or(block.name).unwrap_or(default_name);
    if !is_item_name(&name) {
        return Err(StoreError::Invalid {
            what: folder.display().to_string(),
            why: format!(
                "{name:?} cannot name a store item (lowercase letters, digits and -): pass --name"
            ),
        });
    }
    if files.is_empty() {
        return Err(StoreError::Invalid {
            what: folder.display().to_string(),
            why: "nothing to publish".into(),
        });
    }
    Ok(Package { name, kind, subtype, files, skipped, missing, outline, card })
}

fn manifest_name(dir: &Path) -> Option<String> {
    let bytes = std::fs::read(dir.join("cowork.json")).ok()?;
    serde_json::from_slice::<serde_json::Value>(&bytes).ok()?["name"].as_str().map(str::to_owned)
}

/// `_shared/` folders between `folder` and the item `rel` (page 05: "plus any _shared/ helpers
/// above them"), folder-relative.
fn shared_helpers(folder: &Path, rel: &str) -> Vec<String> {
    let mut found = Vec::new();
    let parts: Vec<&str> = rel.split('/').collect();
    for depth in 0..parts.len() {
        let above = parts[..depth].join("/");
        let shared =
            if above.is_empty() { "_shared".to_string() } else { format!("{above}/_shared") };
        if folder.join(&shared).is_dir() && shared != rel {
            found.push(shared);
        }
    }
    found
}

/// Files as published, each with where its bytes are.
type Sourced = Vec<(ManifestFile, PathBuf)>;

fn pack_dir(dir: &Path, scope: Scope) -> Result<(Sourced, Vec<Skipped>)> {
    let listing = pack::pack(dir, scope)?;
    let files = listing
        .files
        .into_iter()
        .map(|f| {
            let path = dir.join(&f.path);
            (f, path)
        })
        .collect();
    Ok((files, listing.skipped))
}

/// Publishes `package` to `remote`: the blobs it lacks first, then the version.
pub async fn publish<R: Remote>(
    remote: &R,
    package: &Package,
    options: &PublishOptions,
    dry_run: bool,
) -> Result<Published> {
    let files: Vec<ManifestFile> = package.files.iter().map(|(f, _)| f.clone()).collect();
    let mut card = package.card.clone();
    if let Some(path) = &options.screenshot {
        let bytes = screenshot_bytes(path)?;
        let has_one = match remote.item(&package.name).await {
            Ok(item) => !item.item.screenshots.is_empty(),
            Err(e) if e.is_not_found() => false,
            Err(e) => return Err(e),
        };
        // Page 05: it becomes the first screenshot while the card has none.
        if !has_one {
            let sha = cowork_wire::hub::verify::sha256_hex(&bytes);
            if !dry_run && !remote.missing(std::slice::from_ref(&sha)).await?.is_empty() {
                remote.put_blob(&sha, bytes).await?;
            }
            card.screenshots = Some(vec![sha]);
        }
    }
    if !dry_run {
        let hashes: Vec<String> = files.iter().map(|f| f.sha256.clone()).collect();
        for sha in remote.missing(&hashes).await? {
            let (_, path) = package
                .files
                .iter()
                .find(|(f, _)| f.sha256 == sha)
                .expect("asked about our own files");
            let bytes = std::fs::read(path).map_err(|e| StoreError::io("read", path, e))?;
            if cowork_wire::hub::verify::sha256_hex(&bytes) != sha {
                return Err(StoreError::Invalid {
                    what: path.display().to_string(),
                    why: "it changed while it was published: publish again".into(),
                });
            }
            remote.put_blob(&sha, bytes).await?;
        }
    }
    let publish = Publish {
        kind: package.kind,
        subtype: package.subtype,
        version: options.version.clone(),
        files,
        card,
        requires: (!options.requires.is_empty()).then(|| options.requires.clone()),
        dry_run,
    };
    remote.publish(&package.name, &publish).await
}

/// Writes `package` as a gzipped tar (`manifest.json` + `files/…`) to `out`.
pub fn write_archive(package: &Package, out: &Path) -> Result<()> {
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::default(),
    ));
    let manifest = serde_json::json!({
        "name": package.name,
        "kind": package.kind,
        "subtype": package.subtype,
        "files": package.files.iter().map(|(f, _)| f).collect::<Vec<_>>(),
    });
    let text = serde_json::to_vec_pretty(&manifest).expect("a manifest serializes");
    let mut header = tar::Header::new_gnu();
    header.set_size(text.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    let failed = |e: std::io::Error| StoreError::io("write", out, e);
    tar.append_data(&mut header, "manifest.json", text.as_slice()).map_err(failed)?;
    for (file, path) in &package.files {
        tar.append_path_with_name(path, format!("files/{}", file.path)).map_err(failed)?;
    }
    let bytes = tar.into_inner().and_then(|gz| gz.finish()).map_err(failed)?;
    // The workspace's files, maybe not meant for everyone on this machine (the default is in the
    // shared temp folder): the owner's only, and never a half-written package in its place.
    cowork_core::fs_atomic::write(out, &bytes, true).map_err(failed)
}
