//! Every module a file loads, found in the transformed AST (so imports TypeScript elided are gone
//! and the JSX runtime import is there), each passed to the caller's resolver and rewritten.

use oxc::allocator::Allocator;
use oxc::ast::ast::{
    CallExpression, ExportAllDeclaration, ExportDefaultDeclaration, ExportFromDeclaration,
    ExportNamedDeclaration, ExportSpecifier, Expression, ImportDeclaration,
    ImportDeclarationSpecifier, ImportExpression, Program, StringLiteral,
};
use oxc::ast_visit::{walk_mut, VisitMut};
use oxc::semantic::{IsGlobalReference, Scoping};
use oxc::str::Str;

use crate::position::Lines;
use crate::{Import, ImportKind, TranspileError};

/// What the module walk learned besides the rewritten AST.
pub(crate) struct ModuleFacts {
    pub(crate) imports: Vec<Import>,
    pub(crate) has_default_export: bool,
    /// Whether any `import(…)` is left, literal or not: a widget must turn them into `require`.
    pub(crate) has_import_expression: bool,
}

/// Walks `program` in source order, calls `resolve` for each specifier and writes its answer
/// back into the AST. The first refusal stops further resolving and becomes the error.
pub(crate) fn resolve_specifiers<'a>(
    program: &mut Program<'a>,
    allocator: &'a Allocator,
    scoping: &Scoping,
    lines: &Lines<'_>,
    file: &str,
    resolve: &mut dyn FnMut(&Import) -> Result<Option<String>, String>,
) -> Result<ModuleFacts, TranspileError> {
    let mut walk = Specifiers {
        allocator,
        scoping,
        lines,
        resolve,
        facts: ModuleFacts {
            imports: Vec::new(),
            has_default_export: false,
            has_import_expression: false,
        },
        refused: None,
    };
    walk.visit_program(program);
    match walk.refused {
        Some((import, reason)) => Err(TranspileError::Import {
            file: file.to_owned(),
            line: import.line,
            column: import.column,
            specifier: import.specifier,
            reason,
        }),
        None => Ok(walk.facts),
    }
}

struct Specifiers<'w, 'a> {
    allocator: &'a Allocator,
    scoping: &'w Scoping,
    lines: &'w Lines<'w>,
    resolve: &'w mut dyn FnMut(&Import) -> Result<Option<String>, String>,
    facts: ModuleFacts,
    refused: Option<(Import, String)>,
}

impl<'a> Specifiers<'_, 'a> {
    fn specifier(
        &mut self,
        literal: &mut StringLiteral<'a>,
        kind: ImportKind,
        names: Option<Vec<String>>,
    ) {
        if self.refused.is_some() {
            return;
        }
        // Imports oxc adds (the JSX runtime) have no span, so they land on 1:1.
        let (line, column) = self.lines.position(literal.span.start);
        let specifier = literal.value.as_str().to_owned();
        let import = Import { specifier, line, column, kind, names };
        match (self.resolve)(&import) {
            Ok(Some(rewritten)) => {
                literal.value = Str::from_str_in(&rewritten, &self.allocator);
                // Codegen prints `value`, but drop `raw` so nothing can print the old text.
                literal.raw = None;
                self.facts.imports.push(import);
            }
            Ok(None) => self.facts.imports.push(import),
            Err(reason) => self.refused = Some((import, reason)),
        }
    }

    fn note_default(&mut self, specifiers: &[ExportSpecifier<'a>]) {
        if specifiers.iter().any(|specifier| specifier.exported.name() == "default") {
            self.facts.has_default_export = true;
        }
    }
}

/// The names an import declaration takes, or `None` when it takes the default export or the
/// whole module (which may reach any name).
fn named_only(specifiers: &[ImportDeclarationSpecifier<'_>]) -> Option<Vec<String>> {
    specifiers
        .iter()
        .map(|specifier| match specifier {
            ImportDeclarationSpecifier::ImportSpecifier(one)
                if one.imported.name() != "default" =>
            {
                Some(one.imported.name().to_string())
            }
            _ => None,
        })
        .collect()
}

impl<'a> VisitMut<'a> for Specifiers<'_, 'a> {
    fn visit_import_declaration(&mut self, it: &mut ImportDeclaration<'a>) {
        let names = named_only(it.specifiers.as_ref().map_or(&[][..], |specifiers| specifiers));
        self.specifier(&mut it.source, ImportKind::Static, names);
    }

    fn visit_export_from_declaration(&mut self, it: &mut ExportFromDeclaration<'a>) {
        self.note_default(&it.specifiers);
        self.specifier(&mut it.source, ImportKind::ReExport, None);
    }

    fn visit_export_all_declaration(&mut self, it: &mut ExportAllDeclaration<'a>) {
        self.specifier(&mut it.source, ImportKind::ReExport, None);
    }

    fn visit_export_named_declaration(&mut self, it: &mut ExportNamedDeclaration<'a>) {
        self.note_default(&it.specifiers);
    }

    fn visit_export_default_declaration(&mut self, it: &mut ExportDefaultDeclaration<'a>) {
        self.facts.has_default_export = true;
        walk_mut::walk_export_default_declaration(self, it);
    }

    fn visit_import_expression(&mut self, it: &mut ImportExpression<'a>) {
        self.facts.has_import_expression = true;
        // Only a literal names a module we can check; `import(name)` is the runtime's business.
        if let Expression::StringLiteral(source) = &mut it.source {
            self.specifier(source, ImportKind::Dynamic, None);
        }
        walk_mut::walk_import_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &mut CallExpression<'a>) {
        // `require("x")` of the global `require` loads a module too (Bun allows it in ESM, the
        // widget shim provides it), so it must not slip past the resolver or the allowlist.
        let calls_global_require = matches!(&it.callee, Expression::Identifier(callee)
            if callee.name == "require" && callee.is_global_reference(self.scoping));
        if calls_global_require && it.arguments.len() == 1 {
            if let Some(Expression::StringLiteral(source)) = it.arguments[0].as_expression_mut() {
                self.specifier(source, ImportKind::Require, None);
            }
        }
        walk_mut::walk_call_expression(self, it);
    }
}
