// The workbench itself (main.tsx loads it): the theme before React's first paint, then the app.
import { createRoot } from "react-dom/client"

import { start } from "./session"
import { update } from "./store"
import { initialTheme, tellShell } from "./theme"
import { Workbench } from "./workbench"

// bench/desktop prints where a start goes: the bundle has run once its modules have.
performance.mark("workbench bundle run")
const theme = initialTheme()
document.documentElement.classList.toggle("dark", theme === "dark")
update({ theme })
createRoot(document.getElementById("root")!).render(<Workbench />)
void start()
tellShell(theme)
