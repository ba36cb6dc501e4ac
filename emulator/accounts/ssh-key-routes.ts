import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Instance } from "../instances/instance-state";
import type { EmulatorContext } from "../shared/context";
import { ApiError, pathId } from "../shared/http";
import type { State } from "../shared/state";
import type { SshKey } from "./account-state";
import {
  type PublicKey,
  attachKey,
  deleteKey,
  detachKey,
  keyComment,
  keysOnInstance,
  parsePublicKey,
  registerKey,
  sameKey,
  storeKey,
} from "./ssh-keys";

const SshKeyBodySchema = z.object({ ssh_key: z.string().trim().min(1) });
const DetachParamsSchema = z.object({
  sshKeyId: z
    .string()
    .regex(/^[0-9]+$/)
    .transform(Number),
});

/** A missing or malformed key: the OpenAPI's one code for both (no_ssh_key), saying which. */
function publicKeyOf(body: unknown): PublicKey {
  const input = SshKeyBodySchema.safeParse(body);
  if (!input.success) throw new ApiError(400, "no_ssh_key", "No ssh key provided.");
  const key = parsePublicKey(input.data.ssh_key);
  if (typeof key === "string") throw new ApiError(400, "no_ssh_key", key);
  return key;
}

function timestamp(ms: number): string {
  return new Date(ms).toISOString();
}

/** The create and update answers name the key `public_key`; the list names it `key`. */
function describeKey(state: State, key: SshKey) {
  return {
    id: key.id,
    user_id: state.user.id,
    public_key: key.publicKey,
    created_at: timestamp(key.createdAtMs),
    deleted_at: null,
  };
}

export function registerSshRoutes(app: FastifyInstance, { store }: EmulatorContext): void {
  // The service's categories: reading keys is user_read, changing them user_write; keys on an
  // instance belong to the instance's categories.
  const userRead = { category: "user_read" } as const;
  const userWrite = { category: "user_write" } as const;
  const instanceRead = { category: "instance_read" } as const;
  const instanceWrite = { category: "instance_write" } as const;

  // The description answers an unknown key id with 400 no_ssh_key, not 404.
  const findKey = (params: unknown): SshKey => {
    const id = pathId(params);
    const key = store.state.sshKeys.find((k) => k.id === id);
    if (!key) throw new ApiError(400, "no_ssh_key", "No ssh key with that id.");
    return key;
  };
  const findInstance = (params: unknown): Instance => {
    const id = pathId(params);
    const instance = store.state.instances.find((i) => i.id === id);
    if (!instance) throw new ApiError(404, "no_such_instance", "No instance with that id.");
    return instance;
  };

  app.get("/api/v0/ssh/", { config: userRead }, async () => {
    const { state } = store;
    return state.sshKeys.map((key) => ({
      id: key.id,
      user_id: state.user.id,
      key: key.publicKey,
      created_at: timestamp(key.createdAtMs),
      deleted_at: null,
    }));
  });

  app.post("/api/v0/ssh/", { config: userWrite }, async (request) => {
    const publicKey = publicKeyOf(request.body);
    const key = store.mutate((state) => registerKey(state, publicKey));
    return { success: true, key: describeKey(store.state, key) };
  });

  app.put("/api/v0/ssh/:id/", { config: userWrite }, async (request) => {
    const key = findKey(request.params);
    const publicKey = publicKeyOf(request.body);
    store.mutate(() => (key.publicKey = publicKey.text));
    return { success: true, key: describeKey(store.state, key) };
  });

  app.delete("/api/v0/ssh/:id/", { config: userWrite }, async (request) => {
    const key = findKey(request.params);
    store.mutate((state) => {
      deleteKey(state, key);
    });
    return { success: true };
  });

  // The description gives ssh_keys as a JSON-encoded string, not an array.
  app.get("/api/v0/instances/:id/ssh/", { config: instanceRead }, async (request) => {
    const instance = findInstance(request.params);
    const keys = store.mutate((state) => keysOnInstance(state, instance));
    const shown = keys.map((k) => ({
      id: k.id,
      name: keyComment(k.publicKey),
      public_key: k.publicKey,
    }));
    return { success: true, ssh_keys: JSON.stringify(shown) };
  });

  // A key the account does not have yet is added to it (and so gets an id to detach it by).
  app.post("/api/v0/instances/:id/ssh/", { config: instanceWrite }, async (request) => {
    const instance = findInstance(request.params);
    const publicKey = publicKeyOf(request.body);
    store.mutate((state) => {
      const key =
        state.sshKeys.find((k) => sameKey(k.publicKey, publicKey)) ?? storeKey(state, publicKey);
      attachKey(state, instance, key);
    });
    return { success: true, msg: "SSH key attached successfully" };
  });

  app.delete("/api/v0/instances/:id/ssh/:sshKeyId/", { config: instanceWrite }, async (request) => {
    const instance = findInstance(request.params);
    const params = DetachParamsSchema.safeParse(request.params);
    if (!params.success) {
      throw new ApiError(400, "invalid_request", "ssh_key_id must be a number.");
    }
    const { sshKeyId } = params.data;
    if (!store.mutate((state) => detachKey(state, instance, sshKeyId))) {
      throw new ApiError(404, "no_such_ssh_key", "That SSH key is not on the instance.");
    }
    return { success: true, msg: "SSH key removed from instance." };
  });
}
