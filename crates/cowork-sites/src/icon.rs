//! Choosing a site's icon and storing it as the app's `icon.png`.
//!
//! The rail draws the icon at tile size on high-density screens, so the best is a square PNG of at
//! least 128 px, as close to 256 px as there is (a larger one is scaled down without loss, a
//! smaller one blurs), for any purpose (a `maskable` icon has its art shrunk into a safe zone; a
//! `monochrome` one is a silhouette). Only PNG is stored: SVG, ICO, JPEG and WebP icons are skipped.
//! A stored icon is at most 256 KB ([`ICON_LIMIT`]), re-encoded smaller when the site's is bigger.

use crate::page::PageIcon;
use crate::web_manifest::ManifestIcon;
use cowork_core::manifest::ICON_LIMIT;
use image::codecs::png::{CompressionType, FilterType as PngFilter, PngEncoder};
use image::{imageops::FilterType, DynamicImage, ImageFormat, ImageReader, Limits};
use std::io::Cursor;
use url::Url;

/// The size an icon is best at.
const IDEAL: u32 = 256;
/// The smallest size that still looks sharp on the rail.
const SHARP: u32 = 128;
/// The size an `apple-touch-icon` without `sizes` has in practice.
const TOUCH_ICON: u32 = 180;
/// Larger images are not decoded (a small PNG can claim a huge canvas).
const MAX_SIDE: u32 = 4096;

/// An icon the site offers, with what is known about it before downloading it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Where it is.
    pub url: Url,
    /// Its best square size, when the site says.
    pub size: Option<u32>,
    /// Declared PNG (by `type` or a `.png` path), rather than unknown.
    pub png: bool,
    /// Only for `maskable` use.
    pub maskable: bool,
}

impl Candidate {
    /// A manifest icon, `src` resolved against the manifest's address. `None` when it cannot be
    /// used: not PNG, not square, or a monochrome silhouette.
    pub fn from_manifest(icon: &ManifestIcon, manifest_url: &Url) -> Option<Candidate> {
        let purposes: Vec<String> = icon
            .purpose
            .as_deref()
            .unwrap_or("any")
            .split_ascii_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        let any = purposes.iter().any(|p| p == "any");
        if !any && !purposes.iter().any(|p| p == "maskable") {
            return None;
        }
        let mut candidate = Candidate::new(
            manifest_url.join(&icon.src).ok()?,
            icon.sizes.as_deref(),
            icon.mime.as_deref(),
        )?;
        candidate.maskable = !any;
        Some(candidate)
    }

    /// A page's icon link, `href` resolved against the page's base.
    pub fn from_page(icon: &PageIcon, base: &Url) -> Option<Candidate> {
        let mut candidate = Candidate::new(
            base.join(&icon.href).ok()?,
            icon.sizes.as_deref(),
            icon.mime.as_deref(),
        )?;
        if icon.touch && icon.sizes.is_none() {
            candidate.size = Some(TOUCH_ICON);
        }
        Some(candidate)
    }

    fn new(url: Url, sizes: Option<&str>, mime: Option<&str>) -> Option<Candidate> {
        if !matches!(url.scheme(), "https" | "http") {
            return None;
        }
        let path = url.path().to_ascii_lowercase();
        let png_path = path.ends_with(".png");
        let other_path = [".svg", ".ico", ".jpg", ".jpeg", ".webp", ".gif", ".avif"]
            .iter()
            .any(|ext| path.ends_with(ext));
        let mime = mime.map(|m| m.trim().to_ascii_lowercase());
        if mime.as_deref().is_some_and(|m| m != "image/png") || (mime.is_none() && other_path) {
            return None;
        }
        let size = match sizes {
            None => None,
            Some(sizes) => {
                let squares: Vec<u32> =
                    sizes.split_ascii_whitespace().filter_map(square_size).collect();
                // Sizes that are all rectangles: the art would be squeezed or cropped.
                if squares.is_empty()
                    && !sizes.split_ascii_whitespace().any(|s| s.eq_ignore_ascii_case("any"))
                {
                    return None;
                }
                best_size(&squares)
            }
        };
        Some(Candidate { url, size, png: mime.is_some() || png_path, maskable: false })
    }

    /// Sorts best first: sharp sizes closest to 256, then unknown sizes, then small ones; at each
    /// level an icon for any purpose before a maskable one, a declared PNG before a guess.
    fn rank(&self) -> (u8, bool, bool, u32) {
        let (tier, distance) = match self.size {
            // Twice the distance, plus one when smaller: of 192 and 320 (both 64 away) the larger
            // scales down cleanly.
            Some(s) if s >= SHARP => (0, s.abs_diff(IDEAL) * 2 + u32::from(s < IDEAL)),
            None => (1, 0),
            Some(s) => (2, IDEAL - s),
        };
        (tier, self.maskable, !self.png, distance)
    }
}

/// `"192x192"` → 192; a rectangle or anything else → `None`.
fn square_size(token: &str) -> Option<u32> {
    let (w, h) = token
        .to_ascii_lowercase()
        .split_once('x')
        .map(|(w, h)| (w.parse::<u32>().ok(), h.parse::<u32>().ok()))?;
    match (w?, h?) {
        (w, h) if w == h && w > 0 => Some(w),
        _ => None,
    }
}

/// Of several sizes one file holds, the one the icon would be used at.
fn best_size(sizes: &[u32]) -> Option<u32> {
    let sharp = sizes
        .iter()
        .copied()
        .filter(|&s| s >= SHARP)
        .min_by_key(|&s| s.abs_diff(IDEAL) * 2 + u32::from(s < IDEAL));
    sharp.or_else(|| sizes.iter().copied().max())
}

/// The candidates, best first.
pub fn ranked(mut candidates: Vec<Candidate>) -> Vec<Candidate> {
    candidates.sort_by_key(Candidate::rank);
    candidates.dedup_by(|a, b| a.url == b.url);
    candidates
}

/// The bytes to store as `icon.png`: the site's own file when it is a valid PNG within the
/// limit, else the image scaled down and re-encoded until it fits.
pub fn prepare(bytes: &[u8]) -> Result<Vec<u8>, String> {
    if !bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Err("it is not a PNG image".to_owned());
    }
    let mut reader = ImageReader::with_format(Cursor::new(bytes), ImageFormat::Png);
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    reader.limits(limits);
    let image = reader.decode().map_err(|e| format!("it is not a readable PNG image ({e})"))?;
    if bytes.len() as u64 <= ICON_LIMIT {
        return Ok(bytes.to_vec());
    }
    for side in [IDEAL, SHARP, 64] {
        let encoded = encode(&scaled_to(&image, side))?;
        if encoded.len() as u64 <= ICON_LIMIT {
            return Ok(encoded);
        }
    }
    Err("it does not fit in 256 KB even at 64 px".to_owned())
}

/// `image` scaled down to fit in `side`×`side` (never up).
fn scaled_to(image: &DynamicImage, side: u32) -> DynamicImage {
    if image.width() <= side && image.height() <= side {
        image.clone()
    } else {
        image.resize(side, side, FilterType::Lanczos3)
    }
}

fn encode(image: &DynamicImage) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    image
        .write_with_encoder(PngEncoder::new_with_quality(
            &mut out,
            CompressionType::Best,
            PngFilter::Adaptive,
        ))
        .map_err(|e| format!("failed to encode it as PNG ({e})"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest_icon(
        src: &str,
        sizes: Option<&str>,
        mime: Option<&str>,
        purpose: Option<&str>,
    ) -> ManifestIcon {
        ManifestIcon {
            src: src.into(),
            sizes: sizes.map(Into::into),
            mime: mime.map(Into::into),
            purpose: purpose.map(Into::into),
        }
    }

    fn best(icons: &[ManifestIcon]) -> Vec<String> {
        let base = Url::parse("https://site.test/app/manifest.json").unwrap();
        ranked(icons.iter().filter_map(|i| Candidate::from_manifest(i, &base)).collect())
            .into_iter()
            .map(|c| c.url.path().to_owned())
            .collect()
    }

    #[test]
    fn picks_the_sharp_square_png_closest_to_256() {
        let icons = [
            manifest_icon("48.png", Some("48x48"), Some("image/png"), None),
            manifest_icon("192.png", Some("192x192"), Some("image/png"), None),
            manifest_icon("512.png", Some("512x512"), Some("image/png"), None),
            manifest_icon("320.png", Some("320x320"), None, None),
            manifest_icon("mask.png", Some("256x256"), Some("image/png"), Some("maskable")),
            manifest_icon("mono.png", Some("256x256"), Some("image/png"), Some("monochrome")),
            manifest_icon("logo.svg", Some("any"), Some("image/svg+xml"), None),
            manifest_icon("wide.png", Some("512x256"), Some("image/png"), None),
            manifest_icon(
                "both.png",
                Some("64x64 256x256"),
                Some("image/png"),
                Some("any maskable"),
            ),
        ];
        assert_eq!(
            best(&icons),
            [
                "/app/both.png",
                "/app/320.png",
                "/app/192.png",
                "/app/512.png",
                "/app/mask.png",
                "/app/48.png"
            ]
        );
    }

    #[test]
    fn unknown_sizes_rank_between_sharp_and_small_and_touch_icons_count_as_180() {
        let base = Url::parse("https://site.test/").unwrap();
        let page = [
            PageIcon {
                href: "/favicon.png".into(),
                sizes: Some("32x32".into()),
                mime: None,
                touch: false,
            },
            PageIcon { href: "/icon".into(), sizes: None, mime: None, touch: false },
            PageIcon { href: "/touch.png".into(), sizes: None, mime: None, touch: true },
            PageIcon { href: "/favicon.ico".into(), sizes: None, mime: None, touch: false },
        ];
        let order: Vec<_> =
            ranked(page.iter().filter_map(|i| Candidate::from_page(i, &base)).collect())
                .into_iter()
                .map(|c| c.url.path().to_owned())
                .collect();
        assert_eq!(order, ["/touch.png", "/icon", "/favicon.png"]);
    }

    fn png(side: u32, noisy: bool) -> Vec<u8> {
        let image = image::RgbaImage::from_fn(side, side, |x, y| {
            let v = if noisy {
                (x.wrapping_mul(2654435761) ^ y.wrapping_mul(40503)).wrapping_mul(2246822519)
            } else {
                0x3366_99ff
            };
            image::Rgba(v.to_be_bytes())
        });
        let mut out = Vec::new();
        DynamicImage::ImageRgba8(image)
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .unwrap();
        out
    }

    #[test]
    fn a_small_png_is_stored_as_the_site_made_it() {
        let bytes = png(192, false);
        assert_eq!(prepare(&bytes).unwrap(), bytes);
    }

    #[test]
    fn a_png_over_256_kb_is_scaled_down_until_it_fits() {
        let bytes = png(512, true);
        assert!(bytes.len() as u64 > ICON_LIMIT, "the fixture must be too big: {}", bytes.len());
        let stored = prepare(&bytes).unwrap();
        assert!(stored.len() as u64 <= ICON_LIMIT);
        let image = image::load_from_memory_with_format(&stored, ImageFormat::Png).unwrap();
        assert!(image.width() <= 256 && image.width() == image.height(), "{}", image.width());
    }

    #[test]
    fn what_is_not_a_png_is_not_stored() {
        assert_eq!(prepare(b"<svg/>").unwrap_err(), "it is not a PNG image");
        assert!(prepare(b"\x89PNG\r\n\x1a\ntruncated")
            .unwrap_err()
            .starts_with("it is not a readable PNG image"));
    }
}
