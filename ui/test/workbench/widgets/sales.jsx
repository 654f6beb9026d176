// A dashboard tab: KPI cards from a routine, refreshed on demand.
import { useState } from "react"
import { Badge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card"
import { RefreshCw, TrendingUp } from "lucide-react"

export default function Sales() {
  const cowork = window.cowork
  const [data, setData] = useState(null)
  const [error, setError] = useState(null)
  async function load() {
    try {
      setData(await cowork.routines.run("sales-load", { quarter: "Q3" }))
      setError(null)
    } catch (e) {
      setError(`${e.name}: ${e.message}`)
    }
  }
  const kpis = data?.kpis ?? [
    { label: "Revenue", value: "—" },
    { label: "Deals won", value: "—" },
    { label: "Pipeline", value: "—" },
  ]
  return (
    <div className="flex h-full flex-col gap-6 overflow-auto bg-background p-8 text-foreground">
      <div className="flex items-center justify-between">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Sales · Q3</h1>
          <p className="text-sm text-muted-foreground">From the sales-load routine.</p>
        </div>
        <div className="flex gap-2">
          <Button variant="outline" data-testid="source" onClick={() => cowork.viewSource()}>
            Source
          </Button>
          <Button data-testid="load" onClick={load}>
            <RefreshCw /> Load
          </Button>
        </div>
      </div>
      {error && <p className="text-sm text-destructive">{error}</p>}
      <div className="grid grid-cols-3 gap-4">
        {kpis.map((kpi) => (
          <Card key={kpi.label}>
            <CardHeader>
              <CardDescription>{kpi.label}</CardDescription>
              <CardTitle data-testid="kpi" className="text-3xl tabular-nums">
                {kpi.value}
              </CardTitle>
            </CardHeader>
            <CardContent>
              <Badge variant="outline">
                <TrendingUp /> {kpi.trend ?? "…"}
              </Badge>
            </CardContent>
          </Card>
        ))}
      </div>
    </div>
  )
}
