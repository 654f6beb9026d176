// The page each widget pane loads. Module order matters: the Tailwind source goes into the
// document first, then the Tailwind compiler starts, then the runtime.
import "./source"
import "@tailwindcss/browser"
import { start } from "./runtime"

start(document.getElementById("root")!)
