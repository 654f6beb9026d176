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

/// A hub time (milliseconds since the epoch, UTC) as the listings print it: `2026-12-07 14:03`.
pub fn date(millis: cowork_wire::hub::Millis) -> String {
    time::OffsetDateTime::from_unix_timestamp_nanos(millis as i128 * 1_000_000)
        .ok()
        .and_then(|t| {
            t.format(time::macros::format_description!("[year]-[month]-[day] [hour]:[minute]")).ok()
        })
        .unwrap_or_else(|| "?".into())
}
