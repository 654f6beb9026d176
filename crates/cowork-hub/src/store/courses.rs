//! Course subscriptions and progress, kept on the hub per account: a person's Academy reads the
//! same progress on every machine. Both are keyed by the course's name and each lesson's id (its
//! folder name), not by the store item's row or a lesson's place, so a course unpublished and
//! published again under the same name comes back with its subscriptions and progress, and
//! reordering its lessons loses nobody's progress (page 11). Subscribing stamps the account, so its
//! other machines hear of it at their next updates poll.

use super::check_name;
use crate::accounts::UserRow;
use crate::db::{next_rev, now_ms, Db};
use crate::error::HubErr;
use crate::teams::{self, Access};
use cowork_wire::hub::{CourseProgress, HubErrorName, LessonDone, Subscription, Subscriptions};
use sqlx::any::AnyRow;
use sqlx::Row;

fn subscription_from(row: &AnyRow) -> Result<Subscription, sqlx::Error> {
    let live = row.try_get::<Option<i64>, _>("unpublished_at")?.is_none()
        && row.try_get::<Option<String>, _>("kind")?.as_deref() == Some("course");
    Ok(Subscription {
        team_server: row.try_get("slug")?,
        course: row.try_get("course")?,
        subscribed_at: row.try_get("subscribed_at")?,
        version: if live { row.try_get("latest_version")? } else { None },
        title: row.try_get("title")?,
        lessons_done: u64::try_from(row.try_get::<i64, _>("done")?).unwrap_or(0),
    })
}

const SUBSCRIPTION_SELECT: &str = "SELECT t.slug, s.course, s.subscribed_at, i.latest_version, i.title, i.kind, i.unpublished_at, \
     (SELECT COUNT(*) FROM course_progress p WHERE p.team_server_id = s.team_server_id AND p.course = s.course AND p.user_id = s.user_id) AS done \
     FROM course_subscriptions s \
     JOIN team_servers t ON t.id = s.team_server_id \
     JOIN members m ON m.team_server_id = s.team_server_id AND m.user_id = s.user_id \
     LEFT JOIN store_items i ON i.team_server_id = s.team_server_id AND i.name = s.course";

/// A member's access to the course `course` of `slug`, its name checked.
async fn member(db: &Db, user: &UserRow, slug: &str, course: &str) -> Result<Access, HubErr> {
    check_name("a course", course)?;
    let access = teams::access(db, slug, user).await?;
    access.require_member()?;
    Ok(access)
}

/// Stamp the account, so its machines' next updates poll lists its subscriptions again.
async fn stamp_account(
    db: &Db,
    user: &UserRow,
) -> Result<sqlx::Transaction<'static, sqlx::Any>, HubErr> {
    let mut tx = db.begin().await?;
    let rev = next_rev(&mut tx).await?;
    sqlx::query("UPDATE users SET rev = $1 WHERE id = $2")
        .bind(rev)
        .bind(&user.id)
        .execute(&mut *tx)
        .await?;
    Ok(tx)
}

/// `PUT courses/{course}/subscription` (members): the course must be published.
pub async fn subscribe(
    db: &Db,
    user: &UserRow,
    slug: &str,
    course: &str,
) -> Result<Subscription, HubErr> {
    let access = member(db, user, slug, course).await?;
    let published = sqlx::query(
        "SELECT 1 FROM store_items WHERE team_server_id = $1 AND name = $2 AND kind = 'course' AND unpublished_at IS NULL",
    )
    .bind(&access.ts.id)
    .bind(course)
    .fetch_optional(db.pool())
    .await?
    .is_some();
    if !published {
        return Err(HubErr::not_found(format!(
            "failed to find the course {course:?} in the store of {slug:?}"
        ))
        .hint(format!("see its courses: cowork team-server store {slug}")));
    }
    let mut tx = stamp_account(db, user).await?;
    sqlx::query(
        "INSERT INTO course_subscriptions (team_server_id, course, user_id, subscribed_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
    )
    .bind(&access.ts.id)
    .bind(course)
    .bind(&user.id)
    .bind(now_ms())
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    let sql = format!(
        "{SUBSCRIPTION_SELECT} WHERE s.team_server_id = $1 AND s.course = $2 AND s.user_id = $3"
    );
    let row = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(&access.ts.id)
        .bind(course)
        .bind(&user.id)
        .fetch_one(db.pool())
        .await?;
    Ok(subscription_from(&row)?)
}

/// `DELETE courses/{course}/subscription` (members). The progress stays, for a later return.
pub async fn unsubscribe(db: &Db, user: &UserRow, slug: &str, course: &str) -> Result<(), HubErr> {
    let access = member(db, user, slug, course).await?;
    let mut tx = stamp_account(db, user).await?;
    let done = sqlx::query(
        "DELETE FROM course_subscriptions WHERE team_server_id = $1 AND course = $2 AND user_id = $3",
    )
    .bind(&access.ts.id)
    .bind(course)
    .bind(&user.id)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() == 0 {
        tx.rollback().await?;
        return Err(HubErr::not_found(format!(
            "failed to unsubscribe from {course:?}: you are not subscribed to it in {slug:?}"
        )));
    }
    tx.commit().await?;
    Ok(())
}

/// `GET /api/subscriptions`: the account's, in the team servers it still belongs to.
pub async fn subscriptions(db: &Db, user: &UserRow) -> Result<Subscriptions, HubErr> {
    let sql = format!("{SUBSCRIPTION_SELECT} WHERE s.user_id = $1 ORDER BY t.slug, s.course");
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(&user.id).fetch_all(db.pool()).await?;
    let subscriptions = rows.iter().map(subscription_from).collect::<Result<_, _>>()?;
    Ok(Subscriptions { subscriptions })
}

async fn read_progress(
    db: &Db,
    user: &UserRow,
    access: &Access,
    course: &str,
) -> Result<CourseProgress, HubErr> {
    let subscribed = sqlx::query(
        "SELECT 1 FROM course_subscriptions WHERE team_server_id = $1 AND course = $2 AND user_id = $3",
    )
    .bind(&access.ts.id)
    .bind(course)
    .bind(&user.id)
    .fetch_optional(db.pool())
    .await?
    .is_some();
    let rows = sqlx::query(
        "SELECT lesson, done_at FROM course_progress WHERE team_server_id = $1 AND course = $2 AND user_id = $3 ORDER BY done_at, lesson",
    )
    .bind(&access.ts.id)
    .bind(course)
    .bind(&user.id)
    .fetch_all(db.pool())
    .await?;
    let lessons = rows
        .iter()
        .map(|row| {
            Ok(LessonDone { lesson: row.try_get("lesson")?, done_at: row.try_get("done_at")? })
        })
        .collect::<Result<_, sqlx::Error>>()?;
    Ok(CourseProgress {
        team_server: access.ts.slug.clone(),
        course: course.to_string(),
        subscribed,
        lessons,
    })
}

/// `GET courses/{course}/progress` (members): the caller's own.
pub async fn progress(
    db: &Db,
    user: &UserRow,
    slug: &str,
    course: &str,
) -> Result<CourseProgress, HubErr> {
    let access = member(db, user, slug, course).await?;
    read_progress(db, user, &access, course).await
}

/// `PUT courses/{course}/progress/{lesson}` (a subscriber): mark a lesson done or not done.
pub async fn set_lesson(
    db: &Db,
    user: &UserRow,
    slug: &str,
    course: &str,
    lesson: &str,
    done: bool,
) -> Result<CourseProgress, HubErr> {
    let access = member(db, user, slug, course).await?;
    let shaped = !lesson.is_empty()
        && lesson.len() <= 63
        && lesson.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if !shaped {
        return Err(HubErr::bad_request(format!("failed to read {lesson:?} as a lesson's id"))
            .hint("a lesson's id is its folder name: lowercase letters, digits and -"));
    }
    let mut tx = db.begin().await?;
    let subscribed = sqlx::query(
        "SELECT 1 FROM course_subscriptions WHERE team_server_id = $1 AND course = $2 AND user_id = $3",
    )
    .bind(&access.ts.id)
    .bind(course)
    .bind(&user.id)
    .fetch_optional(&mut *tx)
    .await?
    .is_some();
    if !subscribed {
        return Err(HubErr::new(
            HubErrorName::Conflict,
            format!("failed to record progress in {course:?}: you are not subscribed to it"),
        )
        .hint("subscribe first (the team server's page → Subscribe)"));
    }
    if done {
        sqlx::query(
            "INSERT INTO course_progress (team_server_id, course, user_id, lesson, done_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
        )
        .bind(&access.ts.id)
        .bind(course)
        .bind(&user.id)
        .bind(lesson)
        .bind(now_ms())
        .execute(&mut *tx)
        .await?;
    } else {
        sqlx::query(
            "DELETE FROM course_progress WHERE team_server_id = $1 AND course = $2 AND user_id = $3 AND lesson = $4",
        )
        .bind(&access.ts.id)
        .bind(course)
        .bind(&user.id)
        .bind(lesson)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    read_progress(db, user, &access, course).await
}
