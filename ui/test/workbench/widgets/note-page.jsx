// A routed file's page: what it was opened for.
export default function NotePage() {
  const file = window.cowork.openedFile
  return (
    <div className="h-full bg-background p-8 text-foreground">
      <h1 className="text-xl font-semibold">{file?.basename}</h1>
      <pre data-testid="opened" className="mt-4 rounded-md bg-muted p-3 text-xs">
        {JSON.stringify(file, null, 2)}
      </pre>
    </div>
  )
}
