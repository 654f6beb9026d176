//! Widgets: the ES module the transformer leaves becomes the body of
//! `new Function("require", "module", "exports", code)`.
//!
//! Imports and re-exports are hoisted in ESM (they are linked before the body runs), so all of
//! them become `require` calls in a prelude ahead of the body, in source order. Local exports
//! become getters defined in that prelude: a getter reads the binding when asked, so `export let`
//! stays live and `export { a }` written above `const a` does not trip the temporal dead zone.
//! Only `export default <expression>`, which has no binding to read, is an assignment in place.
//!
//! `import(x)` would make the browser fetch `x` as a URL, bypassing the shim and its allowlist,
//! so it becomes `Promise.resolve(x).then(require)`: still asynchronous, a refusal still rejects.

use oxc::allocator::{Allocator, ArenaVec, TakeIn};
use oxc::ast::ast::{
    Argument, AssignmentOperator, AssignmentTarget, ClassType, Declaration, ExportAllDeclaration,
    ExportDefaultDeclarationKind, ExportFromDeclaration, Expression, FunctionType, IdentifierName,
    ImportDeclaration, ImportDeclarationSpecifier, Program, Statement,
};
use oxc::ast::builder::AstBuilder;
use oxc::ast_visit::{walk_mut, VisitMut};
use oxc::codegen::Codegen;
use oxc::span::SPAN;

/// `import X from "m"` binds `m.default` when `m` says it is a transpiled ES module
/// (`__esModule`), and otherwise `m.default ?? m`, so a plain CommonJS object works as a default.
const DEFAULT_INTEROP: &str = "((m) => m.__esModule ? m.default : m.default ?? m)";

/// Rewrites the module declarations of `program` in place and returns the prelude to print
/// ahead of it. The body keeps every statement that is not an import or export.
/// `has_import_expression` says whether there is any `import(…)` to rewrite, which spares a walk
/// of the whole tree when there is none.
pub(crate) fn to_commonjs<'a>(
    program: &mut Program<'a>,
    allocator: &'a Allocator,
    has_import_expression: bool,
) -> String {
    let ast = AstBuilder::new(allocator);
    if has_import_expression {
        DynamicImports { ast: &ast }.visit_program(program);
    }
    let mut prelude = Prelude::default();
    // The prelude opens with its own "use strict" (ES modules are strict); a directive printed
    // after it would be an ordinary expression statement.
    program.directives.retain(|directive| !directive.is_use_strict());
    program.hashbang = None;

    let body = program.body.take_in(&allocator);
    for statement in body {
        match statement {
            Statement::ImportDeclaration(import) => prelude.import(&import),
            Statement::ExportFromDeclaration(export) => prelude.export_from(&export),
            Statement::ExportAllDeclaration(export) => prelude.export_all(&export),
            Statement::ExportNamedDeclaration(export) => {
                for specifier in &export.specifiers {
                    prelude.getter(&specifier.exported.name(), &specifier.local.name());
                }
            }
            Statement::ExportDeclaration(export) => {
                let declaration = export.unbox().declaration;
                for name in declared_names(&declaration) {
                    prelude.getter(name, name);
                }
                program.body.push(Statement::from(declaration));
            }
            Statement::ExportDefaultDeclaration(export) => {
                match export.unbox().declaration {
                    ExportDefaultDeclarationKind::FunctionDeclaration(mut function) => {
                        match function.id.as_ref().map(|id| id.name) {
                            Some(name) => {
                                prelude.getter("default", &name);
                                program.body.push(Statement::FunctionDeclaration(function));
                            }
                            None => {
                                function.r#type = FunctionType::FunctionExpression;
                                let value = Expression::FunctionExpression(function);
                                program.body.push(assign_default(value, &ast));
                            }
                        }
                    }
                    ExportDefaultDeclarationKind::ClassDeclaration(mut class) => {
                        match class.id.as_ref().map(|id| id.name) {
                            Some(name) => {
                                prelude.getter("default", &name);
                                program.body.push(Statement::ClassDeclaration(class));
                            }
                            None => {
                                class.r#type = ClassType::ClassExpression;
                                let value = Expression::ClassExpression(class);
                                program.body.push(assign_default(value, &ast));
                            }
                        }
                    }
                    // The TypeScript transform has removed interfaces; nothing runs for one.
                    ExportDefaultDeclarationKind::TSInterfaceDeclaration(_) => {}
                    expression => {
                        program.body.push(assign_default(expression.into_expression(), &ast));
                    }
                }
            }
            other => program.body.push(other),
        }
    }
    prelude.finish()
}

/// The names a declaration binds: every identifier of a destructuring `const`, or the one name
/// of a function or class.
fn declared_names<'d>(declaration: &'d Declaration<'_>) -> Vec<&'d str> {
    match declaration {
        Declaration::VariableDeclaration(variables) => variables
            .declarations
            .iter()
            .flat_map(|declarator| declarator.id.get_binding_identifiers())
            .map(|id| id.name.as_str())
            .collect(),
        other => other.id().map(|id| id.name.as_str()).into_iter().collect(),
    }
}

/// `exports.default = <value>;`
fn assign_default<'a>(value: Expression<'a>, ast: &AstBuilder<'a>) -> Statement<'a> {
    let exports = Expression::new_identifier(SPAN, "exports", ast);
    let property = IdentifierName::new(SPAN, "default", ast);
    let target =
        AssignmentTarget::new_static_member_expression(SPAN, exports, property, false, ast);
    let assignment =
        Expression::new_assignment_expression(SPAN, AssignmentOperator::Assign, target, value, ast);
    Statement::new_expression_statement(SPAN, assignment, ast)
}

/// Replaces each `import(x)` with `Promise.resolve(x).then(require)`.
struct DynamicImports<'b, 'a> {
    ast: &'b AstBuilder<'a>,
}

impl<'a> VisitMut<'a> for DynamicImports<'_, 'a> {
    fn visit_expression(&mut self, expression: &mut Expression<'a>) {
        // Inner ones first: `import(x)` may hold another `import(…)` in `x`.
        walk_mut::walk_expression(self, expression);
        if let Expression::ImportExpression(import) = expression {
            let ast = self.ast;
            let source = import.source.take_in(ast);
            let promise = Expression::new_identifier(SPAN, "Promise", ast);
            let resolve = IdentifierName::new(SPAN, "resolve", ast);
            let resolve =
                Expression::new_static_member_expression(SPAN, promise, resolve, false, ast);
            let resolved = call(resolve, source, ast);
            let then = IdentifierName::new(SPAN, "then", ast);
            let then = Expression::new_static_member_expression(SPAN, resolved, then, false, ast);
            *expression = call(then, Expression::new_identifier(SPAN, "require", ast), ast);
        }
    }
}

/// `<callee>(<argument>)`
fn call<'a>(
    callee: Expression<'a>,
    argument: Expression<'a>,
    ast: &AstBuilder<'a>,
) -> Expression<'a> {
    let arguments = ArenaVec::from_array_in([Argument::from(argument)], ast);
    Expression::new_call_expression(SPAN, callee, None, arguments, false, ast)
}

/// The text printed ahead of the body: export getters first, so that an `export *` further
/// down can see which names the module defines itself, then the loads in source order.
#[derive(Default)]
struct Prelude {
    getters: String,
    loads: String,
}

impl Prelude {
    fn getter(&mut self, exported: &str, local: &str) {
        self.getters.push_str(&format!(
            "Object.defineProperty(exports, {}, {{ enumerable: true, get: () => {local} }});\n",
            js_string(exported)
        ));
    }

    fn import(&mut self, import: &ImportDeclaration<'_>) {
        let module = require(&import.source.value);
        let specifiers = import.specifiers.as_ref().map_or(&[][..], |specifiers| specifiers);
        if specifiers.is_empty() {
            self.loads.push_str(&format!("{module};\n"));
            return;
        }
        let mut named = Vec::new();
        for specifier in specifiers {
            match specifier {
                ImportDeclarationSpecifier::ImportDefaultSpecifier(default) => {
                    self.bind(&default.local.name, &format!("{DEFAULT_INTEROP}({module})"));
                }
                ImportDeclarationSpecifier::ImportNamespaceSpecifier(namespace) => {
                    self.bind(&namespace.local.name, &module);
                }
                ImportDeclarationSpecifier::ImportSpecifier(one)
                    if one.imported.name() == "default" =>
                {
                    self.bind(&one.local.name, &format!("{DEFAULT_INTEROP}({module})"));
                }
                ImportDeclarationSpecifier::ImportSpecifier(one) => {
                    named.push(format!("{}: {}", js_string(&one.imported.name()), one.local.name));
                }
            }
        }
        if !named.is_empty() {
            self.bind(&format!("{{ {} }}", named.join(", ")), &module);
        }
    }

    fn export_from(&mut self, export: &ExportFromDeclaration<'_>) {
        let module = require(&export.source.value);
        for specifier in &export.specifiers {
            let imported = specifier.local.name();
            let value = if imported == "default" {
                format!("{DEFAULT_INTEROP}({module})")
            } else {
                format!("{module}[{}]", js_string(&imported))
            };
            let exported = js_string(&specifier.exported.name());
            self.loads.push_str(&format!("exports[{exported}] = {value};\n"));
        }
    }

    fn export_all(&mut self, export: &ExportAllDeclaration<'_>) {
        let module = require(&export.source.value);
        match &export.exported {
            Some(name) => {
                let exported = js_string(&name.name());
                self.loads.push_str(&format!("exports[{exported}] = {module};\n"));
            }
            // As in ESM, `export *` skips `default` and never overrides a name the module
            // exports itself (its getter is already defined) or named explicitly before.
            None => self.loads.push_str(&format!(
                "for (const [k, v] of Object.entries({module})) if (k !== \"default\" && !(k in exports)) exports[k] = v;\n"
            )),
        }
    }

    fn bind(&mut self, pattern: &str, value: &str) {
        self.loads.push_str(&format!("const {pattern} = {value};\n"));
    }

    fn finish(self) -> String {
        format!(
            "\"use strict\";\nObject.defineProperty(exports, \"__esModule\", {{ value: true }});\n{}{}",
            self.getters, self.loads
        )
    }
}

fn require(specifier: &str) -> String {
    format!("require({})", js_string(specifier))
}

/// A JavaScript string literal for `text`, escaped by oxc's own printer.
fn js_string(text: &str) -> String {
    let mut printer = Codegen::new();
    printer.print_string(text);
    printer.into_source_text()
}
