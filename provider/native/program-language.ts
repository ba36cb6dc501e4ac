import { readFileSync } from "node:fs";
import path from "node:path";

// The language a check failure names a field in. The engine tells a provider nothing of the
// program's language (no field of CheckRequest or ConfigureRequest says it), but it starts the
// provider in the program's folder (the project's root, or its `main` folder), where Pulumi.yaml
// says the runtime: a Python program reads `disk_gb`, a Go one `DiskGb`, YAML and TypeScript
// `diskGb`, the schema's own names.

/** How the program's SDK spells the schema's names. */
export type Spelling = "python" | "go" | "schema";

/** The runtime's name in a Pulumi.yaml: `runtime: python` or `runtime: { name: python }`. */
function runtimeOf(project: string): string | undefined {
  const inline = /^runtime:[ \t]*["']?([A-Za-z]+)/m.exec(project);
  if (inline?.[1] !== undefined) return inline[1];
  return /^runtime:[ \t]*\r?\n(?:[ \t]+.*\r?\n)*?[ \t]+name:[ \t]*["']?([A-Za-z]+)/m.exec(
    project,
  )?.[1];
}

/**
 * The spelling of the program whose Pulumi.yaml is in `dir` or the nearest folder above it
 * (a `main` folder sits below the project's root); the schema's when there is none.
 */
export function programSpelling(dir: string): Spelling {
  for (let here = path.resolve(dir), depth = 0; depth < 8; depth++) {
    for (const file of ["Pulumi.yaml", "Pulumi.yml"]) {
      let project: string;
      try {
        project = readFileSync(path.join(here, file), "utf8");
      } catch {
        continue;
      }
      const runtime = runtimeOf(project);
      return runtime === "python" ? "python" : runtime === "go" ? "go" : "schema";
    }
    const parent = path.dirname(here);
    if (parent === here) break;
    here = parent;
  }
  return "schema";
}

/** Python's name of a schema name, as Pulumi's Python generator makes it (`diskGb`: disk_gb). */
function pythonName(name: string): string {
  const snake = name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
  // Keywords get a trailing underscore (an operator object's `in`).
  return snake === "in" ? "in_" : snake;
}

/**
 * Inputs whose keys are the program's own (an environment's variable names, an API key's
 * permission categories): what follows them in a path is data, not a schema name.
 */
const keyedByProgram: ReadonlySet<string> = new Set(["env", "permissions"]);

/** A schema name: lower camel case. Anything else in a path (`HF_TOKEN`, `0`) is kept. */
const schemaName = /^[a-z][a-zA-Z0-9]*$/;

/** A field's path (`networkVolume.mountPath`, `sshKeyIds.0`) as the program's SDK spells it. */
export function spelledField(field: string, spelling: Spelling): string {
  if (spelling === "schema") return field;
  let inData = false;
  return field
    .split(".")
    .map((part) => {
      if (inData || !schemaName.test(part)) return part;
      inData = keyedByProgram.has(part);
      return spelling === "python"
        ? pythonName(part)
        : part.charAt(0).toUpperCase() + part.slice(1);
    })
    .join(".");
}

/**
 * A check failure's message with the schema's compound names (`maxWorkers`, a query's
 * `gpuRamGb`) as the program's SDK spells them. Quoted text (a variable's name) is kept as
 * written; every other camelCase word is a name of the schema's or the query language's.
 */
export function spelledMessage(message: string, spelling: Spelling): string {
  if (spelling === "schema") return message;
  return message
    .split(/("[^"]*")/)
    .map((piece) =>
      piece.startsWith('"')
        ? piece
        : piece.replace(/\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g, (name) =>
            spelledField(name, spelling),
          ),
    )
    .join("");
}
