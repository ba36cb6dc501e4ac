import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { z } from "zod";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { createInstance, errorOf, INSTANCE_ASK_ID } from "./helpers";

// Real key shapes: the blob starts with its own type name, as OpenSSH writes it.
const ED25519 =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGgGqKZ6Wq2nTzZ8e3xvYb0wJ5m9cQm1nq3fJq7pY2xK dev@laptop";
const OTHER_ED25519 =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB3t8xQ0m4Jr2Vb9nYc6dK1pL5sW7eZ0aH3gT8uF2vXo ci@runner";

const CreatedSchema = z.object({
  success: z.literal(true),
  key: z.object({
    id: z.int(),
    user_id: z.int(),
    public_key: z.string(),
    created_at: z.iso.datetime(),
    deleted_at: z.null(),
  }),
});
const InstanceKeysSchema = z.object({ success: z.literal(true), ssh_keys: z.string() });

describe("SSH keys", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  async function register(publicKey: string): Promise<number> {
    const reply = await emulator.call("POST", "/api/v0/ssh/", { ssh_key: publicKey });
    return CreatedSchema.parse(reply.body).key.id;
  }

  async function keyIdsOn(instanceId: number): Promise<number[]> {
    const reply = await emulator.call("GET", `/api/v0/instances/${String(instanceId)}/ssh/`);
    const listed = z
      .array(z.object({ id: z.int(), name: z.string().nullable(), public_key: z.string() }))
      .parse(JSON.parse(InstanceKeysSchema.parse(reply.body).ssh_keys));
    return listed.map((k) => k.id);
  }

  it("registers, lists, updates and deletes a key with the documented shapes", async () => {
    const { call } = emulator;
    expect((await call("GET", "/api/v0/ssh/")).body).toEqual([]);

    const created = CreatedSchema.parse(
      (await call("POST", "/api/v0/ssh/", { ssh_key: ED25519 })).body,
    );
    expect(created.key).toMatchObject({ id: 1, user_id: 1, public_key: ED25519 });

    expect((await call("GET", "/api/v0/ssh/")).body).toEqual([
      { id: 1, user_id: 1, key: ED25519, created_at: created.key.created_at, deleted_at: null },
    ]);

    const updated = await call("PUT", "/api/v0/ssh/1/", { ssh_key: OTHER_ED25519 });
    expect(CreatedSchema.parse(updated.body).key).toMatchObject({
      id: 1,
      public_key: OTHER_ED25519,
    });

    expect((await call("DELETE", "/api/v0/ssh/1/")).body).toEqual({ success: true });
    expect((await call("GET", "/api/v0/ssh/")).body).toEqual([]);
    expect(errorOf(await call("DELETE", "/api/v0/ssh/1/"))).toEqual({
      status: 400,
      error: "no_ssh_key",
    });
    expect(errorOf(await call("PUT", "/api/v0/ssh/1/", { ssh_key: ED25519 }))).toEqual({
      status: 400,
      error: "no_ssh_key",
    });
  });

  it.each([
    [{}, "no_ssh_key"],
    [{ ssh_key: "   " }, "no_ssh_key"],
    [{ ssh_key: 42 }, "no_ssh_key"],
    [{ ssh_key: "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA==" }, "no_ssh_key"],
    [{ ssh_key: "ssh-foo AAAAC3NzaC1lZDI1NTE5AAAAIGgG" }, "no_ssh_key"],
    [{ ssh_key: "ssh-ed25519 not*base64" }, "no_ssh_key"],
    // An RSA type with ed25519 key data: a mangled paste.
    [{ ssh_key: ED25519.replace("ssh-ed25519", "ssh-rsa") }, "no_ssh_key"],
    [{ ssh_key: `${ED25519}\n${OTHER_ED25519}` }, "no_ssh_key"],
  ])("refuses %j with 400 %s", async (body, error) => {
    expect(errorOf(await emulator.call("POST", "/api/v0/ssh/", body))).toEqual({
      status: 400,
      error,
    });
    expect((await emulator.call("GET", "/api/v0/ssh/")).body).toEqual([]);
  });

  it("shows the registered keys in users/current's ssh_key, after the legacy key", async () => {
    const { call, control } = emulator;
    const sshKeyOf = async () =>
      z.object({ ssh_key: z.string() }).parse((await call("GET", "/api/v0/users/current/")).body)
        .ssh_key;
    expect(await sshKeyOf()).toBe("");
    await register(ED25519);
    expect(await sshKeyOf()).toBe(ED25519);
    await control("PUT", "/_emulator/user", { ssh_key: "ssh-rsa AAAAlegacy old@desk" });
    await register(OTHER_ED25519);
    expect(await sshKeyOf()).toBe(`ssh-rsa AAAAlegacy old@desk\n${ED25519}\n${OTHER_ED25519}`);
  });

  it("lets a VM be created once a key is registered through the API, and not after it is deleted", async () => {
    const { call } = emulator;
    const vm = { image: "ubuntu:22.04", disk: 16, runtype: "vm" };
    const path = `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`;
    expect(errorOf(await call("PUT", path, vm))).toEqual({
      status: 400,
      error: "no_ssh_key_for_vm",
    });

    const keyId = await register(ED25519);
    expect((await call("PUT", path, vm)).status).toBe(200);

    await call("DELETE", `/api/v0/ssh/${String(keyId)}/`);
    expect(errorOf(await call("PUT", path, vm))).toEqual({
      status: 400,
      error: "no_ssh_key_for_vm",
    });
  });

  it("adds a new account key to every current instance, and instances get the keys from before them", async () => {
    const older = await createInstance(emulator.call);
    expect(await keyIdsOn(older)).toEqual([]);

    const first = await register(ED25519);
    expect(await keyIdsOn(older)).toEqual([first]);

    const newer = await createInstance(emulator.call);
    expect(await keyIdsOn(newer)).toEqual([first]);

    const second = await register(OTHER_ED25519);
    expect(await keyIdsOn(older)).toEqual([first, second]);
    expect(await keyIdsOn(newer)).toEqual([first, second]);
  });

  it("attaches a key to one instance and detaches it by id", async () => {
    const { call } = emulator;
    const one = await createInstance(call);
    const two = await createInstance(call);

    const attached = await call("POST", `/api/v0/instances/${String(one)}/ssh/`, {
      ssh_key: ED25519,
    });
    expect(attached.body).toEqual({ success: true, msg: "SSH key attached successfully" });
    // A key the account did not have is registered, so that it has an id to detach it by...
    const listed = z
      .array(z.object({ id: z.int() }))
      .parse((await call("GET", "/api/v0/ssh/")).body);
    expect(listed).toHaveLength(1);
    const keyId = listed[0]?.id ?? -1;
    // ...but only the instance it was attached to carries it.
    expect(await keyIdsOn(one)).toEqual([keyId]);
    expect(await keyIdsOn(two)).toEqual([]);
    // Attaching the same key again (another comment) changes nothing.
    await call("POST", `/api/v0/instances/${String(one)}/ssh/`, {
      ssh_key: ED25519.replace("dev@laptop", "same key"),
    });
    expect(await keyIdsOn(one)).toEqual([keyId]);

    const detached = await call("DELETE", `/api/v0/instances/${String(one)}/ssh/${String(keyId)}/`);
    expect(detached.body).toEqual({ success: true, msg: "SSH key removed from instance." });
    expect(await keyIdsOn(one)).toEqual([]);
    expect(
      errorOf(await call("DELETE", `/api/v0/instances/${String(one)}/ssh/${String(keyId)}/`)),
    ).toEqual({ status: 404, error: "no_such_ssh_key" });
  });

  it("answers unknown instances and malformed ids with the documented errors", async () => {
    const { call } = emulator;
    const id = await createInstance(call);
    expect(errorOf(await call("POST", "/api/v0/instances/42/ssh/", { ssh_key: ED25519 }))).toEqual({
      status: 404,
      error: "no_such_instance",
    });
    expect(errorOf(await call("GET", "/api/v0/instances/42/ssh/"))).toEqual({
      status: 404,
      error: "no_such_instance",
    });
    expect(errorOf(await call("DELETE", "/api/v0/instances/42/ssh/1/"))).toEqual({
      status: 404,
      error: "no_such_instance",
    });
    expect(errorOf(await call("DELETE", `/api/v0/instances/${String(id)}/ssh/abc/`))).toEqual({
      status: 400,
      error: "invalid_request",
    });
    expect(errorOf(await call("POST", `/api/v0/instances/${String(id)}/ssh/`, {}))).toEqual({
      status: 400,
      error: "no_ssh_key",
    });
  });

  it("forgets a destroyed instance's keys and empties everything on reset", async () => {
    const { call, control } = emulator;
    const id = await createInstance(call);
    await register(ED25519);
    await call("DELETE", `/api/v0/instances/${String(id)}/`);
    await register(OTHER_ED25519);
    const state = z
      .object({ sshKeyAttachments: z.array(z.object({ instanceId: z.int() })) })
      .parse((await control("GET", "/_emulator/state")).body);
    expect(state.sshKeyAttachments).toEqual([]);

    await control("POST", "/_emulator/reset");
    expect((await call("GET", "/api/v0/ssh/")).body).toEqual([]);
    expect(await register(ED25519)).toBe(1);
  });

  it("keeps registered keys in the state file and loads a file from before SSH keys", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpucloud-ssh-"));
    const stateFile = path.join(dir, "state.json");
    try {
      await emulator.close();
      emulator = await startTestEmulator({ stateFile });
      await register(ED25519);
      await emulator.close();
      emulator = await startTestEmulator({ stateFile });
      expect((await emulator.call("GET", "/api/v0/ssh/")).body).toMatchObject([{ id: 1 }]);
      await emulator.close();

      // The previous version's file: no SSH key fields at all.
      const old = z
        .record(z.string(), z.unknown())
        .parse(JSON.parse(fs.readFileSync(stateFile, "utf8")));
      delete old["sshKeys"];
      delete old["sshKeyAttachments"];
      delete old["nextSshKeyId"];
      fs.writeFileSync(stateFile, JSON.stringify(old));
      emulator = await startTestEmulator({ stateFile });
      expect((await emulator.call("GET", "/api/v0/ssh/")).body).toEqual([]);
      expect(await register(OTHER_ED25519)).toBe(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
