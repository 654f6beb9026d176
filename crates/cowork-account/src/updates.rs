//! The updates poll: one cheap request per machine (`GET /api/updates?since=<cursor>`, a 304
//! when nothing changed) that lists every team server the account belongs to. What the hub no
//! longer lists was left or removed: this machine drops it (`team-servers.json`), and whatever
//! follows a team server here (issue 42's installs and courses) reads that file.

use crate::error::AccountError;
use crate::files::{now_millis, TeamServersFile};
use crate::session::Session;
use cowork_wire::hub::TeamServerState;

/// What one poll found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Polled {
    /// Whether the hub had anything new (false: a 304).
    pub changed: bool,
    /// Team servers this account belongs to now.
    pub team_servers: Vec<TeamServerState>,
    /// Team servers it joined (or was added to) since the last poll.
    pub added: Vec<TeamServerState>,
    /// Team servers it left (or was removed from) since the last poll: dropped here.
    pub dropped: Vec<TeamServerState>,
    /// Team servers whose members, store or courses moved since the last poll.
    pub moved: Vec<TeamServerState>,
}

/// Polls the hub once for the signed-in account; `None` when nobody is signed in.
pub async fn poll(session: &Session) -> Result<Option<Polled>, AccountError> {
    let Some(signed_in) = session.signed_in()? else { return Ok(None) };
    let files = session.files();
    let before = files
        .team_servers(&signed_in.user.uid)?
        .filter(|file| file.hub == signed_in.hub)
        .unwrap_or_else(|| TeamServersFile {
            uid: signed_in.user.uid.clone(),
            hub: signed_in.hub.clone(),
            ..TeamServersFile::default()
        });
    let since = before.cursor.clone();
    let answer = session.call(|client| {
        let since = since.clone();
        async move { client.updates(since.as_deref()).await }
    });
    let answer = answer.await?;
    let mut after = before.clone();
    after.polled_at = Some(now_millis());
    let polled = match answer {
        None => Polled { team_servers: before.team_servers.clone(), ..Polled::default() },
        Some(updates) => {
            after.cursor = Some(updates.cursor);
            after.team_servers = updates.team_servers;
            diff(&before.team_servers, &after.team_servers)
        }
    };
    files.write_team_servers(&after)?;
    Ok(Some(polled))
}

/// What changed between two listings.
fn diff(before: &[TeamServerState], after: &[TeamServerState]) -> Polled {
    let find = |list: &[TeamServerState], slug: &str| list.iter().find(|t| t.slug == slug).cloned();
    Polled {
        changed: true,
        team_servers: after.to_vec(),
        added: after.iter().filter(|t| find(before, &t.slug).is_none()).cloned().collect(),
        dropped: before.iter().filter(|t| find(after, &t.slug).is_none()).cloned().collect(),
        moved: after
            .iter()
            .filter(|t| {
                find(before, &t.slug).is_some_and(|b| {
                    b.rev != t.rev || b.store_rev != t.store_rev || b.role != t.role
                })
            })
            .cloned()
            .collect(),
    }
}

/// The team servers the last poll listed for the signed-in account (no network).
pub fn known(session: &Session) -> Result<Vec<TeamServerState>, AccountError> {
    let Some(signed_in) = session.signed_in()? else { return Ok(Vec::new()) };
    Ok(session
        .files()
        .team_servers(&signed_in.user.uid)?
        .filter(|file| file.hub == signed_in.hub)
        .map(|file| file.team_servers)
        .unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cowork_wire::hub::Role;

    fn ts(slug: &str, rev: i64) -> TeamServerState {
        TeamServerState {
            slug: slug.into(),
            name: slug.into(),
            role: Role::Member,
            rev,
            store_rev: 0,
        }
    }

    #[test]
    fn a_server_no_longer_listed_is_dropped() {
        let polled = diff(&[ts("a", 1), ts("b", 1)], &[ts("b", 2), ts("c", 1)]);
        let slugs =
            |list: &[TeamServerState]| list.iter().map(|t| t.slug.clone()).collect::<Vec<_>>();
        assert_eq!(slugs(&polled.dropped), ["a"]);
        assert_eq!(slugs(&polled.added), ["c"]);
        assert_eq!(slugs(&polled.moved), ["b"]);
    }
}
