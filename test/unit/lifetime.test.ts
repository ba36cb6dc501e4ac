import { createHash, randomBytes } from "node:crypto";
import {
  diffInstance,
  instanceInputsSchema,
  type InstanceInputs,
  type InstanceOutputs,
} from "../../provider/resources/instance";
import { launchesAnew } from "../../provider/resources/instance/diff";
import { runningInstance } from "../../provider/resources/instance/test-data";
import { nodeGroupInputsSchema, type NodeGroupOutputs } from "../../provider/resources/node-group";
import { diffNodeGroup, rebuildFieldsChanged } from "../../provider/resources/node-group/diff";
import { runningGroup } from "../../provider/resources/node-group/test-data";
import { expiredReason, lifetimeFailures, recordedExpiry } from "../../provider/renting/lifetime";
import { specOf } from "../../provider/renting/identity";
import { Run } from "../../provider/run/run";
import { checkInputs } from "../../provider/shared/validation";

// maxLifetime and onExpiry at check and in the diffs of Instance and NodeGroup
// (provider/renting/lifetime.ts): what is refused at preview, and what replaces.

const baseUrl = "https://console.example.com";
const hourMs = 3_600_000;
const now = Date.UTC(2026, 0, 1, 12);

describe("maxLifetime and onExpiry at check", () => {
  const reasons = (news: Record<string, unknown>) => {
    const checked = checkInputs(instanceInputsSchema, news, { type: "Instance" });
    return [...checked.failures, ...lifetimeFailures(checked.inputs, news, baseUrl)].map(
      (failure) => failure.reason,
    );
  };

  it("takes a whole number and a unit, s to d, up to a year", () => {
    for (const maxLifetime of ["30s", "90m", "8h", "3d", "365d"]) {
      expect(reasons({ maxLifetime })).toEqual([]);
    }
    expect(reasons({ maxLifetime: "8h", onExpiry: "stop" })).toEqual([]);
  });

  it("refuses anything else in one line naming maxLifetime, never echoing the text", () => {
    expect(reasons({ maxLifetime: "forever" })).toEqual([
      'maxLifetime: must be a whole number followed by s, m, h or d, e.g. "30s", ' +
        '"90m", "8h" or "3d" (received a string of 7 characters)',
    ]);
    expect(reasons({ maxLifetime: "hf_secret_token" }).join()).not.toContain("hf_secret");
    expect(reasons({ maxLifetime: 3600 })).toEqual([
      'maxLifetime: expected a string, received 3600 (maxLifetime is a duration: a whole number and s, m, h or d, e.g. "8h")',
    ]);
    expect(reasons({ maxLifetime: "366d" })).toEqual([
      "maxLifetime: must be at most 365d (a year)",
    ]);
  });

  it("refuses an onExpiry that is not destroy or stop, or that has no maxLifetime", () => {
    expect(reasons({ maxLifetime: "8h", onExpiry: "hibernate" })).toEqual([
      "onExpiry: must be destroy or stop (received a string of 9 characters)",
    ]);
    expect(reasons({ onExpiry: "stop" })).toEqual([
      'onExpiry: applies at the end of maxLifetime; give maxLifetime (e.g. "8h") or leave ' +
        "onExpiry out",
    ]);
  });

  it("refuses a launch that runs no onstart: a VM or an args launch", () => {
    expect(reasons({ maxLifetime: "8h", runtype: "vm" })).toEqual([
      "maxLifetime: is enforced by a watchdog in the onstart, which a runtype vm launch does " +
        "not run; use runtype ssh or jupyter, or leave maxLifetime out",
    ]);
    expect(reasons({ maxLifetime: "8h", runtype: "args" })).toHaveLength(1);
    expect(reasons({ runtype: "args" })).toEqual([]);
  });

  it("counts the watchdog in the onstart's length, compressed when needed", () => {
    // Fits alone; with the watchdog only compressed (it compresses well).
    expect(reasons({ maxLifetime: "8h", onstart: "echo step\n".repeat(400) })).toEqual([]);
    // Fits alone, uncompressed; the watchdog takes it over the limit, and it does not compress.
    const incompressible = randomBytes(2925).toString("base64");
    expect(reasons({ onstart: incompressible })).toEqual([]);
    const [failure, ...others] = reasons({ maxLifetime: "8h", onstart: incompressible });
    expect(others).toEqual([]);
    expect(failure).toMatch(
      /^onstart: 3900 characters, \d+ with maxLifetime's watchdog \(\d+ more\), \d+ even when gzipped/,
    );
    // Said in a line, echoing none of the onstart.
    expect(failure).not.toContain(incompressible.slice(0, 40));
    expect(failure).not.toContain("\n");
  });

  it("NodeGroup takes the same fields", () => {
    const checked = checkInputs(
      nodeGroupInputsSchema,
      { maxLifetime: "8", onExpiry: "stop" },
      { type: "NodeGroup" },
    );
    expect(checked.failures.map((failure) => failure.reason)).toContain(
      'maxLifetime: must be a whole number followed by s, m, h or d, e.g. "30s", ' +
        '"90m", "8h" or "3d" (received a string of 1 character)',
    );
  });
});

describe("Instance diff: maxLifetime", () => {
  const inputs: InstanceInputs = {
    askId: 31001,
    image: "img",
    diskGb: 20,
    runtype: "ssh",
    state: "running",
    createTimeoutSeconds: 1200,
    maxAttempts: 3,
    pollIntervalSeconds: 3,
    maxLifetime: "8h",
  };
  const created = now - 2 * hourMs;
  const olds: InstanceOutputs = {
    ...runningInstance(inputs),
    expiresAt: new Date(created + 8 * hourMs).toISOString(),
  };
  const diff = (news: InstanceInputs, recorded = olds, at = now) =>
    diffInstance(recorded, news, at);
  const replaced = (field: string) => ({
    changes: true,
    replaces: [field],
    deleteBeforeReplace: true,
  });

  it("changes nothing while the instance has time left", () => {
    expect(diff(inputs)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(expiredReason(olds, now)).toBeUndefined();
  });

  it("replaces an instance whose expiresAt has passed, saying why", () => {
    const after = created + 8 * hourMs;
    expect(diff(inputs, olds, after)).toEqual(replaced("expiresAt"));
    expect(expiredReason(olds, after)).toBe(
      "expired at 2026-01-01T18:00:00Z (maxLifetime 8h): its watchdog destroyed it",
    );
    const stopped = { ...olds, onExpiry: "stop" as const, state: "stopped" as const };
    expect(diff({ ...inputs, onExpiry: "stop" }, stopped, after)).toEqual(replaced("expiresAt"));
    expect(expiredReason(stopped, after)).toBe(
      "expired at 2026-01-01T18:00:00Z (maxLifetime 8h): its watchdog stopped it (its disk " +
        "bills until it is replaced)",
    );
  });

  it("replaces on a new duration, and when it is added or removed", () => {
    expect(diff({ ...inputs, maxLifetime: "9h" })).toEqual(replaced("maxLifetime"));
    const { maxLifetime: _dropped, ...without } = inputs;
    expect(diff(without)).toEqual(replaced("maxLifetime"));
    const { maxLifetime: _none, expiresAt: _at, ...recordedWithout } = olds;
    expect(diff(inputs, recordedWithout)).toEqual(replaced("maxLifetime"));
    // A recorded instance without maxLifetime never expires.
    expect(diff(without, recordedWithout, now + 1000 * hourMs).changes).toBe(false);
    // Check knows a new lifetime launches anew (a VM's key, the disk are checked again).
    expect(launchesAnew(recordedWithout, inputs)).toBe(true);
  });

  it("replaces on a new onExpiry; records the same lifetime written otherwise in place", () => {
    expect(diff({ ...inputs, onExpiry: "stop" })).toEqual(replaced("onExpiry"));
    const inPlace = { changes: true, replaces: [], deleteBeforeReplace: false };
    expect(diff({ ...inputs, maxLifetime: "480m" })).toEqual(inPlace);
    expect(diff({ ...inputs, onExpiry: "destroy" })).toEqual(inPlace);
  });

  it("gives adoption another spec for another lifetime, the same without one", () => {
    const { maxLifetime: _dropped, ...without } = inputs;
    expect(specOf(inputs)).not.toBe(specOf(without));
    expect(specOf(inputs)).not.toBe(specOf({ ...inputs, onExpiry: "stop" }));
    expect(specOf(inputs)).toBe(specOf({ ...inputs, maxLifetime: "480m" }));
    // Instances rented without one keep the digest of releases before maxLifetime.
    const before = JSON.stringify(["img", 20, null, null, "ssh", null]);
    expect(specOf(without)).toBe(createHash("sha256").update(before).digest("hex").slice(0, 32));
  });
});

describe("NodeGroup diff: maxLifetime", () => {
  const run = new Run();
  const inputs = {
    nodeCount: 2,
    offerQuery: { gpuName: "H100 SXM" },
    image: "img",
    diskGb: 40,
    createTimeoutSeconds: 1200,
    pollIntervalSeconds: 3,
    maxLifetime: "3d",
    onExpiry: "stop" as const,
  };
  const olds: NodeGroupOutputs = runningGroup(inputs, "2026-01-03T00:00:00Z");

  it("keeps the group before its deadline and replaces it after", async () => {
    expect(await diffNodeGroup(run, olds, inputs, now)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(await diffNodeGroup(run, olds, inputs, Date.parse(olds.expiresAt ?? ""))).toEqual({
      changes: true,
      replaces: ["expiresAt"],
      deleteBeforeReplace: true,
    });
  });

  it("replaces on a new lifetime or onExpiry, added or removed", async () => {
    const replaces = async (news: Partial<typeof inputs>) =>
      (await diffNodeGroup(run, olds, { ...inputs, ...news }, now)).replaces;
    expect(await replaces({ maxLifetime: "4d" })).toEqual(["maxLifetime"]);
    expect(await replaces({ maxLifetime: undefined })).toEqual(["maxLifetime"]);
    expect(await replaces({ onExpiry: "destroy" as never })).toEqual(["onExpiry"]);
    expect(await replaces({ maxLifetime: "72h" })).toEqual([]);
  });

  it("rebuilds in place on a new idle rule (each node's onstart holds it); the same rule written otherwise is only recorded", async () => {
    const idle = { ...olds, idleShutdown: { after: "30m" } };
    const diff = (idleShutdown?: { after: string; action?: "destroy" | "stop" }) => {
      const news = { ...inputs, ...(idleShutdown ? { idleShutdown } : {}) };
      return {
        diff: diffNodeGroup(run, idle, news, now),
        rebuilt: rebuildFieldsChanged(idle, news),
      };
    };
    const inPlace = { changes: true, replaces: [], deleteBeforeReplace: false };
    for (const rule of [{ after: "1h" }, { after: "30m", action: "stop" as const }, undefined]) {
      const { diff: changed, rebuilt } = diff(rule);
      expect(await changed).toEqual(inPlace);
      expect(rebuilt).toEqual(["idleShutdown"]);
    }
    const same = diff({ after: "1800s", action: "destroy" });
    expect(await same.diff).toEqual(inPlace);
    expect(same.rebuilt).toEqual([]);
  });

  it("gives nodes rented later the group's recorded deadline", () => {
    expect(recordedExpiry(olds)).toEqual({
      maxLifetimeSeconds: 3 * 86_400,
      onExpiry: "stop",
      deadlineEpochSeconds: Date.UTC(2026, 0, 3) / 1000,
    });
  });
});
