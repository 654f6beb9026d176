// Its own chunk with its stylesheet, loaded only for widgets that import "@xyflow/react".
import "@xyflow/react/dist/style.css"

export * from "@xyflow/react"
