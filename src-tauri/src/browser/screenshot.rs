//! `screenshot`: a PNG of the driven page — its viewport, its whole document (`fullPage`), or one
//! node's box — from WebKitGTK's own snapshot (`webkit_web_view_get_snapshot`, through Tauri's
//! `with_webview`), so what is captured is what WebKit painted, the person's session included.
//!
//! The snapshot is taken on the GTK main thread; its pixels are copied out there and encoded as
//! PNG off it (a large page takes tens of milliseconds to encode, which would stall the UI).

use base64::Engine as _;
use cowork_wire::browser::{BrowserError, BrowserErrorName as Name};
use image::ImageEncoder as _;
use std::time::Instant;
use tauri::Webview;

/// The largest PNG answered, before base64. The answer travels to the daemon as one JSON body
/// (axum's 2 MiB limit): 1 MiB of PNG is about 1.4 MB of base64, with room for the rest.
pub const MAX_PNG_BYTES: usize = 1024 * 1024;

/// A node's box in the viewport, in CSS pixels (the engine's `box` op answers its centre and
/// size, after scrolling it into view).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub left: f64,
    pub top: f64,
    pub width: f64,
    pub height: f64,
}

impl Rect {
    /// From the engine's `box` answer: `{x, y, width, height}`, `x`/`y` the centre.
    pub fn from_box(answer: &serde_json::Value) -> Option<Rect> {
        let number = |key: &str| answer.get(key).and_then(serde_json::Value::as_f64);
        let (width, height) = (number("width")?, number("height")?);
        Some(Rect {
            left: number("x")? - width / 2.0,
            top: number("y")? - height / 2.0,
            width,
            height,
        })
    }
}

/// A PNG, as the wire's `Screenshot` carries it.
pub struct Shot {
    pub png_base64: String,
    pub width: u32,
    pub height: u32,
}

/// The snapshot's pixels, copied off the cairo surface: ARGB32, premultiplied, native-endian.
struct Pixels {
    data: Vec<u8>,
    width: u32,
    height: u32,
    stride: usize,
    /// Device pixels per CSS pixel (the surface's width over the view's).
    scale: f64,
}

fn unavailable(message: impl std::fmt::Display) -> BrowserError {
    BrowserError::new(Name::Unavailable, format!("failed to take a screenshot: {message}"))
}

/// Takes the screenshot: the node's box when `crop` is given (always from the viewport: the box
/// is in viewport coordinates), else the viewport, or the whole document with `full_page`.
pub async fn take(
    webview: &Webview,
    crop: Option<Rect>,
    full_page: bool,
    deadline: Instant,
) -> Result<Shot, BrowserError> {
    let (sender, receiver) = tokio::sync::oneshot::channel::<Result<Pixels, String>>();
    let region = if full_page && crop.is_none() {
        webkit2gtk::SnapshotRegion::FullDocument
    } else {
        webkit2gtk::SnapshotRegion::Visible
    };
    webview
        .with_webview(move |platform| {
            use gtk::prelude::WidgetExt;
            use webkit2gtk::WebViewExt;
            let view = platform.inner();
            let view_width = f64::from(view.allocated_width().max(1));
            view.snapshot(
                region,
                webkit2gtk::SnapshotOptions::NONE,
                None::<&webkit2gtk::gio::Cancellable>,
                move |result| {
                    let _ = sender.send(
                        result.map_err(|e| e.to_string()).and_then(|s| pixels(s, view_width)),
                    );
                },
            );
        })
        .map_err(|_| closed())?;
    let left = deadline.saturating_duration_since(Instant::now());
    let pixels = match tokio::time::timeout(left, receiver).await {
        Err(_) => {
            return Err(BrowserError::new(
                Name::Timeout,
                "failed to take a screenshot: WebKit did not paint the page in time",
            )
            .with_hint("give the action a longer timeout, or wait for the page (waitFor) first"))
        }
        Ok(Err(_)) => return Err(closed()),
        Ok(Ok(Err(message))) => return Err(unavailable(message)),
        Ok(Ok(Ok(pixels))) => pixels,
    };
    tokio::task::spawn_blocking(move || encode(&pixels, crop)).await.map_err(unavailable)?
}

fn closed() -> BrowserError {
    BrowserError::new(Name::TabClosed, "failed to take a screenshot: the page was closed")
        .with_hint("list the tabs (tabs) and act on one that is open")
}

/// Copies the snapshot's pixels (on the main thread, where the surface lives).
fn pixels(surface: gtk::cairo::Surface, view_width: f64) -> Result<Pixels, String> {
    let image = gtk::cairo::ImageSurface::try_from(surface)
        .map_err(|_| "WebKit's snapshot is not an image surface".to_string())?;
    if image.format() != gtk::cairo::Format::ARgb32 && image.format() != gtk::cairo::Format::Rgb24 {
        return Err(format!("WebKit's snapshot has the pixel format {:?}", image.format()));
    }
    let (width, height) = (image.width().max(0) as u32, image.height().max(0) as u32);
    let stride = image.stride().max(0) as usize;
    let opaque = image.format() == gtk::cairo::Format::Rgb24;
    let mut data = Vec::new();
    image.with_data(|bytes| data = bytes.to_vec()).map_err(|e| e.to_string())?;
    if opaque {
        // RGB24 leaves the alpha byte undefined: make it opaque.
        for pixel in data.chunks_exact_mut(4) {
            let argb = u32::from_ne_bytes(pixel.try_into().expect("4 bytes")) | 0xff00_0000;
            pixel.copy_from_slice(&argb.to_ne_bytes());
        }
    }
    Ok(Pixels { data, width, height, stride, scale: f64::from(width) / view_width })
}

/// The PNG of `pixels`, cropped to `crop` (CSS pixels) when given.
fn encode(pixels: &Pixels, crop: Option<Rect>) -> Result<Shot, BrowserError> {
    let (x0, y0, width, height) = match crop {
        None => (0, 0, pixels.width, pixels.height),
        Some(rect) => device_box(rect, pixels).ok_or_else(|| {
            BrowserError::new(
                Name::NotActionable,
                "failed to take a screenshot of the node: its box is outside the visible page",
            )
            .with_hint("snapshot again and screenshot a visible node, or the page without a ref")
        })?,
    };
    let mut rgba = Vec::with_capacity(width as usize * height as usize * 4);
    for y in y0..y0 + height {
        let row = y as usize * pixels.stride;
        for x in x0..x0 + width {
            let at = row + x as usize * 4;
            let argb = u32::from_ne_bytes(pixels.data[at..at + 4].try_into().expect("4 bytes"));
            rgba.extend_from_slice(&unpremultiply(argb));
        }
    }
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(&rgba, width, height, image::ExtendedColorType::Rgba8)
        .map_err(unavailable)?;
    if png.len() > MAX_PNG_BYTES {
        return Err(BrowserError::new(
            Name::TooLarge,
            format!(
                "failed to take a screenshot: its PNG is {} KiB, over the {} KiB limit",
                png.len() / 1024,
                MAX_PNG_BYTES / 1024
            ),
        )
        .with_hint("screenshot one node (ref) or the viewport instead of the full page"));
    }
    Ok(Shot { png_base64: base64::engine::general_purpose::STANDARD.encode(&png), width, height })
}

/// `rect` (CSS pixels) in the snapshot's device pixels, clipped to it; `None` when nothing of it
/// is inside.
fn device_box(rect: Rect, pixels: &Pixels) -> Option<(u32, u32, u32, u32)> {
    let scale = pixels.scale;
    let left = (rect.left * scale).floor().max(0.0);
    let top = (rect.top * scale).floor().max(0.0);
    let right = ((rect.left + rect.width) * scale).ceil().min(f64::from(pixels.width));
    let bottom = ((rect.top + rect.height) * scale).ceil().min(f64::from(pixels.height));
    (right > left && bottom > top).then_some((
        left as u32,
        top as u32,
        (right - left) as u32,
        (bottom - top) as u32,
    ))
}

/// One premultiplied ARGB32 pixel as straight RGBA.
fn unpremultiply(argb: u32) -> [u8; 4] {
    let [a, r, g, b] = argb.to_be_bytes();
    let straight = |c: u8| {
        if a == 0 {
            0
        } else {
            ((u32::from(c) * 255 + u32::from(a) / 2) / u32::from(a)).min(255) as u8
        }
    };
    [straight(r), straight(g), straight(b), a]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(width: u32, height: u32, scale: f64) -> Pixels {
        let pixel = 0x8040_2010u32.to_ne_bytes(); // half-transparent, premultiplied
        Pixels {
            data: pixel.repeat((width * height) as usize),
            width,
            height,
            stride: width as usize * 4,
            scale,
        }
    }

    fn decoded(shot: &Shot) -> image::RgbaImage {
        let png = base64::engine::general_purpose::STANDARD.decode(&shot.png_base64).unwrap();
        image::load_from_memory_with_format(&png, image::ImageFormat::Png).unwrap().to_rgba8()
    }

    #[test]
    fn a_page_is_a_png_of_its_size_and_a_node_is_its_box_in_device_pixels() {
        let whole = encode(&page(40, 30, 1.0), None).unwrap();
        assert_eq!((whole.width, whole.height), (40, 30));
        let image = decoded(&whole);
        assert_eq!(image.dimensions(), (40, 30));
        assert_eq!(image.get_pixel(0, 0).0, [0x80, 0x40, 0x20, 0x80], "straight alpha");

        let rect =
            Rect::from_box(&serde_json::json!({"x": 10.0, "y": 5.0, "width": 8.0, "height": 4.0}));
        let node = encode(&page(80, 60, 2.0), rect).unwrap();
        assert_eq!((node.width, node.height), (16, 8), "the box at twice the pixels");
        assert_eq!(decoded(&node).dimensions(), (16, 8));

        let outside = Rect { left: 100.0, top: 0.0, width: 5.0, height: 5.0 };
        let error = encode(&page(40, 30, 1.0), Some(outside)).err().unwrap();
        assert_eq!(error.name, Name::NotActionable);
    }
}
