//! Preparing a widget for its pane: the `.jsx`/`.tsx` file transpiled (oxc, cached by content) to
//! the CommonJS body the frame's `require` shim runs, after every import was checked against the
//! allowlist of docs/guides/widgets.md — a relative import or any other module fails before
//! anything runs, with the reference's message, the file and the line.

use cowork_transpile::{Cache, Flavor, Import};
use std::path::Path;

/// The shadcn/ui components a widget may import as `@/components/ui/<name>`.
pub const UI_COMPONENTS: [&str; 47] = [
    "accordion",
    "alert",
    "alert-dialog",
    "aspect-ratio",
    "avatar",
    "badge",
    "breadcrumb",
    "button",
    "calendar",
    "card",
    "carousel",
    "chart",
    "checkbox",
    "collapsible",
    "command",
    "context-menu",
    "dialog",
    "drawer",
    "dropdown-menu",
    "hover-card",
    "input",
    "input-group",
    "input-otp",
    "label",
    "menubar",
    "native-select",
    "navigation-menu",
    "pagination",
    "popover",
    "progress",
    "radio-group",
    "resizable",
    "scroll-area",
    "select",
    "separator",
    "sheet",
    "sidebar",
    "skeleton",
    "slider",
    "sonner",
    "switch",
    "table",
    "tabs",
    "textarea",
    "toggle",
    "toggle-group",
    "tooltip",
];

/// The other modules a widget may import.
pub const MODULES: [&str; 23] = [
    "react",
    "react/jsx-runtime",
    "react-dom",
    "react-dom/client",
    "@/lib/utils",
    "clsx",
    "tailwind-merge",
    "class-variance-authority",
    "lucide-react",
    "recharts",
    "@xyflow/react",
    "@xterm/xterm",
    "@xterm/addon-fit",
    "@xterm/addon-web-links",
    "radix-ui",
    "react-day-picker",
    "sonner",
    "vaul",
    "cmdk",
    "react-resizable-panels",
    "embla-carousel-react",
    "next-themes",
    "input-otp",
];

/// Whether a widget may import `specifier`.
pub fn allowed(specifier: &str) -> bool {
    MODULES.contains(&specifier)
        || specifier
            .strip_prefix("@/components/ui/")
            .is_some_and(|name| UI_COMPONENTS.contains(&name))
}

// A pane's widget crosses the wire (`POST /api/panes`): its shapes are cowork-wire's.
pub use cowork_wire::daemon::panes::{PreparedWidget, WidgetError, WidgetErrorName, WidgetImport};

/// Why each widget of `app` (its `entry` and fileRouting widgets that exist) cannot run, as
/// `cowork app list` and Manage Workspace report them. A switched-off app, or a folder that does not
/// own its name, shows no panes and so has none.
pub fn problems(cache: &Cache, app: &cowork_core::registry::App) -> Vec<WidgetError> {
    if !app.enabled || !app.owns_name {
        return Vec::new();
    }
    let mut files: Vec<&String> = app
        .manifest
        .entry
        .iter()
        .chain(app.manifest.file_routing.iter().map(|r| &r.file))
        .filter(|f| f.ends_with(".jsx") || f.ends_with(".tsx"))
        .collect();
    files.sort();
    files.dedup();
    files
        .into_iter()
        .filter(|file| app.path.join(file).is_file())
        .filter_map(|file| prepare(cache, &app.path, file).err())
        .collect()
}

/// Transpiles `rel_file` of the app at `app_dir`, refusing imports outside the allowlist.
pub fn prepare(
    cache: &Cache,
    app_dir: &Path,
    rel_file: &str,
) -> Result<PreparedWidget, WidgetError> {
    let label = rel_file.to_string();
    let source = std::fs::read_to_string(app_dir.join(rel_file)).map_err(|e| WidgetError {
        name: WidgetErrorName::Unreadable,
        file: label.clone(),
        line: None,
        column: None,
        message: format!("failed to read the widget: {e}"),
    })?;
    let mut check = |import: &Import| -> Result<Option<String>, String> {
        if allowed(&import.specifier) {
            Ok(None)
        } else if import.is_relative() {
            Err(format!("\"{}\" is not in the cowork webapp allowlist: a widget is one file — duplicate small helpers, or move shared logic into a routine", import.specifier))
        } else {
            Err(format!("\"{}\" is not in the cowork webapp allowlist", import.specifier))
        }
    };
    let output = cache
        .transpile(&source, &label, Flavor::Widget, &mut check)
        .map_err(|error| from_transpile(&label, error))?;
    if !output.has_default_export {
        return Err(WidgetError {
            name: WidgetErrorName::NoDefaultExport,
            file: label,
            line: None,
            column: None,
            message: "a widget must `export default` a React component".into(),
        });
    }
    let mut imports: Vec<WidgetImport> = Vec::new();
    for import in &output.imports {
        match imports.iter_mut().find(|i| i.specifier == import.specifier) {
            // One import of a module by name and another of the whole: the whole it is.
            Some(seen) => match (&mut seen.names, &import.names) {
                (Some(names), Some(more)) => {
                    for name in more {
                        if !names.contains(name) {
                            names.push(name.clone());
                        }
                    }
                }
                (names, _) => *names = None,
            },
            None => imports.push(WidgetImport {
                specifier: import.specifier.clone(),
                line: import.line,
                column: import.column,
                names: import.names.clone(),
            }),
        }
    }
    Ok(PreparedWidget { file: label, code: output.code, imports })
}

fn from_transpile(file: &str, error: cowork_transpile::TranspileError) -> WidgetError {
    use cowork_transpile::TranspileError as E;
    use WidgetErrorName as N;
    let (name, line, column, message) = match &error {
        E::Import { line, column, reason, .. } => {
            (N::ImportNotAllowed, Some(*line), Some(*column), reason.clone())
        }
        E::Syntax { line, column, message, .. } => {
            (N::SyntaxError, Some(*line), Some(*column), message.clone())
        }
        E::DuplicateDeclaration { line, column, .. } => {
            (N::SyntaxError, Some(*line), Some(*column), error.to_string())
        }
        E::UnsupportedFile { .. } => (N::UnsupportedFile, None, None, error.to_string()),
        E::Io { .. } => (N::Internal, None, None, error.to_string()),
    };
    WidgetError { name, file: file.to_string(), line, column, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn widget(source: &str) -> Result<PreparedWidget, WidgetError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("w.jsx"), source).unwrap();
        prepare(&Cache::new(dir.path().join("cache")), dir.path(), "w.jsx")
    }

    #[test]
    fn allowed_imports_pass_and_are_listed() {
        let ok = widget("import { useState } from 'react'\nimport { Button } from '@/components/ui/button'\nimport { Plus } from 'lucide-react'\nexport default function W() { const [n] = useState(0); return <Button><Plus />{n}</Button> }\n").unwrap();
        let specifiers: Vec<&str> = ok.imports.iter().map(|i| i.specifier.as_str()).collect();
        assert!(
            specifiers.contains(&"@/components/ui/button") && specifiers.contains(&"lucide-react"),
            "{specifiers:?}"
        );
        assert_eq!(
            ok.imports.iter().find(|i| i.specifier == "lucide-react").map(|i| i.line),
            Some(3)
        );
        assert!(ok.code.contains("require(\"@/components/ui/button\")"));
    }

    #[test]
    fn the_names_of_a_module_imported_twice_are_merged_unless_one_import_takes_it_whole() {
        let names = |source: &str, specifier: &str| {
            let ok = widget(source).unwrap();
            ok.imports.into_iter().find(|i| i.specifier == specifier).and_then(|i| i.names)
        };
        let two = "import { Plus } from 'lucide-react'\nimport { Trash2, Plus as P } from 'lucide-react'\nexport default () => [Plus, Trash2, P]\n";
        assert_eq!(
            names(two, "lucide-react"),
            Some(vec!["Plus".to_string(), "Trash2".to_string()])
        );
        let whole = "import { Plus } from 'lucide-react'\nimport * as Icons from 'lucide-react'\nexport default () => [Plus, Icons]\n";
        assert_eq!(names(whole, "lucide-react"), None);
    }

    #[test]
    fn other_imports_fail_with_the_line() {
        let err = widget(
            "import React from 'react'\nimport pad from 'left-pad'\nexport default () => null\n",
        )
        .unwrap_err();
        assert_eq!(
            (err.line, err.message.as_str()),
            (Some(2), "\"left-pad\" is not in the cowork webapp allowlist")
        );
        assert_eq!(err.to_string(), "w.jsx:2: \"left-pad\" is not in the cowork webapp allowlist");
        let relative =
            widget("import { x } from './helpers'\nexport default () => x\n").unwrap_err();
        assert!(
            relative.message.starts_with("\"./helpers\" is not in the cowork webapp allowlist"),
            "{}",
            relative.message
        );
        let unknown_ui =
            widget("import { Foo } from '@/components/ui/foo'\nexport default () => <Foo />\n")
                .unwrap_err();
        assert_eq!(unknown_ui.line, Some(1));
    }

    #[test]
    fn a_widget_needs_a_default_export() {
        assert!(widget("export const W = () => null\n")
            .unwrap_err()
            .message
            .contains("export default"));
    }
}
