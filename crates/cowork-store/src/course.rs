//! A course as files (page 11): `.cowork/courses/<name>/course.md` and the lessons its `lessons:`
//! line lists, each `.cowork/lessons/<id>/lesson.md` plus the pictures it shows. [`read`] checks
//! every rule and names the file of each problem; published, the course is one folder — each
//! lesson travels as `NN-<id>/` beside `course.md` (NN = its place).

use crate::pack::{self, Scope};
use cowork_wire::hub::{is_item_name, ManifestFile, MAX_COURSE_BYTES};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// At most this many lessons.
pub const MAX_LESSONS: usize = 40;
/// The description's limit, in characters.
pub const MAX_DESCRIPTION: usize = 2000;
/// The picture files a lesson may show.
pub const PICTURES: [&str; 6] = ["png", "jpg", "jpeg", "gif", "webp", "svg"];

/// One problem, with the file it is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Workspace-relative.
    pub file: String,
    /// What is wrong, in words.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

/// One lesson of a course.
#[derive(Debug, Clone)]
pub struct Lesson {
    /// Its id (the folder name without `NN-`): what progress is kept by.
    pub id: String,
    /// Its title.
    pub title: String,
    /// How long it takes, in minutes, when the lesson says.
    pub minutes: Option<u64>,
    /// The video link (YouTube, Vimeo or Loom), when it has one.
    pub video: Option<String>,
    /// Its folder on disk.
    pub dir: PathBuf,
}

/// A checked course and its published files.
#[derive(Debug, Clone)]
pub struct Course {
    /// The course's name (its folder's).
    pub name: String,
    /// Its title.
    pub title: String,
    /// Its level, as the author put it.
    pub level: Option<String>,
    /// The lessons, in order.
    pub lessons: Vec<Lesson>,
    /// (published path, file on disk), with sizes and hashes.
    pub files: Vec<(ManifestFile, PathBuf)>,
}

impl Course {
    /// A course of which only the folder's name is known.
    fn empty(name: String) -> Course {
        Course { name, title: String::new(), level: None, lessons: Vec::new(), files: Vec::new() }
    }

    /// The outline `publish --dry-run` prints.
    pub fn outline(&self) -> String {
        let mut text = format!(
            "{} ({}{} lesson{})",
            self.title,
            self.level.as_deref().map(|l| format!("{l}, ")).unwrap_or_default(),
            self.lessons.len(),
            if self.lessons.len() == 1 { "" } else { "s" }
        );
        for (i, lesson) in self.lessons.iter().enumerate() {
            text.push_str(&format!("\n  {:02} {} — {}", i + 1, lesson.id, lesson.title));
            if let Some(minutes) = lesson.minutes {
                text.push_str(&format!(" ({minutes} min)"));
            }
            if lesson.video.is_some() {
                text.push_str(" · video");
            }
        }
        text
    }
}

/// `key: value` front matter between `---` lines, and the body after it.
pub(crate) fn front_matter(text: &str) -> Option<(Vec<(String, String)>, String)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines();
    if lines.next()?.trim() != "---" {
        return None;
    }
    let mut fields = Vec::new();
    let mut consumed = 4usize;
    for line in lines.by_ref() {
        consumed += line.len() + 1;
        if line.trim() == "---" {
            let body = text.get(consumed.min(text.len())..).unwrap_or_default().to_string();
            return Some((fields, body));
        }
        if let Some((key, value)) = line.split_once(':') {
            let value = value.trim().trim_matches(|c| c == '"' || c == '\'').to_string();
            fields.push((key.trim().to_string(), value));
        }
    }
    None
}

pub(crate) fn field<'a>(fields: &'a [(String, String)], key: &str) -> Option<&'a str> {
    fields.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str()).filter(|v| !v.is_empty())
}

/// Whether a video link is YouTube, Vimeo or Loom.
fn video_ok(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("https://") else { return false };
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = host.strip_prefix("www.").unwrap_or(host);
    matches!(
        host,
        "youtube.com"
            | "m.youtube.com"
            | "youtu.be"
            | "vimeo.com"
            | "player.vimeo.com"
            | "loom.com"
    )
}

/// The `(alt)(target)` of every markdown link and image in `body`, with whether it is an image.
fn links(body: &str) -> Vec<(bool, String)> {
    let mut found = Vec::new();
    let bytes = body.as_bytes();
    let mut i = 0;
    while let Some(at) = body[i..].find("](") {
        let start = i + at + 2;
        let image =
            body[..i + at].rfind('[').is_some_and(|open| open > 0 && bytes[open - 1] == b'!');
        let end = body[start..].find(')').map(|e| start + e).unwrap_or(body.len());
        let target = body[start..end].split_whitespace().next().unwrap_or_default().to_string();
        found.push((image, target));
        i = end.min(body.len());
        if i >= body.len() {
            break;
        }
    }
    found
}

/// Reads and checks the course at `dir` (`.cowork/courses/<name>`) of `workspace`.
pub fn read(workspace: &Path, dir: &Path) -> Result<Course, Vec<Problem>> {
    let (course, problems) = examine(workspace, dir);
    if problems.is_empty() {
        Ok(course)
    } else {
        Err(problems)
    }
}

/// What [`read`] could make of a course, with every problem it found: Manage Workspace lists a
/// broken course too (its title and the lessons that read), its problems beside it.
fn examine(workspace: &Path, dir: &Path) -> (Course, Vec<Problem>) {
    let mut problems = Vec::new();
    let rel = |p: &Path| p.strip_prefix(workspace).unwrap_or(p).display().to_string();
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    let course_md = dir.join("course.md");
    let problem = |problems: &mut Vec<Problem>, file: &Path, message: String| {
        problems.push(Problem { file: rel(file), message })
    };
    if !is_item_name(&name) {
        problem(
            &mut problems,
            dir,
            "the folder name is the course's store name: lowercase letters, digits and -".into(),
        );
    }
    let text = match std::fs::read_to_string(&course_md) {
        Ok(text) => text,
        Err(e) => {
            problem(&mut problems, &course_md, format!("failed to read it ({e})"));
            return (Course::empty(name), problems);
        }
    };
    let Some((fields, body)) = front_matter(&text) else {
        problem(
            &mut problems,
            &course_md,
            "it needs front matter between --- lines (title, level, lessons)".into(),
        );
        return (Course::empty(name), problems);
    };
    let title = field(&fields, "title").unwrap_or_default().to_string();
    if title.is_empty() {
        problem(&mut problems, &course_md, "`title` is required".into());
    }
    let level = field(&fields, "level").map(str::to_owned);
    if let Some(level) = &level {
        if !matches!(level.as_str(), "Beginner" | "Intermediate" | "Advanced") {
            problem(
                &mut problems,
                &course_md,
                format!("`level` is Beginner, Intermediate or Advanced, not {level:?}"),
            );
        }
    }
    if body.trim().chars().count() > MAX_DESCRIPTION {
        problem(
            &mut problems,
            &course_md,
            format!("the description is over {MAX_DESCRIPTION} characters"),
        );
    }
    let ids: Vec<String> = field(&fields, "lessons")
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if ids.is_empty() {
        problem(
            &mut problems,
            &course_md,
            "`lessons:` lists no lesson (ids, comma-separated, in order)".into(),
        );
    }
    if ids.len() > MAX_LESSONS {
        problem(&mut problems, &course_md, format!("{} lessons: at most {MAX_LESSONS}", ids.len()));
    }
    let mut seen = BTreeSet::new();
    let lessons_dir = workspace.join(".cowork").join("lessons");
    let mut lessons = Vec::new();
    let mut files = Vec::new();
    let course_entry = |path: &Path, published: String| -> Option<(ManifestFile, PathBuf)> {
        let (size, sha256) = pack::hash_file(path).ok()?;
        Some((ManifestFile { path: published, size, sha256 }, path.to_path_buf()))
    };
    if let Some(entry) = course_entry(&course_md, "course.md".into()) {
        files.push(entry);
    }
    // A course folder's own `NN-<id>/` lesson folders.
    let own: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let (nn, id) = name.split_once('-')?;
            (nn.len() == 2 && nn.bytes().all(|b| b.is_ascii_digit()))
                .then(|| (id.to_string(), e.path()))
        })
        .collect();
    for (id, _) in &own {
        if !ids.contains(id) {
            problem(
                &mut problems,
                dir,
                format!("its lesson folder for {id:?} is not on the `lessons:` line"),
            );
        }
    }
    for (place, id) in ids.iter().enumerate() {
        if !is_item_name(id) {
            problem(
                &mut problems,
                &course_md,
                format!("{id:?} is not a lesson id (lowercase letters, digits and -)"),
            );
            continue;
        }
        if !seen.insert(id.clone()) {
            problem(&mut problems, &course_md, format!("{id:?} is listed twice"));
            continue;
        }
        let lesson_dir = own
            .iter()
            .find(|(own_id, _)| own_id == id)
            .map(|(_, p)| p.clone())
            .unwrap_or_else(|| lessons_dir.join(id));
        let lesson_md = lesson_dir.join("lesson.md");
        let Ok(text) = std::fs::read_to_string(&lesson_md) else {
            problem(
                &mut problems,
                &lesson_md,
                format!("the lesson {id:?} on the `lessons:` line has no lesson.md"),
            );
            continue;
        };
        let Some((fields, body)) = front_matter(&text) else {
            problem(
                &mut problems,
                &lesson_md,
                "it needs front matter between --- lines (title, minutes, video)".into(),
            );
            continue;
        };
        let title = field(&fields, "title").unwrap_or_default().to_string();
        if title.is_empty() {
            problem(&mut problems, &lesson_md, "`title` is required".into());
        }
        let minutes = match field(&fields, "minutes") {
            None => None,
            Some(m) => match m.parse::<u64>() {
                Ok(m) => Some(m),
                Err(_) => {
                    problem(
                        &mut problems,
                        &lesson_md,
                        format!("`minutes` is a whole number, not {m:?}"),
                    );
                    None
                }
            },
        };
        let video = field(&fields, "video").map(str::to_owned);
        if let Some(video) = &video {
            if !video_ok(video) {
                problem(
                    &mut problems,
                    &lesson_md,
                    format!("`video` is a YouTube, Vimeo or Loom link, not {video:?}"),
                );
            }
        }
        let lower = body.to_ascii_lowercase();
        if lower.contains("<script") || lower.contains("<iframe") {
            problem(
                &mut problems,
                &lesson_md,
                "no scripts, no iframes: the Academy shows markdown only".into(),
            );
        }
        for (image, target) in links(&body) {
            if target.starts_with("https://") || (!image && target.starts_with('#')) {
                continue;
            }
            if !image {
                problem(&mut problems, &lesson_md, format!("the link {target:?} can't open from the Academy: use an https:// page or a #heading"));
                continue;
            }
            let ext = target.rsplit('.').next().unwrap_or_default().to_ascii_lowercase();
            if target.split('/').any(|s| s == "..")
                || target.starts_with('/')
                || !PICTURES.contains(&ext.as_str())
            {
                problem(&mut problems, &lesson_md, format!("the picture {target:?} must be a .png .jpg .jpeg .gif .webp or .svg file in the lesson's own folder"));
            } else if !lesson_dir.join(&target).is_file() {
                problem(&mut problems, &lesson_md, format!("the picture {target:?} is not there"));
            }
        }
        let prefix = format!("{:02}-{id}", place + 1);
        match pack::walk(&lesson_dir, Scope::default()) {
            Ok((walked, _)) => {
                for (path, _) in walked {
                    if let Some(entry) =
                        course_entry(&lesson_dir.join(&path), format!("{prefix}/{path}"))
                    {
                        files.push(entry);
                    }
                }
            }
            Err(e) => problem(&mut problems, &lesson_dir, e.to_string()),
        }
        lessons.push(Lesson { id: id.clone(), title, minutes, video, dir: lesson_dir });
    }
    if let Ok(assets) = std::fs::metadata(dir.join("assets.json")) {
        if assets.is_file() {
            if let Some(entry) = course_entry(&dir.join("assets.json"), "assets.json".into()) {
                files.push(entry);
            }
        }
    }
    let total: u64 = files.iter().map(|(f, _)| f.size).sum();
    if total > MAX_COURSE_BYTES {
        problem(
            &mut problems,
            dir,
            format!(
                "{total} bytes in all: a course is at most 25 MB (keep video out of it — link it)"
            ),
        );
    }
    files.sort_by(|a, b| a.0.path.cmp(&b.0.path));
    (Course { name, title, level, lessons, files }, problems)
}

/// One course folder of a workspace as Manage Workspace lists it.
#[derive(Debug, Clone)]
pub struct Listed {
    /// What could be read (a course whose `course.md` did not read has no title or lessons).
    pub course: Course,
    /// Its problems, each with its file; empty when it publishes as it is.
    pub problems: Vec<Problem>,
}

/// The workspace's courses (`.cowork/courses/*/`, by name) and the lessons of
/// `.cowork/lessons/*/` no course lists (by id, with the title their front matter gives).
/// Symbolic links are not followed: a listing never reads outside the workspace's folders.
pub fn list(workspace: &Path) -> (Vec<Listed>, Vec<Lesson>) {
    let courses: Vec<Listed> = subfolders(&workspace.join(".cowork").join("courses"))
        .iter()
        .map(|dir| {
            let (course, problems) = examine(workspace, dir);
            Listed { course, problems }
        })
        .collect();
    let listed: BTreeSet<&str> =
        courses.iter().flat_map(|c| c.course.lessons.iter().map(|l| l.id.as_str())).collect();
    let loose = subfolders(&workspace.join(".cowork").join("lessons"))
        .into_iter()
        .filter_map(|dir| {
            let id = dir.file_name()?.to_str()?.to_string();
            if listed.contains(id.as_str()) {
                return None;
            }
            let text = std::fs::read_to_string(dir.join("lesson.md")).unwrap_or_default();
            let fields = front_matter(&text).map(|(fields, _)| fields).unwrap_or_default();
            Some(Lesson {
                id,
                title: field(&fields, "title").unwrap_or_default().to_string(),
                minutes: field(&fields, "minutes").and_then(|m| m.parse().ok()),
                video: field(&fields, "video").map(str::to_owned),
                dir,
            })
        })
        .collect();
    (courses, loose)
}

/// The folders in `dir` (not hidden, not links), sorted.
fn subfolders(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs
}

/// Every course of `workspace` checked, its problems as the workspace's problems (Manage
/// Workspace's list, `cowork app list`): a broken course shows before anyone tries to publish it.
/// A lesson no course lists is only checked when a course lists it. Computed here, not in core's
/// registry, because the rules are the store's and cowork-core cannot depend on cowork-store.
pub fn problems(workspace: &Path) -> Vec<cowork_core::schema::Problem> {
    subfolders(&workspace.join(".cowork").join("courses"))
        .iter()
        .filter_map(|dir| read(workspace, dir).err())
        .flatten()
        .map(|p| cowork_core::schema::Problem::new(p.file, None, p.message))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_course_publishes_its_lessons_in_order_as_numbered_folders() {
        let ws = tempfile::tempdir().unwrap();
        let w = ws.path();
        write(w, ".cowork/courses/onboarding/course.md", "---\ntitle: Sales Onboarding\nlevel: Beginner\nlessons: welcome, first-steps\n---\nEverything a new rep needs.\n");
        write(w, ".cowork/lessons/welcome/lesson.md", "---\ntitle: Welcome\nminutes: 5\nvideo: https://www.youtube.com/watch?v=M7lc1UVf-VE\n---\n## Hi\n![Home](home.png) and [the guide](https://example.com) and [up](#hi)\n");
        write(w, ".cowork/lessons/welcome/home.png", "png");
        write(
            w,
            ".cowork/lessons/first-steps/lesson.md",
            "---\ntitle: First steps\n---\n![Editor](shots/editor.webp)\n",
        );
        write(w, ".cowork/lessons/first-steps/shots/editor.webp", "webp");
        let course = read(w, &w.join(".cowork/courses/onboarding")).unwrap();
        let paths: Vec<&str> = course.files.iter().map(|(f, _)| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "01-welcome/home.png",
                "01-welcome/lesson.md",
                "02-first-steps/lesson.md",
                "02-first-steps/shots/editor.webp",
                "course.md"
            ]
        );
        assert!(
            course.outline().starts_with("Sales Onboarding (Beginner, 2 lessons)"),
            "{}",
            course.outline()
        );
    }

    #[test]
    fn every_broken_rule_is_named_with_its_file() {
        let ws = tempfile::tempdir().unwrap();
        let w = ws.path();
        write(
            w,
            ".cowork/courses/c/course.md",
            "---\nlevel: Expert\nlessons: a, a, missing\n---\n",
        );
        write(w, ".cowork/lessons/a/lesson.md", "---\ntitle: A\nminutes: five\nvideo: https://example.com/v\n---\n![x](../b/x.png) [rel](other.md) <iframe src=x>\n");
        let problems = read(w, &w.join(".cowork/courses/c")).unwrap_err();
        let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
        let has = |needle: &str| text.iter().any(|t| t.contains(needle));
        assert!(has(".cowork/courses/c/course.md: `title` is required"), "{text:#?}");
        assert!(has("`level` is Beginner"), "{text:#?}");
        assert!(has("\"a\" is listed twice"), "{text:#?}");
        assert!(has("\"missing\" on the `lessons:` line has no lesson.md"), "{text:#?}");
        assert!(has(".cowork/lessons/a/lesson.md: `minutes` is a whole number"), "{text:#?}");
        assert!(has("`video` is a YouTube, Vimeo or Loom link"), "{text:#?}");
        assert!(has("no scripts, no iframes"), "{text:#?}");
        assert!(has("the picture \"../b/x.png\""), "{text:#?}");
        assert!(has("the link \"other.md\""), "{text:#?}");
    }

    /// A rule, the files that break it, the start of the problem line.
    type Case = (&'static str, Vec<(&'static str, String)>, &'static str);

    /// One broken rule per workspace, each reported as a workspace problem naming its file.
    #[test]
    fn each_rule_is_a_workspace_problem_naming_its_file() {
        const GOOD_LESSON: &str = "---\ntitle: A\n---\nHi.\n";
        let course = |lessons: &str| format!("---\ntitle: C\nlessons: {lessons}\n---\nAbout.\n");
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            ("a folder name that is no store name",
             vec![(".cowork/courses/Bad_Name/course.md", course("a")), (".cowork/lessons/a/lesson.md", GOOD_LESSON.into())],
             ".cowork/courses/Bad_Name: the folder name is the course's store name: lowercase letters, digits and -"),
            ("no course.md",
             vec![(".cowork/courses/c/notes.txt", "x".into())],
             ".cowork/courses/c/course.md: failed to read it"),
            ("no front matter",
             vec![(".cowork/courses/c/course.md", "Just text.\n".into())],
             ".cowork/courses/c/course.md: it needs front matter between --- lines (title, level, lessons)"),
            ("no title",
             vec![(".cowork/courses/c/course.md", "---\nlessons: a\n---\n".into()), (".cowork/lessons/a/lesson.md", GOOD_LESSON.into())],
             ".cowork/courses/c/course.md: `title` is required"),
            ("an unknown level",
             vec![(".cowork/courses/c/course.md", "---\ntitle: C\nlevel: Expert\nlessons: a\n---\n".into()), (".cowork/lessons/a/lesson.md", GOOD_LESSON.into())],
             ".cowork/courses/c/course.md: `level` is Beginner, Intermediate or Advanced, not \"Expert\""),
            ("a description over 2000 characters",
             vec![(".cowork/courses/c/course.md", format!("---\ntitle: C\nlessons: a\n---\n{}\n", "x".repeat(2001))), (".cowork/lessons/a/lesson.md", GOOD_LESSON.into())],
             ".cowork/courses/c/course.md: the description is over 2000 characters"),
            ("no lessons",
             vec![(".cowork/courses/c/course.md", "---\ntitle: C\n---\n".into())],
             ".cowork/courses/c/course.md: `lessons:` lists no lesson (ids, comma-separated, in order)"),
            ("over 40 lessons",
             vec![(".cowork/courses/c/course.md", course(&(0..41).map(|i| format!("l{i}")).collect::<Vec<_>>().join(", ")))],
             ".cowork/courses/c/course.md: 41 lessons: at most 40"),
            ("a bad lesson id",
             vec![(".cowork/courses/c/course.md", course("Bad_Id"))],
             ".cowork/courses/c/course.md: \"Bad_Id\" is not a lesson id (lowercase letters, digits and -)"),
            ("an id listed twice",
             vec![(".cowork/courses/c/course.md", course("a, a")), (".cowork/lessons/a/lesson.md", GOOD_LESSON.into())],
             ".cowork/courses/c/course.md: \"a\" is listed twice"),
            ("a lesson with no lesson.md",
             vec![(".cowork/courses/c/course.md", course("gone"))],
             ".cowork/lessons/gone/lesson.md: the lesson \"gone\" on the `lessons:` line has no lesson.md"),
            ("an own lesson folder not on the line",
             vec![(".cowork/courses/c/course.md", course("a")), (".cowork/lessons/a/lesson.md", GOOD_LESSON.into()), (".cowork/courses/c/02-extra/lesson.md", GOOD_LESSON.into())],
             ".cowork/courses/c: its lesson folder for \"extra\" is not on the `lessons:` line"),
            ("a lesson with no front matter",
             vec![(".cowork/courses/c/course.md", course("a")), (".cowork/lessons/a/lesson.md", "Hi.\n".into())],
             ".cowork/lessons/a/lesson.md: it needs front matter between --- lines (title, minutes, video)"),
            ("a lesson with no title",
             vec![(".cowork/courses/c/course.md", course("a")), (".cowork/lessons/a/lesson.md", "---\nminutes: 3\n---\n".into())],
             ".cowork/lessons/a/lesson.md: `title` is required"),
            ("minutes that are no whole number",
             vec![(".cowork/courses/c/course.md", course("a")), (".cowork/lessons/a/lesson.md", "---\ntitle: A\nminutes: five\n---\n".into())],
             ".cowork/lessons/a/lesson.md: `minutes` is a whole number, not \"five\""),
            ("a video off YouTube, Vimeo and Loom",
             vec![(".cowork/courses/c/course.md", course("a")), (".cowork/lessons/a/lesson.md", "---\ntitle: A\nvideo: https://example.com/v\n---\n".into())],
             ".cowork/lessons/a/lesson.md: `video` is a YouTube, Vimeo or Loom link, not \"https://example.com/v\""),
            ("a script",
             vec![(".cowork/courses/c/course.md", course("a")), (".cowork/lessons/a/lesson.md", "---\ntitle: A\n---\n<script>x()</script>\n".into())],
             ".cowork/lessons/a/lesson.md: no scripts, no iframes: the Academy shows markdown only"),
            ("a relative link",
             vec![(".cowork/courses/c/course.md", course("a")), (".cowork/lessons/a/lesson.md", "---\ntitle: A\n---\n[more](other.md)\n".into())],
             ".cowork/lessons/a/lesson.md: the link \"other.md\" can't open from the Academy: use an https:// page or a #heading"),
            ("a picture from another lesson",
             vec![(".cowork/courses/c/course.md", course("a")), (".cowork/lessons/a/lesson.md", "---\ntitle: A\n---\n![x](../b/x.png)\n".into())],
             ".cowork/lessons/a/lesson.md: the picture \"../b/x.png\" must be a .png .jpg .jpeg .gif .webp or .svg file in the lesson's own folder"),
            ("a picture that is not there",
             vec![(".cowork/courses/c/course.md", course("a")), (".cowork/lessons/a/lesson.md", "---\ntitle: A\n---\n![x](home.png)\n".into())],
             ".cowork/lessons/a/lesson.md: the picture \"home.png\" is not there"),
        ];
        for (rule, files, expected) in cases {
            let ws = tempfile::tempdir().unwrap();
            for (rel, text) in &files {
                write(ws.path(), rel, text);
            }
            let lines: Vec<String> = problems(ws.path()).iter().map(ToString::to_string).collect();
            assert!(
                lines.iter().any(|l| l.starts_with(expected)),
                "{rule}: expected {expected:?} in {lines:#?}"
            );
        }
        // A good course, and no courses at all, are no problem.
        let ws = tempfile::tempdir().unwrap();
        assert!(problems(ws.path()).is_empty());
        write(ws.path(), ".cowork/courses/c/course.md", &course("a"));
        write(ws.path(), ".cowork/lessons/a/lesson.md", GOOD_LESSON);
        assert_eq!(problems(ws.path()), Vec::new());
    }
}
