//! A subscribed course as the Academy shows it (page 11): its latest published version verified
//! and fetched into the blob cache like an install (nothing written to a workspace), then read —
//! `course.md`, and each lesson's `NN-<id>/lesson.md` in the order `NN` gives them.

use crate::course::{field, front_matter};
use crate::error::{Result, StoreError};
use crate::fetch;
use crate::place::Place;
use crate::remote::Remote;
use crate::resolve::resolve;
use cowork_wire::hub::ItemKind;

/// One lesson, in its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedLesson {
    /// Its id (the folder name without `NN-`): what progress is kept by.
    pub id: String,
    /// The lesson's title from its front matter, else its id.
    pub title: String,
    /// How long it takes, in minutes, when the lesson says.
    pub minutes: Option<u64>,
    /// The video link (YouTube, Vimeo or Loom), shown on top.
    pub video: Option<String>,
    /// The lesson's text after its front matter (markdown).
    pub body: String,
}

/// A published course, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedCourse {
    /// The course's name in the store.
    pub name: String,
    /// The version read.
    pub version: String,
    /// The course's title from its front matter, else its name.
    pub title: String,
    /// Its level, as the author put it.
    pub level: Option<String>,
    /// The course's description (markdown).
    pub description: String,
    /// In order.
    pub lessons: Vec<PublishedLesson>,
}

/// Course `name` of `remote`, at its latest version.
pub async fn read<R: Remote>(place: &Place, remote: &R, name: &str) -> Result<PublishedCourse> {
    let resolved = resolve(place, remote, name, None, false).await?;
    let label = resolved.label(remote.slug());
    if resolved.manifest.kind != ItemKind::Course {
        return Err(StoreError::BadSpec {
            spec: format!("{}/{name}", remote.slug()),
            why: format!("it is {}, not a course", resolved.manifest.kind.with_article()),
        });
    }
    let files = &resolved.manifest.files;
    fetch::ensure(remote, &place.cache, &label, files).await?;
    let text = |path: &str| -> Result<String> {
        let file = files.iter().find(|f| f.path == path).ok_or_else(|| StoreError::Invalid {
            what: label.clone(),
            why: format!("it has no {path}"),
        })?;
        let bytes = place.cache.read(&file.sha256).ok_or_else(|| StoreError::NotFound {
            what: format!("the cached {path} of {label}"),
        })?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    };
    let course = text("course.md")?;
    let (fields, description) = front_matter(&course).unwrap_or_default();
    // `NN-<id>/lesson.md`, ordered by NN.
    let mut places: Vec<(u32, String, String)> = files
        .iter()
        .filter_map(|f| {
            let folder = f.path.strip_suffix("/lesson.md")?;
            let (place, id) = folder.split_once('-')?;
            Some((place.parse().ok()?, id.to_string(), f.path.clone()))
        })
        .collect();
    places.sort();
    let mut lessons = Vec::new();
    for (_, id, path) in places {
        let lesson = text(&path)?;
        let (fields, body) = front_matter(&lesson).unwrap_or_else(|| (Vec::new(), lesson.clone()));
        lessons.push(PublishedLesson {
            title: field(&fields, "title").unwrap_or(&id).to_string(),
            minutes: field(&fields, "minutes").and_then(|m| m.parse().ok()),
            video: field(&fields, "video").map(str::to_owned),
            body: body.trim().to_string(),
            id,
        });
    }
    Ok(PublishedCourse {
        name: name.to_string(),
        version: resolved.manifest.version.clone(),
        title: field(&fields, "title").unwrap_or(name).to_string(),
        level: field(&fields, "level").map(str::to_owned),
        description: description.trim().to_string(),
        lessons,
    })
}
