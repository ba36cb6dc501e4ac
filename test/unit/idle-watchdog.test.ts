import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import {
  expiryFrom,
  readOnstart,
  type WatchdogRules,
  watchdogOf,
  wrapOnstart,
  wrappedOnstartTooLong,
} from "../../provider/shared/expiry-watchdog";
import { type IdleRule, lookSecondsOf } from "../../provider/shared/idle-watchdog";
import { type WatchdogStandIns, watchdogStandIns } from "../support/watchdog-stand-ins";

// idleShutdown's rule in the watchdog (provider/shared/idle-watchdog.ts, expiry-watchdog.ts):
// the script it makes, and what it decides when run, with stand-ins for date, sleep, the HTTP
// tools and nvidia-smi, and files standing for /proc/net/tcp and tcp6, so that no time passes.

const baseUrl = "https://console.example.com";
const startSeconds = Date.UTC(2026, 0, 1) / 1000;
const idle = (afterSeconds: number, action: IdleRule["action"] = "destroy"): WatchdogRules => ({
  idle: { afterSeconds, action },
});
const destroyCall = `curl -fsS -m60 -XDELETE -HAuthorization: Bearer container-key ${baseUrl}/api/v0/instances/4242/`;
const stopCall =
  `curl -fsS -m60 -XPUT -HContent-Type: application/json -d{"state":"stopped"} ` +
  `-HAuthorization: Bearer container-key ${baseUrl}/api/v0/instances/4242/`;

// /proc/net/tcp's header and lines: a listening sshd, an outgoing connection to another
// machine's port 22 (git over SSH), and an SSH session into this container.
const tcpHeader =
  "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode";
const sshdListening =
  "   0: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1";
const outgoingSsh =
  "   1: 0200000A:D2C4 0A01A8C0:0016 01 00000000:00000000 00:00000000 00000000     0        0 2";
const sshSession6 =
  "   0: 0000000000000000FFFF00000200000A:0016 0000000000000000FFFF00000101A8C0:E1F2 01 00000000:00000000 00:00000000 00000000     0        0 3";

describe("the idle rule in the watchdog script", () => {
  it("says its rules in the header, after maxLifetime's when both are given", () => {
    expect(watchdogOf(idle(1800, "stop"), baseUrl).split("\n")[0]).toBe(
      "# pulumi-gpucloud watchdog: idleShutdown 1800s, idleAction stop",
    );
    const both = { expiry: expiryFrom(28800, "destroy", startSeconds * 1000), ...idle(1800) };
    expect(watchdogOf(both, baseUrl).split("\n")[0]).toBe(
      "# pulumi-gpucloud watchdog: maxLifetime 28800s, onExpiry destroy, expiresAt " +
        "2026-01-01T08:00:00Z, idleShutdown 1800s, idleAction destroy",
    );
    expect(watchdogOf(idle(1800), baseUrl)).toContain(
      "nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits",
    );
  });

  it("looks every tenth of the period, from every second to every 30 s", () => {
    expect([3, 10, 100, 300, 1800, 86_400].map(lookSecondsOf)).toEqual([1, 1, 10, 30, 30, 30]);
  });

  it.each(["sh", "bash"])(
    "is accepted by %s -n, alone, with maxLifetime and an onstart",
    (shell) => {
      const expiry = expiryFrom(3600, "stop", startSeconds * 1000);
      for (const rules of [idle(60), idle(60, "stop"), { expiry, ...idle(60) }]) {
        for (const script of [watchdogOf(rules, baseUrl), wrapOnstart("echo hi", rules, baseUrl)]) {
          const checked = spawnSync(shell, ["-n"], { input: script, encoding: "utf8" });
          expect({ status: checked.status, stderr: checked.stderr }).toEqual({
            status: 0,
            stderr: "",
          });
        }
      }
    },
  );

  it("reads the rules and the user's onstart back, and never takes a changed script for one", () => {
    const expiry = expiryFrom(7200, "stop", startSeconds * 1000);
    for (const rules of [idle(1800), idle(90, "stop"), { expiry, ...idle(1800) }]) {
      const wrapped = wrapOnstart("echo hi\n", rules, baseUrl);
      expect(readOnstart(wrapped)).toEqual({ onstart: "echo hi\n", ...rules });
      for (const changed of [
        wrapped.replace("-lt 5 ]", "-lt 50 ]"),
        wrapped.replace("a=", "a=1"),
        wrapped.replace("idleAction", "idleaction"),
      ]) {
        expect(readOnstart(changed)).toEqual({ onstart: changed });
      }
    }
  });

  it("names idleShutdown's watchdog when an onstart does not fit with it", () => {
    const incompressible = randomBytes(2900).toString("base64");
    expect(wrappedOnstartTooLong(incompressible, idle(1800), baseUrl)).toMatch(
      /^3868 characters, \d+ with idleShutdown's watchdog \(\d+ more\), \d+ even when gzipped/,
    );
  });
});

describe("the idle rule when it runs", () => {
  let bin: WatchdogStandIns;
  beforeEach(() => {
    bin = watchdogStandIns();
  });
  afterEach(() => {
    bin.remove();
  });
  // As the lifetime watchdog's tests: a loaded machine starves the detached shell.
  jest.setTimeout(40_000);

  /**
   * The GPUs: `nvidia-smi` answers the file `gpu` (one line per GPU), or `busy` while the time
   * is before the file `busy-until`. /proc/net/tcp and tcp6 are the files `tcp` and `tcp6`.
   */
  const gpus = (utilization: string, busyUntilSeconds = 0) => {
    writeFileSync(bin.file("gpu"), utilization);
    writeFileSync(bin.file("busy-until"), String(busyUntilSeconds));
    bin.tool(
      "nvidia-smi",
      `echo "$*" >> ${bin.file("smi")}\n` +
        `[ "$(/bin/cat ${bin.file("now")})" -lt "$(/bin/cat ${bin.file("busy-until")})" ] && ` +
        `{ echo 80; exit 0; }\n/bin/cat ${bin.file("gpu")}`,
    );
  };
  const connections = (tcp: readonly string[], tcp6: readonly string[] = []) => {
    writeFileSync(bin.file("tcp"), [tcpHeader, ...tcp].join("\n") + "\n");
    writeFileSync(bin.file("tcp6"), [tcpHeader, ...tcp6].join("\n") + "\n");
  };
  /** The script, reading the stand-ins' files where the container's /proc would be. */
  const script = (rules: WatchdogRules) => {
    const text = watchdogOf(rules, baseUrl);
    expect(text).toContain("/proc/net/tcp /proc/net/tcp6");
    return text.replace("/proc/net/tcp /proc/net/tcp6", `${bin.file("tcp")} ${bin.file("tcp6")}`);
  };
  /**
   * Runs a watchdog that should never act: `sleep` ends it after `looks` looks (its parent is
   * the watchdog's shell), and nothing may have been called by then.
   */
  const runUntilLooks = async (rules: WatchdogRules, looks: number) => {
    bin.tool(
      "sleep",
      `echo "$1" >> ${bin.file("sleeps")}; echo $(( $(/bin/cat ${bin.file("now")}) + $1 )) > ${bin.file("now")}\n` +
        `[ "$(/usr/bin/wc -l < ${bin.file("sleeps")})" -ge ${looks} ] && kill -9 $PPID; exit 0`,
    );
    await bin.run(script(rules), () => bin.lines("sleeps").length >= looks);
    // Ended, not merely slow: no look after the last.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(bin.lines("sleeps")).toHaveLength(looks);
  };

  it("destroys an instance idle for the whole period: no GPU at 5% or more, no SSH session", async () => {
    bin.standIns(startSeconds, ["curl", "wget", "python3"]);
    gpus("0\n4\n");
    connections([sshdListening, outgoingSsh]);
    await bin.run(script(idle(300)), bin.called);
    // Ten looks 30 s apart: idle at each, for 300 s.
    expect(bin.lines("sleeps")).toEqual(Array<string>(10).fill("30"));
    expect(bin.lines("calls")).toEqual([destroyCall]);
    expect(bin.lines("smi")[0]).toBe("--query-gpu=utilization.gpu --format=csv,noheader,nounits");
  });

  it("stops it with action stop", async () => {
    bin.standIns(startSeconds, ["curl"]);
    gpus("0\n");
    connections([]);
    await bin.run(script(idle(20, "stop")), bin.called);
    expect(bin.lines("sleeps")).toEqual(Array<string>(10).fill("2"));
    expect(bin.lines("calls")).toEqual([stopCall]);
  });

  it("counts the period again from the last busy look", async () => {
    bin.standIns(startSeconds, ["curl"]);
    // Busy for the first 95 s: the looks at 0 to 90 s see 80%.
    gpus("0\n", startSeconds + 95);
    connections([]);
    await bin.run(script(idle(300)), bin.called);
    // Idle from the look at 120 s; acts at the look 300 s after the last busy one (90 s).
    expect(bin.lines("sleeps")).toHaveLength(13);
    expect(bin.lines("calls")).toEqual([destroyCall]);
  });

  it.each([
    ["one GPU of two at 5%", "0\n5\n", [], []],
    ["a GPU nvidia-smi cannot read", "[N/A]\n", [], []],
    ["no GPU listed", "", [], []],
    ["an SSH session (tcp6)", "0\n", [], [sshSession6]],
    ["an SSH session (tcp)", "0\n", [sshSession6.replace(/[0-9A-F]{32}/g, "0100007F")], []],
  ])("never acts with %s", async (_what, utilization, tcp, tcp6) => {
    bin.standIns(startSeconds, ["curl"]);
    gpus(utilization);
    connections(tcp, tcp6);
    await runUntilLooks(idle(10), 40);
    expect(bin.lines("calls")).toEqual([]);
  });

  it("never acts without nvidia-smi, or when it fails", async () => {
    bin.standIns(startSeconds, ["curl"]);
    connections([]);
    await runUntilLooks(idle(10), 30);
    expect(bin.lines("calls")).toEqual([]);
    bin.tool("nvidia-smi", "echo 0; exit 9");
    await runUntilLooks(idle(10), 60);
    expect(bin.lines("calls")).toEqual([]);
  });

  it("keeps maxLifetime's deadline: whichever rule comes first acts, with its own action", async () => {
    const expiry = expiryFrom(100, "stop", startSeconds * 1000);
    // Busy: the deadline stops it, the last sleep cut short to reach it exactly.
    bin.standIns(startSeconds, ["curl"]);
    gpus("90\n");
    connections([]);
    await bin.run(script({ expiry, ...idle(300) }), bin.called);
    expect(bin.lines("sleeps")).toEqual(["30", "30", "30", "10"]);
    expect(bin.lines("calls")).toEqual([stopCall]);
    bin.remove();
    // Idle: the idle rule destroys it before the deadline.
    bin = watchdogStandIns();
    bin.standIns(startSeconds, ["curl"]);
    gpus("0\n");
    connections([]);
    await bin.run(script({ expiry, ...idle(60) }), bin.called);
    expect(bin.lines("sleeps")).toEqual(Array<string>(10).fill("6"));
    expect(bin.lines("calls")).toEqual([destroyCall]);
  });

  it("does nothing without a clock", async () => {
    bin.standIns(startSeconds, ["curl"]);
    bin.tool("date", "echo %s");
    gpus("0\n");
    connections([]);
    await bin.run(script(idle(10)), bin.called, 500);
    expect(bin.lines("calls")).toEqual([]);
    expect(bin.lines("sleeps")).toEqual([]);
  });
});
