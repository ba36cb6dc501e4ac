import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

// The watchdog's script (provider/shared/expiry-watchdog.ts) run by sh with stand-ins for every
// command it calls, the only ones on its PATH, so that no time passes and nothing is called:
// `date` says the time in the file `now`, `sleep` logs its seconds and moves that time on, each
// HTTP tool logs its arguments and fails its first `fails` calls.

export interface WatchdogStandIns {
  /** A file of the stand-ins' directory. */
  readonly file: (name: string) => string;
  /** Writes an executable stand-in. */
  readonly tool: (name: string, body: string) => void;
  /** Sets the time and writes `date`, `sleep` and the HTTP tools. */
  readonly standIns: (nowSeconds: number, tools: readonly string[], fails?: number) => void;
  /** Runs the onstart as the service would (detached: it returns at once) and waits for `done`. */
  readonly run: (script: string, done: () => boolean, maxWaitMs?: number) => Promise<void>;
  /** The lines a stand-in logged to the file `name`. */
  readonly lines: (name: string) => string[];
  /** True once an HTTP tool was called. */
  readonly called: () => boolean;
  readonly remove: () => void;
}

export function watchdogStandIns(): WatchdogStandIns {
  const bin = mkdtempSync(path.join(tmpdir(), "watchdog-"));
  const file = (name: string) => path.join(bin, name);
  const tool = (name: string, body: string) => {
    writeFileSync(file(name), `#!/bin/sh\n${body}\n`);
    chmodSync(file(name), 0o755);
  };
  // Whole lines only: a stand-in's `echo >>` creates the file before it writes, and a loaded
  // machine let a test read it empty between the two (a call of "" instead of curl's line).
  const lines = (name: string) =>
    existsSync(file(name)) ? readFileSync(file(name), "utf8").split("\n").slice(0, -1) : [];
  return {
    file,
    tool,
    lines,
    called: () => lines("calls").length > 0,
    standIns(nowSeconds, tools, fails = 0) {
      writeFileSync(file("now"), String(nowSeconds));
      tool("date", `/bin/cat ${file("now")}`);
      tool(
        "sleep",
        `echo "$1" >> ${file("sleeps")}; echo $(( $(/bin/cat ${file("now")}) + $1 )) > ${file("now")}`,
      );
      writeFileSync(file("failures"), String(fails));
      for (const name of tools) {
        tool(
          name,
          `echo "${name} $*" >> ${file("calls")}; left=$(/bin/cat ${file("failures")})\n` +
            `[ "$left" -gt 0 ] && { echo $((left - 1)) > ${file("failures")}; exit 22; }\nexit 0`,
        );
      }
    },
    async run(script, done, maxWaitMs = 30_000) {
      execFileSync("/bin/sh", ["-c", script], {
        env: { PATH: bin, CONTAINER_ID: "4242", CONTAINER_API_KEY: "container-key" },
      });
      for (let waited = 0; !done() && waited < maxWaitMs; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    remove() {
      rmSync(bin, { recursive: true, force: true });
    },
  };
}
