import { generateKeyPairSync, randomBytes } from "node:crypto";
import { apiKeyInputsSchema, diffApiKey } from "../../provider/resources/api-key";
import { diffSshKey, fingerprintOf, parsePublicKey } from "../../provider/resources/ssh-key";
import { implementation as sshKeyProvider } from "../../provider/resources/ssh-key";
import { checkInputs } from "../../provider/shared/validation";
import { Run } from "../../provider/run/run";

// Keys generated with `ssh-keygen -t <type>`, and the fingerprints `ssh-keygen -lf` printed.
const ed25519 =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPhlKxSmAILXPiklFetxXJ412q6DLq52hOZ2JGxdT6n0 dev@example";
const rsa =
  "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQCpQkFjaEeRPx9dzHHuRV0M+4hLEyfGYtrHxz1NpMu3HLR4A3oMq53AbS38I8Lvglx4xzKrokYmIK2H5M84UuLCDHHCfdJwrSue4+wAvX3IMjmm6ktjhYIZfZ9lrFkE6llx6brTJRdaxq7DFSAPsCLCwAsD/rqiZBjHkYV5uWxwOw==";
const ecdsa =
  "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBCEc8sKajv0D6PWHL0mIAU+wQOERq0nKHPkrZhW1eJcMXUObCCjvharHk9pGEWcs6UGulzhyDBpNeCTwcXnPIAw= ci";

/** Private keys in the forms people paste: OpenSSH's own and PKCS#8 PEM. */
function privateKeys(): string[] {
  const body = randomBytes(180).toString("base64").replace(/.{70}/g, "$&\n");
  const openssh = `-----BEGIN OPENSSH PRIVATE KEY-----\n${body}\n-----END OPENSSH PRIVATE KEY-----\n`;
  const pem = generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" });
  return [openssh, String(pem)];
}

describe("SSH public keys", () => {
  it("computes the SHA256 fingerprint ssh-keygen prints", () => {
    expect(fingerprintOf(ed25519)).toBe("SHA256:BaVHplQrFzxdANndtnYRgO8syaCFIBY7cpwSY3G7N0k");
    expect(fingerprintOf(rsa)).toBe("SHA256:lNNfsFRyodAGhdjQupE8tQJbx/j8A04pdHmGWREMtJM");
    expect(fingerprintOf(ecdsa)).toBe("SHA256:G0aSOB1K9lAkZf3rW0QVZw2JgiuzaPwyVsr43dn8dvE");
    // The comment is a label only: it does not change the fingerprint.
    expect(fingerprintOf(ed25519.replace("dev@example", "other"))).toBe(fingerprintOf(ed25519));
  });

  it("accepts OpenSSH's one-line form, trimmed", () => {
    expect(parsePublicKey(`  ${ed25519}\n`)).toMatchObject({ ok: true, text: ed25519 });
  });

  it.each([
    ["", /must be an OpenSSH public key/],
    ["AAAAC3NzaC1lZDI1NTE5AAAAIPhlKxSm", /must be an OpenSSH public key/],
    ["ssh-ed25519 not*base64", /not a base64 ssh-ed25519 public key/],
    // Valid base64, but the key data names another type.
    [`ssh-ed25519 ${rsa.split(" ")[1] ?? ""}`, /not a base64 ssh-ed25519 public key/],
    [`${ed25519}\n${rsa}`, /must be one line/],
    [`ssh-ed25519 ${"A".repeat(5000)}`, /longer than 4096 characters/],
  ])("refuses a malformed key (%#)", (input, reason) => {
    const parsed = parsePublicKey(input);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(reason);
  });

  it("refuses a private key without quoting it, at check, with no property to print", async () => {
    // Every setting points at the address, but the cap, which is not one (and is optional).
    const run = new Run({
      config: {
        get: (key) => (key === "gpucloud:maxDollarsPerHour" ? undefined : "http://127.0.0.1:1"),
      },
    });
    for (const privateKey of privateKeys()) {
      const checked = await sshKeyProvider.check(run, {} as never, { publicKey: privateKey });
      // Nothing answers at the configured address: check says so too, in its own failure.
      const [address, key, ...rest] = checked?.failures ?? [];
      expect(address?.reason).toMatch(
        /^gpucloud:baseUrl http:\/\/127.0.0.1:1: nothing answers there \(connection refused\)/,
      );
      expect(rest).toEqual([]);
      expect(key?.property).toBe("");
      expect(key?.reason).toMatch(/^publicKey: holds a private key/);
      const shown = JSON.stringify(checked?.failures);
      for (const line of privateKey.split("\n").filter((l) => l.length > 8)) {
        expect(shown.includes(line) ? "echoed" : "clean").toBe("clean");
      }
    }
  });

  it("updates in place on a new key", () => {
    const olds = { publicKey: ed25519, sshKeyId: 1, fingerprint: fingerprintOf(ed25519) };
    expect(diffSshKey(olds, { publicKey: ed25519 })).toEqual({ changes: false, replaces: [] });
    expect(diffSshKey(olds, { publicKey: rsa })).toEqual({ changes: true, replaces: [] });
  });
});

describe("API key scopes", () => {
  const check = (permissions: unknown, name: unknown = "ci") =>
    checkInputs(apiKeyInputsSchema, { name, permissions }, { type: "ApiKey" }).failures.map(
      (f) => f.reason,
    );

  it("accepts the specification's shape with constraint objects", () => {
    expect(
      check({ api: { misc: {}, user_read: {}, instance_read: {}, instance_write: {} } }),
    ).toEqual([]);
    expect(check({ api: { billing_read: {}, instance_read: { max: 3 } } })).toEqual([]);
  });

  it.each([
    [undefined, /permissions must be \{ api:/],
    [{ api: {} }, /permissions.api: must grant at least one category/],
    [
      { api: { instance_reed: {} } },
      /permissions.api: instance_reed: not a permission category; the categories are misc, user_read/,
    ],
    [
      { api: { instance_read: true } },
      /permissions.api.instance_read: expected an object, received true \(each category maps to a constraint object/,
    ],
    [{ api: { misc: {} }, read: true }, /only api is allowed at the top level, not read/],
  ])("refuses a scope outside that shape (%#)", (permissions, reason) => {
    const failures = check(permissions);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(reason);
  });

  it("names every problem of a scope at once", () => {
    expect(check({ read: true, write: false })).toEqual([
      expect.stringMatching(/^permissions\.api: required: api must be an object of permission/),
      "permissions: only api is allowed at the top level, not read, write",
    ]);
  });

  it("refuses an empty name", () => {
    expect(check({ api: { misc: {} } }, " ")).toEqual(["name: must not be empty"]);
  });

  it("replaces on a new name or scope, not on the order of categories", () => {
    const olds = {
      name: "ci",
      permissions: { api: { instance_read: {}, misc: {} } },
      apiKeyId: 2,
      key: "k",
    };
    const same = { name: "ci", permissions: { api: { misc: {}, instance_read: {} } } };
    expect(diffApiKey(olds, same)).toEqual({ changes: false, replaces: [] });
    expect(diffApiKey(olds, { ...same, name: "other" })).toEqual({
      changes: true,
      replaces: ["name"],
    });
    expect(diffApiKey(olds, { ...same, permissions: { api: { misc: {} } } })).toEqual({
      changes: true,
      replaces: ["permissions"],
    });
  });
});
