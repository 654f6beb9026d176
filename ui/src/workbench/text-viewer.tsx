/**
 * The read-only text viewer: docs/reference/workspace-json.md's "default editor" for a file no app
 * opens, and where `viewSource` shows a widget's source. It reads the file again each time its tab
 * comes back, so what it shows follows the disk; for a binary or big file it says why there is no
 * text, in the daemon's words.
 */
import { useEffect, useState } from "react"

import { Codicon } from "./codicon"
import * as api from "./api"
import { useWorkbench } from "./store"

export function TextViewer({ path, visible }: { path: string; visible: boolean }) {
  const workspace = useWorkbench((s) => s.workspace)
  const [file, setFile] = useState<{ text: string } | { notText: string } | null>(null)
  useEffect(() => {
    if (!visible) return
    let current = true
    api.readFile(workspace, path).then(
      (read) =>
        current &&
        setFile(read.text !== undefined ? { text: read.text } : { notText: read.notText!.message }),
      (error: Error) => current && setFile({ notText: error.message }),
    )
    return () => {
      current = false
    }
  }, [workspace, path, visible])

  if (!visible) return null
  return (
    <div data-testid="text-viewer" className="absolute inset-0 flex flex-col">
      <div className="flex h-[22px] shrink-0 items-center gap-1.5 border-b px-3 text-xs text-muted-foreground">
        <span className="min-w-0 flex-1 truncate font-mono">{path}</span>
        <Codicon name="lock" size={12} />
        Read-only
      </div>
      {file && "notText" in file ? (
        <div
          role="alert"
          className="flex flex-1 flex-col items-center justify-center gap-2 p-6 text-center"
        >
          <Codicon name="file-binary" size={28} className="text-muted-foreground" />
          <p className="max-w-md text-sm break-words">{file.notText}</p>
        </div>
      ) : (
        file && <Lines text={file.text} />
      )}
    </div>
  )
}

/** The text with VS Code's line numbers: two side-by-side blocks, so a long file is two text nodes, not a node per line. */
function Lines({ text }: { text: string }) {
  const count = text.split("\n").length - (text.endsWith("\n") ? 1 : 0)
  const numbers = Array.from({ length: Math.max(count, 1) }, (_, index) => index + 1).join("\n")
  return (
    <div className="min-h-0 flex-1 overflow-auto">
      <div className="flex min-w-max py-1 font-mono text-[13px] leading-5">
        <pre
          aria-hidden
          className="sticky left-0 shrink-0 bg-background pr-4 pl-4 text-right text-muted-foreground/70 select-none"
        >
          {numbers}
        </pre>
        <pre className="pr-6">{text}</pre>
      </div>
    </div>
  )
}
