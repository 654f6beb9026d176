//! Fuzzing the transpiler's entry and its import checks: any source built from the committed
//! corpus (`tests/fixtures/*.ts(x)`) and from fragments that have broken parsers and transformers
//! before (enums, namespaces, `export =`, JSX in a `.ts`, redeclarations, dynamic imports), with
//! the resolver accepting, rewriting or refusing each import at random — never a panic, and every
//! refusal a `TranspileError` whose message names the file. Each import the resolver refused is
//! the one the error names. `PROPTEST_CASES=100000 cargo test -p cowork-transpile --test
//! fuzz_transpile` for a long run.

use cowork_transpile::{transpile, Flavor, TranspileError};
use proptest::prelude::*;

const FRAGMENTS: &[&str] = &[
    "import x from \"./a.js\";\n",
    "import { y as z } from \"node:fs\";\n",
    "import * as ns from \"../../outside\";\n",
    "import type { T } from \"./types\";\n",
    "export default async (args: any, ctx: any) => { return 1; };\n",
    "export default function f() {}\n",
    "export = 5;\n",
    "import q = require(\"./q\");\n",
    "const a = await import(\"./lazy.js\");\n",
    "const b = import(`./t${1}.js`);\n",
    "enum E { A, B = A + 1, C = \"c\" }\n",
    "const enum K { X = 1 }\n",
    "namespace N { export let v = 1; }\n",
    "declare module \"m\" { }\n",
    "let dup = 1; let dup = 2;\n",
    "function f() {} function f() {}\n",
    "const el = <div className=\"x\">{1}</div>;\n",
    "class C<T> { private x?: T; constructor(public y: number) {} }\n",
    "@decorator class D {}\n",
    "export { default } from \"./re\";\n",
    "export * from \"pkg\";\n",
    "label: for (;;) { break label; }\n",
    "/* unterminated comment\n",
    "\"unterminated string\n",
    "}}}{{{\n",
    "\u{feff}\u{0}\u{2028}\n",
];

/// A file name: every extension the entry accepts, and some it refuses.
fn file_name() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "r.ts", "r.mts", "r.js", "r.mjs", "w.tsx", "w.jsx", "r.cjs", "r", "r.d.ts",
    ])
    .prop_map(String::from)
}

fn source() -> impl Strategy<Value = String> {
    let corpus = vec![
        include_str!("fixtures/routine.ts"),
        include_str!("fixtures/helper.ts"),
        include_str!("fixtures/widget.tsx"),
    ];
    (
        prop::sample::select(corpus),
        any::<prop::sample::Index>(),
        prop::collection::vec(prop::sample::select(FRAGMENTS), 0..8),
        ".{0,40}",
    )
        .prop_map(|(base, cut, fragments, noise)| {
            // A corpus file cut anywhere (on a char boundary), then fragments and noise.
            let mut at = cut.index(base.len() + 1);
            while !base.is_char_boundary(at) {
                at -= 1;
            }
            format!("{}{}{noise}", &base[..at], fragments.concat())
        })
}

fn check(source: &str, file: &str, flavor: Flavor, verdicts: &[u8]) {
    let mut asked = 0usize;
    let mut refused = Vec::new();
    let mut resolve = |import: &cowork_transpile::Import| {
        let verdict = verdicts.get(asked).copied().unwrap_or(0) % 3;
        asked += 1;
        match verdict {
            0 => Ok(None),
            1 => Ok(Some(format!("./rewritten-{asked}.js"))),
            _ => {
                refused.push(import.specifier.clone());
                Err("refused by the fuzzer".to_string())
            }
        }
    };
    match transpile(source, file, flavor, &mut resolve) {
        Ok(output) => {
            assert!(refused.is_empty(), "refused {refused:?} yet transpiled: {}", output.code)
        }
        Err(error) => {
            let message = error.to_string();
            assert!(message.starts_with("failed to transpile"), "{message}");
            assert!(message.contains(file), "{message}");
            if let TranspileError::Import { specifier, .. } = &error {
                assert_eq!(refused.last(), Some(specifier), "the error names the refused import");
            }
        }
    }
}

#[test]
fn fuzz_the_committed_corpus_transpiles_as_both_flavors() {
    for (file, source) in [
        ("routine.ts", include_str!("fixtures/routine.ts")),
        ("helper.ts", include_str!("fixtures/helper.ts")),
        ("widget.tsx", include_str!("fixtures/widget.tsx")),
    ] {
        for flavor in [Flavor::Routine, Flavor::Widget] {
            check(source, file, flavor, &[]);
        }
    }
}

proptest! {
    #[test]
    fn fuzz_any_source_transpiles_or_is_refused_by_name(
        source in source(),
        file in file_name(),
        widget in any::<bool>(),
        verdicts in prop::collection::vec(any::<u8>(), 0..12),
    ) {
        let flavor = if widget { Flavor::Widget } else { Flavor::Routine };
        check(&source, &file, flavor, &verdicts);
    }
}
