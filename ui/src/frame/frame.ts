// The page each widget pane loads. Its Tailwind stylesheet comes from the workbench with `init`
// (src/frame/styles.ts), so the page carries no compiler of its own.
import { start } from "./runtime"

start(document.getElementById("root")!)
