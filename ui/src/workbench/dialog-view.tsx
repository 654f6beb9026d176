/**
 * Cowork's dialog on screen: `WindowDialog` dims the whole workbench (one question at a time);
 * `PaneDialog` dims only its pane (`scope: "pane"`). Both draw the same `DialogForm`.
 */
import CircleAlertIcon from "lucide-react/icons/circle-alert"
import InfoIcon from "lucide-react/icons/info"
import { useEffect, useRef, useState, type FormEvent } from "react"

import { Alert, AlertDescription } from "@/components/ui/alert"
import { Button } from "@/components/ui/button"
import { Checkbox } from "@/components/ui/checkbox"
import { Dialog, DialogContent, DialogDescription, DialogTitle } from "@/components/ui/dialog"
import { Input } from "@/components/ui/input"
import { Label } from "@/components/ui/label"
import {
  Select,
  SelectContent,
  SelectItem,
  SelectTrigger,
  SelectValue,
} from "@/components/ui/select"
import { Textarea } from "@/components/ui/textarea"
import type { DialogButton, DialogField, DialogOptions } from "@/frame/protocol"
import { cn } from "@/lib/utils"
import { Codicon } from "./codicon"
import { answer } from "./dialogs"
import { useWorkbench, type DialogRequest } from "./store"

type Values = Record<string, unknown>

const TYPE_ICONS: Record<string, { name: string; className: string }> = {
  info: { name: "info", className: "text-blue-500" },
  warning: { name: "warning", className: "text-amber-500" },
  error: { name: "error", className: "text-destructive" },
  question: { name: "question", className: "text-blue-500" },
}

/** The first dialog that dims the window. */
export function WindowDialog() {
  const request = useWorkbench((s) => s.dialogs.find((dialog) => dialog.paneKey === undefined))
  return (
    <Dialog open={request !== undefined} onOpenChange={() => undefined}>
      {request && (
        <DialogContent
          key={request.id}
          showCloseButton={false}
          className="gap-5 sm:max-w-md"
          onEscapeKeyDown={(event) => event.preventDefault()}
        >
          <DialogForm request={request} />
        </DialogContent>
      )}
    </Dialog>
  )
}

/** The first dialog of one pane, over that pane only. */
export function PaneDialog({ paneKey }: { paneKey: string }) {
  const request = useWorkbench((s) => s.dialogs.find((dialog) => dialog.paneKey === paneKey))
  if (!request) return null
  return (
    <div className="absolute inset-0 z-10 grid place-items-center bg-black/40 p-4 duration-150 animate-in fade-in-0">
      <div
        role="dialog"
        aria-modal="true"
        className="grid w-full max-w-sm gap-5 rounded-lg border bg-background p-5 shadow-lg duration-150 animate-in zoom-in-95"
      >
        <DialogForm key={request.id} request={request} inPane />
      </div>
    </div>
  )
}

function initialValues(fields: DialogField[] = []): Values {
  const values: Values = {}
  for (const field of fields) {
    if (field.type === "section") continue
    if (field.type === "checkbox") values[field.id] = field.value === true
    else if (field.type === "select")
      values[field.id] = String(field.value ?? field.options?.[0]?.value ?? "")
    else values[field.id] = field.value ?? ""
  }
  return values
}

/** The message, its fields and its buttons; answers `{label, values}` (Cancel and Esc: label null). */
function DialogForm({ request, inPane = false }: { request: DialogRequest; inPane?: boolean }) {
  const { options } = request
  const [values, setValues] = useState(() => initialValues(options.fields))
  const buttons: DialogButton[] = options.buttons?.length
    ? options.buttons
    : [{ label: "OK", role: "submit", primary: true }]
  const cards = buttons.filter((button) => button.card)
  const row = buttons.filter((button) => !button.card)
  const primary = row.find((button) => button.primary) ?? (row.length === 1 ? row[0] : undefined)

  const press = (button: DialogButton | null) =>
    answer(request.id, {
      label: button && button.role !== "cancel" ? button.label : null,
      values: { ...values, ...(button?.role === "cancel" ? {} : button?.values) },
    })

  function submit(event: FormEvent) {
    event.preventDefault()
    if (primary) press(primary)
  }

  // A widget's menu that closes as its dialog opens hands the focus back to its trigger, inside
  // the pane's frame: the dialog would then get no keys, not even Esc. While the dialog is up, the
  // focus comes back to its first field (or button) whenever a frame takes it.
  const form = useRef<HTMLFormElement>(null)
  useEffect(() => {
    const keep = () =>
      setTimeout(() => {
        if (!(document.activeElement instanceof HTMLIFrameElement)) return
        form.current?.parentElement
          ?.querySelector<HTMLElement>("input, textarea, [role=combobox], button")
          ?.focus()
      })
    window.addEventListener("blur", keep)
    return () => window.removeEventListener("blur", keep)
  }, [])

  return (
    <form
      ref={form}
      className="contents"
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.stopPropagation()
          press(null)
        }
      }}
    >
      <DialogHeading options={options} inPane={inPane} />
      {options.alert && (
        <Alert variant={options.alert.variant === "destructive" ? "destructive" : "default"}>
          {/* An svg child: the Alert keeps a column for it (a Codicon's span would sit on the text). */}
          {options.alert.variant === "destructive" ? <CircleAlertIcon /> : <InfoIcon />}
          <AlertDescription>{options.alert.text}</AlertDescription>
        </Alert>
      )}
      {options.fields?.length ? (
        <div className="grid gap-4">
          {options.fields.map((field) => (
            <Field
              key={field.id}
              field={field}
              value={values[field.id]}
              onChange={(value) => setValues({ ...values, [field.id]: value })}
            />
          ))}
        </div>
      ) : null}
      {cards.length > 0 && (
        <div className="grid gap-2">
          {cards.map((button) => (
            <button
              key={button.label}
              type="button"
              onClick={() => press(button)}
              className={cn(
                "group flex w-full items-center gap-3 rounded-md border bg-card px-3 py-2.5 text-left text-sm transition-colors hover:border-ring hover:bg-accent focus-visible:ring-2 focus-visible:ring-ring/50 focus-visible:outline-none",
                button.destructive && "text-destructive",
              )}
            >
              <span className="grid flex-1 gap-0.5">
                <span className="font-medium">{button.label}</span>
                {button.sublabel && (
                  <span className="text-xs text-muted-foreground">{button.sublabel}</span>
                )}
              </span>
              <Codicon
                name="chevron-right"
                className="text-muted-foreground opacity-0 transition-opacity group-hover:opacity-100"
              />
            </button>
          ))}
        </div>
      )}
      {row.length > 0 && (
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          {row.map((button) => (
            <Button
              key={button.label}
              type={button === primary ? "submit" : "button"}
              size="sm"
              variant={button.destructive ? "destructive" : button.primary ? "default" : "outline"}
              onClick={button === primary ? undefined : () => press(button)}
            >
              {button.label}
            </Button>
          ))}
        </div>
      )}
    </form>
  )
}

function DialogHeading({ options, inPane }: { options: DialogOptions; inPane: boolean }) {
  const icon = TYPE_ICONS[options.type ?? ""]
  const Title = inPane ? "h2" : DialogTitle
  const Description = inPane ? "p" : DialogDescription
  return (
    <div className="flex items-start gap-3">
      {icon && <Codicon name={icon.name} size={22} className={cn("mt-px", icon.className)} />}
      <div className="grid min-w-0 flex-1 gap-1.5">
        <Title className="text-base leading-snug font-semibold">{options.message}</Title>
        {options.detail ? (
          <Description className="text-sm break-words whitespace-pre-line text-muted-foreground">
            {options.detail}
          </Description>
        ) : (
          !inPane && <DialogDescription className="sr-only">{options.message}</DialogDescription>
        )}
      </div>
    </div>
  )
}

function Field({
  field,
  value,
  onChange,
}: {
  field: DialogField
  value: unknown
  onChange(value: unknown): void
}) {
  const id = `dialog-field-${field.id}`
  if (field.type === "section") {
    return (
      <div className="grid gap-1">
        {field.label && (
          <div className="text-xs font-medium tracking-wide text-muted-foreground uppercase">
            {field.label}
          </div>
        )}
        {field.placeholder && (
          <div
            className={cn(
              "rounded-md bg-muted px-3 py-2 text-sm whitespace-pre-wrap",
              field.monospace && "font-mono text-xs",
            )}
          >
            {field.placeholder}
          </div>
        )}
      </div>
    )
  }
  if (field.type === "checkbox") {
    return (
      <div className="flex items-center gap-2">
        <Checkbox
          id={id}
          checked={value === true}
          onCheckedChange={(checked) => onChange(checked === true)}
        />
        <Label htmlFor={id} className="font-normal">
          {field.label}
        </Label>
      </div>
    )
  }
  return (
    <div className="grid gap-2">
      {field.label && <Label htmlFor={id}>{field.label}</Label>}
      <FieldInput id={id} field={field} value={value} onChange={onChange} />
    </div>
  )
}

function FieldInput({
  id,
  field,
  value,
  onChange,
}: {
  id: string
  field: DialogField
  value: unknown
  onChange(value: unknown): void
}) {
  const mono = field.monospace ? "font-mono text-xs" : undefined
  switch (field.type) {
    case "textarea":
      return (
        <Textarea
          id={id}
          className={mono}
          placeholder={field.placeholder}
          value={String(value ?? "")}
          onChange={(event) => onChange(event.target.value)}
        />
      )
    case "number":
      return (
        <Input
          id={id}
          type="number"
          placeholder={field.placeholder}
          value={value === "" ? "" : String(value)}
          onChange={(event) =>
            onChange(event.target.value === "" ? "" : Number(event.target.value))
          }
        />
      )
    case "select":
      return (
        <Select value={String(value)} onValueChange={onChange}>
          <SelectTrigger id={id} className="w-full">
            <SelectValue placeholder={field.placeholder} />
          </SelectTrigger>
          <SelectContent>
            {field.options?.map((option) => (
              <SelectItem key={option.value} value={option.value}>
                {option.label}
              </SelectItem>
            ))}
          </SelectContent>
        </Select>
      )
    case "color":
      return (
        <div id={id} role="radiogroup" className="flex flex-wrap gap-2">
          {field.options?.map((option) => (
            // biome-ignore lint/a11y/useSemanticElements: a colour swatch, in the radio role of WAI-ARIA's radio group pattern
            <button
              key={option.value}
              type="button"
              role="radio"
              aria-checked={value === option.value}
              aria-label={option.label}
              title={option.label}
              onClick={() => onChange(option.value)}
              className={cn(
                "relative size-6 rounded-full border ring-offset-2 ring-offset-background transition-shadow",
                value === option.value && "ring-2 ring-ring",
                !option.value &&
                  "bg-[linear-gradient(135deg,transparent_45%,var(--destructive)_45%,var(--destructive)_55%,transparent_55%)]",
              )}
              style={option.value ? { background: option.value } : undefined}
            />
          ))}
        </div>
      )
    default:
      return (
        <Input
          id={id}
          className={mono}
          placeholder={field.placeholder}
          value={String(value ?? "")}
          onChange={(event) => onChange(event.target.value)}
          autoFocus
        />
      )
  }
}
