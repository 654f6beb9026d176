import { expect, it } from "vitest"

import { sseParser } from "@/workbench/events"

it("reads server-sent events split anywhere, with comments and CRLF", () => {
  const got: unknown[] = []
  const parse = sseParser((event) => got.push(event))
  parse(': keep-alive\n\ndata: {"type":"regis')
  parse('try"}\r\n\r\ndata: {"type":"badge",\ndata: "app":"mail","count":2,"total":2}\n')
  expect(got).toEqual([{ type: "registry" }])
  parse("\n")
  expect(got).toEqual([{ type: "registry" }, { type: "badge", app: "mail", count: 2, total: 2 }])
})
