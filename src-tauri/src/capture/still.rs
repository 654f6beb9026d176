//! A still of the screen, or of the window in front, as PNG bytes (`xcap`).

use std::io::Cursor;

/// Why no still could be taken.
#[derive(Debug, thiserror::Error)]
pub enum StillError {
    #[error("no display to take a picture of: DISPLAY is not set (Cowork Studio captures an X11 session)")]
    NoDisplay,
    #[error("no window to take a picture of (only Cowork Studio's own are open)")]
    NoWindow,
    #[error("failed to take the picture: {0}")]
    Capture(#[from] xcap::XCapError),
    #[error(transparent)]
    Own(#[from] super::own_window::OwnWindowError),
    #[error("failed to encode the picture as PNG: {0}")]
    Encode(#[from] image::ImageError),
}

impl StillError {
    /// The name a pane's promise rejects with.
    pub fn name(&self) -> cowork_core::error_name::ErrorName {
        use cowork_core::error_name::ErrorName;
        match self {
            StillError::NoDisplay => ErrorName::Unsupported,
            StillError::NoWindow => ErrorName::NotFound,
            _ => ErrorName::Unavailable,
        }
    }
}

/// The primary screen, as PNG.
pub fn screen() -> Result<Vec<u8>, StillError> {
    if std::env::var_os("DISPLAY").is_none() {
        return Err(StillError::NoDisplay);
    }
    let monitors = xcap::Monitor::all()?;
    let monitor = monitors
        .iter()
        .find(|m| m.is_primary().unwrap_or(false))
        .or(monitors.first())
        .ok_or_else(|| xcap::XCapError::new("no screen found"))?;
    png(monitor.capture_image()?)
}

/// The window in front that is not this process's, as PNG.
pub fn window() -> Result<Vec<u8>, StillError> {
    let window = front_window()?;
    png(window.capture_image()?)
}

/// This process's own window titled `title` (the main window), as PNG: its own pixels only.
pub fn own_window(title: &str) -> Result<Vec<u8>, StillError> {
    png(super::own_window::capture(title)?)
}

/// The X id of the window in front that is not this process's (what "window" records).
pub fn front_window_id() -> Result<u64, StillError> {
    Ok(u64::from(front_window()?.id()?))
}

/// Whether the X window `id` is still there (a recorded window that closed ends its recording).
pub fn window_exists(id: u64) -> bool {
    xcap::Window::all()
        .is_ok_and(|windows| windows.iter().any(|w| w.id().is_ok_and(|w| u64::from(w) == id)))
}

fn front_window() -> Result<xcap::Window, StillError> {
    if std::env::var_os("DISPLAY").is_none() {
        return Err(StillError::NoDisplay);
    }
    let own = std::process::id();
    let mut windows: Vec<xcap::Window> = xcap::Window::all()?
        .into_iter()
        .filter(|w| w.pid().ok() != Some(own) && !w.is_minimized().unwrap_or(true))
        .filter(|w| w.width().unwrap_or(0) > 1 && w.height().unwrap_or(0) > 1)
        .collect();
    // The focused one, else the topmost.
    windows.sort_by_key(|w| (w.is_focused().unwrap_or(false), w.z().unwrap_or(0)));
    windows.pop().ok_or(StillError::NoWindow)
}

fn png(image: image::RgbaImage) -> Result<Vec<u8>, StillError> {
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, image::ImageFormat::Png)?;
    Ok(out.into_inner())
}
