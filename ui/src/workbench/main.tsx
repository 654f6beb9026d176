// The workbench page (index.html): styles, the theme before the first paint, then the app.
import "./workbench.css"

import { createRoot } from "react-dom/client"

import { start } from "./session"
import { update } from "./store"
import { initialTheme } from "./theme"
import { Workbench } from "./workbench"

const theme = initialTheme()
document.documentElement.classList.toggle("dark", theme === "dark")
update({ theme })
createRoot(document.getElementById("root")!).render(<Workbench />)
void start()
