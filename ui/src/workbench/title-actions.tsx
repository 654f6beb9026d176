/**
 * The buttons a widget puts in its pane's title bar (`cowork.setTitleActions`), drawn at the end
 * of the bar that names the pane (the side bar's header, the editor's tab strip, the dialog's
 * header); a click reaches the widget's `onTitleAction`.
 */
import { CoworkError, type TitleAction } from "@/frame/protocol"
import { Codicon, parseCodicon } from "./codicon"
import { sendTitleAction } from "./live-panes"
import { update, useWorkbench } from "./store"

/** A title bar has room for a few buttons, not a toolbar. */
const MAX_ACTIONS = 6

/** Replaces the pane's title-bar buttons; rejects `BadRequest` for what is not a list of `{id}`. */
export function setTitleActions(paneKey: string, actions: unknown) {
  if (
    !Array.isArray(actions) ||
    actions.some((action) => typeof action?.id !== "string" || !action.id)
  ) {
    throw new CoworkError(
      "BadRequest",
      "setTitleActions takes a list of { id, label?, icon?, tooltip? }",
    )
  }
  const kept = (actions as TitleAction[])
    .slice(0, MAX_ACTIONS)
    .map(({ id, label, icon, tooltip }) => ({
      id,
      label: typeof label === "string" ? label : undefined,
      icon: typeof icon === "string" ? icon : undefined,
      tooltip: typeof tooltip === "string" ? tooltip : undefined,
    }))
  update((s) => ({ titleActions: { ...s.titleActions, [paneKey]: kept } }))
}

export function TitleActions({ paneKey }: { paneKey: string | undefined }) {
  const actions = useWorkbench((s) => (paneKey ? s.titleActions[paneKey] : undefined))
  if (!paneKey || !actions?.length) return null
  return (
    <div data-slot="title-actions" className="flex shrink-0 items-center gap-0.5 self-center">
      {actions.map((action) => {
        const name = action.tooltip ?? action.label ?? action.id
        const icon = action.icon && parseCodicon(action.icon) ? action.icon : undefined
        return (
          <button
            key={action.id}
            type="button"
            aria-label={name}
            title={name}
            onClick={() => sendTitleAction(paneKey, action.id)}
            className="flex h-6 min-w-6 items-center justify-center gap-1 rounded px-1 text-xs font-normal tracking-normal text-muted-foreground normal-case hover:bg-accent hover:text-foreground"
          >
            {icon ? <Codicon name={icon} size={16} /> : (action.label ?? action.id)}
          </button>
        )
      })}
    </div>
  )
}
