//! The `Content-Type` of a file the daemon serves by its name: the workbench's and frames' own
//! files (`assets`), a web app's site (`web_apps`) and a routed file's type (`web_files`).

use std::path::Path;

/// The type a browser needs for each kind of file a static site (or the workbench) ships.
pub(crate) fn of(path: &Path) -> &'static str {
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or_default();
    match extension.to_ascii_lowercase().as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" | "cjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "wasm" => "application/wasm",
        "txt" | "md" => "text/plain; charset=utf-8",
        "xml" => "application/xml",
        "csv" => "text/csv; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "avif" => "image/avif",
        "ico" => "image/x-icon",
        "bmp" => "image/bmp",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        "otf" => "font/otf",
        "mp3" => "audio/mpeg",
        "ogg" | "oga" => "audio/ogg",
        "wav" => "audio/wav",
        "flac" => "audio/flac",
        "mp4" | "m4v" => "video/mp4",
        "webm" => "video/webm",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_gets_its_type_by_extension_in_any_case() {
        assert_eq!(of(Path::new("a.wasm")), "application/wasm");
        assert_eq!(of(Path::new("a.mjs")), "text/javascript; charset=utf-8");
        assert_eq!(of(Path::new("a.WOFF2")), "font/woff2");
        assert_eq!(of(Path::new("a")), "application/octet-stream");
    }
}
