// Its own chunk (named after this file), loaded only for widgets that import "recharts".
export * from "recharts"
