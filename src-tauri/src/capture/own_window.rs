//! This process's own top-level window, by its title, read with Xlib: its pixels as the X server
//! holds them (a GetImage of the window itself, never of the screen around it). xcap lists windows
//! through the window manager's `_NET_CLIENT_LIST_STACKING`, which is missing with no window manager
//! (Xvfb), so the tree is walked here and a window is ours by its `_NET_WM_PID`.

#![allow(unsafe_code)] // Xlib calls on a connection of our own: see each block.

use std::os::raw::{c_int, c_uchar, c_uint, c_ulong};
use x11::xlib;

/// Why the window could not be read.
#[derive(Debug, thiserror::Error)]
pub enum OwnWindowError {
    #[error("no display to take a picture of: DISPLAY is not set or cannot be opened")]
    NoDisplay,
    #[error("no window of Cowork Studio titled {0:?} is showing")]
    NotShowing(String),
    #[error("failed to read the window's pixels from the X server")]
    Read,
}

/// The viewable window of this process titled `title`, as an RGBA image.
pub fn capture(title: &str) -> Result<image::RgbaImage, OwnWindowError> {
    // SAFETY: the connection is opened and closed here and used by this thread only; XOpenDisplay
    // answers null without a display, which is checked.
    unsafe {
        let display = xlib::XOpenDisplay(std::ptr::null());
        if display.is_null() {
            return Err(OwnWindowError::NoDisplay);
        }
        let root = xlib::XDefaultRootWindow(display);
        let result = match find(display, root, title, std::process::id(), 0) {
            Some(window) => grab(display, window),
            None => Err(OwnWindowError::NotShowing(title.to_string())),
        };
        xlib::XCloseDisplay(display);
        result
    }
}

/// A viewable window below `window` (depth first; a window manager puts ours one level down)
/// owned by `pid` and titled `title`.
///
/// SAFETY: `display` is an open connection used by this thread only.
unsafe fn find(
    display: *mut xlib::Display,
    window: xlib::Window,
    title: &str,
    pid: u32,
    depth: u32,
) -> Option<xlib::Window> {
    let (mut root, mut parent, mut children, mut count): (c_ulong, c_ulong, *mut c_ulong, c_uint) =
        (0, 0, std::ptr::null_mut(), 0);
    if xlib::XQueryTree(display, window, &mut root, &mut parent, &mut children, &mut count) == 0 {
        return None;
    }
    let list: Vec<xlib::Window> = if children.is_null() {
        Vec::new()
    } else {
        let list = std::slice::from_raw_parts(children, count as usize).to_vec();
        xlib::XFree(children.cast());
        list
    };
    // Topmost first: the children come bottom to top.
    for &child in list.iter().rev() {
        if viewable(display, child)
            && property(display, child, c"_NET_WM_PID", xlib::XA_CARDINAL).is_some_and(
                |(bytes, format)| format == 32 && first_long(&bytes) == Some(pid.into()),
            )
            && property(display, child, c"_NET_WM_NAME", atom(display, c"UTF8_STRING"))
                .is_some_and(|(bytes, _)| bytes == title.as_bytes())
        {
            return Some(child);
        }
        if depth < 2 {
            if let Some(found) = find(display, child, title, pid, depth + 1) {
                return Some(found);
            }
        }
    }
    None
}

/// SAFETY: `display` is an open connection used by this thread only.
unsafe fn viewable(display: *mut xlib::Display, window: xlib::Window) -> bool {
    let mut attributes: xlib::XWindowAttributes = std::mem::zeroed();
    xlib::XGetWindowAttributes(display, window, &mut attributes) != 0
        && attributes.map_state == xlib::IsViewable
        && attributes.width > 1
        && attributes.height > 1
}

/// SAFETY: `display` is an open connection used by this thread only.
unsafe fn atom(display: *mut xlib::Display, name: &std::ffi::CStr) -> xlib::Atom {
    xlib::XInternAtom(display, name.as_ptr(), xlib::False)
}

/// A property's bytes as Xlib hands them (items of `format` bits; 32 ones as C longs), if set.
///
/// SAFETY: `display` is an open connection used by this thread only.
unsafe fn property(
    display: *mut xlib::Display,
    window: xlib::Window,
    name: &std::ffi::CStr,
    kind: xlib::Atom,
) -> Option<(Vec<u8>, c_int)> {
    let (mut actual, mut format, mut items, mut after, mut data): (
        c_ulong,
        c_int,
        c_ulong,
        c_ulong,
        *mut c_uchar,
    ) = (0, 0, 0, 0, std::ptr::null_mut());
    let status = xlib::XGetWindowProperty(
        display,
        window,
        atom(display, name),
        0,
        4096,
        xlib::False,
        kind,
        &mut actual,
        &mut format,
        &mut items,
        &mut after,
        &mut data,
    );
    if status != xlib::Success as c_int || data.is_null() {
        return None;
    }
    let unit = match format {
        8 => 1,
        16 => std::mem::size_of::<std::os::raw::c_short>(),
        _ => std::mem::size_of::<std::os::raw::c_long>(),
    };
    let bytes = std::slice::from_raw_parts(data, items as usize * unit).to_vec();
    xlib::XFree(data.cast());
    (actual != 0).then_some((bytes, format))
}

/// The first C long of a 32-bit-format property.
fn first_long(bytes: &[u8]) -> Option<std::os::raw::c_long> {
    const SIZE: usize = std::mem::size_of::<std::os::raw::c_long>();
    let first: [u8; SIZE] = bytes.get(..SIZE)?.try_into().ok()?;
    Some(std::os::raw::c_long::from_ne_bytes(first))
}

/// The window's pixels.
///
/// SAFETY: `display` is an open connection used by this thread only; `window` was found on it.
unsafe fn grab(
    display: *mut xlib::Display,
    window: xlib::Window,
) -> Result<image::RgbaImage, OwnWindowError> {
    let mut attributes: xlib::XWindowAttributes = std::mem::zeroed();
    if xlib::XGetWindowAttributes(display, window, &mut attributes) == 0 {
        return Err(OwnWindowError::Read);
    }
    let (width, height) = (attributes.width as c_uint, attributes.height as c_uint);
    let ximage =
        xlib::XGetImage(display, window, 0, 0, width, height, xlib::XAllPlanes(), xlib::ZPixmap);
    if ximage.is_null() {
        return Err(OwnWindowError::Read);
    }
    let masks = [(*ximage).red_mask, (*ximage).green_mask, (*ximage).blue_mask];
    let channel = |pixel: c_ulong, mask: c_ulong| {
        if mask == 0 {
            return 0;
        }
        let value = (pixel & mask) >> mask.trailing_zeros();
        let top = mask >> mask.trailing_zeros();
        (value * 255 / top) as u8
    };
    let mut out = image::RgbaImage::new(width, height);
    for (x, y, pixel) in out.enumerate_pixels_mut() {
        let value = xlib::XGetPixel(ximage, x as c_int, y as c_int);
        *pixel = image::Rgba([
            channel(value, masks[0]),
            channel(value, masks[1]),
            channel(value, masks[2]),
            255,
        ]);
    }
    xlib::XDestroyImage(ximage);
    Ok(out)
}
