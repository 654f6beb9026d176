//! A site's theme color as the manifest's `color` takes it: `#rgb` or `#rrggbb`.

/// `#25D366` → itself; `#25D366cc` → `#25D366` (the tile is opaque); `rgb(37, 211, 102)` →
/// `#25d366`; `white`/`black`. Any other CSS color (other names, `hsl()`, `var()`) → `None`.
pub fn to_hex(css: &str) -> Option<String> {
    let css = css.trim();
    if let Some(hex) = css.strip_prefix('#') {
        if !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        return match hex.len() {
            3 | 6 => Some(format!("#{hex}")),
            4 | 8 => Some(format!("#{}", &hex[..hex.len() / 4 * 3])),
            _ => None,
        };
    }
    let lower = css.to_ascii_lowercase();
    match lower.as_str() {
        "white" => return Some("#ffffff".to_owned()),
        "black" => return Some("#000000".to_owned()),
        _ => {}
    }
    let inner =
        lower.strip_prefix("rgba(").or_else(|| lower.strip_prefix("rgb("))?.strip_suffix(')')?;
    let channels: Vec<u8> = inner
        .split([',', ' ', '/'])
        .filter(|s| !s.is_empty())
        .take(3)
        .map(|s| s.parse::<u8>().ok())
        .collect::<Option<_>>()?;
    match channels[..] {
        [r, g, b] => Some(format!("#{r:02x}{g:02x}{b:02x}")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::to_hex;

    #[test]
    fn hex_and_rgb_colors_become_manifest_colors() {
        assert_eq!(to_hex("#25D366").as_deref(), Some("#25D366"));
        assert_eq!(to_hex(" #fff ").as_deref(), Some("#fff"));
        assert_eq!(to_hex("#25D366cc").as_deref(), Some("#25D366"));
        assert_eq!(to_hex("#fffa").as_deref(), Some("#fff"));
        assert_eq!(to_hex("rgb(37, 211, 102)").as_deref(), Some("#25d366"));
        assert_eq!(to_hex("rgba(37 211 102 / 50%)").as_deref(), Some("#25d366"));
        assert_eq!(to_hex("White").as_deref(), Some("#ffffff"));
    }

    #[test]
    fn other_colors_are_left_out() {
        for css in [
            "#12345",
            "#ggg",
            "teal",
            "hsl(120 50% 50%)",
            "var(--brand)",
            "rgb(300, 0, 0)",
            "rgb(1, 2)",
            "",
        ] {
            assert_eq!(to_hex(css), None, "{css}");
        }
    }
}
