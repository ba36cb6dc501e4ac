import { useEmulator } from "../support/use-emulator";
import { failureOf, summary } from "./harness";

const ED25519 =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGgGqKZ6Wq2nTzZ8e3xvYb0wJ5m9cQm1nq3fJq7pY2xK dev@laptop";
const OTHER_ED25519 =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB3t8xQ0m4Jr2Vb9nYc6dK1pL5sW7eZ0aH3gT8uF2vXo ci@runner";

describe("sshKeys", () => {
  const h = useEmulator({ per: "test" });

  it("creates, lists, updates and deletes account keys in one shape", async () => {
    expect(await h.client.sshKeys.list()).toEqual([]);

    const created = await h.client.sshKeys.create(ED25519);
    expect(created).toEqual({ id: 1, publicKey: ED25519, createdAt: expect.any(String) as string });
    expect(await h.client.sshKeys.list()).toEqual([created]);

    const updated = await h.client.sshKeys.update(created.id, OTHER_ED25519);
    expect(updated).toEqual({ ...created, publicKey: OTHER_ED25519 });

    await h.client.sshKeys.delete(created.id);
    expect(await h.client.sshKeys.list()).toEqual([]);
    expect(summary(await h.emulator.requests())).toEqual([
      "GET /api/v0/ssh/ 200",
      "POST /api/v0/ssh/ 200",
      "GET /api/v0/ssh/ 200",
      "PUT /api/v0/ssh/1/ 200",
      "DELETE /api/v0/ssh/1/ 200",
      "GET /api/v0/ssh/ 200",
    ]);
  });

  it("reports deleting a missing key as not found, though the service answers 400", async () => {
    const error = await failureOf(h.client.sshKeys.delete(9));

    expect(error).toMatchObject({ status: 400, code: "no_ssh_key", isNotFound: true });
  });

  it("passes the service's refusal of a malformed key through, and sends no blank key", async () => {
    const refused = await failureOf(h.client.sshKeys.create("ssh-rsa not-a-key"));
    expect(refused).toMatchObject({ status: 400, code: "no_ssh_key", mayHaveCreated: false });

    const blank = await failureOf(h.client.sshKeys.create("  "));
    expect(blank.status).toBeUndefined();
    expect(blank.message).toContain("was not sent");
    expect(await h.emulator.writes()).toHaveLength(1);
  });

  it("attaches a key to an instance, shows it there and detaches it", async () => {
    const instanceId = await h.client.instances.create(31001, { image: "ubuntu:22.04", disk: 10 });

    await h.client.sshKeys.attach(instanceId, ED25519);
    const [onInstance] = await h.client.sshKeys.onInstance(instanceId);
    expect(onInstance).toEqual({ id: 1, name: "dev@laptop", public_key: ED25519 });

    await h.client.sshKeys.detach(instanceId, onInstance?.id ?? -1);
    expect(await h.client.sshKeys.onInstance(instanceId)).toEqual([]);

    const error = await failureOf(h.client.sshKeys.detach(instanceId, 1));
    expect(error).toMatchObject({ status: 404, code: "no_such_ssh_key", isNotFound: true });
  });

  it("makes the account able to rent a VM", async () => {
    expect((await h.client.users.current()).hasSshKey).toBe(false);
    await h.client.sshKeys.create(ED25519);
    expect((await h.client.users.current()).hasSshKey).toBe(true);
  });
});
