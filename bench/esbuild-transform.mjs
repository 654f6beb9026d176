// The baseline of the widget transpile benchmark: esbuild's transformSync on the same file, with
// the same job as our Flavor::Widget (types stripped, JSX to the automatic runtime, CommonJS).
// Usage: node bench/esbuild-transform.mjs <file.tsx> [iterations]; prints one JSON line.
import fs from "node:fs";
import { transformSync, version } from "esbuild";

const [file, iterations = "500"] = process.argv.slice(2);
const source = fs.readFileSync(file, "utf8");
const options = { loader: "tsx", format: "cjs", jsx: "automatic", sourcefile: file };
const runs = Number(iterations);

for (let i = 0; i < 20; i++) transformSync(source, options);
const start = process.hrtime.bigint();
for (let i = 0; i < runs; i++) transformSync(source, options);
const micros = Number(process.hrtime.bigint() - start) / 1000 / runs;
console.log(JSON.stringify({ esbuild: version, runs, usPerFile: micros }));
