//! Plain aligned columns for terminal listings (no colours: the output is also read by agents).

/// Prints `rows` under `headers`, each column as wide as its widest cell; the last column is not
/// padded, so long descriptions do not leave trailing spaces.
pub fn print(headers: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let last = cells.len() - 1;
        let text: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| if i == last { c.to_string() } else { format!("{c:<w$}", w = widths[i]) })
            .collect();
        outln!("{}", text.join("  ").trim_end());
    };
    line(headers.to_vec());
    for row in rows {
        line(row.iter().map(String::as_str).collect());
    }
}

/// Like [`print`], but on a terminal the cells of column `long` (a description) are cut with "…"
/// so each line fits the terminal's width — the other columns are what a person scans. Piped
/// output (an agent, a file, `grep`) keeps every word, as `--json` does.
pub fn print_fitted(headers: &[&str], rows: Vec<Vec<String>>, long: usize) {
    let width = terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| w.0 as usize);
    let rows = match width {
        Some(width) => fit(headers, rows, long, width),
        None => rows,
    };
    print(headers, &rows);
}

/// `rows` with column `long`'s cells cut to what is left of `width` once the other columns (as
/// wide as their widest cell, two spaces apart) are laid out — never to fewer than 20 characters.
fn fit(
    headers: &[&str],
    mut rows: Vec<Vec<String>>,
    long: usize,
    width: usize,
) -> Vec<Vec<String>> {
    let others: usize = (0..headers.len())
        .filter(|&i| i != long)
        .map(|i| {
            let cells = rows.iter().map(|row| row[i].chars().count());
            cells.chain([headers[i].chars().count()]).max().unwrap_or(0) + 2
        })
        .sum();
    let room = width.saturating_sub(others).max(20);
    for row in &mut rows {
        let cell = &mut row[long];
        if cell.chars().count() > room {
            let cut: String = cell.chars().take(room - 1).collect();
            *cell = format!("{}…", cut.trim_end());
        }
    }
    rows
}

/// A hub time (milliseconds since the epoch, UTC) as the listings print it: `2026-12-07 14:03`;
/// `-` for none (0: the built-in store's templates, which are part of this build).
pub fn date(millis: cowork_wire::hub::Millis) -> String {
    if millis == 0 {
        return "-".into();
    }
    time::OffsetDateTime::from_unix_timestamp_nanos(millis as i128 * 1_000_000)
        .ok()
        .and_then(|t| {
            t.format(time::macros::format_description!("[year]-[month]-[day] [hour]:[minute]")).ok()
        })
        .unwrap_or_else(|| "?".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_column_is_cut_to_what_the_other_columns_leave() {
        let rows = vec![
            vec![
                "notes-list".into(),
                "Lists the notes, most recently first.".into(),
                "on demand".into(),
            ],
            vec!["tasks-add".into(), "Adds a task.".into(), "active · webhook".into()],
        ];
        let fitted = fit(&["ROUTINE", "DESCRIPTION", "STATE"], rows.clone(), 1, 60);
        // 10 + 2 and 16 + 2 leave 30 of 60: 29 characters and the ellipsis.
        assert_eq!(fitted[0][1], "Lists the notes, most recentl…");
        assert_eq!(fitted[1][1], "Adds a task.", "a cell that fits is kept");
        assert_eq!(
            fit(&["ROUTINE", "DESCRIPTION", "STATE"], rows, 1, 30)[0][1].chars().count(),
            20
        );
    }
}
