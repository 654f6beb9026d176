//! The few keys of a site's Web App Manifest an install uses: `id`, `name`, `short_name`,
//! `start_url`, `scope`, `theme_color` and `icons`. A key of the wrong type is skipped, as browsers
//! do; everything else (shortcuts, handlers, share target…) is ignored, as the reference says.

use serde_json::Value;

/// What an install takes from a web app manifest. Addresses are as written (relative to the
/// manifest's own address).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WebManifest {
    /// `id`: the app's identity, recorded in the install receipt.
    pub id: Option<String>,
    /// `name`.
    pub name: Option<String>,
    /// `short_name`.
    pub short_name: Option<String>,
    /// `start_url`.
    pub start_url: Option<String>,
    /// `scope`.
    pub scope: Option<String>,
    /// `theme_color`.
    pub theme_color: Option<String>,
    /// `icons`, in manifest order.
    pub icons: Vec<ManifestIcon>,
}

/// One entry of `icons`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestIcon {
    /// `src`.
    pub src: String,
    /// `sizes` (`"192x192"`, `"48x48 96x96"`, `"any"`).
    pub sizes: Option<String>,
    /// `type`.
    pub mime: Option<String>,
    /// `purpose` (`"any"` when absent; `"maskable"`, `"monochrome"`).
    pub purpose: Option<String>,
}

/// Reads a manifest. `Err` when it is not a JSON object.
pub fn parse(bytes: &[u8]) -> Result<WebManifest, String> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("it is not JSON ({e})"))?;
    let Value::Object(object) = value else {
        return Err("it is not a JSON object".to_owned());
    };
    let text = |key: &str| {
        object
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let icons =
        object.get("icons").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    Ok(WebManifest {
        id: text("id"),
        name: text("name"),
        short_name: text("short_name"),
        start_url: text("start_url"),
        scope: text("scope"),
        theme_color: text("theme_color"),
        icons: icons.iter().filter_map(icon).collect(),
    })
}

fn icon(value: &Value) -> Option<ManifestIcon> {
    let text = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    Some(ManifestIcon {
        src: text("src")?,
        sizes: text("sizes"),
        mime: text("type"),
        purpose: text("purpose"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_keys_an_install_uses() {
        let manifest = parse(
            br##"{ "id": "/?app", "name": "Acme Chat", "short_name": "Chat", "start_url": "/app/?source=pwa",
                 "scope": "/app/", "theme_color": "#25D366", "display": "standalone",
                 "icons": [ { "src": "/i/192.png", "sizes": "192x192", "type": "image/png" },
                            { "src": "/i/mask.png", "sizes": "512x512", "purpose": "maskable" },
                            { "sizes": "64x64" }, "nonsense" ],
                 "shortcuts": [ { "name": "New", "url": "/new" } ] }"##,
        )
        .unwrap();
        assert_eq!(manifest.id.as_deref(), Some("/?app"));
        assert_eq!(manifest.name.as_deref(), Some("Acme Chat"));
        assert_eq!(manifest.short_name.as_deref(), Some("Chat"));
        assert_eq!(manifest.start_url.as_deref(), Some("/app/?source=pwa"));
        assert_eq!(manifest.scope.as_deref(), Some("/app/"));
        assert_eq!(manifest.theme_color.as_deref(), Some("#25D366"));
        assert_eq!(manifest.icons.len(), 2);
        assert_eq!(manifest.icons[1].purpose.as_deref(), Some("maskable"));
    }

    #[test]
    fn wrong_types_are_skipped_and_a_bom_is_fine() {
        let manifest =
            parse(b"\xEF\xBB\xBF{ \"name\": 42, \"short_name\": \"  \", \"icons\": {} }").unwrap();
        assert_eq!(manifest, WebManifest::default());
        assert!(parse(b"[1, 2]").is_err());
        assert!(parse(b"<html>").is_err());
    }
}
