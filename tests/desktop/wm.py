#!/usr/bin/env python3
"""What a window manager's buttons do to an X window, which xdotool 3.2016 cannot:

    tests/desktop/wm.py close <window id>      (as `xdotool search` prints it)
    tests/desktop/wm.py maximize <window id>

- close: the close button's WM_DELETE_WINDOW client message (ICCCM), the request the app's close
  handler sees (xdotool can only destroy or kill a window, which no close button does; Xvfb runs
  no window manager).
- maximize: the _NET_WM_STATE request (EWMH) to add MAXIMIZED_VERT and MAXIMIZED_HORZ, sent to
  the root window for the window manager (a suite that runs one) to carry out.

Only the standard library: libX11 through ctypes (GTK already needs it).
"""
import ctypes
import ctypes.util
import sys


class ClientMessage(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("serial", ctypes.c_ulong),
        ("send_event", ctypes.c_int),
        ("display", ctypes.c_void_p),
        ("window", ctypes.c_ulong),
        ("message_type", ctypes.c_ulong),
        ("format", ctypes.c_int),
        ("data", ctypes.c_long * 5),
    ]


class Event(ctypes.Union):
    # XEvent is a union padded to 24 longs.
    _fields_ = [("xclient", ClientMessage), ("pad", ctypes.c_long * 24)]


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("close", "maximize"):
        print(__doc__, file=sys.stderr)
        return 2
    action, window = sys.argv[1], int(sys.argv[2], 0)
    x11 = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XDefaultRootWindow.restype = ctypes.c_ulong
    x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    x11.XInternAtom.restype = ctypes.c_ulong
    x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x11.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.POINTER(Event)]
    x11.XFlush.argtypes = [ctypes.c_void_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    display = x11.XOpenDisplay(None)
    if not display:
        print("error: cannot open the X display (is DISPLAY set?)", file=sys.stderr)
        return 1
    atom = lambda name: x11.XInternAtom(display, name, False)
    event = Event()
    event.xclient.type = 33  # ClientMessage
    event.xclient.window = window
    event.xclient.format = 32
    if action == "close":
        event.xclient.message_type = atom(b"WM_PROTOCOLS")
        event.xclient.data[0] = atom(b"WM_DELETE_WINDOW")
        event.xclient.data[1] = 0  # CurrentTime
        x11.XSendEvent(display, window, False, 0, ctypes.byref(event))
    else:
        event.xclient.message_type = atom(b"_NET_WM_STATE")
        event.xclient.data[0] = 1  # _NET_WM_STATE_ADD
        event.xclient.data[1] = atom(b"_NET_WM_STATE_MAXIMIZED_VERT")
        event.xclient.data[2] = atom(b"_NET_WM_STATE_MAXIMIZED_HORZ")
        event.xclient.data[3] = 1  # from an application
        substructure = (1 << 19) | (1 << 20)  # SubstructureNotifyMask | SubstructureRedirectMask
        x11.XSendEvent(display, x11.XDefaultRootWindow(display), False, substructure, ctypes.byref(event))
    x11.XFlush(display)
    x11.XCloseDisplay(display)
    return 0


if __name__ == "__main__":
    sys.exit(main())
