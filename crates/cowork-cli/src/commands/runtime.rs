//! The routine runtime for `cowork install` and `cowork setup`: Bun from the npm registry (its
//! integrity checked, see `cowork_daemon::bun`), with a progress bar, unless one already runs.

use super::app::ProgressLine;
use crate::exit::{Exit, Failure};
use cowork_daemon::bun::{self, Progress};
use cowork_engine::runtime::{self, RuntimeKind};
use std::io::IsTerminal;

/// Installs Bun into the Cowork root when no Bun runs here (`force`: again all the same).
pub async fn ensure(force: bool) -> Result<(), Failure> {
    if let Some(found) = runtime::find().ok().filter(|r| r.kind == RuntimeKind::Bun) {
        if !force {
            outln!(
                "runtime:   Bun {} ({}, found in {})",
                found.version,
                found.path.display(),
                found.found_in
            );
            return Ok(());
        }
    }
    let target = runtime::installed_bun();
    let mut line = ProgressLine { terminal: std::io::stderr().is_terminal() };
    // Off a terminal, one line per quarter: a log keeps the steps without a line per chunk.
    let mut shown_quarter = None;
    let installed = bun::install(&target, |progress| {
        let quarter = percent(progress).map(|p| p / 25);
        if line.terminal || quarter != shown_quarter {
            shown_quarter = quarter;
            line.show(&bar(progress));
        }
    })
    .await;
    line.clear();
    let path = installed.map_err(|error| Failure::new(Exit::Failed, &error).hint(error.hint()))?;
    outln!(
        "runtime:   Bun {} installed from npm, integrity checked ({})",
        bun::VERSION,
        path.display()
    );
    Ok(())
}

fn percent(progress: Progress) -> Option<u64> {
    progress.total.filter(|t| *t > 0).map(|total| progress.done.min(total) * 100 / total)
}

/// `Bun 1.4.5  [##########··········]  50%  22.3 / 44.6 MB`
fn bar(progress: Progress) -> String {
    let mb = |bytes: u64| bytes as f64 / 1_000_000.0;
    match percent(progress) {
        Some(percent) => {
            let filled = (percent / 5) as usize;
            format!(
                "Bun {}  [{}{}] {percent:>3}%  {:.1} / {:.1} MB",
                bun::VERSION,
                "#".repeat(filled),
                "·".repeat(20 - filled),
                mb(progress.done),
                mb(progress.total.unwrap_or_default())
            )
        }
        None => format!("Bun {}  {:.1} MB", bun::VERSION, mb(progress.done)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_fills_with_the_download() {
        assert_eq!(
            bar(Progress { done: 22_300_000, total: Some(44_600_000) }),
            "Bun 1.4.5  [##########··········]  50%  22.3 / 44.6 MB"
        );
        assert!(bar(Progress { done: 44_600_000, total: Some(44_600_000) })
            .contains("[####################] 100%"));
        assert_eq!(bar(Progress { done: 1_500_000, total: None }), "Bun 1.4.5  1.5 MB");
    }
}
