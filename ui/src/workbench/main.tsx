// The workbench page (index.html): its styles, then the workbench (start.tsx), which waits for
// the shell's frame when index.html has painted one (shell.ts).
import "./workbench.css"

import { afterShell } from "./shell"

afterShell(() => import("./start"))
