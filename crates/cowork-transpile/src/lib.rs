//! TypeScript and JSX to JavaScript a plain runtime loads, with [oxc](https://oxc.rs).
//!
//! Cowork runs an app's routines under Node 20 (which cannot strip types) or Bun, and evaluates
//! its widgets in a webview through a `require` shim. This crate turns their source into what
//! those runtimes load, and reports every module the file loads with its line and column, so the
//! routine runner can refuse a path leaving the app folder and the widget runtime can check its
//! allowlist before anything runs.
//!
//! * [`Flavor::Routine`] → an ES module (`.mjs`): types stripped, `import`/`export` kept, each
//!   specifier passed through the caller's resolver (`./helper.ts` → `./helper.mjs`).
//! * [`Flavor::Widget`] → the body of `new Function("require", "module", "exports", code)`: JSX
//!   compiled with the automatic runtime (`import { jsx } from "react/jsx-runtime"`, which the
//!   allowlist holds), each import a `require` call, each export a property of `exports`.
//!
//! Widget module rules:
//! * `import X from "m"` binds `m.default` when `m.__esModule` is set, else `m.default ?? m`;
//!   `import { default as X }` is the same. `import * as ns from "m"` binds `m` itself, and
//!   `import { a as b }` reads `m.a` once, when the module loads.
//! * Local exports are getters on `exports` (live, like ESM bindings); `export default <expr>`
//!   assigns `exports.default`; `export { a } from "m"` copies `m.a` when the module loads;
//!   `export * from "m"` copies every name but `default` that the module does not export itself.
//!   `exports.__esModule` is set, so the same rule reads a widget's default back.
//! * `import(x)` becomes `Promise.resolve(x).then(require)`, so it goes through the shim too.
//! * Top-level `await` cannot work in a function body; the shim's `new Function` reports it.
//!
//! A file whose declarations clash (`const a = 1; let a = 2`, an import redeclared) is refused,
//! naming both lines, instead of failing later inside the runtime. [`Cache`] keeps outputs on disk,
//! keyed by content.
//!
//! ```
//! use cowork_transpile::{transpile, Flavor, ImportKind};
//!
//! let source = "import { total } from './math.ts';\n\
//!               export default async (args: { n: number }) => total(args.n);";
//! let output = transpile(source, "routines/sum.ts", Flavor::Routine, &mut |import| {
//!     // The caller's mirror folder holds `math.mjs`; bare names like `node:fs` stay.
//!     Ok(import.is_relative().then(|| import.specifier.replace(".ts", ".mjs")))
//! })?;
//! assert!(output.code.contains(r#"from "./math.mjs""#));
//! assert!(output.has_default_export);
//! assert_eq!((output.imports[0].line, output.imports[0].kind), (1, ImportKind::Static));
//! # Ok::<(), cowork_transpile::TranspileError>(())
//! ```
#![warn(missing_docs)]

mod cache;
mod commonjs;
mod position;
mod specifiers;

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

use oxc::allocator::Allocator;
use oxc::ast::ast::{Function, Program};
use oxc::ast_visit::Visit;
use oxc::codegen::Codegen;
use oxc::diagnostics::OxcDiagnostic;
use oxc::parser::Parser;
use oxc::semantic::{ScopeFlags, Scoping, SemanticBuilder, SymbolFlags};
use oxc::span::SourceType;
use oxc::transformer::{Module, TransformOptions, Transformer};

pub use cache::Cache;
use position::Lines;

/// What the output is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flavor {
    /// An ES module for Node 20 and Bun.
    Routine,
    /// A CommonJS-style function body for the webview's `require` shim.
    Widget,
}

/// How a module is loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImportKind {
    /// `import … from "m"` or `import "m"`, including the JSX runtime import oxc adds.
    Static,
    /// `import("m")` with a string literal; a computed `import(name)` is not reported.
    Dynamic,
    /// `export … from "m"` and `export * from "m"`.
    ReExport,
    /// `require("m")` of the global `require` with a string literal.
    Require,
}

/// One module the file loads, as written in the source.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Import {
    /// The specifier as written (before the resolver rewrote it).
    pub specifier: String,
    /// 1-based line of the specifier's opening quote; 1 for imports oxc adds itself.
    pub line: u32,
    /// 1-based column of that quote, counted in characters.
    pub column: u32,
    /// How the module is loaded.
    pub kind: ImportKind,
    /// The exports a static `import { a, b as c } from "m"` takes by name (`[]` for `import "m"`);
    /// `None` when the file may use any of them: a default or namespace import, a re-export,
    /// `import()` or `require`. The widget frame loads only the icons a widget names this way.
    pub names: Option<Vec<String>>,
}

impl Import {
    /// Whether the specifier is a path next to the file (`./x`, `../x`) rather than a package
    /// (`react`, `node:fs`) or anything else.
    pub fn is_relative(&self) -> bool {
        self.specifier.starts_with("./") || self.specifier.starts_with("../")
    }
}

/// A transpiled file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// The JavaScript to load (see [`Flavor`]).
    pub code: String,
    /// Every module the file loads, in source order.
    pub imports: Vec<Import>,
    /// Whether the module exports a default (a routine's entry point, a widget's component).
    pub has_default_export: bool,
}

/// Why a file was not transpiled. Every variant names the file and, where there is one, the
/// spot in it.
#[derive(Debug, thiserror::Error)]
pub enum TranspileError {
    /// The file name's extension is not one this crate compiles.
    #[error(
        "failed to transpile {file}: unsupported file type; expected .ts, .mts, .js, .mjs, .tsx or .jsx"
    )]
    UnsupportedFile {
        /// The file name as given.
        file: String,
    },
    /// The source does not parse, or breaks a rule of the language (oxc's message).
    #[error("failed to transpile {file}:{line}:{column}: {message}")]
    Syntax {
        /// The file name as given.
        file: String,
        /// 1-based line of the error.
        line: u32,
        /// 1-based column of the error, in characters.
        column: u32,
        /// What oxc says is wrong.
        message: String,
    },
    /// Two declarations in one scope bind the same name.
    #[error(
        "failed to transpile {file}:{line}:{column}: `{name}` is declared twice (first on line {first_line}, again on line {line}); rename or remove one"
    )]
    DuplicateDeclaration {
        /// The file name as given.
        file: String,
        /// The identifier declared twice.
        name: String,
        /// 1-based line of the first declaration.
        first_line: u32,
        /// 1-based line of the second declaration.
        line: u32,
        /// 1-based column of the second declaration.
        column: u32,
    },
    /// The resolver refused an import.
    #[error("failed to transpile {file}:{line}:{column}: cannot import \"{specifier}\": {reason}")]
    Import {
        /// The file name as given.
        file: String,
        /// 1-based line of the specifier.
        line: u32,
        /// 1-based column of the specifier.
        column: u32,
        /// The specifier as written.
        specifier: String,
        /// The resolver's reason.
        reason: String,
    },
    /// A [`Cache`] entry could not be written.
    #[error("failed to write the transpile cache entry {path}")]
    Io {
        /// The entry (or its folder) being written.
        path: PathBuf,
        /// What the file system said.
        #[source]
        source: io::Error,
    },
}

/// Transpiles one file.
///
/// `file_name` picks the syntax by extension (`.ts`, `.mts`, `.js`, `.mjs`, `.tsx`, `.jsx`; JSX
/// only in the last two) and names the file in errors. Every file is parsed as an ES module.
///
/// `resolve` is called once per import, in source order, for every specifier (relative, bare
/// like `node:fs`, or anything else): `Ok(Some(s))` rewrites it to `s`, `Ok(None)` keeps it,
/// `Err(reason)` refuses the file with [`TranspileError::Import`]. It sees imports that survive
/// type stripping only, so `import type` and imports used only as types are never resolved.
///
/// Output targets what Node 20 and current browsers run: no syntax is lowered beyond types and
/// JSX.
pub fn transpile(
    source: &str,
    file_name: &str,
    flavor: Flavor,
    resolve: &mut dyn FnMut(&Import) -> Result<Option<String>, String>,
) -> Result<Output, TranspileError> {
    let source_type = source_type(file_name)?;
    let lines = Lines::new(source);
    let allocator = Allocator::default();
    let parsed = Parser::new(&allocator, source, source_type).parse();
    if let Some(error) = parsed.diagnostics.errors().next() {
        return Err(refusal(error, file_name, &lines));
    }
    let mut program = parsed.program;

    // Redeclarations and the other early errors the parser leaves to semantic analysis; the
    // transformer needs enums evaluated (it panics on an `enum` otherwise).
    let semantic = SemanticBuilder::new_compiler().with_enum_eval(true).build(&program);
    if let Some(error) = semantic.diagnostics.errors().next() {
        return Err(refusal(error, file_name, &lines));
    }
    let scoping = semantic.semantic.into_scoping();
    if let Some(error) = redeclared_in_typescript(&scoping, &program, file_name, &lines) {
        return Err(error);
    }

    let mut options = TransformOptions::default();
    // `Esm` makes `export =` an error in a routine; `CommonJS` turns it (and `import x =
    // require()`) into `module.exports` / `require` in a widget, which the shim provides.
    options.env.module = match flavor {
        Flavor::Routine => Module::Esm,
        Flavor::Widget => Module::CommonJS,
    };
    let transformed = Transformer::new(&allocator, Path::new(file_name), &options)
        .build_with_scoping(scoping, &mut program);
    // The transformer only warns (`export =` in an ES module, a namespace exporting a `let`…),
    // but each warning means the output would not do what the source says.
    if let Some(error) = transformed.diagnostics.into_vec().first() {
        return Err(refusal(error, file_name, &lines));
    }

    let facts = specifiers::resolve_specifiers(
        &mut program,
        &allocator,
        &transformed.scoping,
        &lines,
        file_name,
        resolve,
    )?;
    let prelude = match flavor {
        Flavor::Routine => String::new(),
        Flavor::Widget => {
            commonjs::to_commonjs(&mut program, &allocator, facts.has_import_expression)
        }
    };
    let code = prelude + &Codegen::new().build(&program).code;
    Ok(Output { code, imports: facts.imports, has_default_export: facts.has_default_export })
}

/// The extensions `transpile` accepts; CommonJS input (`.cjs`, `.cts`) is not among them
/// because both outputs start from an ES module.
const EXTENSIONS: [&str; 6] = ["ts", "mts", "js", "mjs", "tsx", "jsx"];

/// The file name's extension, or `""`.
fn extension(file_name: &str) -> &str {
    Path::new(file_name).extension().and_then(|extension| extension.to_str()).unwrap_or_default()
}

fn source_type(file_name: &str) -> Result<SourceType, TranspileError> {
    let extension = extension(file_name);
    EXTENSIONS
        .contains(&extension)
        .then(|| SourceType::from_extension(extension).ok())
        .flatten()
        // `.ts` and `.js` would otherwise be guessed from their content.
        .map(|source_type| source_type.with_module(true))
        .ok_or_else(|| TranspileError::UnsupportedFile { file: file_name.to_owned() })
}

/// The error a person sees for an oxc diagnostic: a redeclaration names both places, anything
/// else is a syntax error at the diagnostic's first label.
fn refusal(diagnostic: &OxcDiagnostic, file: &str, lines: &Lines<'_>) -> TranspileError {
    // oxc_semantic's `redeclaration` diagnostic: this message, labels [first, second].
    let redeclared = diagnostic
        .message
        .strip_prefix("Identifier `")
        .and_then(|rest| rest.strip_suffix("` has already been declared"));
    if let (Some(name), [first, second]) = (redeclared, diagnostic.labels.as_slice()) {
        return duplicate(file, lines, name, first.offset(), second.offset());
    }
    let offset = diagnostic.labels.first().map_or(0, |label| label.offset());
    let (line, column) = lines.position(offset);
    let message = match &diagnostic.help {
        Some(help) => format!("{}; hint: {help}", diagnostic.message.trim_end_matches('.')),
        None => diagnostic.message.to_string(),
    };
    TranspileError::Syntax { file: file.to_owned(), line, column, message }
}

/// Top-level names oxc lets a TypeScript file declare twice, as declaration merging, though the
/// output would then declare them twice (Node refuses the module, Bun keeps the last):
/// * an import sharing its name with a local value, which TypeScript refuses too (TS2440);
/// * two functions with bodies: only overload signatures (no body) may precede the one body.
///
/// JavaScript files never get here: semantic analysis reports the redeclaration for them.
fn redeclared_in_typescript(
    scoping: &Scoping,
    program: &Program<'_>,
    file: &str,
    lines: &Lines<'_>,
) -> Option<TranspileError> {
    let mut bodies = FunctionBodies::default();
    bodies.visit_program(program);
    scoping
        .iter_bindings_in(scoping.root_scope_id())
        .filter_map(|symbol| {
            // The list holds every declaration of the name once it has more than one.
            let declarations = scoping.symbol_redeclarations(symbol);
            let import = declarations.iter().find(|d| d.flags.contains(SymbolFlags::Import));
            let value = declarations.iter().find(|d| d.flags.intersects(SymbolFlags::Value));
            let (first, second) = match (import, value) {
                (Some(import), Some(value)) => (
                    import.span.start.min(value.span.start),
                    import.span.start.max(value.span.start),
                ),
                _ => {
                    // In source order: the second body is where the clash is.
                    let mut with_body =
                        declarations.iter().filter(|d| bodies.0.contains(&d.span.start));
                    (with_body.next()?.span.start, with_body.next()?.span.start)
                }
            };
            Some((second, first, scoping.symbol_name(symbol)))
        })
        // Bindings come in hash order; report the clash that comes first in the file.
        .min()
        .map(|(second, first, name)| duplicate(file, lines, name, first, second))
}

/// Where each top-level function declaration that has a body names itself (its name's offset).
#[derive(Default)]
struct FunctionBodies(HashSet<u32>);

impl<'a> Visit<'a> for FunctionBodies {
    fn visit_function(&mut self, function: &Function<'a>, _flags: ScopeFlags) {
        if let (Some(id), Some(_)) = (&function.id, &function.body) {
            self.0.insert(id.span.start);
        }
        // Not walked into: a nested function declares nothing at the top level.
    }
}

fn duplicate(file: &str, lines: &Lines<'_>, name: &str, first: u32, second: u32) -> TranspileError {
    let (line, column) = lines.position(second);
    TranspileError::DuplicateDeclaration {
        file: file.to_owned(),
        name: name.to_owned(),
        first_line: lines.line(first),
        line,
        column,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keep(_: &Import) -> Result<Option<String>, String> {
        Ok(None)
    }

    fn refused(source: &str, file_name: &str) -> String {
        transpile(source, file_name, Flavor::Routine, &mut keep).unwrap_err().to_string()
    }

    #[test]
    fn duplicate_const_and_let_is_refused_with_both_lines() {
        let error = transpile(
            "const a = 1;\n\nlet a = 2;\n",
            "routines/list.ts",
            Flavor::Routine,
            &mut keep,
        )
        .unwrap_err();
        assert!(matches!(
            &error,
            TranspileError::DuplicateDeclaration { name, first_line: 1, line: 3, column: 5, .. }
                if name == "a"
        ));
        assert_eq!(
            error.to_string(),
            "failed to transpile routines/list.ts:3:5: `a` is declared twice (first on line 1, again on line 3); rename or remove one"
        );
    }

    #[test]
    fn two_functions_with_one_name_are_refused_in_a_module() {
        let message = refused("function f() {}\nfunction f() {}\n", "helper.js");
        assert!(
            message.starts_with(
                "failed to transpile helper.js:2:10: `f` is declared twice (first on line 1"
            ),
            "{message}"
        );
    }

    #[test]
    fn redeclared_import_binding_is_refused_in_typescript_too() {
        // oxc treats this as declaration merging in TypeScript; we refuse it as in JavaScript.
        for file in ["widget.tsx", "widget.jsx"] {
            let message = refused("import { Card } from \"x\";\nfunction Card() {}\n", file);
            assert!(
                message.contains(":2:10: `Card` is declared twice (first on line 1"),
                "{file}: {message}"
            );
        }
        // A type merging with an import is TypeScript's business and leaves nothing behind.
        let merged = "import { Props } from \"x\";\ninterface Props { a: number }\nexport const p: Props = { a: 1 };\n";
        assert!(transpile(merged, "w.ts", Flavor::Routine, &mut keep).is_ok());
    }

    #[test]
    fn two_function_bodies_with_one_name_are_refused_in_typescript_and_overloads_are_not() {
        let message = refused(
            "function f() { return 1; }\nfunction f() { return 2; }\nexport default f;\n",
            "r.ts",
        );
        assert_eq!(
            message,
            "failed to transpile r.ts:2:10: `f` is declared twice (first on line 1, again on line 2); rename or remove one"
        );
        let overloads = "function f(a: string): string;\nfunction f(a: number): number;\n\
                         function f(a: any) { return a; }\nexport default f;\n";
        assert!(transpile(overloads, "r.ts", Flavor::Routine, &mut keep).is_ok());
        let declared = "declare function g(): void;\nfunction g() {}\nexport default g;\n";
        assert!(transpile(declared, "r.mts", Flavor::Routine, &mut keep).is_ok());
    }

    #[test]
    fn syntax_error_names_file_line_column_and_oxc_message() {
        let error = transpile(
            "const ok = 1;\nconst broken = (;\n",
            "routines/list.ts",
            Flavor::Routine,
            &mut keep,
        )
        .unwrap_err();
        let TranspileError::Syntax { line, column, message, .. } = &error else {
            panic!("{error}")
        };
        assert_eq!((*line, *column), (2, 17));
        assert!(message.contains("Unexpected token"), "{message}");
        assert!(error
            .to_string()
            .starts_with("failed to transpile routines/list.ts:2:17: Unexpected token"));
    }

    #[test]
    fn export_assignment_is_refused_in_a_routine() {
        let message = refused("const a = 1;\nexport = a;\n", "legacy.ts");
        assert!(
            message
                .starts_with("failed to transpile legacy.ts:2:1: Export assignment cannot be used"),
            "{message}"
        );
    }

    #[test]
    fn unsupported_extension_is_refused() {
        assert_eq!(
            refused("module.exports = 1", "old.cjs"),
            "failed to transpile old.cjs: unsupported file type; expected .ts, .mts, .js, .mjs, .tsx or .jsx"
        );
    }

    #[test]
    fn every_kind_of_load_is_resolved_and_rewritten() {
        let source = "import a from './a';\nexport * from './b';\nexport { c } from './c';\n\
                      const d = () => import('./d');\nconst e = require('./e');\n\
                      function local(require) { return require('./not-a-module'); }\n\
                      const f = import(`./${a}`);\n";
        let mut asked = Vec::new();
        let output = transpile(source, "list.js", Flavor::Routine, &mut |import| {
            asked.push(import.specifier.clone());
            Ok(Some(format!("{}.mjs", import.specifier)))
        })
        .unwrap();
        let found: Vec<_> = output
            .imports
            .iter()
            .map(|i| (i.specifier.as_str(), i.line, i.column, i.kind))
            .collect();
        assert_eq!(
            found,
            [
                ("./a", 1, 15, ImportKind::Static),
                ("./b", 2, 15, ImportKind::ReExport),
                ("./c", 3, 19, ImportKind::ReExport),
                ("./d", 4, 24, ImportKind::Dynamic),
                ("./e", 5, 19, ImportKind::Require),
            ]
        );
        assert_eq!(asked, ["./a", "./b", "./c", "./d", "./e"]);
        for rewritten in [
            "\"./a.mjs\"",
            "\"./b.mjs\"",
            "\"./c.mjs\"",
            "import(\"./d.mjs\")",
            "require(\"./e.mjs\")",
        ] {
            assert!(output.code.contains(rewritten), "{rewritten} missing from:\n{}", output.code);
        }
        assert!(output.code.contains("require(\"./not-a-module\")"), "{}", output.code);
        assert!(!output.has_default_export);
    }

    #[test]
    fn refusal_names_the_import_and_stops_asking() {
        // Used, so TypeScript does not elide them before they are resolved.
        let source = "import fs from 'node:fs';\nimport secret from '../../outside.ts';\n\
                      import after from './after';\nexport default () => [fs, secret, after];\n";
        let mut asked = 0;
        let error = transpile(source, "routines/list.ts", Flavor::Routine, &mut |import| {
            asked += 1;
            if import.specifier.starts_with("../") {
                Err("it leaves the app folder".into())
            } else {
                Ok(None)
            }
        })
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "failed to transpile routines/list.ts:2:20: cannot import \"../../outside.ts\": it leaves the app folder"
        );
        assert_eq!(asked, 2);
    }

    #[test]
    fn type_only_imports_never_reach_the_resolver() {
        let source = "import type { A } from './types';\nimport { B, type C } from './b';\n\
                      export default (a: A, c: C) => B;\n";
        let output = transpile(source, "r.ts", Flavor::Routine, &mut keep).unwrap();
        let specifiers: Vec<_> = output.imports.iter().map(|i| i.specifier.as_str()).collect();
        assert_eq!(specifiers, ["./b"]);
        assert!(output.has_default_export);
    }

    #[test]
    fn default_export_through_a_specifier_counts() {
        let output = transpile(
            "const main = () => 1;\nexport { main as default };\n",
            "r.js",
            Flavor::Routine,
            &mut keep,
        )
        .unwrap();
        assert!(output.has_default_export);
    }
    #[test]
    fn an_import_names_what_it_takes_unless_it_may_take_anything() {
        let source = "import { Plus, Trash2 as Bin } from 'lucide-react';\n\
                      import Icon, { Star } from 'icons-a';\n\
                      import * as All from 'icons-b';\n\
                      import { default as D } from 'icons-c';\n\
                      import 'icons-d';\n\
                      export { Moon } from 'icons-e';\n\
                      export default () => [Plus, Bin, Icon, Star, All, D];\n";
        let output = transpile(source, "w.jsx", Flavor::Widget, &mut |_| Ok(None)).unwrap();
        // The JSX runtime import oxc adds is left out: only the source's own are checked.
        let names: Vec<_> = output
            .imports
            .iter()
            .filter(|i| i.specifier != "react/jsx-runtime")
            .map(|i| (i.specifier.as_str(), i.names.clone()))
            .collect();
        let some = |names: &[&str]| Some(names.iter().map(|n| n.to_string()).collect::<Vec<_>>());
        assert_eq!(
            names,
            [
                ("lucide-react", some(&["Plus", "Trash2"])),
                ("icons-a", None),
                ("icons-b", None),
                ("icons-c", None),
                ("icons-d", some(&[])),
                ("icons-e", None),
            ]
        );
    }
}
