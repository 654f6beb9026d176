// A themed widget (its text is the foreground token, its surface the page's) whose first element
// is a hard-coded white swatch: content, not the pane's surface, so the dark filter stays off.
export default function Swatch() {
  return (
    <div data-testid="swatch" className="p-3 text-foreground">
      Brand colours
      <div style={{ background: "#fff", color: "#000", padding: 8 }}>white</div>
    </div>
  )
}
