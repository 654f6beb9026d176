// Its own chunk with its stylesheet, loaded only for widgets that import "@xterm/xterm".
import "@xterm/xterm/css/xterm.css"

export * from "@xterm/xterm"
