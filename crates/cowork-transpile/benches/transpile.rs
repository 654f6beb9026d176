//! Microseconds per file for a ~190-line widget and a routine, fresh each time (no cache).
//! A plain timing loop, no framework: `cargo bench -p cowork-transpile`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use cowork_transpile::{transpile, Flavor};

const WIDGET: &str = include_str!("../tests/fixtures/widget.tsx");
const ROUTINE: &str = include_str!("../tests/fixtures/routine.ts");

/// Runs `once` until a second has passed (after a warm-up) and returns the mean per call.
fn measure(mut once: impl FnMut()) -> Duration {
    for _ in 0..20 {
        once();
    }
    let start = Instant::now();
    let mut runs = 0u32;
    while start.elapsed() < Duration::from_secs(1) {
        once();
        runs += 1;
    }
    start.elapsed() / runs
}

fn main() {
    for (name, source, file, flavor) in [
        ("widget", WIDGET, "widget.tsx", Flavor::Widget),
        ("routine", ROUTINE, "routine.ts", Flavor::Routine),
    ] {
        let per_file = measure(|| {
            let output = transpile(black_box(source), file, flavor, &mut |_| Ok(None))
                .expect("the fixtures transpile");
            black_box(output);
        });
        let lines = source.lines().count();
        println!(
            "{name:8} {lines:4} lines  {:8.1} µs/file",
            per_file.as_secs_f64() * 1e6
        );
    }
}
