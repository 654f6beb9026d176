/** A `"display": "modal"` app: its widget in a resizable dialog over the workbench. */
import { Dialog, DialogContent, DialogDescription, DialogTitle } from "@/components/ui/dialog"
import { AppIcon } from "./app-icon"
import { closeModal } from "./navigation"
import { PanelButton } from "./output-panel"
import { PaneFrame } from "./pane-frame"
import { paneTitle, useApp, useWorkbench } from "./store"
import { TitleActions } from "./title-actions"

export function ModalPane() {
  const modal = useWorkbench((s) => s.modal)
  const app = useApp(modal?.app)
  return (
    <Dialog open={modal !== null} onOpenChange={(open) => open || closeModal()}>
      {modal && (
        <DialogContent
          showCloseButton={false}
          className="flex h-[min(560px,80vh)] min-h-60 w-[min(760px,90vw)] max-w-[96vw] min-w-80 resize flex-col gap-0 overflow-hidden p-0 sm:max-w-[96vw]"
        >
          <header className="flex h-10 shrink-0 items-center gap-2 border-b bg-sidebar pr-2 pl-3">
            {app && <AppIcon app={app} size="small" />}
            <DialogTitle className="flex-1 truncate text-sm font-medium">
              {paneTitle(modal, app)}
            </DialogTitle>
            <DialogDescription className="sr-only">{app?.title ?? modal.app}</DialogDescription>
            <TitleActions paneKey={modal.key} />
            <PanelButton icon="close" label="Close" onClick={closeModal} />
          </header>
          <div className="min-h-0 flex-1">
            <PaneFrame spec={modal} visible />
          </div>
        </DialogContent>
      )}
    </Dialog>
  )
}
