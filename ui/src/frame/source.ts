// The Tailwind source the frame compiles at runtime: tw-animate-css's animations (shadcn's
// `animate-in`, `fade-in-0` …) and the theme tokens. It must be in the document before
// @tailwindcss/browser starts, which reads every <style type="text/tailwindcss">.
import animations from "@tw-animate/tw-animate.css?raw"
import theme from "../theme.css?raw"

const style = document.createElement("style")
style.setAttribute("type", "text/tailwindcss")
style.textContent = `${animations}\n${theme}`
document.head.append(style)
