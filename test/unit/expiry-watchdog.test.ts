import { execFileSync, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import {
  apiAddressOf,
  expiresAtOf,
  type Expiry,
  expiryFrom,
  lifetimeSecondsOf,
  lifetimeTextOf,
  onstartCommandOf,
  readOnstart,
  unwrapOnstart,
  watchdogOf,
  wrapOnstart,
  wrappedOnstartTooLong,
} from "../../provider/shared/expiry-watchdog";
import { onstartLimitChars } from "../../provider/shared/onstart";
import { type WatchdogStandIns, watchdogStandIns } from "../support/watchdog-stand-ins";

// maxLifetime's watchdog (provider/shared/expiry-watchdog.ts): the script it makes, that shells
// accept it, what it does when run (with stand-ins for date, sleep and the HTTP tools, so that
// no time passes and nothing is called), its length, and reading the user's onstart back.

const baseUrl = "https://console.example.com";
// 2026-01-01T00:00:00Z, plus 8 hours.
const createdMs = Date.UTC(2026, 0, 1);
const destroyIn8h = expiryFrom(8 * 3600, "destroy", createdMs);
const stopIn8h = expiryFrom(8 * 3600, "stop", createdMs);

/** A realistic onstart of `chars` characters: setup lines a user writes, repeated. */
function realisticOnstart(chars: number): string {
  const lines = [
    "env | grep _ >> /etc/environment",
    "pip install -q transformers accelerate datasets",
    'huggingface-cli download "$MODEL_ID" --local-dir /workspace/model',
    "nohup python /workspace/train.py --epochs 3 > /workspace/train.log 2>&1 &",
  ];
  let script = "#!/bin/bash\nset -e\n";
  for (let step = 0; script.length < chars; step++) {
    script += `${lines[step % lines.length] ?? ""} # step ${step}\n`;
  }
  return script.slice(0, chars - 1) + "\n";
}

describe("maxLifetime's durations", () => {
  it.each([
    ["30s", 30],
    ["90m", 5400],
    ["8h", 28800],
    ["3d", 259200],
  ])("%s is %i seconds, written back in the largest unit", (text, seconds) => {
    expect(lifetimeSecondsOf(text)).toBe(seconds);
    expect(lifetimeTextOf(seconds)).toBe(text);
  });

  it.each(["forever", "8", "8 h", "1h30m", "0s", "-5m", "8H", "2.5h", ""])(
    "%j is not one",
    (text) => {
      expect(lifetimeSecondsOf(text)).toBeUndefined();
    },
  );

  it("fixes an absolute deadline from the create's time, shown in ISO 8601 UTC", () => {
    expect(destroyIn8h).toEqual({
      maxLifetimeSeconds: 28800,
      onExpiry: "destroy",
      deadlineEpochSeconds: createdMs / 1000 + 28800,
    });
    expect(expiresAtOf(destroyIn8h)).toBe("2026-01-01T08:00:00Z");
    // Milliseconds of the create are dropped, never rounded up past the lifetime.
    expect(expiryFrom(30, "stop", createdMs + 999).deadlineEpochSeconds).toBe(
      createdMs / 1000 + 30,
    );
  });
});

describe("the watchdog script", () => {
  it("destroys: DELETE of the container's own instance, with the container's own key", () => {
    const script = watchdogOf({ expiry: destroyIn8h }, baseUrl);
    expect(script.split("\n")[0]).toBe(
      "# pulumi-gpucloud watchdog: maxLifetime 28800s, onExpiry destroy, expiresAt 2026-01-01T08:00:00Z",
    );
    expect(script).toContain(`e=${String(destroyIn8h.deadlineEpochSeconds)};`);
    expect(script).toContain(`u='${baseUrl}/api/v0/instances/'$CONTAINER_ID/;`);
    expect(script).toContain('k="Authorization: Bearer $CONTAINER_API_KEY"');
    expect(script).toContain("curl -fsS -m60 -XDELETE");
    expect(script).toContain("--method=DELETE");
    expect(script).not.toContain("PUT");
    // curl, then wget, then python3.
    const order = ["command -v curl", "command -v wget", "command -v python3"].map((tool) =>
      script.indexOf(tool),
    );
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("stops: PUT {state: stopped}", () => {
    const script = watchdogOf({ expiry: stopIn8h }, baseUrl);
    expect(script).toContain(`b='{"state":"stopped"}'`);
    expect(script).toContain('curl -fsS -m60 -XPUT -H"$j" -d"$b"');
    expect(script).toContain('--method=PUT --header="$j" --body-data="$b"');
    expect(script).not.toContain("DELETE");
  });

  it("calls the configured address as the client does: no user, password or query", () => {
    expect(apiAddressOf("https://user:pw@gpu.example.com:8443/prefix/?x=1")).toBe(
      "https://gpu.example.com:8443/prefix",
    );
    const script = watchdogOf({ expiry: destroyIn8h }, "https://user:pw@gpu.example.com/prefix/");
    expect(script).toContain("u='https://gpu.example.com/prefix/api/v0/instances/'");
    expect(script).not.toContain("pw");
  });

  it.each(["sh", "bash"])("is accepted by %s -n, alone and before a user's onstart", (shell) => {
    for (const expiry of [destroyIn8h, stopIn8h]) {
      for (const script of [
        watchdogOf({ expiry: expiry }, baseUrl),
        wrapOnstart(realisticOnstart(3000), { expiry: expiry }, baseUrl),
        // A quote in the address is quoted for the shell.
        wrapOnstart("echo hi", { expiry: expiry }, "https://gpu.example.com/it's"),
      ]) {
        const checked = spawnSync(shell, ["-n"], { input: script, encoding: "utf8" });
        expect({ status: checked.status, stderr: checked.stderr }).toEqual({
          status: 0,
          stderr: "",
        });
      }
    }
  });

  it("adds under 1000 characters: about 830 to destroy, 930 to stop", () => {
    const added = (expiry: Expiry) => wrapOnstart("", { expiry: expiry }, baseUrl).length;
    expect(added(destroyIn8h)).toBeLessThan(850);
    expect(added(stopIn8h)).toBeLessThan(950);
    // Each character of the address once.
    expect(added(expiryFrom(60, "destroy", createdMs))).toBe(added(destroyIn8h) - 3);
  });
});

describe("the watchdog when it runs", () => {
  let bin: WatchdogStandIns;
  beforeEach(() => {
    bin = watchdogStandIns();
  });
  afterEach(() => {
    bin.remove();
  });
  const file = (name: string) => bin.file(name);
  const tool = (name: string, body: string) => {
    bin.tool(name, body);
  };
  const standIns = (nowSeconds: number, tools: readonly string[], fails = 0) => {
    bin.standIns(nowSeconds, tools, fails);
  };
  const run = (script: string, done: () => boolean, maxWaitMs?: number) =>
    bin.run(script, done, maxWaitMs);
  const lines = (name: string) => bin.lines(name);
  const called = () => bin.called();
  // Generous, as Jest's 5 s are not: a loaded 2-core machine (the whole suite beside other work)
  // starves the detached shell, which still ends in milliseconds when it is not.
  jest.setTimeout(40_000);

  it("sleeps until the deadline, in steps of at most a minute, then destroys with curl", async () => {
    const deadline = destroyIn8h.deadlineEpochSeconds;
    standIns(deadline - 150, ["curl", "wget", "python3"]);
    await run(wrapOnstart(`echo user > ${file("user")}`, { expiry: destroyIn8h }, baseUrl), called);
    expect(lines("sleeps")).toEqual(["60", "60", "30"]);
    expect(lines("calls")).toEqual([
      `curl -fsS -m60 -XDELETE -HAuthorization: Bearer container-key ${baseUrl}/api/v0/instances/4242/`,
    ]);
    // The user's onstart ran too, after the watchdog was started.
    expect(lines("user")).toEqual(["user"]);
  });

  it("computes what is left each time it starts: a restart does not move the deadline", async () => {
    const deadline = stopIn8h.deadlineEpochSeconds;
    // Restarted 10 s before the deadline: 10 s to wait, not 8 hours.
    standIns(deadline - 10, ["curl"]);
    await run(wrapOnstart(undefined, { expiry: stopIn8h }, baseUrl), called);
    expect(lines("sleeps")).toEqual(["10"]);
    expect(lines("calls")).toEqual([
      `curl -fsS -m60 -XPUT -HContent-Type: application/json -d{"state":"stopped"} ` +
        `-HAuthorization: Bearer container-key ${baseUrl}/api/v0/instances/4242/`,
    ]);
  });

  it("acts at once when started after the deadline (an expired instance started by hand)", async () => {
    standIns(destroyIn8h.deadlineEpochSeconds + 3600, ["curl"]);
    await run(wrapOnstart("true", { expiry: destroyIn8h }, baseUrl), called);
    expect(lines("sleeps")).toEqual([]);
    expect(lines("calls")).toHaveLength(1);
  });

  it("uses wget without curl, python3 without either", async () => {
    standIns(destroyIn8h.deadlineEpochSeconds, ["wget"]);
    await run(watchdogOf({ expiry: destroyIn8h }, baseUrl), called);
    expect(lines("calls")).toEqual([
      `wget -qO- -T60 --method=DELETE --header=Authorization: Bearer container-key ${baseUrl}/api/v0/instances/4242/`,
    ]);
    rmSync(file("calls"));
    rmSync(file("wget"));
    standIns(stopIn8h.deadlineEpochSeconds, ["python3"]);
    await run(watchdogOf({ expiry: stopIn8h }, baseUrl), called);
    const [python] = lines("calls");
    expect(python).toMatch(
      /^python3 -c import os,sys,urllib\.request as r;.* PUT \S+ \{"state":"stopped"\}$/,
    );
    // The key is read from the environment by python, never passed on its command line.
    expect(python).not.toContain("container-key");
  });

  it("falls back to the next tool when one fails, and retries the call a few times", async () => {
    standIns(destroyIn8h.deadlineEpochSeconds, ["curl", "wget", "python3"], 4);
    await run(watchdogOf({ expiry: destroyIn8h }, baseUrl), () => lines("calls").length >= 5);
    expect(lines("calls").map((call) => call.split(" ")[0])).toEqual([
      "curl",
      "wget",
      "python3",
      "curl",
      "wget",
    ]);
    // One pause between the first round and the second.
    expect(lines("sleeps")).toEqual(["1"]);
  });

  it("gives up after 10 rounds, and does nothing without a clock", async () => {
    standIns(destroyIn8h.deadlineEpochSeconds, ["curl"], 100);
    await run(watchdogOf({ expiry: destroyIn8h }, baseUrl), () => lines("sleeps").length >= 9);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lines("calls")).toHaveLength(10);
    expect(lines("sleeps")).toEqual(["1", "4", "9", "16", "25", "36", "49", "64", "81"]);

    rmSync(file("calls"));
    standIns(0, ["curl"]);
    tool("date", "echo %s");
    await run(watchdogOf({ expiry: destroyIn8h }, baseUrl), called, 500);
    expect(lines("calls")).toEqual([]);
  });
});

describe("an onstart with its watchdog, fitted and read back", () => {
  it("gives back the user's onstart exactly, and the expiry", () => {
    const onstart = "#!/bin/bash\necho 'quotes \" and $HOME' \n\n";
    const command = onstartCommandOf(onstart, { expiry: destroyIn8h }, baseUrl);
    if (!command.ok) throw new Error("did not fit");
    expect(command.compressed).toBe(false);
    expect(readOnstart(command.command)).toEqual({ onstart, expiry: destroyIn8h });
    expect(unwrapOnstart(command.command)).toEqual({
      onstart,
      rules: { expiry: destroyIn8h },
      baseUrl,
    });
    // No onstart: the watchdog alone, read back as an empty one.
    const alone = onstartCommandOf(undefined, { expiry: stopIn8h }, baseUrl);
    expect(alone.ok && readOnstart(alone.command)).toEqual({
      onstart: "",
      expiry: stopIn8h,
    });
  });

  it("fits an onstart near 4048 characters with gzip and base64, and reads it back", () => {
    const onstart = realisticOnstart(onstartLimitChars - 8);
    expect(onstart).toHaveLength(onstartLimitChars - 8);
    const command = onstartCommandOf(onstart, { expiry: stopIn8h }, baseUrl);
    if (!command.ok) throw new Error("did not fit");
    expect(command.compressed).toBe(true);
    expect(command.command.length).toBeLessThanOrEqual(onstartLimitChars);
    expect(readOnstart(command.command)).toEqual({ onstart, expiry: stopIn8h });
    // What the bootstrap writes back and runs is the watchdog, then the user's onstart.
    const payload = /echo (\S+) \|/.exec(command.command)?.[1] ?? "";
    const written = execFileSync("sh", ["-c", `echo ${payload} | base64 -d | gzip -dc`], {
      encoding: "utf8",
    });
    expect(written).toBe(wrapOnstart(onstart, { expiry: stopIn8h }, baseUrl));
    expect(wrappedOnstartTooLong(onstart, { expiry: stopIn8h }, baseUrl)).toBeUndefined();
  });

  it("says why when even compressed it does not fit, naming the watchdog", () => {
    const incompressible = randomBytes(2900).toString("base64");
    expect(incompressible.length).toBeLessThanOrEqual(onstartLimitChars);
    expect(onstartCommandOf(incompressible, { expiry: destroyIn8h }, baseUrl).ok).toBe(false);
    expect(wrappedOnstartTooLong(incompressible, { expiry: destroyIn8h }, baseUrl)).toMatch(
      new RegExp(
        `^3868 characters, \\d+ with maxLifetime's watchdog \\(\\d+ more\\), \\d+ even when ` +
          `gzipped and base64-encoded; the service takes at most 4048$`,
      ),
    );
  });

  it("never takes a user's script for a watchdog", () => {
    const wrapped = wrapOnstart("echo hi", { expiry: destroyIn8h }, baseUrl);
    // Any change to the watchdog's text: the whole is the user's.
    for (const changed of [
      wrapped.replace("sleep $s", "sleep 1"),
      wrapped.replace("-XDELETE", "-XPUT"),
      wrapped.replace(`e=${String(destroyIn8h.deadlineEpochSeconds)}`, "e=1"),
      `#\n${wrapped}`,
      "echo hi",
    ]) {
      expect(readOnstart(changed)).toEqual({ onstart: changed });
    }
  });
});
