import { request } from "undici";
import { useEmulator } from "../support/use-emulator";
import { summary } from "./harness";

const ED25519_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGgGqKZ6Wq2nTzZ8e3xvYb0wJ5m9cQm1nq3fJq7pY2xK dev@laptop";

describe("users.current", () => {
  const h = useEmulator({ per: "test" });

  it("returns the account's id, email, credit, balance, key id and whether an SSH key is registered", async () => {
    const user = await h.client.users.current();

    expect(user).toEqual({
      id: 1,
      email: "dev@example.com",
      credit: 100,
      balance: 0,
      keyId: 1,
      hasSshKey: false,
    });
    expect(summary(await h.emulator.requests())).toEqual(["GET /api/v0/users/current/ 200"]);
  });

  it("never returns the API key that the service echoes in the body", async () => {
    // The emulator, like the real service, puts the caller's key in the body...
    const raw = await request(`${h.emulator.url}/api/v0/users/current/`, {
      headers: { authorization: `Bearer ${h.emulator.apiKey}` },
    });
    expect(await raw.body.text()).toContain(h.emulator.apiKey);

    // ...and the client drops it.
    const user = await h.client.users.current();
    expect(JSON.stringify(user)).not.toContain(h.emulator.apiKey);
    expect(Object.keys(user).sort()).toEqual([
      "balance",
      "credit",
      "email",
      "hasSshKey",
      "id",
      "keyId",
    ]);
  });

  it("reflects account changes: a registered SSH key, the credit and the email", async () => {
    await h.emulator.setUser({
      ssh_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample dev@example.com",
      credit: 12.5,
      email: "ops@example.com",
    });

    expect(await h.client.users.current()).toMatchObject({
      email: "ops@example.com",
      credit: 12.5,
      hasSshKey: true,
    });
  });

  it("counts a blank SSH key as none", async () => {
    await h.emulator.setUser({ ssh_key: "   " });

    expect((await h.client.users.current()).hasSshKey).toBe(false);
  });

  it("counts a key registered through the SSH key API, and names the key in use by id", async () => {
    const scoped = await h.client.apiKeys.create({
      name: "reader",
      permissions: { api: { user_read: {} } },
    });
    await h.client.sshKeys.create(ED25519_KEY);

    const user = await h.newClient({ apiKey: scoped.key }).users.current();

    expect(user).toMatchObject({ hasSshKey: true, keyId: scoped.id });
    expect(JSON.stringify(user)).not.toContain("AAAAC3Nza");
  });
});
