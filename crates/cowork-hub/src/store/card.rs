//! A store card — title, description, tags, icon, banner, screenshots — checked, merged over what
//! the store has (a field not stated is kept, an empty one clears it), and written with the
//! images it shows recorded in `card_blobs`, so the blob GC keeps them.

use crate::db::Tx;
use crate::error::HubErr;
use cowork_wire::hub::{is_sha256, CardUpdate, HubErrorName};
use sqlx::any::AnyRow;
use sqlx::Row;

/// The largest icon image (cowork.json: 256 KB).
pub const MAX_ICON_BYTES: i64 = 256 * 1024;
/// The largest banner or screenshot (cowork.json: 1 MB).
pub const MAX_PICTURE_BYTES: i64 = 1024 * 1024;

/// A store card as the store keeps it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Card {
    pub title: Option<String>,
    pub description: Option<String>,
    pub tags: Vec<String>,
    pub icon: Option<String>,
    pub banner: Option<String>,
    pub screenshots: Vec<String>,
}

/// A JSON list kept in a text column.
pub fn list<T: serde::de::DeserializeOwned>(text: Option<String>) -> Vec<T> {
    text.and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
}

fn stated(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

impl Card {
    /// The card of a `store_items` row.
    pub fn from_row(row: &AnyRow) -> Result<Card, sqlx::Error> {
        Ok(Card {
            title: row.try_get("title")?,
            description: row.try_get("description")?,
            tags: list(row.try_get("tags")?),
            icon: row.try_get("icon")?,
            banner: row.try_get("banner")?,
            screenshots: list(row.try_get("screenshots")?),
        })
    }

    /// This card with what `update` states.
    pub fn merged(&self, update: &CardUpdate) -> Card {
        let mut tags: Vec<String> = Vec::new();
        for tag in update.tags.iter().flatten().filter_map(|t| stated(t)) {
            if !tags.contains(&tag) {
                tags.push(tag);
            }
        }
        Card {
            title: update.title.as_deref().map_or_else(|| self.title.clone(), stated),
            description: update
                .description
                .as_deref()
                .map_or_else(|| self.description.clone(), stated),
            tags: if update.tags.is_some() { tags } else { self.tags.clone() },
            icon: update.icon.as_deref().map_or_else(|| self.icon.clone(), stated),
            banner: update.banner.as_deref().map_or_else(|| self.banner.clone(), stated),
            screenshots: match &update.screenshots {
                Some(list) => list.iter().filter_map(|s| stated(s)).collect(),
                None => self.screenshots.clone(),
            },
        }
    }

    /// The blobs it shows, with the largest each may be.
    fn images(&self) -> Vec<(&str, i64, &'static str)> {
        let mut images = Vec::new();
        if let Some(icon) = self.icon.as_deref().filter(|i| is_sha256(i)) {
            images.push((icon, MAX_ICON_BYTES, "icon"));
        }
        if let Some(banner) = &self.banner {
            images.push((banner.as_str(), MAX_PICTURE_BYTES, "banner"));
        }
        for shot in &self.screenshots {
            images.push((shot.as_str(), MAX_PICTURE_BYTES, "screenshot"));
        }
        images
    }
}

fn one_line(what: &str, value: &str, max: usize) -> Result<(), HubErr> {
    if value.chars().count() > max || value.chars().any(char::is_control) {
        return Err(HubErr::bad_request(format!(
            "failed to accept the {what} {:?}: at most {max} characters, one line",
            value.chars().take(60).collect::<String>()
        )));
    }
    Ok(())
}

fn is_codicon(icon: &str) -> bool {
    let id = icon.strip_prefix("$(").and_then(|i| i.strip_suffix(')')).unwrap_or(icon);
    !id.is_empty()
        && id.len() <= 64
        && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// That the fields `update` states are within the store's limits (page 12's).
pub fn check(update: &CardUpdate) -> Result<(), HubErr> {
    if let Some(title) = &update.title {
        one_line("title", title, 200)?;
    }
    if let Some(description) = &update.description {
        if description.chars().count() > 2000 {
            return Err(HubErr::bad_request(
                "failed to accept the description: at most 2,000 characters",
            ));
        }
    }
    if let Some(tags) = &update.tags {
        if tags.len() > 20 {
            return Err(HubErr::bad_request(format!(
                "failed to accept {} tags: at most 20",
                tags.len()
            )));
        }
        for tag in tags {
            one_line("tag", tag, 40)?;
        }
    }
    if let Some(icon) = update.icon.as_deref().filter(|i| !i.trim().is_empty()) {
        if !is_sha256(icon) && !is_codicon(icon) {
            return Err(HubErr::bad_request(format!(
                "failed to accept the icon {icon:?}: neither a codicon id nor an image's SHA-256"
            ))
            .hint("a codicon id such as mail, or the SHA-256 of an image uploaded to this store"));
        }
    }
    let pictures = update.banner.iter().chain(update.screenshots.iter().flatten());
    for picture in pictures.filter(|p| !p.trim().is_empty()) {
        if !is_sha256(picture) {
            return Err(HubErr::bad_request(format!(
                "failed to accept the picture {picture:?}: not an image's SHA-256"
            ))
            .hint("upload the image to the store's blobs first and name it by its SHA-256"));
        }
    }
    if update.screenshots.as_ref().is_some_and(|s| s.len() > 5) {
        return Err(HubErr::bad_request("failed to accept the screenshots: at most 5"));
    }
    Ok(())
}

/// That every image `card` shows is held by the team server and within its size.
pub async fn check_images(tx: &mut Tx, ts_id: &str, card: &Card) -> Result<(), HubErr> {
    for (sha, max, what) in card.images() {
        let size: Option<i64> = sqlx::query(
            "SELECT b.size FROM blob_refs r JOIN blobs b ON b.sha256 = r.sha256 WHERE r.team_server_id = $1 AND r.sha256 = $2",
        )
        .bind(ts_id)
        .bind(sha)
        .fetch_optional(&mut **tx)
        .await?
        .map(|row| row.try_get(0))
        .transpose()?;
        match size {
            None => {
                return Err(HubErr::new(
                    HubErrorName::MissingBlobs,
                    format!("failed to show the {what} {sha}: this store does not hold it"),
                )
                .hint("upload it (PUT blobs/<sha256>) first"))
            }
            Some(size) if size > max => {
                return Err(HubErr::new(
                    HubErrorName::TooLarge,
                    format!("failed to show the {what} {sha}: {size} bytes, at most {max}"),
                ))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Write `card` on the item `name` and record the images it shows.
pub async fn write(tx: &mut Tx, ts_id: &str, name: &str, card: &Card) -> Result<(), HubErr> {
    let json = |list: &Vec<String>| serde_json::to_string(list).unwrap_or_else(|_| "[]".into());
    sqlx::query(
        "UPDATE store_items SET title = $1, description = $2, tags = $3, icon = $4, banner = $5, screenshots = $6 \
         WHERE team_server_id = $7 AND name = $8",
    )
    .bind(card.title.clone())
    .bind(card.description.clone())
    .bind(json(&card.tags))
    .bind(card.icon.clone())
    .bind(card.banner.clone())
    .bind(json(&card.screenshots))
    .bind(ts_id)
    .bind(name)
    .execute(&mut **tx)
    .await?;
    sqlx::query("DELETE FROM card_blobs WHERE team_server_id = $1 AND name = $2")
        .bind(ts_id)
        .bind(name)
        .execute(&mut **tx)
        .await?;
    for (sha, _, _) in card.images() {
        sqlx::query("INSERT INTO card_blobs (team_server_id, name, sha256) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING")
            .bind(ts_id)
            .bind(name)
            .bind(sha)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_republish_keeps_what_it_does_not_state_and_clears_what_it_empties() {
        let card = Card {
            title: Some("Mail".into()),
            description: Some("Reads mail".into()),
            tags: vec!["mail".into()],
            icon: Some("mail".into()),
            banner: None,
            screenshots: vec!["a".repeat(64)],
        };
        let update = CardUpdate {
            description: Some(String::new()),
            tags: Some(vec!["x".into(), "x".into(), " y ".into()]),
            ..CardUpdate::default()
        };
        let merged = card.merged(&update);
        assert_eq!(merged.title.as_deref(), Some("Mail"));
        assert_eq!(merged.description, None);
        assert_eq!(merged.tags, ["x", "y"]);
        assert_eq!(merged.screenshots, card.screenshots);
        assert_eq!(card.merged(&CardUpdate::default()), card);
    }

    #[test]
    fn icons_are_codicons_or_image_hashes() {
        for good in ["mail", "$(mail)", "git-branch"] {
            assert!(check(&CardUpdate { icon: Some(good.into()), ..CardUpdate::default() }).is_ok());
        }
        for bad in ["https://x/icon.png", "Mail", "$(mail"] {
            assert!(check(&CardUpdate { icon: Some(bad.into()), ..CardUpdate::default() }).is_err());
        }
    }
}
